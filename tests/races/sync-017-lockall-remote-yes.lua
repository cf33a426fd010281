-- ranks: 2
-- engines: native rma
-- env: RMALAB_CHECK=races:quiet
-- timeout: 120
-- RMARaceBench 1.2.0 MPIRMA/sync/017-MPI-sync-lockall-remote-yes.c
-- Both ranks are in lock_all; rank 0 puts to rank 1's element 0 while rank 1
-- loads it. lock_all takes shared locks, which do not exclude each other,
-- and nothing else orders the two: a race.
local rl = require "rmalab"
local T = require "rmalab.test"

T.case("sync 017: a put and a load inside lock_all", function()
  T.races("yes", { bytes = 40, disp_unit = 4 }, function(win, at)
    win:write(at(T.rank, 0), "int32", { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }) -- win_base[i] = 0
    rl.world:barrier()
    win:lock_all()
    if T.rank == 0 then
      win:put(1, at(1, 0), "int32", 1)
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
