-- ranks: 2
-- engines: native rma
-- env: RMALAB_CHECK=races:quiet
-- timeout: 120
-- RMARaceBench 1.2.0 MPIRMA/misc/005-MPI-misc-put-load-retval-local-no.c
-- In one fence epoch rank 0 puts its buffer `value` to rank 1 and reads
-- value through an alias returned by a function: an origin is only read, no
-- race.
local rl = require "rmalab"
local T = require "rmalab.test"

-- aliasgenerator(&x) returns *x: the alias is a function's return value,
-- a view of the whole buffer (another object over the same memory).
local function aliasgenerator(x) return x[1]:sub(1) end

T.case("misc 005: put, then a load of its origin through an alias", function()
  T.races("no", { bytes = 40, disp_unit = 4 }, function(win, at)
    local value, value2 = rl.buffer("int32", { 1 }), rl.buffer("int32", { 2 }) -- int value = 1, value2 = 2
    win:write(at(T.rank, 0), "int32", { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }) -- win_base[i] = 0
    win:fence()
    local buf_alias = aliasgenerator({ value })
    if T.rank == 0 then
      win:put(1, at(1, 0), "int32", value)
      local _ = buf_alias[1] -- printf("*buf_alias is %d\n", *buf_alias)
    end
    win:fence()
    rl.world:barrier()
    -- the final printf of value, value2 and win_base[0]
    local _ = { value[1], value2[1], win:read(at(T.rank, 0), "int32") }
  end)
end)
