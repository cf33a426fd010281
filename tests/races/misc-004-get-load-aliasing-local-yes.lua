-- ranks: 2
-- engines: native rma
-- env: RMALAB_CHECK=races:quiet
-- timeout: 120
-- RMARaceBench 1.2.0 MPIRMA/misc/004-MPI-misc-get-load-aliasing-local-yes.c
-- In one fence epoch rank 0 gets into its buffer `value` and reads value
-- through an alias made by a function's out-parameter before the fence: the
-- same memory, a race on the result buffer, refused (ERR_RMA_SYNC).
local rl = require "rmalab"
local T = require "rmalab.test"

-- aliasgenerator(&x, &y) sets *y = *x: here through one-element boxes, and
-- the alias is a view of the whole buffer, another object over the same
-- memory.
local function aliasgenerator(x, y) y[1] = x[1]:sub(1) end

T.case("misc 004: get, then a load of its result through an alias", function()
  T.races("yes", { bytes = 40, disp_unit = 4 }, function(win, at)
    local value, value2 = rl.buffer("int32", { 1 }), rl.buffer("int32", { 2 }) -- int value = 1, value2 = 2
    win:write(at(T.rank, 0), "int32", { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }) -- win_base[i] = 0
    win:fence()
    local buf_alias = {}
    aliasgenerator({ value }, buf_alias)
    buf_alias = buf_alias[1]
    if T.rank == 0 then
      win:get(1, at(1, 0), "int32", value)
      T.racy(function() return buf_alias[1] end) -- printf("*buf_alias is %d\n", *buf_alias)
    end
    win:fence()
    rl.world:barrier()
    -- the final printf of value, value2 and win_base[0]
    local _ = { value[1], value2[1], win:read(at(T.rank, 0), "int32") }
  end)
end)
