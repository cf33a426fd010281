-- A fixture of tests/runner/meson.build: rank 1 skips a case rank 0 runs.
local T = require "rmalab.test"
T.case("skipped on rank 1 only", function()
  if T.rank == 1 then T.skip("rank 1 has no neighbour") end
end)
T.case("skipped everywhere", function() T.skip("not yet") end)
