-- ranks: 3
-- engines: native rma
-- env: RMALAB_CHECK=races:quiet
-- timeout: 120
-- RMARaceBench 1.2.0 MPIRMA/atomic/002-MPI-atomic-customdatatype-remote-yes.c
-- In one fence epoch rank 0 accumulates (sum) 4 int16 at element 0 of rank
-- 1, and rank 2 one element of a derived type of 4 int32 there
-- (MPI_Type_contiguous; here rl.vector with one block of 4). The basic types
-- differ, so the accumulates are not atomic with each other: a race (MUST-
-- RMA misses it).
local rl = require "rmalab"
local T = require "rmalab.test"

T.case("atomic 002: int16 and a derived type of int32 accumulates", function()
  T.races("yes", { bytes = 40, disp_unit = 4 }, function(win, at)
    local dtype = rl.vector("int32", 1, 4, 4) -- MPI_Type_contiguous(4, MPI_INT): one block of 4
    win:write(at(T.rank, 0), "int32", { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }) -- win_base[i] = 0
    rl.world:barrier()
    win:fence()
    if T.rank == 0 then
      win:accumulate(1, at(1, 0), "int16", { 1, 1, 1, 1 }, "sum")
    end
    if T.rank == 2 then
      win:accumulate(1, at(1, 0), dtype, { 1, 1, 1, 1 }, "sum")
    end
    win:fence()
    rl.world:barrier()
    win:read(at(T.rank, 0), "int32") -- the final printf of win_base[0]
  end)
end)
