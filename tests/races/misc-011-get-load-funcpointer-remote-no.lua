-- ranks: 2
-- engines: native rma
-- env: RMALAB_CHECK=races:quiet
-- timeout: 120
-- RMARaceBench 1.2.0 MPIRMA/misc/011-MPI-misc-get-load-funcpointer-remote-no.c
-- In one fence epoch each rank calls its part through a function value: rank
-- 0 gets rank 1's element 0, rank 1 loads it. Both only read: no race.
local rl = require "rmalab"
local T = require "rmalab.test"

-- The ranks' parts, called through a function value (the C case's
-- function pointer rankfunc).
local function rank0(win, at) win:get(1, at(1, 0), "int32") end
local function rank1(win, at) win:read(at(1, 0), "int32") end

T.case("misc 011: get and load through a function value", function()
  T.races("no", { bytes = 40, disp_unit = 4 }, function(win, at)
    win:write(at(T.rank, 0), "int32", { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }) -- win_base[i] = 0
    win:fence()
    local rankfunc
    if T.rank == 0 then
      rankfunc = rank0
    else
      rankfunc = rank1
    end
    rankfunc(win, at)
    win:fence()
    rl.world:barrier()
    win:read(at(T.rank, 0), "int32") -- the final printf of win_base[0]
  end)
end)
