-- ranks: 2
-- engines: native rma
-- env: RMALAB_CHECK=races:quiet
-- timeout: 120
-- RMARaceBench 1.2.0 MPIRMA/sync/022-MPI-sync-lock-barrier-remote-no.c
-- Rank 0 puts to rank 1's element 0 under a shared lock and unlocks, which
-- completes the put; rank 1 loads only after the barrier that follows: no
-- race.
local rl = require "rmalab"
local T = require "rmalab.test"

T.case("sync 022: lock, put, unlock, barrier, then the load", function()
  T.races("no", { bytes = 40, disp_unit = 4 }, function(win, at)
    win:write(at(T.rank, 0), "int32", { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }) -- win_base[i] = 0
    rl.world:barrier()
    if T.rank == 0 then
      win:lock(1, "shared")
      win:put(1, at(1, 0), "int32", 1)
      win:unlock(1)
    end
    rl.world:barrier()
    if T.rank == 1 then
      win:read(at(1, 0), "int32")
    end
    rl.world:barrier()
    rl.world:barrier()
    win:read(at(T.rank, 0), "int32") -- the final printf of win_base[0]
  end)
end)
