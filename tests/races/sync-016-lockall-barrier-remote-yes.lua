-- ranks: 2
-- engines: native rma
-- env: RMALAB_CHECK=races:quiet
-- timeout: 120
-- RMARaceBench 1.2.0 MPIRMA/sync/016-MPI-sync-lockall-barrier-remote-yes.c
-- Rank 0 puts to rank 1's element 0 inside lock_all and unlocks; rank 1
-- loads element 0 right after its own unlock_all, before the barrier. Rank
-- 1's unlock_all does not wait for rank 0's: the put and the load are
-- unordered, a race.
local rl = require "rmalab"
local T = require "rmalab.test"

T.case("sync 016: the load comes before the barrier", function()
  T.races("yes", { bytes = 40, disp_unit = 4 }, function(win, at)
    win:write(at(T.rank, 0), "int32", { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }) -- win_base[i] = 0
    rl.world:barrier()
    win:lock_all()
    if T.rank == 0 then
      win:put(1, at(1, 0), "int32", 1)
    end
    win:unlock_all()
    if T.rank == 1 then
      win:read(at(1, 0), "int32")
    end
    rl.world:barrier()
    rl.world:barrier()
    win:read(at(T.rank, 0), "int32") -- the final printf of win_base[0]
  end)
end)
