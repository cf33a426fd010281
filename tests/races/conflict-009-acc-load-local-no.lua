-- ranks: 2
-- engines: native rma
-- env: RMALAB_CHECK=races:quiet
-- timeout: 120
-- RMARaceBench 1.2.0 MPIRMA/conflict/009-MPI-conflict-acc-load-local-no.c
-- Rank 0 accumulates its buffer `value` into rank 1 and reads value while it
-- is in flight: both read the origin, no race, and rmalab allows it.
local rl = require "rmalab"
local T = require "rmalab.test"

T.case("conflict 009: accumulate from value, then a load of value", function()
  T.races("no", { bytes = 40, disp_unit = 4 }, function(win, at)
    local value, value2 = rl.buffer("int32", { 1 }), rl.buffer("int32", { 2 }) -- int value = 1, value2 = 2
    win:write(at(T.rank, 0), "int32", { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }) -- win_base[i] = 0
    win:fence()
    if T.rank == 0 then
      win:accumulate(1, at(1, 0), "int32", value, "sum")
      local _ = value[1] -- printf("value is %d\n", value)
    end
    win:fence()
    rl.world:barrier()
    -- the final printf of value, value2 and win_base[0]
    local _ = { value[1], value2[1], win:read(at(T.rank, 0), "int32") }
  end)
end)
