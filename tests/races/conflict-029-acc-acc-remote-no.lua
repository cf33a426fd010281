-- ranks: 3
-- engines: native rma
-- env: RMALAB_CHECK=races:quiet
-- timeout: 120
-- RMARaceBench 1.2.0 MPIRMA/conflict/029-MPI-conflict-acc-acc-remote-no.c
-- Ranks 0 and 2 accumulate with the same op (sum) and type (int32) to rank
-- 1's element 0 in one fence epoch. Accumulates with the same op and basic
-- type are atomic per element: no race.
local rl = require "rmalab"
local T = require "rmalab.test"

T.case("conflict 029: accumulate by rank 0, accumulate by rank 2", function()
  T.races("no", { bytes = 40, disp_unit = 4 }, function(win, at)
    win:write(at(T.rank, 0), "int32", { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }) -- win_base[i] = 0
    win:fence()
    if T.rank == 0 then
      win:accumulate(1, at(1, 0), "int32", 1, "sum")
    end
    if T.rank == 2 then
      win:accumulate(1, at(1, 0), "int32", 2, "sum")
    end
    win:fence()
    rl.world:barrier()
    win:read(at(T.rank, 0), "int32") -- the final printf of win_base[0]
  end)
end)
