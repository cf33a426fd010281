-- ranks: 3
-- engines: native rma
-- env: RMALAB_CHECK=races:quiet
-- timeout: 120
-- RMARaceBench 1.2.0 MPIRMA/conflict/020-MPI-conflict-get-gaccread-remote-no.c
-- Rank 0 gets and rank 2 reads with get_accumulate(no_op) rank 1's element 0
-- in one fence epoch: both only read, so no race.
local rl = require "rmalab"
local T = require "rmalab.test"

T.case("conflict 020: get by rank 0, get_accumulate(no_op) by rank 2", function()
  T.races("no", { bytes = 40, disp_unit = 4 }, function(win, at)
    win:write(at(T.rank, 0), "int32", { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }) -- win_base[i] = 0
    win:fence()
    if T.rank == 0 then
      win:get(1, at(1, 0), "int32")
    end
    if T.rank == 2 then
      win:get_accumulate(1, at(1, 0), "int32", 2, "no_op")
    end
    win:fence()
    rl.world:barrier()
    win:read(at(T.rank, 0), "int32") -- the final printf of win_base[0]
  end)
end)
