-- ranks: 3
-- engines: native rma
-- env: RMALAB_CHECK=races:quiet
-- timeout: 120
-- RMARaceBench 1.2.0 MPIRMA/atomic/008-MPI-atomic-double-float-remote-yes.c
-- In one fence epoch rank 0 accumulates (sum) 4 doubles and rank 2 4 floats
-- at element 0 of rank 1. Different basic types: a race (the C label's
-- description says otherwise, its verdict is right; MUST-RMA misses it).
local rl = require "rmalab"
local T = require "rmalab.test"

T.case("atomic 008: double and float accumulates", function()
  T.races("yes", { bytes = 40, disp_unit = 4 }, function(win, at)
    win:write(at(T.rank, 0), "int32", { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }) -- win_base[i] = 0
    rl.world:barrier()
    win:fence()
    if T.rank == 0 then
      win:accumulate(1, at(1, 0), "double", { 1.0, 1.0, 1.0, 1.0 }, "sum")
    end
    if T.rank == 2 then
      win:accumulate(1, at(1, 0), "float", { 1.0, 2.0, 3.0, 4.0 }, "sum")
    end
    win:fence()
    rl.world:barrier()
    win:read(at(T.rank, 0), "int32") -- the final printf of win_base[0]
  end)
end)
