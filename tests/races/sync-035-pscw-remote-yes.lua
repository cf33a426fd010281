-- ranks: 3
-- engines: native rma
-- env: RMALAB_CHECK=races:quiet
-- timeout: 120
-- RMARaceBench 1.2.0 MPIRMA/sync/035-MPI-sync-pscw-remote-yes.c
-- Rank 2 exposes its window to ranks 0 and 1 in one epoch; rank 0 puts to
-- its element 0 and rank 1 gets it. Both are in the same exposure epoch,
-- from different origins, one writes: a race, reported at rank 2's wait().
local rl = require "rmalab"
local T = require "rmalab.test"

T.case("sync 035: a put and a get in one exposure epoch", function()
  T.races("yes", { bytes = 40, disp_unit = 4 }, function(win, at)
    win:write(at(T.rank, 0), "int32", { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }) -- win_base[i] = 0
    rl.world:barrier()
    if T.rank == 0 then
      win:start({ 2 })
      win:put(2, at(2, 0), "int32", 42)
      win:complete()
    elseif T.rank == 1 then
      win:start({ 2 })
      win:get(2, at(2, 0), "int32")
      win:complete()
    elseif T.rank == 2 then
      win:post({ 0, 1 })
      win:wait()
    end
    rl.world:barrier()
    win:read(at(T.rank, 0), "int32") -- the final printf of win_base[0]
  end)
end)
