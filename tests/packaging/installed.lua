-- The installed module under stock lua5.4 (tests/packaging/install.sh):
--   mpiexec -n 2 lua5.4 installed.lua /path/to/installed/rmalab.so
-- It must load from that path and nowhere else, then move data in a PSCW
-- epoch on each engine and in a fence epoch, and turn one misuse into an
-- error object.
local want = assert(arg[1], "usage: installed.lua PATH_OF_THE_INSTALLED_MODULE")
local found = package.searchpath("rmalab", package.cpath)
assert(found == want, ("rmalab resolves to %s, not the installed %s"):format(found, want))
local rl = require "rmalab"
local me, n = rl.world:rank(), rl.world:size()
assert(n == 2, "written for 2 ranks")
local other = 1 - me

for _, engine in ipairs{ "rma", "native" } do
  local win <close> = rl.win_allocate(16, { disp_unit = 8, info = { rmalab_pscw = engine } })
  if me == 1 then
    win:post{ 0 }
    win:wait()
    assert(win:read(0, "int64") == 42, engine .. ": the put did not land")
  else
    win:start{ 1 }
    win:put(1, 0, "int64", 42)
    win:complete()
  end
end

local win <close> = rl.win_allocate(8, { disp_unit = 8 })
win:fence()
win:put(other, 0, "int64", 100 + me)
win:fence()
assert(win:read(0, "int64") == 100 + other, "fence: the put did not land")
local ok, err = pcall(win.complete, win)
assert(not ok and err.class == "ERR_RMA_SYNC", "complete outside an epoch is ERR_RMA_SYNC")
win:fence()
local ended = rl.world:gather("ended") -- from every rank that got here
if me == 0 then print(("installed module ok on %d ranks (rmalab %s)"):format(#ended, rl.version)) end
