-- ranks: 2 3
-- timeout: 90
-- A sweep of one-rank mistakes across the module's collective calls (issue
-- 42, "Nothing hangs on a mistake"), table-driven so that many cost one
-- launch: each row makes its call on every rank with the argument wrong on
-- the last rank alone (`w` true there), caught by pcall. The rank at fault
-- must fail; the others fail too, or go on where the call agreed; and then
-- every rank must still be in step: a reduction of the row's number and its
-- negation gives that number on every rank. A row that left a rank inside
-- a collective would end this run by its timeout (tests/lua/agree.lua
-- checks the wording of the first calls in depth; this file, their
-- breadth). Rows marked `all` must fail on every rank, with `text` in the
-- message where given; rows marked "any" are no mistake at all. The first rows are mistakes that hung or desynchronised
-- the ranks before (a buffer against values, an engine or race mode
-- asked on one rank, a collective call from a free's delete callback).
local rl = require "rmalab"
local T = require "rmalab.test"

local world = rl.world
local N, bad = T.size, T.size - 1
local at_fault = T.rank == bad
local function pick(w, good, wrong) if w then return wrong end return good end
local rows = {}
local function row(name, fn, all, text) rows[#rows + 1] = { name, fn, all, text } end
local MIXED = "some ranks gave a buffer and others values"
local W -- one window for the rows that fence it or set its hints (made in the case)

-- A buffer on one rank, values on the others: reductions in place and of
-- values began with different collectives.
for _, f in ipairs{ "allreduce", "scan", "exscan", "reduce" } do
  row(f .. ": a buffer against a number", function(w)
    return world[f](world, pick(w, 1, rl.buffer("int64", 1)), "sum")
  end, true, MIXED)
  row(f .. ": a table against a buffer", function(w)
    return world[f](world, pick(w, rl.buffer("double", 2), { 1, 2 }), "sum")
  end, true, MIXED)
  row(f .. ": an empty table against a buffer", function(w)
    return world[f](world, pick(w, rl.buffer("int64", 1), {}), "sum")
  end, true, MIXED)
end
row("bcast: a buffer against a value", function(w)
  return world:bcast(pick(w, 7, rl.buffer("int8", 0)), 0)
end, true, MIXED)

-- Hints that decide how a window synchronises, on one rank.
for _, hint in ipairs{ { rmalab_pscw = "native" }, { rmalab_check = "races" },
                       { rmalab_check = "races:warn" } } do
  for _, f in ipairs{ "win_allocate", "win_create", "win_allocate_shared" } do
    row(f .. " with " .. next(hint) .. " on one rank", function(w)
      local win = rl[f](64, { info = pick(w, {}, hint) })
      win:free()
    end, true, "every rank must give the same " .. next(hint))
  end
end
row("win_create_dynamic with another engine on one rank", function(w)
  rl.win_create_dynamic({ info = pick(w, {}, { rmalab_pscw = "native" }) }):free()
end, true, "different PSCW engines")

-- Collective calls from a free's delete callback, on one rank: the others
-- are inside MPI_Win_free. Refused there; the free itself completes.
local from_callback = {
  fence = function(win) win:fence() end,
  allreduce = function() world:allreduce(1, "sum") end,
  dup = function() world:dup():free() end,
  ["trace.events"] = function() rl.trace.events() end,
  ["win_allocate"] = function() rl.win_allocate(8):free() end,
}
for _, name in ipairs{ "fence", "allreduce", "trace.events" } do
  row(name .. " from a free's delete callback", function(w)
    local kv = rl.keyval{ delete = function(win) if w then from_callback[name](win) end end }
    local win = rl.win_allocate(64)
    win:set_attr(kv, 1)
    local ok, err = pcall(win.free, win)
    kv:free()
    T.eq(tostring(win), "rmalab.win (freed)", "the window was freed on every rank")
    if not ok then error(err, 0) end
  end, false, "a collective call cannot be made from a callback that free runs")
end

-- The breadth: arguments wrong on one rank in every collective call.
local wrongs = { "x", -1, 2.5, {}, 2^40, print }
for i, v in ipairs(wrongs) do
  local tag = " (" .. (type(v) ~= "number" and type(v) or tostring(v)) .. ")"
  local hints = type(v) == "table" and "any" or true -- {}: no hints, no assertion
  if i <= 3 then -- sizes
    for _, f in ipairs{ "win_allocate", "win_create", "win_allocate_shared" } do
      row(f .. " size" .. tag, function(w) rl[f](pick(w, 64, v)):free() end, true)
    end
  end
  row("bcast root" .. tag, function(w) return world:bcast(1, pick(w, 0, v)) end, true)
  row("bcast of a buffer, root" .. tag, function(w)
    return world:bcast(rl.buffer("int64", 2), pick(w, 0, v))
  end, true)
  row("gather root" .. tag, function(w) return world:gather(1, pick(w, 0, v)) end, true)
  row("scatter root" .. tag, function(w)
    local t = {}
    for r = 1, N do t[r] = r end
    return world:scatter(t, pick(w, 0, v))
  end, true)
  row("reduce root" .. tag, function(w) return world:reduce(1, "sum", pick(w, 0, v)) end, true)
  row("allreduce op" .. tag, function(w) return world:allreduce(1, pick(w, "sum", v)) end, true)
  row("scan of a buffer, op" .. tag, function(w)
    return world:scan(rl.buffer("double", 2), pick(w, "sum", v))
  end, true)
  row("split color" .. tag, function(w)
    local c = world:split(pick(w, 1, v))
    if c then c:free() end
  end, v ~= -1 or "any") -- a negative color is MPI_UNDEFINED
  row("fence assertion" .. tag, function(w) W:fence(pick(w, nil, v)) end, hints)
  row("win:set_info" .. tag, function(w) W:set_info(pick(w, {}, v)) end, hints)
  row("c:set_info" .. tag, function(w)
    local c = world:dup()
    local ok, err = pcall(c.set_info, c, pick(w, {}, v))
    c:free()
    if not ok then error(err, 0) end
  end, hints)
  row("dup hints" .. tag, function(w) world:dup(pick(w, nil, v)):free() end, hints)
  if type(v) ~= "string" then -- a string is a file name
    row("trace.dump path" .. tag, function(w)
      local path = os.tmpname()
      local ok, err = pcall(rl.trace.dump, pick(w, path, v))
      os.remove(path)
      if not ok then error(err, 0) end
    end, true)
  end
end
for _, v in ipairs{ print, { print }, ("x"):rep(300000) } do
  local tag = " (" .. type(v) .. ")"
  local legal = type(v) == "string" and "any" -- a long string is no mistake: it goes
  row("allgather value" .. tag, function(w) return world:allgather(pick(w, 1, v)) end,
      legal or true)
  row("alltoall element" .. tag, function(w)
    local t = {}
    for r = 1, N do t[r] = r end
    if w then t[1] = v end
    return world:alltoall(t)
  end, legal or true)
  row("bcast value at the root" .. tag, function(w) return world:bcast(pick(w, 1, v), bad) end,
      legal or true)
end
for _, v in ipairs{ { 1, 2 }, { 1, "x" }, "x", 1.5 } do
  row("allreduce value " .. T.show(v), function(w)
    return world:allreduce(pick(w, 1, v), type(v) == "number" and "band" or "sum")
  end, true)
end
row("free in an epoch", function(w)
  if w then W:lock(0) end
  local ok, err = pcall(W.free, W)
  if w then W:unlock(0) end
  if not ok then error(err, 0) end
end, true)
row("win_allocate with a name that is no string", function(w)
  rl.win_allocate(8, pick(w, nil, { name = 5 })):free()
end, true)

-- The trace writers' options, which only rank 0 read: an options table
-- that is no table, or a count that is no count, passed in silence on the
-- other ranks.
for _, c in ipairs{ { "dump", 5 }, { "dump", { last = "x" } }, { "svg", { window = {} } },
                    { "svg", { scale = "log" } } } do
  local f, opts = c[1], c[2]
  row("trace." .. f .. " options " .. T.show(opts), function(w)
    local path = os.tmpname()
    local ok, err = pcall(rl.trace[f], path, pick(w, nil, opts))
    os.remove(path)
    if not ok then error(err, 0) end
  end, true)
end
row("trace.timeline options 5", function(w) return rl.trace.timeline(nil, pick(w, nil, 5)) end,
    false, "an options table expected")

T.case("one-rank mistakes, then a collective that still works", function()
  W = rl.win_allocate(64)
  for i, r in ipairs(rows) do
    local name, fn, all, text = r[1], r[2], r[3], r[4]
    local ok, err = pcall(fn, at_fault)
    local msg = ok and "" or tostring(type(err) == "table" and err.message or err)
    if at_fault and all ~= "any" then T.ok(not ok, name .. ": the rank at fault fails") end
    if all == true then T.ok(not ok, name .. ": every rank fails (" .. T.rank .. ")") end
    if text and not ok then
      T.ok(msg:find(text, 1, true), name .. ": " .. msg)
    end
    local both = world:allreduce({ i, -i }, "max")
    T.eq(both, { i, -i }, name .. ": the ranks are in step after it")
  end
  W:fence()
  W:free() -- every refusal above left it usable
  world:barrier()
end)

T.done()
