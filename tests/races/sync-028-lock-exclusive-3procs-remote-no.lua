-- ranks: 3
-- engines: native rma
-- env: RMALAB_CHECK=races:quiet
-- timeout: 120
-- RMARaceBench 1.2.0 MPIRMA/sync/028-MPI-sync-lock-exclusive-3procs-remote-no.c
-- Rank 0 puts to rank 1's element 0 and rank 2 gets it, each under an
-- exclusive lock of rank 1. The locks exclude each other: no race.
local rl = require "rmalab"
local T = require "rmalab.test"

T.case("sync 028: put and get, each under an exclusive lock of rank 1", function()
  T.races("no", { bytes = 40, disp_unit = 4 }, function(win, at)
    win:write(at(T.rank, 0), "int32", { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }) -- win_base[i] = 0
    rl.world:barrier()
    if T.rank == 0 then
      win:lock(1, "exclusive")
      win:put(1, at(1, 0), "int32", 1)
      win:unlock(1)
    end
    if T.rank == 2 then
      win:lock(1, "exclusive")
      win:get(1, at(1, 0), "int32")
      win:unlock(1)
    end
    rl.world:barrier()
    rl.world:barrier()
    win:read(at(T.rank, 0), "int32") -- the final printf of win_base[0]
  end)
end)
