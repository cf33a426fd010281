-- ranks: 2
-- engines: native rma
-- env: RMALAB_CHECK=races:quiet
-- timeout: 120
-- RMARaceBench 1.2.0 MPIRMA/conflict/027-MPI-conflict-acc-load-remote-yes.c
-- Rank 0 accumulates (sum) to rank 1's element 0 while rank 1 loads it in
-- the same fence epoch. The accumulate is atomic only against other
-- accumulates, not against a plain load: a race (MUST-RMA misses it).
local rl = require "rmalab"
local T = require "rmalab.test"

T.case("conflict 027: accumulate by rank 0, a load by rank 1", function()
  T.races("yes", { bytes = 40, disp_unit = 4 }, function(win, at)
    win:write(at(T.rank, 0), "int32", { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }) -- win_base[i] = 0
    win:fence()
    if T.rank == 0 then
      win:accumulate(1, at(1, 0), "int32", 1, "sum")
    end
    if T.rank == 1 then
      win:read(at(1, 0), "int32")
    end
    win:fence()
    rl.world:barrier()
    win:read(at(T.rank, 0), "int32") -- the final printf of win_base[0]
  end)
end)
