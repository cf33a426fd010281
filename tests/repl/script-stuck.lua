-- Script mode's notice of a rank stuck in one call (repl/rank/stuck.c), run by
-- stuck.sh with RMALAB_STUCK=1: rank 1 waits in recv, then in a PSCW
-- wait, each time while rank 0 is busy in Lua for 2.5 s, so each call is
-- named once on stderr, with what it waits for; the script then ends well.
local c = rmalab.world
local function busy(seconds)
  local t = os.clock() + seconds
  while os.clock() < t do end
end
local win <close> = rmalab.win_allocate(8, { disp_unit = 8, name = "w" })
if c:rank() == 0 then
  busy(2.5)
  c:send(7, 1)
  busy(2.5)
  win:start{1}
  win:put(1, 0, "int64", 5)
  win:complete()
else
  assert(c:recv(0) == 7)
  win:post{0}
  win:wait()
  assert(win:read(0, "int64") == 5)
end
c:barrier()
print("script-stuck: rank " .. c:rank() .. " done")
