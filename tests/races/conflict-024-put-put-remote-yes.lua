-- ranks: 3
-- engines: native rma
-- env: RMALAB_CHECK=races:quiet
-- timeout: 120
-- RMARaceBench 1.2.0 MPIRMA/conflict/024-MPI-conflict-put-put-remote-yes.c
-- Ranks 0 and 2 both put to rank 1's element 0 in one fence epoch: two
-- unordered writes from different origins, a race.
local rl = require "rmalab"
local T = require "rmalab.test"

T.case("conflict 024: put by rank 0, put by rank 2", function()
  T.races("yes", { bytes = 40, disp_unit = 4 }, function(win, at)
    win:write(at(T.rank, 0), "int32", { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }) -- win_base[i] = 0
    win:fence()
    if T.rank == 0 then
      win:put(1, at(1, 0), "int32", 1)
    end
    if T.rank == 2 then
      win:put(1, at(1, 0), "int32", 2)
    end
    win:fence()
    rl.world:barrier()
    win:read(at(T.rank, 0), "int32") -- the final printf of win_base[0]
  end)
end)
