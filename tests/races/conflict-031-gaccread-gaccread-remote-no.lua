-- ranks: 3
-- engines: native rma
-- env: RMALAB_CHECK=races:quiet
-- timeout: 120
-- RMARaceBench 1.2.0 MPIRMA/conflict/031-MPI-conflict-gaccread-gaccread-remote-no.c
-- Ranks 0 and 2 both read rank 1's element 0 with get_accumulate(no_op) in
-- one fence epoch: two atomic reads, no race.
local rl = require "rmalab"
local T = require "rmalab.test"

T.case("conflict 031: get_accumulate(no_op) by rank 0, get_accumulate(no_op) by rank 2", function()
  T.races("no", { bytes = 40, disp_unit = 4 }, function(win, at)
    win:write(at(T.rank, 0), "int32", { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }) -- win_base[i] = 0
    win:fence()
    if T.rank == 0 then
      win:get_accumulate(1, at(1, 0), "int32", 1, "no_op")
    end
    if T.rank == 2 then
      win:get_accumulate(1, at(1, 0), "int32", 2, "no_op")
    end
    win:fence()
    rl.world:barrier()
    win:read(at(T.rank, 0), "int32") -- the final printf of win_base[0]
  end)
end)
