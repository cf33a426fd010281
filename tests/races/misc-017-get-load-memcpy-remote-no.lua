-- ranks: 2
-- engines: native rma
-- env: RMALAB_CHECK=races:quiet
-- timeout: 120
-- RMARaceBench 1.2.0 MPIRMA/misc/017-MPI-misc-get-load-memcpy-remote-no.c
-- In one fence epoch rank 0 gets rank 1's element 0, and rank 1 loads it
-- through a copy of its window's reference (the C case copies the pointer
-- with memcpy). Both only read: no race.
local rl = require "rmalab"
local T = require "rmalab.test"

T.case("misc 017: get and a load through a copied reference", function()
  T.races("no", { bytes = 40, disp_unit = 4 }, function(win, at)
    win:write(at(T.rank, 0), "int32", { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }) -- win_base[i] = 0
    win:fence()
    -- memcpy(&win_base_alias, &win_base, sizeof(int *)): a copy of the reference
    local win_alias = table.move({ win }, 1, 1, 1, {})[1]
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
