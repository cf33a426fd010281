-- ranks: 3
-- engines: native rma
-- env: RMALAB_CHECK=races:quiet
-- timeout: 120
-- RMARaceBench 1.2.0 MPIRMA/atomic/009-MPI-atomic-int-int-remote-no.c
-- In one fence epoch ranks 0 and 2 accumulate (sum) 4 int32 at element 0 of
-- rank 1: same op, same basic type, same elements, atomic: no race.
local rl = require "rmalab"
local T = require "rmalab.test"

T.case("atomic 009: int32 accumulates from two origins", function()
  T.races("no", { bytes = 40, disp_unit = 4 }, function(win, at)
    win:write(at(T.rank, 0), "int32", { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }) -- win_base[i] = 0
    rl.world:barrier()
    win:fence()
    if T.rank == 0 then
      win:accumulate(1, at(1, 0), "int32", { 1, 1, 1, 1 }, "sum")
    end
    if T.rank == 2 then
      win:accumulate(1, at(1, 0), "int32", { 1, 2, 3, 4 }, "sum")
    end
    win:fence()
    rl.world:barrier()
    win:read(at(T.rank, 0), "int32") -- the final printf of win_base[0]
  end)
end)
