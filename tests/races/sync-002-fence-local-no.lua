-- ranks: 2
-- engines: native rma
-- env: RMALAB_CHECK=races:quiet
-- timeout: 120
-- RMARaceBench 1.2.0 MPIRMA/sync/002-MPI-sync-fence-local-no.c
-- Rank 0 puts its buffer `value` in a fence epoch and reads value after the
-- fence that completes the put: no race, and no refusal.
local rl = require "rmalab"
local T = require "rmalab.test"

T.case("sync 002: a load of a put's origin after the fence", function()
  T.races("no", { bytes = 40, disp_unit = 4 }, function(win, at)
    local value, value2 = rl.buffer("int32", { 1 }), rl.buffer("int32", { 2 }) -- int value = 1, value2 = 2
    win:write(at(T.rank, 0), "int32", { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }) -- win_base[i] = 0
    rl.world:barrier()
    win:fence()
    if T.rank == 0 then
      win:put(1, at(1, 0), "int32", value)
    end
    win:fence()
    if T.rank == 0 then
      local _ = value[1] -- printf("value is %d\n", value)
    end
    win:fence()
    rl.world:barrier()
    -- the final printf of value, value2 and win_base[0]
    local _ = { value[1], value2[1], win:read(at(T.rank, 0), "int32") }
  end)
end)
