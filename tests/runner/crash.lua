-- A fixture of tests/runner/meson.build: rank 1 is killed (SIGKILL) mid-case.
local T = require "rmalab.test"
local rl = require "rmalab"
T.case("before", function() T.ok(true) end)
T.case("dies", function()
  rl.world:barrier() -- both ranks have reported "before" (as in abort.lua)
  if T.rank == 1 then
    local pid = io.open("/proc/self/stat"):read("n")
    os.execute("kill -KILL " .. pid)
  end
  rl.world:barrier()
end)
