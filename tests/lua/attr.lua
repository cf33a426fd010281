-- ranks: 2
-- Attribute caching from Lua: keyvals, set/get/delete_attr, the delete
-- callbacks (their arguments, what they may do, their errors), the order of
-- deletes when a window is freed, the predefined attributes, and that every
-- registry reference is released. Windows are collective: every test makes
-- the same window calls on every rank, and <close> frees them even when a
-- check fails.
local rl = require "rmalab"
local T = require "rmalab.test"
local checkerr = T.checkerr

local function refs() return rl.debug.stats().refs end

local function window(size, opts)
  return (rl.win_allocate(size or 64, opts or { disp_unit = 1 }))
end

-- A keyval whose delete callback appends { win, kv, value, extra } to `log`
-- and then runs `also(win, kv, value, extra)` if given.
local function logging_keyval(log, extra, also)
  return rl.keyval{
    extra = extra,
    delete = function(w, k, v, e)
      log[#log + 1] = { win = w, kv = k, value = v, extra = e }
      if also then also(w, k, v, e) end
    end,
  }
end

T.case("keyval constructor", function()
  local base = refs()
  local a, b = rl.keyval{}, rl.keyval()
  local c = rl.keyval{ copy = "dup", delete = "null", extra = { 1 } }
  local d = rl.keyval{ copy = "null", delete = function() end }
  local e = rl.keyval{ copy = function() return false end }
  T.ok(tostring(a):find("rmalab.keyval", 1, true), "tostring")
  -- a copy function is accepted and set aside: MPI never duplicates a window
  T.eq(refs(), base + 2, "refs: c's extra, d's delete and nothing else")
  checkerr("ERR_ARG", "copy must be a function, \"null\" or \"dup\"", rl.keyval,
    { copy = "deep" })
  checkerr("ERR_ARG", "delete must be a function or \"null\"", rl.keyval, { delete = 1 })
  checkerr("ERR_ARG", "unknown field delet", rl.keyval, { delet = print })
  checkerr("ERR_ARG", "table", rl.keyval, "x")
  for _, kv in ipairs{ a, b, c, d, e } do kv:free(); kv:free() end -- idempotent
  T.eq(refs(), base, "refs released by free")
  T.ok(tostring(a):find("freed", 1, true), "tostring of a freed keyval")
  local w <close> = window()
  checkerr("ERR_KEYVAL", "was freed", w.get_attr, w, a)
  checkerr("ERR_KEYVAL", "was freed", w.set_attr, w, a, 1)
  checkerr("ERR_KEYVAL", "keyval expected", w.get_attr, w, {})
  checkerr("ERR_KEYVAL", "WIN_BASE is predefined", rl.WIN_BASE.free, rl.WIN_BASE)
  do local _kv <close> = rl.keyval{ extra = "x" } end
  T.eq(refs(), base, "<close> frees")
  w:free()
end)

T.case("set, get and delete", function()
  local base = refs()
  local log, extra = {}, { "extra" }
  local kv = logging_keyval(log, extra)
  local w <close> = window()
  local other <close> = window()
  local v, ok = w:get_attr(kv)
  T.eq(v, nil, "unset value"); T.eq(ok, false, "unset flag")
  local t = {}
  w:set_attr(kv, t)
  v, ok = w:get_attr(kv)
  T.ok(rawequal(v, t), "get_attr returns the very object set"); T.eq(ok, true, "flag")
  T.eq(select(2, other:get_attr(kv)), false, "attributes are per window")
  checkerr("ERR_ARG", "use win:delete_attr", w.set_attr, w, kv, nil)
  checkerr("ERR_ARG", "use win:delete_attr", w.set_attr, w, kv)
  T.eq(#log, 0, "no callback yet")

  w:set_attr(kv, false) -- replacing runs delete on the old value
  T.eq(#log, 1, "delete ran on replace")
  T.ok(rawequal(log[1].win, w), "callback win")
  T.ok(rawequal(log[1].kv, kv), "callback kv")
  T.ok(rawequal(log[1].value, t), "callback value is the old one")
  T.ok(rawequal(log[1].extra, extra), "callback extra")
  v, ok = w:get_attr(kv)
  T.eq(v, false, "false is a value"); T.eq(ok, true, "false is set")

  w:delete_attr(kv)
  T.eq(#log, 2, "delete ran")
  T.eq(log[2].value, false, "deleted value")
  T.eq(select(2, w:get_attr(kv)), false, "gone")
  w:delete_attr(kv) -- never set: nothing happens
  other:delete_attr(kv)
  T.eq(#log, 2, "no callback for an attribute that is not set")
  kv:free()
  T.eq(refs(), base, "refs")
  other:free(); w:free()
end)

T.case("freeing a window deletes in reverse order of setting", function()
  local base = refs()
  local log = {}
  local k1, k2, k3 = logging_keyval(log, 1), logging_keyval(log, 2), logging_keyval(log, 3)
  local w <close> = window()
  w:set_attr(k1, "one"); w:set_attr(k2, "two")
  T.eq(w:get_attr(rl.WIN_SIZE), 64, "reading a predefined attribute in between")
  w:set_attr(k3, "three")
  w:set_attr(k1, "one again") -- keeps its place
  T.eq(#log, 1, "replace ran delete")
  k2:free() -- still attached
  w:free()
  T.eq(#log, 4, "every attribute deleted")
  T.eq({ log[2].extra, log[3].extra, log[4].extra }, { 3, 2, 1 }, "order")
  T.eq(log[4].value, "one again", "the replaced value")
  k1:free(); k3:free()
  T.eq(refs(), base, "refs")
  checkerr("ERR_WIN", "freed", w.get_attr, w, k1)
end)

T.case("a freed keyval keeps working for its attributes", function()
  local base = refs()
  local log = {}
  local kv = logging_keyval(log, "e")
  local w1 <close> = window()
  local w2 <close> = window()
  w1:set_attr(kv, "a"); w2:set_attr(kv, "b")
  kv:free()
  T.eq(w1:get_attr(kv), "a", "get after free")
  w1:set_attr(kv, "c") -- replacing is allowed
  T.eq(log[1].value, "a", "replace ran delete")
  w2:delete_attr(kv)
  checkerr("ERR_KEYVAL", "was freed", w2.set_attr, w2, kv, "new")
  T.eq(select(2, w2:get_attr(kv)), false, "not set")
  T.ok(refs() > base, "the keyval's functions are still held")
  w1:delete_attr(kv)
  T.eq(#log, 3, "callbacks")
  T.eq(refs(), base, "released once the last attribute went")
  checkerr("ERR_KEYVAL", "no window holds an attribute", w1.get_attr, w1, kv)
  w2:free(); w1:free()
end)

T.case("callbacks that delete other attributes or free their keyval", function()
  local base = refs()
  local log = {}
  local kb = logging_keyval(log, "b")
  local ka = logging_keyval(log, "a", function(w) w:delete_attr(kb) end)
  local kc
  kc = logging_keyval(log, "c", function() kc:free() end)
  local w <close> = window()
  w:set_attr(kb, 2); w:set_attr(ka, 1)
  w:delete_attr(ka)
  T.eq({ log[1].extra, log[2].extra }, { "a", "b" }, "a's callback deleted b")
  T.eq(select(2, w:get_attr(kb)), false, "b gone")

  w:set_attr(kc, 3)
  w:delete_attr(kc)
  T.eq(log[3].extra, "c", "c's callback ran")
  checkerr("ERR_KEYVAL", "was freed", w.get_attr, w, kc)

  -- the same during win:free: a goes first and takes b with it
  w:set_attr(kb, 2); w:set_attr(ka, 1)
  kc = logging_keyval(log, "c", function() kc:free() end)
  w:set_attr(kc, 3)
  w:free()
  T.eq({ log[4].extra, log[5].extra, log[6].extra }, { "c", "a", "b" }, "order at free")
  T.eq(#log, 6, "b's callback ran once")
  ka:free(); kb:free()
  T.eq(refs(), base, "refs")
end)

-- The standard: replacing an attribute is "as if delete_attr were first
-- called", so the delete callback sees the old value still set.
T.case("replacing runs delete first, on the old value still set", function()
  local seen = {}
  local kv
  kv = rl.keyval{ delete = function(win, _, value)
    seen[#seen + 1] = { value, (win:get_attr(kv)) } end }
  local w <close> = window()
  w:set_attr(kv, "first")
  w:set_attr(kv, "second")
  T.eq(#seen, 1, "delete ran once")
  T.eq(seen[1][1], "first", "delete got the old value")
  T.eq(seen[1][2], "first", "and get_attr still gave the old value inside it")
  T.eq(w:get_attr(kv), "second", "then the new value")
  w:delete_attr(kv)
  w:free()
  kv:free()
end)

-- A delete callback run by a replacement may not delete or set the same
-- attribute: delete would run twice on the same old value.
T.case("a replacement's delete callback cannot delete or set its attribute", function()
  local base = refs()
  local inner = {}
  local kv
  kv = rl.keyval{ delete = function(win, _, value)
    if value ~= "first" then return end
    inner[1] = select(2, pcall(win.delete_attr, win, kv))
    inner[2] = select(2, pcall(win.set_attr, win, kv, "from inside"))
  end }
  local w <close> = window()
  w:set_attr(kv, "first")
  w:set_attr(kv, "second")
  for i = 1, 2 do
    T.eq(type(inner[i]) == "table" and inner[i].class, "ERR_KEYVAL", "refused " .. i)
    T.ok(inner[i] and inner[i].message:find("being replaced", 1, true), "says why " .. i)
  end
  T.eq(w:get_attr(kv), "second", "the replacement went through")
  w:delete_attr(kv)
  kv:free()
  T.eq(refs(), base, "no reference leaked or released twice")
  w:free()
end)

T.case("errors in delete callbacks", function()
  local base = refs()
  local calls = 0
  local bad = rl.keyval{ delete = function() calls = calls + 1; error("boom") end }
  local w <close> = window()
  w:set_attr(bad, {})
  local err = checkerr("ERR_CALLBACK", "boom", w.delete_attr, w, bad)
  T.ok(err.message:find("delete callback", 1, true), "message says which callback")
  T.eq(select(2, w:get_attr(bad)), false, "the attribute went all the same")
  T.eq(refs(), base + 1, "only the delete function is held")

  -- replacing is as if delete_attr came first: if delete fails, the call
  -- fails and the old value stays (its reference too, the new one goes)
  w:set_attr(bad, "old")
  local held = refs()
  err = checkerr("ERR_CALLBACK", "boom", w.set_attr, w, bad, "new")
  T.ok(err.message:find("the old value stays", 1, true), "message says so: " .. err.message)
  T.eq(w:get_attr(bad), "old", "the old value stays")
  T.eq(refs(), held, "no reference gained or lost")

  -- error objects, rmalab's own included, and errors that are not strings
  local inner = rl.keyval{ delete = function(win) win:set_attr(rl.WIN_BASE, 1) end }
  w:set_attr(inner, 1)
  err = checkerr("ERR_CALLBACK", "ERR_KEYVAL", w.delete_attr, w, inner)
  T.ok(err.message:find("WIN_BASE is predefined", 1, true), "inner message kept")
  local odd = rl.keyval{ delete = function() error({}) end }
  w:set_attr(odd, 1)
  checkerr("ERR_CALLBACK", "error object is a table value", w.delete_attr, w, odd)
  local shown = rl.keyval{ delete = function()
    error(setmetatable({}, { __tostring = function() return "shown" end })) end }
  w:set_attr(shown, 1)
  checkerr("ERR_CALLBACK", "shown", w.delete_attr, w, shown)

  -- win:free reports the first failure (the most recently set) and frees
  local log = {}
  local ok = logging_keyval(log, "ok")
  local first = rl.keyval{ delete = function() error("first") end }
  w:set_attr(ok, 1); w:set_attr(first, 2) -- bad still holds "old"
  calls = 0
  err = checkerr("ERR_CALLBACK", "first", w.free, w)
  T.ok(not err.message:find("boom", 1, true), "not bad's failure, set earlier: " .. err.message)
  T.eq(calls, 1, "the other failing callback ran")
  T.eq(#log, 1, "the good callback ran")
  checkerr("ERR_WIN", "freed", w.get_attr, w, ok)
  for _, kv in ipairs{ bad, inner, odd, shown, ok, first } do kv:free() end
  T.eq(refs(), base, "refs")
end)

T.case("callbacks cannot unwind the core", function()
  local base = refs()
  local yielder = rl.keyval{ delete = function() coroutine.yield(1) end }
  local w <close> = window()
  w:set_attr(yielder, 1)
  local co = coroutine.wrap(function()
    return pcall(w.delete_attr, w, yielder)
  end)
  local okc, err = co()
  T.eq(okc, false, "delete_attr failed")
  T.eq(err.class, "ERR_CALLBACK", "class")
  T.ok(err.message:find("yield", 1, true), "yield across the core is refused: " .. err.message)
  T.eq(select(2, w:get_attr(yielder)), false, "attribute gone")
  yielder:free()
  w:free()
  T.eq(refs(), base, "refs")
end)

T.case("a collected keyval still reaches its callback", function()
  local base = refs()
  local got
  local w <close> = window()
  do
    local kv = rl.keyval{ delete = function(_, k, v) got = { kv = k, value = v } end }
    w:set_attr(kv, "kept")
  end
  collectgarbage(); collectgarbage()
  T.eq(rl.debug.stats().keyvals, 0, "the userdata was collected")
  T.ok(refs() > base, "the keyval lives on in the attribute")
  w:free()
  T.eq(got.value, "kept", "callback ran")
  T.ok(tostring(got.kv):find("rmalab.keyval", 1, true), "callback got a keyval")
  got = nil -- luacheck: ignore 311 (drops the last reference to the keyval, for refs())
  T.eq(refs(), base, "refs")
end)

T.case("predefined attributes", function()
  local wa <close> = rl.win_allocate(24, { disp_unit = 4 })
  local wc <close> = rl.win_create(32, { disp_unit = 8 })
  local wd <close> = rl.win_create_dynamic()
  local base, ok = wa:get_attr(rl.WIN_BASE)
  T.eq(math.type(base), "integer", "base is an integer address"); T.eq(ok, true, "flag")
  T.ok(base ~= 0, "base is not NULL")
  T.eq(wa:get_attr(rl.WIN_SIZE), 24, "size as asked, though rounded up inside")
  T.eq(wa:get_attr(rl.WIN_DISP_UNIT), 4, "disp_unit")
  T.eq(wa:get_attr(rl.WIN_CREATE_FLAVOR), "allocate", "flavor")
  local model = wa:get_attr(rl.WIN_MODEL)
  T.ok(model == "unified" or model == "separate", "model: " .. tostring(model))
  T.eq(wc:get_attr(rl.WIN_CREATE_FLAVOR), "create", "create flavor")
  T.eq(wc:get_attr(rl.WIN_SIZE), 32, "create size")
  T.eq(wc:get_attr(rl.WIN_DISP_UNIT), 8, "create disp_unit")
  T.eq(wd:get_attr(rl.WIN_CREATE_FLAVOR), "dynamic", "dynamic flavor")
  for _, name in ipairs{ "WIN_BASE", "WIN_SIZE", "WIN_DISP_UNIT", "WIN_CREATE_FLAVOR",
      "WIN_MODEL" } do
    checkerr("ERR_KEYVAL", name .. " is predefined and read-only", wa.set_attr, wa, rl[name], 1)
    checkerr("ERR_KEYVAL", name .. " is predefined and read-only", wa.delete_attr, wa, rl[name])
    T.ok(tostring(rl[name]):find(name, 1, true), "tostring names " .. name)
  end
  wd:free(); wc:free(); wa:free()
end)

T.case("shared windows report their flavour", function()
  local ws <close> = rl.win_allocate_shared(16)
  T.eq(ws:get_attr(rl.WIN_CREATE_FLAVOR), "allocate_shared", "flavor")
  T.eq(ws:get_attr(rl.WIN_SIZE), 16, "size")
  ws:free()
end)

T.done()
