-- The ASCII timeline of a fixed PSCW pattern on each engine, without its
-- times (timeline.out is the golden copy; tests/trace/meson.build). The
-- ranks wait long enough between calls that the order of the rows is the
-- same on every run: rank 1 posts 100 ms late, then waits 50 ms later.
local rl = require "rmalab"
local me = rl.world:rank()

for _, engine in ipairs{ "native", "rma" } do
  local win = rl.win_allocate(64, { disp_unit = 8, name = "golden-" .. engine,
    info = { rmalab_trace = "true", rmalab_pscw = engine } })
  if me == 1 then
    rl.sleep(0.1)
    win:post({ 0 })
    rl.sleep(0.05)
    win:wait()
  else
    win:start({ 1 })
    win:put(1, 0, "int64", { 1, 2 })
    local g = win:get(1, 1, "int64")
    win:complete()
    assert(g:value() == 2)
  end
  local text = rl.trace.timeline(win, { times = false })
  if text then print(text) end
  win:free()
end
