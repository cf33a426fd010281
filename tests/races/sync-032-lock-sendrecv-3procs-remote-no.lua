-- ranks: 3
-- engines: native rma
-- env: RMALAB_CHECK=races:quiet
-- timeout: 120
-- RMARaceBench 1.2.0 MPIRMA/sync/032-MPI-sync-lock-sendrecv-3procs-remote-no.c
-- Ranks 0 and 2 each put to rank 1's element 0 under a shared lock; rank 0
-- unlocks and then sends to rank 2, which receives before it locks and puts.
-- The message orders the two puts, and rank 1 makes no call at all: no race
-- (MUST-RMA reports one).
local rl = require "rmalab"
local T = require "rmalab.test"

T.case("sync 032: two puts ordered by a message through a third rank", function()
  T.races("no", { bytes = 40, disp_unit = 4 }, function(win, at)
    local token = 42
    win:write(at(T.rank, 0), "int32", { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }) -- win_base[i] = 0
    rl.world:barrier()
    if T.rank == 0 then
      win:lock(1, "shared")
      win:put(1, at(1, 0), "int32", 1) -- value = 1
      win:unlock(1)
      rl.world:send(token, 2, 0) -- sync with rank 2
    end
    -- rank 1 does nothing
    if T.rank == 2 then
      rl.world:recv(0, 0) -- sync with rank 0
      win:lock(1, "shared")
      win:put(1, at(1, 0), "int32", 1) -- value = 1
      win:unlock(1)
    end
    rl.world:barrier()
    win:read(at(T.rank, 0), "int32") -- the final printf of win_base[0]
  end)
end)
