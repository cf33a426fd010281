-- A fixture of tests/runner/meson.build: RMALAB_RACES_REPS that is not two
-- counts is the case's error, not a silent 20 and 5.
-- env: RMALAB_RACES_REPS=8
local T = require "rmalab.test"
T.case("races with a malformed RMALAB_RACES_REPS", function()
  T.races("no", { bytes = 8 }, function() end)
end)
