-- The clocks of a trace (docs/trace.md, "Time"): ranks on one host read the
-- same CLOCK_MONOTONIC, so a set says shared_clock and its uncertainties are
-- 0; under RMALAB_TRACE_CLOCK=measure (as across hosts) they are measured:
-- more than 0, and the set does not claim a shared clock. Both for a
-- window's own set and for rl.trace.events(), and in the picture's header.
local rl = require "rmalab"
local measure = os.getenv("RMALAB_TRACE_CLOCK") == "measure"
local win = rl.win_allocate(64, { name = "clocks", info = { rmalab_trace = "true" } })
win:fence()
win:fence()
local st = win:trace_status()
if rl.world:rank() > 0 then
  assert((st.uncertainty > 0) == measure, "status uncertainty " .. st.uncertainty)
end
local function check(set, what)
  if not set then return end
  assert(set.shared_clock == not measure, what .. ": shared_clock " .. tostring(set.shared_clock))
  assert((set.uncertainty > 0) == measure, what .. ": uncertainty " .. set.uncertainty)
  local svg = rl.trace.svg_text(set)
  local said = svg:match('<text class="clocks"[^>]*>([^<]*)')
  assert(said and (said:find("one host") ~= nil) == not measure, what .. ": " .. tostring(said))
  print(("%s: %s"):format(what, said))
end
check(win:trace_events(), "the window's set")
check(rl.trace.events(), "rl.trace.events()")
win:free()
