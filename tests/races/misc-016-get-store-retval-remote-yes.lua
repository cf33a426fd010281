-- ranks: 2
-- engines: native rma
-- env: RMALAB_CHECK=races:quiet
-- timeout: 120
-- RMARaceBench 1.2.0 MPIRMA/misc/016-MPI-misc-get-store-retval-remote-yes.c
-- In one fence epoch rank 0 gets rank 1's element 0, and rank 1 stores to it
-- through an alias of its window returned by a function: the same memory, a
-- race.
local rl = require "rmalab"
local T = require "rmalab.test"

-- aliasgenerator(&x) returns *x: the alias is a function's return value.
local function aliasgenerator(x) return x[1] end

T.case("misc 016: get and a store through a returned alias", function()
  T.races("yes", { bytes = 40, disp_unit = 4 }, function(win, at)
    win:write(at(T.rank, 0), "int32", { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }) -- win_base[i] = 0
    win:fence()
    local win_alias = aliasgenerator({ win })
    if T.rank == 0 then
      win:get(1, at(1, 0), "int32")
    else
      win_alias:write(at(1, 0), "int32", 42)
    end
    win:fence()
    rl.world:barrier()
    win:read(at(T.rank, 0), "int32") -- the final printf of win_base[0]
  end)
end)
