-- ranks: 2
-- Every error about a window names it (LUA_API.md: "names appear in error
-- messages"), whichever file of the binding raises it: window calls, RMA
-- operations and their results, synchronisation with its ranks and groups,
-- attributes, the constructors given a name, and free. Communicator
-- errors say comm:<call>. The windows are made and freed by every rank in
-- the same order; the errors are local.
local rl = require "rmalab"
local T = require "rmalab.test"

assert(T.size == 2, "names.lua runs on 2 ranks")
local NAME = '[window "ledger"]'

-- fn(...) raises an rmalab error of `class` whose message starts with
-- `prefix` and ends with the window's name; returns the error.
local function named(class, prefix, fn, ...)
  local args = table.pack(...)
  local err = T.raises(class, function() return fn(table.unpack(args, 1, args.n)) end, prefix)
  local m = type(err) == "table" and err.message or ""
  T.ok(m:find(prefix, 1, true) == 1, string.format("%q starts with %q", m, prefix))
  T.ok(m:sub(-#NAME) == NAME, string.format("%q ends with %q", m, NAME))
  return err
end

T.case("window calls, operations and synchronisation", function()
  local w <close> = rl.win_allocate(16, { disp_unit = 8, name = "ledger" })
  named("ERR_RMA_RANGE", "win:read", w.read, w, 9, "int64")
  named("ERR_RMA_SYNC", "win:put to rank", w.put, w, 1 - T.rank, 0, "int64", 1)
  named("ERR_RMA_SYNC", "win:", w.complete, w)
  named("ERR_RANK", "win: rank 4294967296", w.lock, w, 1 << 32)
  named("ERR_RANK", "win:", w.unlock, w, 7)
  named("ERR_GROUP", "group element 2 is string", w.post, w, { 0, "one" })
  named("ERR_RANK", "group element 1: rank 4294967296", w.start, w, { 1 << 32 })
  named("ERR_RMA_FLAVOR", "win:attach", w.attach, w, 8)
  w:free()
end)

T.case("results name their window", function()
  local w <close> = rl.win_allocate(16, { disp_unit = 8, name = "ledger" })
  w:lock_all()
  local r = w:get(1 - T.rank, 0, "int64")
  named("ERR_RMA_SYNC", "result:value", r.value, r)
  w:unlock_all()
  T.eq(r:value(), 0, "readable once the epoch is over")
  w:free()
end)

T.case("attributes", function()
  local w <close> = rl.win_allocate(16, { name = "ledger" })
  local kv <close> = rl.keyval{ delete = function() error("no deleting today") end }
  named("ERR_KEYVAL", "win:set_attr", w.set_attr, w, rl.WIN_BASE, 1)
  w:set_attr(kv, "v")
  named("ERR_CALLBACK", "win:delete_attr", w.delete_attr, w, kv) -- the attribute goes
  w:set_attr(kv, "a")
  named("ERR_CALLBACK", "win:set_attr", w.set_attr, w, kv, "b") -- "a" stays
  local err = T.raises("ERR_CALLBACK", function() w:free() end)
  T.ok(type(err) == "table" and err.message:sub(-#NAME) == NAME,
       "free names the window it freed all the same")
  kv:free()
end)

T.case("constructors given a name", function()
  named("ERR_ARG", "rl.win_create_dynamic:", rl.win_create_dynamic,
        { disp_unit = 8, name = "ledger" })
  local err = T.raises("ERR_ARG", function() return rl.win_create_dynamic{ disp_unit = 8 } end)
  T.ok(type(err) == "table" and not err.message:find("[window", 1, true),
       "no name given, none shown")
end)

T.case("communicators", function()
  local err = T.raises("ERR_COMM", function() return rl.world:free() end,
                       "comm:free: rl.world is MPI_COMM_WORLD")
  T.ok(type(err) == "table" and err.message:find("comm:free:", 1, true) == 1, "comm:free")
end)
T.done()
