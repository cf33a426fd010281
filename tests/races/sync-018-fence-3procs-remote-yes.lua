-- ranks: 3
-- engines: native rma
-- env: RMALAB_CHECK=races:quiet
-- timeout: 120
-- RMARaceBench 1.2.0 MPIRMA/sync/018-MPI-sync-fence-3procs-remote-yes.c
-- In one fence epoch rank 0 puts to rank 1's element 0 and rank 2 gets it.
-- Both are in the same epoch at rank 1, from different origins, one writes:
-- a race, reported at the closing fence.
local rl = require "rmalab"
local T = require "rmalab.test"

T.case("sync 018: put and get from two origins in one fence epoch", function()
  T.races("yes", { bytes = 40, disp_unit = 4 }, function(win, at)
    win:write(at(T.rank, 0), "int32", { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }) -- win_base[i] = 0
    win:fence()
    if T.rank == 0 then
      win:put(1, at(1, 0), "int32", 0)
    end
    if T.rank == 2 then
      win:get(1, at(1, 0), "int32")
    end
    win:fence()
    rl.world:barrier()
    win:read(at(T.rank, 0), "int32") -- the final printf of win_base[0]
  end)
end)
