-- ranks: 2
-- engines: native rma
-- env: RMALAB_CHECK=races:quiet
-- timeout: 120
-- RMARaceBench 1.2.0 MPIRMA/sync/024-MPI-sync-lock-barrier-sameorigin-remote-yes.c
-- Rank 0 alone: under a shared lock of rank 1 it puts to element 0 and then
-- gets element 0, with no flush between. Operations of one origin in one
-- epoch are not ordered: a race, which rank 0 finds itself at unlock(1).
local rl = require "rmalab"
local T = require "rmalab.test"

T.case("sync 024: put and get from one origin without a flush", function()
  T.races("yes", { bytes = 40, disp_unit = 4 }, function(win, at)
    win:write(at(T.rank, 0), "int32", { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }) -- win_base[i] = 0
    rl.world:barrier()
    if T.rank == 0 then
      win:lock(1, "shared")
      win:put(1, at(1, 0), "int32", 1)
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
