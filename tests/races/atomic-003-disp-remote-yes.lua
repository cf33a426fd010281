-- ranks: 3
-- engines: native rma
-- env: RMALAB_CHECK=races:quiet
-- timeout: 120
-- RMARaceBench 1.2.0 MPIRMA/atomic/003-MPI-atomic-disp-remote-yes.c
-- disp_unit 1: rank 0 accumulates (sum) 4 int32 at byte 0 of rank 1, rank 2
-- 4 int32 at byte 1. Same op, same type, but the elements overlap without
-- coinciding, and MPI's atomicity is per element: a race.
local rl = require "rmalab"
local T = require "rmalab.test"

T.case("atomic 003: int32 accumulates one byte apart", function()
  T.races("yes", { bytes = 40, disp_unit = 1 }, function(win, at)
    win:write(at(T.rank, 0), "int32", { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }) -- win_base[i] = 0
    rl.world:barrier()
    win:fence()
    if T.rank == 0 then
      win:accumulate(1, at(1, 0), "int32", { 1, 1, 1, 1 }, "sum")
    end
    if T.rank == 2 then
      win:accumulate(1, at(1, 1), "int32", { 1, 2, 3, 4 }, "sum")
    end
    win:fence()
    rl.world:barrier()
    win:read(at(T.rank, 0), "int32") -- the final printf of win_base[0]
  end)
end)
