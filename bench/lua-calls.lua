-- lua-calls: what the pieces of a PSCW epoch cost in Lua, on one rank with
-- no traffic, against the Lua VM's own floor (a bare call of a C function,
-- string.len). The breakdown behind "What a call costs" in docs/lua.md.
--
--   mpiexec -n 1 -bind-to core lua5.4 bench/lua-calls.lua      (LUA_CPATH
--   holding build/lua/?.so), or build/repl/rmalab -n 1 bench/lua-calls.lua
--
-- Empty groups make post/start/complete/wait no-ops for MPI, so what is
-- timed is Lua, the binding and the core's checks; the put goes to this
-- rank in a lock epoch. Each line is the median of 5 timed repetitions,
-- interleaved, of N iterations.
local rl = require "rmalab"

local N, REPS = 1000000, 5
local win = rl.win_create(16, { disp_unit = 8, info = { rmalab_pscw = "native" } })
local E = {}
local len = string.len

local cases = {
  { "bare C call: string.len('x')", function(n) for _ = 1, n do len("x") end end },
  { "group table {1}", function(n) local x for _ = 1, n do x = { 1 } end return x end },
  { "win:rank()", function(n) for _ = 1, n do win:rank() end end },
  { "win:post(E); win:wait()", function(n) for _ = 1, n do win:post(E); win:wait() end end },
  { "win:start(E); win:complete()", function(n)
    for _ = 1, n do win:start(E); win:complete() end end },
  { "win:put(me, 0, 'int64', i) in a lock", function(n)
    local me = win:rank()
    win:lock(me, "shared")
    for i = 1, n do win:put(me, 0, "int64", i) end
    win:unlock(me)
  end },
}

local t = {}
for _, c in ipairs(cases) do
  c[2](1000)
  t[c] = {}
end
for _ = 1, REPS do
  for _, c in ipairs(cases) do
    local t0 = os.clock()
    c[2](N)
    table.insert(t[c], (os.clock() - t0) / N * 1e9)
  end
end
win:free()

local function median(x)
  table.sort(x)
  return x[(#x + 1) // 2]
end

if rl.world:rank() == 0 then
  local floor = median(t[cases[1]])
  print(("lua-calls: ns per iteration, median of %d x %d; x = multiples of a bare C call")
    :format(REPS, N))
  for _, c in ipairs(cases) do
    local m = median(t[c])
    print(("%-40s %7.1f ns  %5.1f x"):format(c[1], m, m / floor))
  end
end
