-- Requests never waited for, on 2 ranks: an rput whose window is freed
-- (reported at the free, and completed by it), and an irecv still pending
-- at exit (reported when it is collected). run-expect.sh checks the
-- reports and a clean end.
local rl = require "rmalab"

local c = rl.world
local peer = 1 - c:rank()
local w = rl.win_allocate(16, { disp_unit = 8, name = "leaky" })
w:lock(peer)
local rq = w:rput(peer, 0, "int64", 1)
w:unlock(peer)
w:free()
local never = c:irecv(peer, 77) -- luacheck: ignore never (kept to the end, never waited for)
c:barrier()
print(("request-leak: rank %d reached the end (%s)"):format(c:rank(), tostring(rq)))
