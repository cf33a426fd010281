-- ranks: 2
-- engines: native rma
-- env: RMALAB_CHECK=races:quiet
-- timeout: 120
-- RMARaceBench 1.2.0 MPIRMA/conflict/037-MPI-conflict-fop-store-remote-yes.c
-- Rank 0 does fetch_and_op (sum) on rank 1's element 0 while rank 1 stores
-- to it in the same fence epoch: a plain store against an atomic update, a
-- race. (1.2.0's fixed code: displacement 0, not 1.)
local rl = require "rmalab"
local T = require "rmalab.test"

T.case("conflict 037: fetch_and_op by rank 0, a store by rank 1", function()
  T.races("yes", { bytes = 40, disp_unit = 4 }, function(win, at)
    win:write(at(T.rank, 0), "int32", { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }) -- win_base[i] = 0
    win:fence()
    if T.rank == 0 then
      win:fetch_and_op(1, at(1, 0), "int32", 1, "sum")
    end
    if T.rank == 1 then
      win:write(at(1, 0), "int32", 42)
    end
    win:fence()
    rl.world:barrier()
    win:read(at(T.rank, 0), "int32") -- the final printf of win_base[0]
  end)
end)
