-- ranks: 2
-- Info objects from Lua: every method, every error class, the bad inputs.
local rl = require "rmalab"
local T = require "rmalab.test"
local checkerr = T.checkerr

T.case("constructor and types", function()
  local info = rl.info{ no_locks = true, accumulate_ordering = "none", n = 5, neg = -3 }
  T.eq(#info, 4, "#info")
  T.eq(info:nkeys(), 4, "nkeys")
  T.eq(info:get("no_locks"), "true", "boolean becomes true")
  T.eq(info:get("n"), "5", "integer becomes decimal")
  T.eq(info:get("neg"), "-3", "negative integer")
  T.eq(info:get("absent"), nil, "absent key")
  -- keys of a table come in sorted order: deterministic from run to run
  T.eq({ info:nthkey(0), info:nthkey(1), info:nthkey(2), info:nthkey(3) },
    { "accumulate_ordering", "n", "neg", "no_locks" }, "order from a table")
  checkerr("ERR_INFO_VALUE", "float", rl.info, { x = 1.5 })
  checkerr("ERR_INFO_KEY", "table keys must be strings", rl.info, { "positional" })
  checkerr("ERR_ARG", "table or info object expected", rl.info, 42)
  T.eq(#rl.info(), 0, "empty info")
end)

T.case("a wrong value in a table of hints names the call and the key", function()
  -- Before: "bad argument #-1 to '?'", the stack slot of the table's
  -- value read as an argument.
  checkerr("ERR_INFO_VALUE", 'rl.info: the value of key "x": info values are strings, '
    .. "booleans or integers; got a float", rl.info, { x = 1.5 })
  checkerr("ERR_INFO_VALUE", 'hints: the value of key "no_locks": info values are strings, '
    .. "booleans or integers; got table", rl.win_allocate, 8, { info = { no_locks = {} } })
  checkerr("ERR_INFO_VALUE", 'hints: the value of key "a": info values are strings, '
    .. "booleans or integers; got function", rl.world.set_info, rl.world, { a = print })
  local info = rl.info()
  local ok, err = pcall(function() info:set("k", {}) end)
  T.ok(not ok and tostring(err):find("bad argument #2 to 'set' (info values are strings, "
    .. "booleans or integers; got table)", 1, true), "an argument, by its number: " .. tostring(err))
  ok, err = pcall(rl.win_allocate, 8, { info = { no_locks = {} } })
  T.ok(not ok and not tostring(err):find("#-1", 1, true), tostring(err))
end)

T.case("insertion order, override keeps position", function()
  local info = rl.info()
  info:set("c", "1"); info:set("a", "2"); info:set("b", "3")
  info:set("a", "override")
  local keys, vals = {}, {}
  for k, v in pairs(info) do keys[#keys + 1] = k; vals[#vals + 1] = v end
  T.eq(keys, { "c", "a", "b" }, "pairs order")
  T.eq(vals, { "1", "override", "3" }, "pairs values")
  T.eq(info:nthkey(1), "a", "nthkey(1)")
  info:delete("c")
  T.eq(info:nthkey(0), "a", "nthkey after delete")
  info:set("c", "again")
  T.eq(info:nthkey(2), "c", "re-set key goes to the end")
end)

T.case("case-sensitive and exact", function()
  local info = rl.info()
  info:set("Key", " spaced value ")
  T.eq(info:get("key"), nil, "keys are case-sensitive")
  T.eq(info:get("Key"), " spaced value ", "values are stored exactly")
  T.eq(info:valuelen("Key"), 14, "valuelen")
  T.eq(info:valuelen("nope"), nil, "valuelen of absent key")
end)

T.case("limits", function()
  local info = rl.info()
  local k255, k256 = string.rep("k", 255), string.rep("k", 256)
  info:set(k255, "ok")
  T.eq(info:get(k255), "ok", "255-character key")
  checkerr("ERR_INFO_KEY", "255", info.set, info, k256, "v")
  checkerr("ERR_INFO_KEY", "255", info.get, info, k256)
  checkerr("ERR_INFO_KEY", "empty", info.set, info, "", "v")
  info:set("v1024", string.rep("v", 1024))
  T.eq(info:valuelen("v1024"), 1024, "1024-character value")
  checkerr("ERR_INFO_VALUE", "1024", info.set, info, "v1025", string.rep("v", 1025))
  T.eq(rl.MAX_INFO_KEY, 255, "MAX_INFO_KEY")
  T.eq(rl.MAX_INFO_VAL, 1024, "MAX_INFO_VAL")
end)

T.case("NUL bytes are rejected, never truncated", function()
  local info = rl.info()
  checkerr("ERR_INFO_KEY", "NUL", info.set, info, "ab\0cd", "v")
  checkerr("ERR_INFO_VALUE", "NUL", info.set, info, "k", "ab\0cd")
  T.eq(#info, 0, "nothing stored")
end)

T.case("non-string keys and bad values", function()
  local info = rl.info()
  checkerr("ERR_INFO_KEY", "string expected, got number", info.set, info, 5, "v")
  checkerr("ERR_INFO_KEY", "string expected, got nil", info.set, info, nil, "v")
  checkerr("ERR_INFO_KEY", "string expected, got table", info.get, info, {})
  checkerr("ERR_INFO_VALUE", "got table", info.set, info, "k", {})
  checkerr("ERR_INFO_VALUE", "got nil", info.set, info, "k", nil)
  checkerr("ERR_INFO_VALUE", "float", info.set, info, "k", 0.5)
  info:set("b", false)
  T.eq(info:get("b"), "false", "false is stored as text")
  checkerr("ERR_INFO", "info object expected", info.set, {}, "k", "v")
end)

T.case("delete and nthkey errors", function()
  local info = rl.info{ a = 1 }
  checkerr("ERR_INFO_NOKEY", "\"zz\"", info.delete, info, "zz")
  checkerr("ERR_ARG", "out of range", info.nthkey, info, 1)
  checkerr("ERR_ARG", "out of range", info.nthkey, info, -1)
  checkerr("ERR_ARG", "out of range", info.nthkey, info, 1 << 40)
  -- nthkey takes an integer: error objects in luaL_argerror's wording
  checkerr("ERR_ARG", "bad argument #1 to 'nthkey' (key number (an integer) expected, got a "
    .. "number with no integer representation)", function() local _ = info:nthkey(0.5) end)
  checkerr("ERR_ARG", "bad argument #1 to 'nthkey' (key number (an integer) expected, got "
    .. "string)", function() local _ = info:nthkey("0") end)
  checkerr("ERR_ARG", "(key number (an integer) expected, got no value)", info.nthkey, info)
  T.eq(info:nthkey(0.0), "a", "an integral float is a key number")
  info:delete("a")
  T.eq(#info, 0, "deleted")
  checkerr("ERR_INFO_NOKEY", "not set", info.delete, info, "a")
end)

T.case("dup copies pairs and order, independently", function()
  local info = rl.info()
  for i = 10, 1, -1 do info:set("k" .. i, tostring(i)) end
  local d = info:dup()
  local d2 = rl.info(info)
  for i = 0, 9 do
    T.eq(d:nthkey(i), info:nthkey(i), "dup order " .. i)
    T.eq(d2:nthkey(i), info:nthkey(i), "rl.info(info) order " .. i)
  end
  d:set("k1", "changed")
  T.eq(info:get("k1"), "1", "the original is untouched")
end)

T.case("typed readers", function()
  local info = rl.info{ t = "true", f = " false ", n = " +42 ", m = "-7", big = "2147483648",
    sp = "+ 4", x = "4x", l = " a, b ,c ", bad = "a,,b", yes = "yes", up = "TRUE" }
  T.eq(info:get_bool("t"), true, "true")
  T.eq(info:get_bool("f"), false, "spaces are stripped")
  T.eq(info:get_bool("absent"), nil, "absent bool")
  checkerr("ERR_ARG", "\"yes\"", info.get_bool, info, "yes")
  checkerr("ERR_ARG", "\"TRUE\"", info.get_bool, info, "up")
  T.eq(info:get_int("n"), 42, "+42")
  T.eq(info:get_int("m"), -7, "-7")
  T.eq(info:get_int("absent"), nil, "absent int")
  checkerr("ERR_ARG", "does not fit", info.get_int, info, "big")
  checkerr("ERR_ARG", "no space", info.get_int, info, "sp")
  checkerr("ERR_ARG", "\"4x\"", info.get_int, info, "x")
  T.eq(info:get_list("l"), { "a", "b", "c" }, "list elements are trimmed")
  T.eq(info:get_list("absent"), nil, "absent list")
  checkerr("ERR_ARG", "empty", info.get_list, info, "bad")
end)

T.case("free, and use after free", function()
  local info = rl.info{ a = 1 }
  info:free()
  info:free() -- idempotent
  checkerr("ERR_INFO", "freed", info.get, info, "a")
  checkerr("ERR_INFO", "freed", info.set, info, "a", "1")
  checkerr("ERR_INFO", "freed", function() return #info end)
  checkerr("ERR_INFO", "freed", function() for _ in pairs(info) do end end)
  T.eq(tostring(info), "rmalab.info (freed)", "tostring of a freed info")
  do
    local closing <close> = rl.info{ b = 2 }
    T.eq(closing:get("b"), "2", "to-be-closed info works")
  end
end)

T.case("many keys", function()
  local info = rl.info()
  for i = 1, 10000 do info:set("key" .. i, "v" .. i) end
  for i = 2, 10000, 2 do info:delete("key" .. i) end
  T.eq(#info, 5000, "nkeys after deletes")
  T.eq(info:nthkey(0), "key1", "first")
  T.eq(info:nthkey(4999), "key9999", "last")
  for i = 1, 10000 do
    local want = (i % 2 == 1) and ("v" .. i) or nil
    if info:get("key" .. i) ~= want then error("lookup of key" .. i) end
  end
end)

T.case("info_env", function()
  local env = rl.info_env()
  T.eq(env:get("maxprocs"), tostring(T.size), "maxprocs")
  T.eq(env:get("thread_level"), "MPI_THREAD_MULTIPLE", "thread_level")
  T.ok(env:get("host") ~= nil, "host is known")
  -- The program mpiexec started: lua5.4 standalone, rmalab under the runner.
  local command = env:get("command") or ""
  T.ok(command:find("lua", 1, true) or command:find("rmalab", 1, true),
    "command names the interpreter (" .. command .. ")")
end)

T.case("error objects", function()
  local ok, err = pcall(rl.info().delete, rl.info(), "x")
  T.eq(ok, false, "failed")
  T.eq(err.class, "ERR_INFO_NOKEY", "class")
  T.eq(type(err.code), "number", "code")
  T.eq(tostring(err), "ERR_INFO_NOKEY: " .. err.message, "tostring")
end)

T.done()
