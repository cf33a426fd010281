-- ranks: 3
-- engines: native rma
-- env: RMALAB_CHECK=races:quiet
-- timeout: 120
-- RMARaceBench 1.2.0 MPIRMA/atomic/004-MPI-atomic-disp-remote-no.c
-- disp_unit 1: rank 0 accumulates (sum) 4 int32 at byte 0 of rank 1, rank 2
-- 4 int32 at byte 4 (the C case's MPI_Type_size(MPI_INT)). The overlapping
-- elements coincide, with the same op and type: atomic, no race.
local rl = require "rmalab"
local T = require "rmalab.test"

T.case("atomic 004: int32 accumulates at element boundaries", function()
  T.races("no", { bytes = 40, disp_unit = 1 }, function(win, at)
    win:write(at(T.rank, 0), "int32", { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }) -- win_base[i] = 0
    rl.world:barrier()
    win:fence()
    if T.rank == 0 then
      win:accumulate(1, at(1, 0), "int32", { 1, 1, 1, 1 }, "sum")
    end
    if T.rank == 2 then
      win:accumulate(1, at(1, 4), "int32", { 1, 2, 3, 4 }, "sum")
    end
    win:fence()
    rl.world:barrier()
    win:read(at(T.rank, 0), "int32") -- the final printf of win_base[0]
  end)
end)
