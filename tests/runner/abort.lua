-- A fixture of tests/runner/meson.build: rank 1 ends the job on purpose
-- with comm:abort(3) (MPI_Abort) while rank 0 waits in a barrier.
local T = require "rmalab.test"
local rl = require "rmalab"
T.case("before", function() T.ok(true) end)
T.case("aborts", function()
  -- both ranks have reported "before" (events are sent as they happen):
  -- without this, rank 1 could end the job while rank 0, slower to start
  -- under ASan, was still in "before" (seen once in CI)
  rl.world:barrier()
  if T.rank == 1 then rl.world:abort(3) end
  rl.world:barrier()
end)
