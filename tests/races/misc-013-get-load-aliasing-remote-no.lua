-- ranks: 2
-- engines: native rma
-- env: RMALAB_CHECK=races:quiet
-- timeout: 120
-- RMARaceBench 1.2.0 MPIRMA/misc/013-MPI-misc-get-load-aliasing-remote-no.c
-- In one fence epoch rank 0 gets rank 1's element 0, and rank 1 loads it
-- through an alias of its window made by a function's out-parameter. Both
-- only read: no race.
local rl = require "rmalab"
local T = require "rmalab.test"

-- aliasgenerator(&x, &y) sets *y = *x: here through one-element boxes.
local function aliasgenerator(x, y) y[1] = x[1] end

T.case("misc 013: get and a load through an alias", function()
  T.races("no", { bytes = 40, disp_unit = 4 }, function(win, at)
    win:write(at(T.rank, 0), "int32", { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }) -- win_base[i] = 0
    win:fence()
    local win_alias = {}
    aliasgenerator({ win }, win_alias)
    win_alias = win_alias[1]
    if T.rank == 0 then
      win:get(1, at(1, 0), "int32")
    else
      win_alias:read(at(1, 0), "int32")
    end
    win:fence()
    rl.world:barrier()
    win:read(at(T.rank, 0), "int32") -- the final printf of win_base[0]
  end)
end)
