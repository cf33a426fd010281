-- A fixture of tests/runner/meson.build: a window and an info never freed.
local T = require "rmalab.test"
local rl = require "rmalab"
-- luacheck: globals kept (the global leaked on purpose, for the runner to report)
kept = rl.info { purpose = "leaked on purpose" }
T.case("allocates and forgets", function()
  local w = rl.win_allocate(16)
  T.ok(w)
end)
