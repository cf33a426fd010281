-- ranks: 2
-- engines: native rma
-- env: RMALAB_CHECK=races:quiet
-- timeout: 120
-- RMARaceBench 1.2.0 MPIRMA/conflict/014-MPI-conflict-cas-store-local-yes.c
-- Rank 0 compare-and-swaps with origin `value` (compare: its own
-- win_base[0], 0 here; result into value2) and stores to value while the
-- operation is in flight: a race on the origin buffer, refused
-- (ERR_RMA_SYNC).
local rl = require "rmalab"
local T = require "rmalab.test"

T.case("conflict 014: compare_and_swap from value, then a store to value", function()
  T.races("yes", { bytes = 40, disp_unit = 4 }, function(win, at)
    local value, value2 = rl.buffer("int32", { 1 }), rl.buffer("int32", { 2 }) -- int value = 1, value2 = 2
    win:write(at(T.rank, 0), "int32", { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }) -- win_base[i] = 0
    win:fence()
    if T.rank == 0 then
      local compare = rl.buffer("int32", { 0 }) -- &win_base[0] of rank 0, which holds 0
      win:compare_and_swap(1, at(1, 0), "int32", compare, value, value2)
      T.racy(function() value[1] = 42 end) -- value = 42
    end
    win:fence()
    rl.world:barrier()
    -- the final printf of value, value2 and win_base[0]
    local _ = { value[1], value2[1], win:read(at(T.rank, 0), "int32") }
  end)
end)
