-- ranks: 2
-- engines: native rma
-- Errors where cleanup happens: error() inside a <close> handler next to a
-- window's, errors that leave a window's <close> scope (one with an epoch
-- still open on it),
-- a Lua error on one rank in the middle of an epoch, and delete callbacks
-- that fail while <close> frees their window. Each time the error reaches
-- the caller with its message, the window is left in a state the program
-- can see and finish (or is freed on every rank), the ranks stay in step,
-- and nothing leaks. Every rank makes the same window calls.
local rl = require "rmalab"
local T = require "rmalab.test"

assert(T.size == 2, "faults.lua runs on 2 ranks")
local other = 1 - T.rank

local function live() return rl.debug.stats() end

local function window(name)
  return (rl.win_allocate(16, { disp_unit = 8, name = name }))
end

T.case("error() in a <close> handler: the window beside it is let go all the same", function()
  local base = live()
  local seen
  local ok, err = pcall(function()
    local w <close> = window("beside")
    local _boom <close> = setmetatable({}, { __close = function() error("close boom") end })
    seen = w
    w:write(0, "int64", 5)
  end)
  T.eq(ok, false, "the block failed")
  T.ok(tostring(err):find("close boom", 1, true), "the handler's error reached the caller: "
    .. tostring(err))
  T.raises("ERR_WIN", function() return seen:read(0, "int64") end, "freed")
  T.eq(live().wins, base.wins, "no window left")
  rl.world:barrier()
end)

T.case("an error in the block and another in <close>: Lua keeps the last", function()
  local base = live()
  local ok, err = pcall(function()
    local _w <close> = window("twice")
    local _boom <close> = setmetatable({}, { __close = function(_, e)
      error("close saw: " .. tostring(e)) end })
    error("body")
  end)
  T.eq(ok, false, "the block failed")
  T.ok(tostring(err):find("close saw: .*body"), "the block's error reached the handler: "
    .. tostring(err))
  T.eq(live().wins, base.wins, "the window was freed")
end)

T.case("an error leaves <close> scopes on every rank: no free there, the ranks go on", function()
  -- Freeing is collective, and an error may be one rank's alone, whose
  -- free would wait for ranks in another call: a scope left by an error
  -- lets its window go without freeing it (it is freed at exit, in
  -- creation order, with those never freed). The body's error reaches the
  -- caller, the window counts no more, every use of it raises, and the
  -- next collective calls meet.
  local base = live()
  local keep = {}
  for i = 1, 3 do
    local ok, err = pcall(function()
      local w <close> = window("dropped" .. i)
      keep[i] = w
      w:fence()
      error("body " .. i)
    end)
    T.eq(ok, false, "the block failed")
    T.ok(tostring(err):find("body " .. i, 1, true), "the body's error: " .. tostring(err))
  end
  T.eq(live().wins, base.wins, "the windows count no more")
  T.raises("ERR_WIN", function() return keep[2]:read(0, "int64") end, "let go")
  local w <close> = window("next")
  w:fence()
  w:put(other, 0, "int64", 50 + T.rank)
  w:fence()
  T.eq(w:read(0, "int64"), 50 + other, "the next window works on every rank")
end)

T.case("<close> left by an error inside an epoch: the body's error, no free", function()
  -- Before, the close's free ran, refused the open epoch, and its
  -- ERR_RMA_SYNC replaced the body's error: the error the user made was
  -- lost. The epoch is closed at exit, where the window is freed.
  local base = live()
  local keep
  local ok, err = pcall(function()
    local w <close> = window("open")
    keep = w
    w:lock_all()
    error("body fails with lock_all open")
  end)
  T.eq(ok, false, "the block failed")
  T.ok(tostring(err):find("body fails with lock_all open", 1, true),
    "the body's error reaches the caller: " .. tostring(err))
  T.eq(live().wins, base.wins, "the window counts no more")
  T.raises("ERR_WIN", function() return keep:unlock_all() end, "let go")
  rl.world:barrier()
end)

T.case("a Lua error on one rank inside a PSCW epoch", function()
  local w <close> = window("pscw")
  w:post({ other })
  w:start({ other })
  local ok, err = pcall(function()
    w:put(other, 0, "int64", 7 + T.rank)
    if T.rank == 1 then error("rank 1 fails between put and complete") end
  end)
  T.eq(ok, T.rank == 0, "only rank 1 failed")
  if T.rank == 1 then T.ok(tostring(err):find("between put", 1, true), "its message") end
  w:complete()
  w:wait()
  T.eq(w:read(0, "int64"), 7 + other, "the put before the error arrived")
  local st = w:epochs()
  T.eq(st.access, "none", "no access epoch left")
  T.eq(st.exposure, "none", "no exposure epoch left")
end)

T.case("delete callbacks that fail while <close> frees the window", function()
  local base = live()
  local calls = 0
  local bad = rl.keyval{ delete = function() calls = calls + 1; error("delete boom") end }
  local ok, err = pcall(function()
    local w <close> = window("callbacks")
    w:set_attr(bad, { 1 })
    w:set_attr(rl.keyval{ delete = function() calls = calls + 1 end }, 2)
  end)
  T.eq(ok, false, "the close failed")
  T.eq(err.class, "ERR_CALLBACK", "class: " .. tostring(err))
  T.ok(err.message:find("delete boom", 1, true), "the callback's message: " .. err.message)
  T.eq(calls, 2, "both delete callbacks ran")
  bad:free()
  collectgarbage(); collectgarbage()
  local now = live()
  T.eq(now.wins, base.wins, "the window was freed on every rank")
  T.eq(now.refs, base.refs, "the callbacks' references were released")
end)

T.case("debug.setmetatable cannot pass one object off as another", function()
  -- Every object the module hands out is known by what its userdata holds,
  -- not by its metatable: dressed in another type's metatable, it is
  -- refused with that type's error instead of being read as that type
  -- (which crashed the rank for windows before).
  local w <close> = window("dressed")
  local info, kv = rl.info({ a = "1" }), rl.keyval({})
  w:lock(T.rank, "shared")
  local r = w:get(T.rank, 0, "int64")
  w:unlock(T.rank)
  local objects = { win = w, comm = rl.world, info = info, keyval = kv, result = r,
                    file = io.stdout }
  local calls = { -- a method of each type, and the class its check raises
    win = { "ERR_WIN", w.read, 0, "int8" },
    comm = { "ERR_COMM", rl.world.rank },
    info = { "ERR_INFO", info.get, "a" },
    keyval = { "ERR_KEYVAL", kv.free },
    result = { "ERR_ARG", r.ready },
  }
  for as, call in pairs(calls) do
    for name, o in pairs(objects) do
      if name ~= as then
        local mt = debug.getmetatable(o)
        debug.setmetatable(o, debug.getmetatable(objects[as]))
        T.raises(call[1], function() return call[2](o, table.unpack(call, 3)) end,
          "expected")
        debug.setmetatable(o, mt)
      end
    end
  end
  T.eq(info:get("a"), "1", "the info object is untouched")
  T.eq(r:value(), 0, "the result is untouched")
  T.eq(rl.world:rank(), T.rank, "rl.world is untouched")
  kv:free()
  rl.world:barrier()
end)

T.done()
