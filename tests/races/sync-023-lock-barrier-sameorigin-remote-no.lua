-- ranks: 2
-- engines: native rma
-- env: RMALAB_CHECK=races:quiet
-- timeout: 120
-- RMARaceBench 1.2.0 MPIRMA/sync/023-MPI-sync-lock-barrier-sameorigin-remote-no.c
-- Rank 0 alone: under a shared lock of rank 1 it puts to element 0, flushes,
-- then gets element 0. The flush completes the put at rank 1 before the get
-- is issued: no race.
local rl = require "rmalab"
local T = require "rmalab.test"

T.case("sync 023: put, flush, get from one origin", function()
  T.races("no", { bytes = 40, disp_unit = 4 }, function(win, at)
    win:write(at(T.rank, 0), "int32", { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }) -- win_base[i] = 0
    rl.world:barrier()
    if T.rank == 0 then
      win:lock(1, "shared")
      win:put(1, at(1, 0), "int32", 1)
      win:flush(1)
      win:get(1, at(1, 0), "int32")
      win:unlock(1)
    end
    rl.world:barrier()
    rl.world:barrier()
    win:read(at(T.rank, 0), "int32") -- the final printf of win_base[0]
  end)
end)
