-- ranks: 3
-- engines: native rma
-- env: RMALAB_CHECK=races:quiet
-- timeout: 120
-- RMARaceBench 1.2.0 MPIRMA/conflict/025-MPI-conflict-put-gaccread-remote-yes.c
-- Rank 0 puts and rank 2 reads atomically with get_accumulate(no_op) rank
-- 1's element 0 in one fence epoch. The put is not atomic, so the atomic
-- read does not excuse the pair: a race (MUST-RMA misses it).
local rl = require "rmalab"
local T = require "rmalab.test"

T.case("conflict 025: put by rank 0, get_accumulate(no_op) by rank 2", function()
  T.races("yes", { bytes = 40, disp_unit = 4 }, function(win, at)
    win:write(at(T.rank, 0), "int32", { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }) -- win_base[i] = 0
    win:fence()
    if T.rank == 0 then
      win:put(1, at(1, 0), "int32", 1)
    end
    if T.rank == 2 then
      win:get_accumulate(1, at(1, 0), "int32", 2, "no_op")
    end
    win:fence()
    rl.world:barrier()
    win:read(at(T.rank, 0), "int32") -- the final printf of win_base[0]
  end)
end)
