-- ranks: 2
-- engines: native rma
-- env: RMALAB_CHECK=races:quiet
-- timeout: 120
-- RMARaceBench 1.2.0 MPIRMA/sync/027-MPI-sync-lock-exclusive-remote-no.c
-- Rank 0 puts to rank 1's element 0 under an exclusive lock; rank 1 loads
-- its element 0 under an exclusive lock on itself. The two critical sections
-- exclude each other, whichever comes first: no race.
local rl = require "rmalab"
local T = require "rmalab.test"

T.case("sync 027: put and load, each under an exclusive lock of rank 1", function()
  T.races("no", { bytes = 40, disp_unit = 4 }, function(win, at)
    win:write(at(T.rank, 0), "int32", { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }) -- win_base[i] = 0
    rl.world:barrier()
    if T.rank == 0 then
      win:lock(1, "exclusive")
      win:put(1, at(1, 0), "int32", 1)
      win:unlock(1)
    end
    if T.rank == 1 then
      win:lock(1, "exclusive")
      win:read(at(1, 0), "int32")
      win:unlock(1)
    end
    rl.world:barrier()
    rl.world:barrier()
    win:read(at(T.rank, 0), "int32") -- the final printf of win_base[0]
  end)
end)
