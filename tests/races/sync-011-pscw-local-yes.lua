-- ranks: 2
-- engines: native rma
-- env: RMALAB_CHECK=races:quiet
-- timeout: 120
-- RMARaceBench 1.2.0 MPIRMA/sync/011-MPI-sync-pscw-local-yes.c
-- In an access epoch to rank 1 (start), rank 0 gets into its buffer `value`
-- and reads value before complete(): a race on the result buffer, refused
-- (ERR_RMA_SYNC).
local rl = require "rmalab"
local T = require "rmalab.test"

T.case("sync 011: a load of a get's result before complete", function()
  T.races("yes", { bytes = 40, disp_unit = 4 }, function(win, at)
    local value, value2 = rl.buffer("int32", { 1 }), rl.buffer("int32", { 2 }) -- int value = 1, value2 = 2
    win:write(at(T.rank, 0), "int32", { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }) -- win_base[i] = 0
    rl.world:barrier()
    if T.rank == 0 then
      win:start({ 1 })
      win:get(1, at(1, 0), "int32", value)
      T.racy(function() return value[1] end) -- printf("value is %d\n", value)
      win:complete()
    else
      win:post({ 0 })
      win:wait()
    end
    rl.world:barrier()
    -- the final printf of value, value2 and win_base[0]
    local _ = { value[1], value2[1], win:read(at(T.rank, 0), "int32") }
  end)
end)
