-- ranks: 2
-- engines: native rma
-- env: RMALAB_CHECK=races:quiet
-- timeout: 120
-- RMARaceBench 1.2.0 MPIRMA/sync/036-MPI-sync-polling-remote-yes.c
-- Rank 0 sets a flag in rank 1's element 0 with a put under an exclusive
-- lock; rank 1 polls the flag with plain loads outside any lock (the
-- lock/unlock in the loop only drives MPI's progress, as in the C case).
-- Defined behaviour in MPI's unified model, but a race, which a checker
-- should report. The C case sleeps 1 s per poll, 0.01 s here.
local rl = require "rmalab"
local T = require "rmalab.test"

T.case("sync 036: polling a flag with plain loads", function()
  T.races("yes", { bytes = 40, disp_unit = 4 }, function(win, at)
    win:write(at(T.rank, 0), "int32", { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }) -- win_base[i] = 0
    rl.world:barrier()
    if T.rank == 0 then
      win:lock(1, "exclusive")
      win:put(1, at(1, 0), "int32", 1) -- the "signal" to rank 1
      win:unlock(1)
    else
      while win:read(at(1, 0), "int32") ~= 1 do
        rl.sleep(0.01)
        win:lock(1, "exclusive") -- "ensure progress in MPI implementation"
        win:unlock(1)
      end
    end
    rl.world:barrier()
    rl.world:barrier()
    win:read(at(T.rank, 0), "int32") -- the final printf of win_base[0]
  end)
end)
