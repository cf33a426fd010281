-- ranks: 2
-- engines: native rma
-- env: RMALAB_CHECK=races:quiet
-- timeout: 120
-- RMARaceBench 1.2.0 MPIRMA/conflict/038-MPI-conflict-cas-store-remote-yes.c
-- Rank 0 does compare_and_swap on rank 1's element 0 (its compare value read
-- from its own element 0, as the C case passes &win_base[0]) while rank 1
-- stores to it in the same fence epoch: a race.
local rl = require "rmalab"
local T = require "rmalab.test"

T.case("conflict 038: compare_and_swap by rank 0, a store by rank 1", function()
  T.races("yes", { bytes = 40, disp_unit = 4 }, function(win, at)
    win:write(at(T.rank, 0), "int32", { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }) -- win_base[i] = 0
    win:fence()
    if T.rank == 0 then
      win:compare_and_swap(1, at(1, 0), "int32", win:read(at(T.rank, 0), "int32"), 1)
    end
    if T.rank == 1 then
      win:write(at(1, 0), "int32", 42)
    end
    win:fence()
    rl.world:barrier()
    win:read(at(T.rank, 0), "int32") -- the final printf of win_base[0]
  end)
end)
