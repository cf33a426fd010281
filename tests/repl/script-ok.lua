-- Script mode: every rank runs this file with `arg` set and the module
-- preloaded as the global rmalab.
local rank = rmalab.world:rank()
assert(arg[0]:match("script%-ok%.lua$"), "arg[0] is the script")
assert(arg[1] == "one" and arg[2] == "two", "arguments reach arg")
assert(require("rmalab") == rmalab, "require returns the preloaded module")
local win <close> = rmalab.win_allocate(8, { disp_unit = 8 })
win:fence()
win:put(1 - rank, 0, "int64", 10 + rank)
win:fence("nosucceed")
assert(win:read(0, "int64") == 11 - rank)
print("script-ok: rank " .. rank .. " done")
