-- ranks: 3
-- engines: native rma
-- env: RMALAB_CHECK=races:quiet
-- timeout: 120
-- RMARaceBench 1.2.0 MPIRMA/conflict/021-MPI-conflict-get-acc-remote-yes.c
-- Rank 0 gets and rank 2 accumulates (sum) rank 1's element 0 in one fence
-- epoch. An accumulate is atomic only against other accumulates; a get is
-- not one: a race (MUST-RMA misses it).
local rl = require "rmalab"
local T = require "rmalab.test"

T.case("conflict 021: get by rank 0, accumulate by rank 2", function()
  T.races("yes", { bytes = 40, disp_unit = 4 }, function(win, at)
    win:write(at(T.rank, 0), "int32", { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }) -- win_base[i] = 0
    win:fence()
    if T.rank == 0 then
      win:get(1, at(1, 0), "int32")
    end
    if T.rank == 2 then
      win:accumulate(1, at(1, 0), "int32", 2, "sum")
    end
    win:fence()
    rl.world:barrier()
    win:read(at(T.rank, 0), "int32") -- the final printf of win_base[0]
  end)
end)
