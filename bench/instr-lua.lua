-- Instructions of issue 41's rows through the Lua module, one rank, for
-- callgrind at two counts (the difference over the difference in rounds
-- leaves out startup), as bench/bench-instr.c counts the C API's:
--   LUA_CPATH='build/lua/?.so' valgrind --tool=callgrind lua5.4 \
--     bench/instr-lua.lua WHAT N
-- WHAT: alloc (rl.win_allocate(64) + free, the default engine), lock
-- (lock(0, "shared"), get of one int64, unlock, the value read), pscw-rma
-- and pscw-native (post, start, put of one int64, complete, wait, to self,
-- the group tables built every epoch); bench-comm's rows on one rank, where
-- a collective waits for nobody and a message goes to self: allreduce (of
-- one float), bcastbuf (a buffer of 1,000 doubles), pingpong (c:send of one
-- float and c:recv) and pingbuf (the same with a buffer of one double,
-- received into in place).
local rl = require "rmalab"
local what, n = arg[1], tonumber(arg[2])
local c = rl.world
if what == "allreduce" then
  for i = 1, n do c:allreduce(i + 0.5, "sum") end
elseif what == "bcastbuf" then
  local b = rl.buffer("double", 1000)
  for _ = 1, n do c:bcast(b) end
elseif what == "pingpong" then
  local x = 0.5
  for _ = 1, n do c:send(x, 0); x = c:recv(0) + 1 end
elseif what == "pingbuf" then
  local b = rl.buffer("double", 1)
  for _ = 1, n do c:send(b, 0); c:recv(0, nil, b) end
elseif what == "lock" then
  local win <close> = rl.win_allocate(64, { disp_unit = 8, name = "b" })
  local s = 0
  for _ = 1, n do
    win:lock(0, "shared")
    local r = win:get(0, 0, "int64")
    win:unlock(0)
    s = s + r:value()
  end
elseif what == "alloc" then
  for _ = 1, n do
    local w = rl.win_allocate(64, { disp_unit = 8 })
    w:free()
  end
elseif what == "pscw-rma" or what == "pscw-native" then
  local win <close> = rl.win_allocate(16, { disp_unit = 8, info = { rmalab_pscw = what:sub(6) } })
  for i = 1, n do
    win:post({ 0 }); win:start({ 0 }); win:put(0, 0, "int64", i); win:complete(); win:wait()
  end
  assert(win:read(0, "int64") == n, "the window holds the last value put")
else
  error("usage: instr-lua.lua alloc|lock|pscw-rma|pscw-native|allreduce|bcastbuf|pingpong|pingbuf N")
end
