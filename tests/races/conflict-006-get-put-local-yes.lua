-- ranks: 2
-- engines: native rma
-- env: RMALAB_CHECK=races:quiet
-- timeout: 120
-- RMARaceBench 1.2.0 MPIRMA/conflict/006-MPI-conflict-get-put-local-yes.c
-- Rank 0 gets into its buffer `value` and then puts from value in the same
-- epoch: the put reads a buffer the get may still write, a race on the
-- buffer. The put is refused (ERR_RMA_SYNC) before MPI sees it.
local rl = require "rmalab"
local T = require "rmalab.test"

T.case("conflict 006: get into value, then a put from value", function()
  T.races("yes", { bytes = 40, disp_unit = 4 }, function(win, at)
    local value, value2 = rl.buffer("int32", { 1 }), rl.buffer("int32", { 2 }) -- int value = 1, value2 = 2
    win:write(at(T.rank, 0), "int32", { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }) -- win_base[i] = 0
    win:fence()
    if T.rank == 0 then
      win:get(1, at(1, 0), "int32", value)
      T.racy(function() win:put(1, at(1, 0), "int32", value) end)
    end
    win:fence()
    rl.world:barrier()
    -- the final printf of value, value2 and win_base[0]
    local _ = { value[1], value2[1], win:read(at(T.rank, 0), "int32") }
  end)
end)
