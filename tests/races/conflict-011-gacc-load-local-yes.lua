-- ranks: 2
-- engines: native rma
-- env: RMALAB_CHECK=races:quiet
-- timeout: 120
-- RMARaceBench 1.2.0 MPIRMA/conflict/011-MPI-conflict-gacc-load-local-yes.c
-- Rank 0 get-accumulates from value2 with its result into `value`, and reads
-- value before the fence: a race on the result buffer, refused
-- (ERR_RMA_SYNC).
local rl = require "rmalab"
local T = require "rmalab.test"

T.case("conflict 011: get_accumulate into value, then a load of value", function()
  T.races("yes", { bytes = 40, disp_unit = 4 }, function(win, at)
    local value, value2 = rl.buffer("int32", { 1 }), rl.buffer("int32", { 2 }) -- int value = 1, value2 = 2
    win:write(at(T.rank, 0), "int32", { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }) -- win_base[i] = 0
    win:fence()
    if T.rank == 0 then
      win:get_accumulate(1, at(1, 0), "int32", value2, "sum", value)
      T.racy(function() return value[1] end) -- printf("value is %d\n", value)
    end
    win:fence()
    rl.world:barrier()
    -- the final printf of value, value2 and win_base[0]
    local _ = { value[1], value2[1], win:read(at(T.rank, 0), "int32") }
  end)
end)
