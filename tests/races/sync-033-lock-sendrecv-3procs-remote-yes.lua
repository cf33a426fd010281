-- ranks: 3
-- engines: native rma
-- env: RMALAB_CHECK=races:quiet
-- timeout: 120
-- RMARaceBench 1.2.0 MPIRMA/sync/033-MPI-sync-lock-sendrecv-3procs-remote-yes.c
-- Rank 0 puts to rank 1's element 0 under an exclusive lock, unlocks, and
-- sends to rank 1; rank 1 first receives a message from rank 2, then loads
-- element 0, and only then receives rank 0's message. The load is ordered
-- after rank 2's send, not after rank 0's put: a race.
local rl = require "rmalab"
local T = require "rmalab.test"

T.case("sync 033: a load ordered after the wrong message", function()
  T.races("yes", { bytes = 40, disp_unit = 4 }, function(win, at)
    local token = 42
    win:write(at(T.rank, 0), "int32", { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }) -- win_base[i] = 0
    rl.world:barrier()
    if T.rank == 0 then
      win:lock(1, "exclusive")
      win:put(1, at(1, 0), "int32", 1) -- value = 1
      win:unlock(1)
      rl.world:send(token, 1, 0)
    end
    if T.rank == 1 then
      rl.world:recv(2, 0)
      win:read(at(1, 0), "int32") -- printf("win_base[0] is %d\n", win_base[0])
      rl.world:recv(0, 0)
    end
    if T.rank == 2 then
      rl.world:send(token, 1, 0)
    end
    rl.world:barrier()
    win:read(at(T.rank, 0), "int32") -- the final printf of win_base[0]
  end)
end)
