-- ranks: 2
-- engines: native rma
-- env: RMALAB_CHECK=races:quiet
-- timeout: 120
-- RMARaceBench 1.2.0 MPIRMA/conflict/016-MPI-conflict-get-load-remote-no.c
-- A get by rank 0 and a load by rank 1 of rank 1's element 0 in one fence
-- epoch: both only read, and reads never race.
local rl = require "rmalab"
local T = require "rmalab.test"

T.case("conflict 016: get by rank 0, a load by rank 1", function()
  T.races("no", { bytes = 40, disp_unit = 4 }, function(win, at)
    win:write(at(T.rank, 0), "int32", { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }) -- win_base[i] = 0
    win:fence()
    if T.rank == 0 then
      win:get(1, at(1, 0), "int32")
    end
    if T.rank == 1 then
      win:read(at(1, 0), "int32")
    end
    win:fence()
    rl.world:barrier()
    win:read(at(T.rank, 0), "int32") -- the final printf of win_base[0]
  end)
end)
