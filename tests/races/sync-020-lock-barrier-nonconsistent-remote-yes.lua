-- ranks: 2
-- engines: native rma
-- env: RMALAB_CHECK=races:quiet
-- timeout: 120
-- RMARaceBench 1.2.0 MPIRMA/sync/020-MPI-sync-lock-barrier-nonconsistent-remote-yes.c
-- Rank 0 puts to rank 1's element 0 under a shared lock, all ranks barrier,
-- rank 1 loads, and only then does rank 0 unlock. The barrier orders the
-- put's issue before the load, but the put completes only at the unlock,
-- after it: a race.
local rl = require "rmalab"
local T = require "rmalab.test"

T.case("sync 020: the unlock comes after the barrier", function()
  T.races("yes", { bytes = 40, disp_unit = 4 }, function(win, at)
    win:write(at(T.rank, 0), "int32", { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }) -- win_base[i] = 0
    rl.world:barrier()
    if T.rank == 0 then
      win:lock(1, "shared")
      win:put(1, at(1, 0), "int32", 1)
    end
    rl.world:barrier()
    if T.rank == 1 then
      win:read(at(1, 0), "int32")
    end
    if T.rank == 0 then
      win:unlock(1)
    end
    rl.world:barrier()
    rl.world:barrier()
    win:read(at(T.rank, 0), "int32") -- the final printf of win_base[0]
  end)
end)
