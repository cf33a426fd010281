-- ranks: 3
-- engines: native rma
-- env: RMALAB_CHECK=races:quiet
-- timeout: 120
-- RMARaceBench 1.2.0 MPIRMA/sync/034-MPI-sync-pscw-remote-no.c
-- Rank 2 exposes its window to rank 0 (which puts to its element 0), waits,
-- then to rank 1 (which gets it), and waits. Rank 0's complete happens
-- before rank 2's first wait, which happens before the second post, which
-- happens before rank 1's get: no race.
local rl = require "rmalab"
local T = require "rmalab.test"

T.case("sync 034: a put and a get in two exposure epochs", function()
  T.races("no", { bytes = 40, disp_unit = 4 }, function(win, at)
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
      win:post({ 0 })
      win:wait()
      win:post({ 1 })
      win:wait()
    end
    rl.world:barrier()
    win:read(at(T.rank, 0), "int32") -- the final printf of win_base[0]
  end)
end)
