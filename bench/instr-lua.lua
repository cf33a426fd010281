-- Instructions of issue 41's rows through the Lua module, one rank, for
-- callgrind at two counts (the difference over the difference in rounds
-- leaves out startup), as bench/bench-instr.c counts the C API's:
--   LUA_CPATH='build/lua/?.so' valgrind --tool=callgrind lua5.4 \
--     bench/instr-lua.lua WHAT N
-- WHAT: alloc (rl.win_allocate(64) + free, the default engine), lock
-- (lock(0, "shared"), get of one int64, unlock, the value read), pscw-rma
-- and pscw-native (post, start, put of one int64, complete, wait, to self,
-- the group tables built every epoch).
local rl = require "rmalab"
local what, n = arg[1], tonumber(arg[2])
if what == "lock" then
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
  error("usage: instr-lua.lua alloc|lock|pscw-rma|pscw-native N")
end
