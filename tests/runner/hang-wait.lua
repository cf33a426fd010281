-- A fixture of tests/runner/meson.build: rank 1 waits for a complete()
-- that rank 0 never calls; the runner must name it.
-- timeout: 30
local T = require "rmalab.test"
local rl = require "rmalab"
local win = rl.win_allocate(16, { disp_unit = 8 })
T.case("exposure without its access epoch", function()
  if T.rank == 1 then win:post({ 0 }); win:wait() end
end)
