-- ranks: 2
-- engines: native rma
-- env: RMALAB_CHECK=races:quiet
-- timeout: 120
-- RMARaceBench 1.2.0 MPIRMA/conflict/003-MPI-conflict-put-put-local-no.c
-- Rank 0 puts its buffer `value` to rank 1's elements 0 and 1 in one epoch:
-- both only read the origin, no race, and rmalab lets two puts share an
-- origin.
local rl = require "rmalab"
local T = require "rmalab.test"

T.case("conflict 003: two puts from value", function()
  T.races("no", { bytes = 40, disp_unit = 4 }, function(win, at)
    local value, value2 = rl.buffer("int32", { 1 }), rl.buffer("int32", { 2 }) -- int value = 1, value2 = 2
    win:write(at(T.rank, 0), "int32", { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }) -- win_base[i] = 0
    win:fence()
    if T.rank == 0 then
      win:put(1, at(1, 0), "int32", value)
      win:put(1, at(1, 1), "int32", value)
    end
    win:fence()
    rl.world:barrier()
    -- the final printf of value, value2 and win_base[0]
    local _ = { value[1], value2[1], win:read(at(T.rank, 0), "int32") }
  end)
end)
