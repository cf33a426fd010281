-- ranks: 2
-- engines: native rma
-- env: RMALAB_CHECK=races:quiet
-- timeout: 120
-- RMARaceBench 1.2.0 MPIRMA/sync/031-MPI-sync-lock-sendrecv-remote-no.c
-- Rank 0 puts to rank 1's element 0 under a shared lock, unlocks, and sends
-- a message to rank 1; rank 1 receives it and then loads element 0. The
-- unlock completes the put before the send, and the receive orders the load
-- after the send: no race.
local rl = require "rmalab"
local T = require "rmalab.test"

T.case("sync 031: a load after the receive that orders it", function()
  T.races("no", { bytes = 40, disp_unit = 4 }, function(win, at)
    local token = 42
    win:write(at(T.rank, 0), "int32", { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }) -- win_base[i] = 0
    rl.world:barrier()
    if T.rank == 0 then
      win:lock(1, "shared")
      win:put(1, at(1, 0), "int32", 1) -- value = 1
      win:unlock(1)
      rl.world:send(token, 1, 0)
    end
    if T.rank == 1 then
      rl.world:recv(0, 0)
      win:read(at(1, 0), "int32") -- printf("win_base[0] is %d\n", win_base[0])
    end
    rl.world:barrier()
    win:read(at(T.rank, 0), "int32") -- the final printf of win_base[0]
  end)
end)
