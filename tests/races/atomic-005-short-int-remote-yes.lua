-- ranks: 3
-- engines: native rma
-- env: RMALAB_CHECK=races:quiet
-- timeout: 120
-- RMARaceBench 1.2.0 MPIRMA/atomic/005-MPI-atomic-short-int-remote-yes.c
-- In one fence epoch rank 0 accumulates (sum) 4 int16 and rank 2 4 int32 at
-- element 0 of rank 1. Accumulates are atomic only with the same basic type:
-- a race (MUST-RMA misses it).
local rl = require "rmalab"
local T = require "rmalab.test"

T.case("atomic 005: int16 and int32 accumulates", function()
  T.races("yes", { bytes = 40, disp_unit = 4 }, function(win, at)
    win:write(at(T.rank, 0), "int32", { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }) -- win_base[i] = 0
    rl.world:barrier()
    win:fence()
    if T.rank == 0 then
      win:accumulate(1, at(1, 0), "int16", { 1, 1, 1, 1 }, "sum")
    end
    if T.rank == 2 then
      win:accumulate(1, at(1, 0), "int32", { 1, 2, 3, 4 }, "sum")
    end
    win:fence()
    rl.world:barrier()
    win:read(at(T.rank, 0), "int32") -- the final printf of win_base[0]
  end)
end)
