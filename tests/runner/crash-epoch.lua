-- A fixture of tests/runner/meson.build: rank 1 is killed (SIGKILL) inside
-- an access epoch while rank 0 is blocked in wait() for it. The runner must
-- name the dead rank and the case, and not wait for rank 0's epoch.
local T = require "rmalab.test"
local rl = require "rmalab"
T.case("mid-epoch", function()
  local w <close> = rl.win_allocate(64, { disp_unit = 8 })
  if T.rank == 0 then
    w:post({ 1 })
    w:wait()
  else
    w:start({ 0 })
    w:put(0, 0, "int64", 42)
    local pid = io.open("/proc/self/stat"):read("n")
    os.execute("kill -KILL " .. pid)
  end
end)
