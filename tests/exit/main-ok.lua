-- rl.main returns what its function returns, and a script that ends
-- without an error ends as before: status 0, the window freed by <close>.
local rl = require "rmalab"
local a, b = rl.main(function(x, y)
    local c = rl.world
    local _w <close> = rl.win_allocate(64)
    return c:allreduce(x, "sum"), y
end, 2, "two")
print(("main-ok: rank %d got %s %s"):format(rl.world:rank(), a, b))
