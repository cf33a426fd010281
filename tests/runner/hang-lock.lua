-- A fixture of tests/runner/meson.build: rank 0 keeps its exclusive lock
-- on rank 1 across a barrier that rank 2 reaches only after its own lock
-- of rank 1; the runner must name the lock and the ring.
-- ranks: 3
-- timeout: 30
local T = require "rmalab.test"
local rl = require "rmalab"
local c = rl.world
local win = rl.win_allocate(16, { disp_unit = 8 })
T.case("a lock kept across a barrier", function()
  c:barrier()
  if T.rank == 0 then win:lock(1, "exclusive") end
  c:barrier()
  if T.rank == 2 then win:lock(1, "exclusive"); win:unlock(1) end
  c:barrier()
  if T.rank == 0 then win:unlock(1) end
end)
