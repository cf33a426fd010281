-- ranks: 2
-- engines: native rma
-- env: RMALAB_CHECK=races:quiet
-- timeout: 120
-- RMARaceBench 1.2.0 MPIRMA/misc/018-MPI-misc-get-store-memcpy-remote-yes.c
-- In one fence epoch rank 0 gets rank 1's element 0, and rank 1 stores to it
-- through a copy of its window's reference (the C case copies the pointer
-- with memcpy): a race.
local rl = require "rmalab"
local T = require "rmalab.test"

T.case("misc 018: get and a store through a copied reference", function()
  T.races("yes", { bytes = 40, disp_unit = 4 }, function(win, at)
    win:write(at(T.rank, 0), "int32", { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }) -- win_base[i] = 0
    win:fence()
    -- memcpy(&win_base_alias, &win_base, sizeof(int *)): a copy of the reference
    local win_alias = table.move({ win }, 1, 1, 1, {})[1]
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
