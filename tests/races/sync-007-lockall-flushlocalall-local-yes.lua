-- ranks: 2
-- engines: native rma
-- env: RMALAB_CHECK=races:quiet
-- timeout: 120
-- RMARaceBench 1.2.0 MPIRMA/sync/007-MPI-sync-lockall-flushlocalall-local-yes.c
-- In a lock_all epoch rank 0 gets into its buffer `value` and reads value
-- before flush_local_all: a race on the result buffer, refused
-- (ERR_RMA_SYNC).
local rl = require "rmalab"
local T = require "rmalab.test"

T.case("sync 007: a load of a get's result before flush_local_all", function()
  T.races("yes", { bytes = 40, disp_unit = 4 }, function(win, at)
    local value, value2 = rl.buffer("int32", { 1 }), rl.buffer("int32", { 2 }) -- int value = 1, value2 = 2
    win:write(at(T.rank, 0), "int32", { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }) -- win_base[i] = 0
    rl.world:barrier()
    win:lock_all()
    if T.rank == 0 then
      win:get(1, at(1, 0), "int32", value)
      T.racy(function() return value[1] end) -- printf("value is %d\n", value)
      win:flush_local_all()
    end
    win:unlock_all()
    rl.world:barrier()
    -- the final printf of value, value2 and win_base[0]
    local _ = { value[1], value2[1], win:read(at(T.rank, 0), "int32") }
  end)
end)
