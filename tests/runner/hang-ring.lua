-- A fixture of tests/runner/meson.build: both ranks start and put before
-- either posts (the classroom deadlock, on the rma engine). The runner
-- names the ring and ends the run; it tells no one to type a REPL
-- command such as :interrupt (issue 42).
-- ranks: 2
-- engines: rma
-- timeout: 30
local T = require "rmalab.test"
local rl = require "rmalab"
local win = rl.win_allocate(64, { disp_unit = 8 })
T.case("both start before posting", function()
  local o = 1 - T.rank
  win:start({ o }); win:put(o, 0, "int64", 1); win:complete()
  win:post({ o }); win:wait()
end)
