-- ranks: 2
-- engines: native rma
-- env: RMALAB_CHECK=races:quiet
-- timeout: 120
-- RMARaceBench 1.2.0 MPIRMA/sync/009-MPI-sync-request-local-yes.c
-- Rank 0 rgets into its buffer `value` and reads value before waiting for
-- the request: a race on the result buffer, refused (ERR_RMA_SYNC). The C
-- case issues MPI_Rget in a fence epoch, which MPI forbids (request-based
-- operations are valid only in a passive-target epoch, and rmalab raises
-- ERR_RMA_SYNC there): the port keeps the rget, its load and its MPI_Wait,
-- and opens a shared lock of rank 1 instead of the fences (`needs`: runs
-- where win:rget exists, as it does in this build).
local rl = require "rmalab"
local T = require "rmalab.test"

T.case("sync 009: a load of an rget's result before its wait", function()
  T.races("yes", { bytes = 40, disp_unit = 4 }, function(win, at)
    local value, value2 = rl.buffer("int32", { 1 }), rl.buffer("int32", { 2 }) -- int value = 1, value2 = 2
    win:write(at(T.rank, 0), "int32", { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }) -- win_base[i] = 0
    rl.world:barrier()
    if T.rank == 0 then
      win:lock(1, "shared") -- MPI_Win_fence in the C case
      local req = win:rget(1, at(1, 0), "int32", value)
      T.racy(function() return value[1] end) -- printf("value is %d\n", value)
      req:wait()
      win:unlock(1) -- MPI_Win_fence
    end
    rl.world:barrier()
    -- the final printf of value, value2 and win_base[0]
    local _ = { value[1], value2[1], win:read(at(T.rank, 0), "int32") }
  end, { needs = "rget" })
end)
