-- ranks: 3
-- engines: native rma
-- env: RMALAB_CHECK=races:quiet
-- timeout: 120
-- RMARaceBench 1.2.0 MPIRMA/sync/019-MPI-sync-fence-3procs-remote-no.c
-- Rank 0's put to rank 1's element 0 is in fence epoch 1, rank 2's get of it
-- in epoch 2. The fence between them orders every access of epoch 1 before
-- every access of epoch 2: no race.
local rl = require "rmalab"
local T = require "rmalab.test"

T.case("sync 019: put and get in consecutive fence epochs", function()
  T.races("no", { bytes = 40, disp_unit = 4 }, function(win, at)
    win:write(at(T.rank, 0), "int32", { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }) -- win_base[i] = 0
    win:fence()
    if T.rank == 0 then
      win:put(1, at(1, 0), "int32", 0)
    end
    win:fence()
    if T.rank == 2 then
      win:get(1, at(1, 0), "int32")
    end
    win:fence()
    rl.world:barrier()
    win:read(at(T.rank, 0), "int32") -- the final printf of win_base[0]
  end)
end)
