-- ranks: 2
-- engines: native rma
-- env: RMALAB_CHECK=races:quiet
-- timeout: 120
-- RMARaceBench 1.2.0 MPIRMA/sync/013-MPI-sync-lockall-flushall-remote-no.c
-- Both ranks are in lock_all. Rank 0 puts to rank 1's element 0 and flushes,
-- which completes the put at rank 1, then enters a barrier; rank 1 loads
-- only after that barrier. Completion, then barrier: the put happens before
-- the load, no race.
local rl = require "rmalab"
local T = require "rmalab.test"

T.case("sync 013: flush_all, then a barrier before the load", function()
  T.races("no", { bytes = 40, disp_unit = 4 }, function(win, at)
    win:write(at(T.rank, 0), "int32", { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }) -- win_base[i] = 0
    win:lock_all()
    rl.world:barrier()
    if T.rank == 0 then
      win:put(1, at(1, 0), "int32", 1)
      win:flush_all()
      rl.world:barrier()
    end
    if T.rank == 1 then
      rl.world:barrier()
      win:read(at(1, 0), "int32")
    end
    win:unlock_all()
    rl.world:barrier()
    rl.world:barrier()
    win:read(at(T.rank, 0), "int32") -- the final printf of win_base[0]
  end)
end)
