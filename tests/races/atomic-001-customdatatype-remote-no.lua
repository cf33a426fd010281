-- ranks: 3
-- engines: native rma
-- env: RMALAB_CHECK=races:quiet
-- timeout: 120
-- RMARaceBench 1.2.0 MPIRMA/atomic/001-MPI-atomic-customdatatype-remote-no.c
-- In one fence epoch rank 0 accumulates (sum) 4 int32 at element 0 of rank
-- 1, and rank 2 one element of a derived type of 4 int32 there
-- (MPI_Type_contiguous; here rl.vector with one block of 4). Atomicity goes
-- by the basic type, int32 on both: no race.
local rl = require "rmalab"
local T = require "rmalab.test"

T.case("atomic 001: int32 and a derived type of int32 accumulates", function()
  T.races("no", { bytes = 40, disp_unit = 4 }, function(win, at)
    local dtype = rl.vector("int32", 1, 4, 4) -- MPI_Type_contiguous(4, MPI_INT): one block of 4
    win:write(at(T.rank, 0), "int32", { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }) -- win_base[i] = 0
    rl.world:barrier()
    win:fence()
    if T.rank == 0 then
      win:accumulate(1, at(1, 0), "int32", { 1, 1, 1, 1 }, "sum")
    end
    if T.rank == 2 then
      win:accumulate(1, at(1, 0), dtype, { 1, 2, 3, 4 }, "sum")
    end
    win:fence()
    rl.world:barrier()
    win:read(at(T.rank, 0), "int32") -- the final printf of win_base[0]
  end)
end)
