-- A script that ends normally with windows it never freed, on 2 ranks: one
-- still referenced at exit, one with an open lock_all epoch and an RMA call
-- in it, one collected while the script runs, and one on the rma PSCW
-- engine (which holds a lock_all epoch of its own). Each must be reported
-- ("was never freed"), and the job must still finish cleanly: exit status
-- 0, no abort, no signal. run-expect.sh checks the output; this script does
-- not use rmalab.test, whose leak check would (rightly) count the windows.
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
local rma = rl.win_allocate(16, { disp_unit = 8, name = "rma", info = { rmalab_pscw = "rma" } })
rma:post({ 1 - rank }); rma:start({ 1 - rank })
rma:put(1 - rank, 0, "int64", 7)
rma:complete(); rma:wait()
assert(rma:read(0, "int64") == 7, "the rma window works")

-- the script goes on working after the report
local ok <close> = rl.win_allocate(8, { disp_unit = 8 })
ok:fence()
ok:put(1 - rank, 0, "int64", 40 + rank)
ok:fence("nosucceed")
assert(ok:read(0, "int64") == 41 - rank, "a window created after the report works")
ok:free()
assert(kept:get_name() == "kept" and rma:get_name() == "rma")
print(string.format("exit-leak: rank %d reached the end", rank))
