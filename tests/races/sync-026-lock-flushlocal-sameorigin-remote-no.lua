-- ranks: 2
-- engines: native rma
-- env: RMALAB_CHECK=races:quiet
-- timeout: 120
-- RMARaceBench 1.2.0 MPIRMA/sync/026-MPI-sync-lock-flushlocal-sameorigin-remote-no.c
-- Rank 0 alone: under a shared lock of rank 1 it gets element 0 into its
-- buffer `value`, completes the get locally with flush_local, and gets
-- element 0 into value again. The two gets only read the target, so they do
-- not race there, and flush_local frees value for the second get (no
-- refusal); the barriers order rank 1's later load.
local rl = require "rmalab"
local T = require "rmalab.test"

T.case("sync 026: two gets into one buffer with a flush_local between", function()
  T.races("no", { bytes = 40, disp_unit = 4 }, function(win, at)
    local value = rl.buffer("int32", { 1 }) -- int value = 1
    win:write(at(T.rank, 0), "int32", { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }) -- win_base[i] = 0
    rl.world:barrier()
    if T.rank == 0 then
      win:lock(1, "shared")
      win:get(1, at(1, 0), "int32", value)
      win:flush_local(1)
      win:get(1, at(1, 0), "int32", value)
      win:unlock(1) -- consistent
    end
    rl.world:barrier() -- synchronized
    if T.rank == 1 then
      win:read(at(1, 0), "int32")
    end
    rl.world:barrier()
    rl.world:barrier()
    win:read(at(T.rank, 0), "int32") -- the final printf of win_base[0]
  end)
end)
