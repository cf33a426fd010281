-- ranks: 2
-- engines: native rma
-- env: RMALAB_CHECK=races:quiet
-- timeout: 120
-- RMARaceBench 1.2.0 MPIRMA/conflict/002-MPI-conflict-put-store-local-yes.c
-- Rank 0 puts its buffer `value` to rank 1 and then stores to value while
-- the put is in flight: the put may read either value, a race on the origin
-- buffer. The buffer rule refuses the store (ERR_RMA_SYNC), which is the
-- race found.
local rl = require "rmalab"
local T = require "rmalab.test"

T.case("conflict 002: put from value, then a store to value", function()
  T.races("yes", { bytes = 40, disp_unit = 4 }, function(win, at)
    local value, value2 = rl.buffer("int32", { 1 }), rl.buffer("int32", { 2 }) -- int value = 1, value2 = 2
    win:write(at(T.rank, 0), "int32", { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }) -- win_base[i] = 0
    win:fence()
    if T.rank == 0 then
      win:put(1, at(1, 0), "int32", value)
      T.racy(function() value[1] = 42 end) -- value = 42
    end
    win:fence()
    rl.world:barrier()
    -- the final printf of value, value2 and win_base[0]
    local _ = { value[1], value2[1], win:read(at(T.rank, 0), "int32") }
  end)
end)
