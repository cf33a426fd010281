-- ranks: 2
-- engines: native rma
-- env: RMALAB_CHECK=races:quiet
-- timeout: 120
-- RMARaceBench 1.2.0 MPIRMA/sync/021-MPI-sync-lock-barrier-remote-yes.c
-- Rank 0 puts to rank 1's element 0 under a shared lock and unlocks; rank 1
-- loads element 0 at the same time, with no barrier between the unlock and
-- the load: a race.
local rl = require "rmalab"
local T = require "rmalab.test"

T.case("sync 021: lock, put, unlock, and a load with no barrier between", function()
  T.races("yes", { bytes = 40, disp_unit = 4 }, function(win, at)
    win:write(at(T.rank, 0), "int32", { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }) -- win_base[i] = 0
    rl.world:barrier()
    if T.rank == 0 then
      win:lock(1, "shared")
      win:put(1, at(1, 0), "int32", 1)
      win:unlock(1)
    end
    if T.rank == 1 then
      win:read(at(1, 0), "int32")
    end
    rl.world:barrier()
    rl.world:barrier()
    win:read(at(T.rank, 0), "int32") -- the final printf of win_base[0]
  end)
end)
