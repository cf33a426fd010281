-- ranks: 2
-- engines: native rma
-- env: RMALAB_CHECK=races:quiet
-- timeout: 120
-- RMARaceBench 1.2.0 MPIRMA/atomic/007-MPI-atomic-float-int-sameorigin-remote-yes.c
-- Rank 0 accumulates (sum) 4 floats and then 4 int32 at element 0 of rank 1
-- in one fence epoch. Different basic types from one origin are neither
-- atomic nor ordered with each other: a race (MUST-RMA misses it).
local rl = require "rmalab"
local T = require "rmalab.test"

T.case("atomic 007: float then int32 accumulates from one origin", function()
  T.races("yes", { bytes = 40, disp_unit = 4 }, function(win, at)
    win:write(at(T.rank, 0), "int32", { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }) -- win_base[i] = 0
    rl.world:barrier()
    win:fence()
    if T.rank == 0 then
      win:accumulate(1, at(1, 0), "float", { 1.0, 1.0, 1.0, 1.0 }, "sum")
      win:accumulate(1, at(1, 0), "int32", { 1, 2, 3, 4 }, "sum")
    end
    win:fence()
    rl.world:barrier()
    win:read(at(T.rank, 0), "int32") -- the final printf of win_base[0]
  end)
end)
