-- A script that ends normally with windows it never freed, on 2 ranks: one
-- still referenced at exit, one with an open lock_all epoch and an RMA call
-- in it, and one collected while the script runs. Each must be reported
-- ("was never freed"), and the job must still finish cleanly: exit status
-- 0, no abort, no signal. run-expect.sh checks the output; this script does
-- not use the harness, whose leak check would (rightly) count the windows.
local rl = require "rmalab"

local rank = rl.world:rank()
local kept = rl.win_allocate(24, { name = "kept" })
local busy = rl.win_allocate(16, { disp_unit = 8, name = "busy" })
busy:lock_all()
busy:put(1 - rank, 0, "int64", 5)
do
  local lost = rl.win_create(8, { name = "lost" })
  lost:fence()
end
collectgarbage(); collectgarbage() -- "lost" is reported now and freed at exit

-- the script goes on working after the report
local ok <close> = rl.win_allocate(8, { disp_unit = 8 })
ok:fence()
ok:put(1 - rank, 0, "int64", 40 + rank)
ok:fence("nosucceed")
assert(ok:read(0, "int64") == 41 - rank, "a window created after the report works")
ok:free()
assert(kept:get_name() == "kept")
print(string.format("exit-leak: rank %d reached the end", rank))
