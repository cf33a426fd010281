-- ranks: 2
-- engines: native rma
-- env: RMALAB_CHECK=races:quiet
-- timeout: 120
-- RMARaceBench 1.2.0 MPIRMA/sync/029-MPI-sync-lock-exclusive-remote-yes.c
-- Rank 0 puts to rank 1's element 0 under an exclusive lock, then takes and
-- drops an exclusive lock of rank 1 on win2; rank 1 does the same on win2,
-- then loads win's element 0 outside any lock. Which rank gets win2's lock
-- first is not defined by the program, so the load races with the put. The C
-- case sleeps 1 s so that rank 1 locks first; the sleep is 0.2 s here and
-- does not change the verdict.
local rl = require "rmalab"
local T = require "rmalab.test"

T.case("sync 029: lock order on another window does not order the load", function()
  T.races("yes", { bytes = 40, disp_unit = 4, windows = 2 }, function(win, at, win2, at2)
    win:write(at(T.rank, 0), "int32", { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }) -- win_base[i] = 0
    win2:write(at2(T.rank, 0), "int32", { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 })
    rl.world:barrier()
    if T.rank == 0 then
      win:lock(1, "exclusive")
      win:put(1, at(1, 0), "int32", 1)
      win:unlock(1)
      rl.sleep(0.2) -- the C case's sleep(1): rank 1 takes win2's lock first
      win2:lock(1, "exclusive") -- "sync with rank 1"
      win2:unlock(1)
    else
      win2:lock(1, "exclusive") -- "sync with rank 0"
      win2:unlock(1)
      win:read(at(1, 0), "int32")
    end
    rl.world:barrier()
    win:read(at(T.rank, 0), "int32") -- the final printf of win_base[0]
  end)
end)
