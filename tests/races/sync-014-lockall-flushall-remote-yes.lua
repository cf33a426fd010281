-- ranks: 2
-- engines: native rma
-- env: RMALAB_CHECK=races:quiet
-- timeout: 120
-- RMARaceBench 1.2.0 MPIRMA/sync/014-MPI-sync-lockall-flushall-remote-yes.c
-- Both ranks are in lock_all. Rank 0 puts to rank 1's element 0 and flushes:
-- the put is complete at rank 1, but nothing tells rank 1, which loads
-- element 0 meanwhile. Shared locks do not exclude each other: a race.
local rl = require "rmalab"
local T = require "rmalab.test"

T.case("sync 014: flush_all without a barrier before the load", function()
  T.races("yes", { bytes = 40, disp_unit = 4 }, function(win, at)
    win:write(at(T.rank, 0), "int32", { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }) -- win_base[i] = 0
    win:lock_all()
    rl.world:barrier()
    if T.rank == 0 then
      win:put(1, at(1, 0), "int32", 1)
      win:flush_all()
    end
    if T.rank == 1 then
      win:read(at(1, 0), "int32")
    end
    win:unlock_all()
    rl.world:barrier()
    rl.world:barrier()
    win:read(at(T.rank, 0), "int32") -- the final printf of win_base[0]
  end)
end)
