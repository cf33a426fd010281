-- rl.main under stock lua5.4 (tests/lua/meson.build): rank 1 raises
-- before an allreduce that the other ranks wait in, with a window open.
-- lua.c closes the state after an error as after a normal end, so the
-- module cannot tell them apart; inside rl.main it can: the error is
-- printed as rmalab prints a script's, and the job ends with status 1
-- within a few seconds. Before, rank 1 waited in MPI_Finalize for ranks
-- that waited for it: the job hung. (The window is freed explicitly;
-- close-fail.lua holds it in a <close>.)
local rl = require "rmalab"
rl.main(function(tag)
    local c = rl.world
    local w = rl.win_allocate(64, {name = "held"})
    if c:rank() == 1 then error("failing on purpose (" .. tag .. ")") end
    print("allreduce returned", c:allreduce(1, "sum"))
    w:free()
end, "inside rl.main")
