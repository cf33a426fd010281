-- ranks: 2
-- engines: native rma
-- env: RMALAB_CHECK=races:quiet
-- timeout: 120
-- RMARaceBench 1.2.0 MPIRMA/sync/025-MPI-sync-lock-flushlocal-sameorigin-remote-yes.c
-- Rank 0 alone: under a shared lock of rank 1 it puts to element 0,
-- flushes locally and then gets element 0. flush_local completes the put at
-- the origin only: at the target the two operations are still not ordered,
-- a race, which rank 0 finds itself at unlock(1).
local rl = require "rmalab"
local T = require "rmalab.test"

T.case("sync 025: put and get from one origin with only a flush_local between", function()
  T.races("yes", { bytes = 40, disp_unit = 4 }, function(win, at)
    win:write(at(T.rank, 0), "int32", { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }) -- win_base[i] = 0
    rl.world:barrier()
    if T.rank == 0 then
      win:lock(1, "shared")
      win:put(1, at(1, 0), "int32", 1)
      win:flush_local(1)
      win:get(1, at(1, 0), "int32")
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
