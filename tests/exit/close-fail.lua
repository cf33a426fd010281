-- A window held in a local <close> on the rank that fails alone (issue 42;
-- tests/lua/meson.build): rank 1 raises before an allreduce that the
-- other ranks wait in. The error leaves the window's scope; its <close>
-- does not free it there (freeing is collective, and the others are in the
-- allreduce), it files the window for the release at exit, so that rank 1
-- reaches its exit and ends the job with status 1 within seconds. Before,
-- rank 1 waited in the free for ranks that waited for it in the allreduce:
-- the job hung. Run under stock lua5.4 inside rl.main, and as a script of
-- rmalab (where rl.main lets the error through to rmalab).
local rl = require "rmalab"
rl.main(function(tag)
    local c = rl.world
    local w <close> = rl.win_allocate(64, {name = "held"})
    w:fence()
    if c:rank() == 1 then error("failing on purpose (" .. tag .. ")") end
    print("allreduce returned", c:allreduce(1, "sum"))
end, "a window in <close>")
