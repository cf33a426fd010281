-- ranks: 2 3
-- timeout: 60
-- One-rank mistakes in every collective call of the module, one after the
-- other in one run (docs/core.md, "Collective failure", lists the calls):
-- the rank at fault (the last) gets its own error, every other rank an
-- error that says another rank failed (or could not take part), nobody
-- waits for anybody, and the session goes on: a correct collective works
-- after each, and a window whose free was refused on one rank is usable
-- on every rank, then freed. A call that hung would end this run by its
-- timeout.
local rl = require "rmalab"
local T = require "rmalab.test"

local bad = T.size - 1
local at_fault = T.rank == bad
local world = rl.world

local function others_heard(msg)
  return msg:find("another rank failed", 1, true) or msg:find("could not take part", 1, true)
end

-- `call(wrong)` with wrong true on the last rank alone: `class` on every
-- rank, `own` in the message of the rank at fault.
local function one_rank(class, own, call)
  local err = T.raises(class, function() return call(at_fault) end)
  if at_fault then
    T.ok(err.message:find(own, 1, true), "its own error: " .. err.message)
  else
    T.ok(others_heard(err.message), "another rank failed: " .. err.message)
  end
  T.eq(world:allreduce(1, "sum"), T.size, "a collective after it")
end

T.case("window constructors", function()
  one_rank("ERR_NO_MEM", "1099511627776 bytes", function(w)
    return rl.win_allocate(w and 2^40 or 64)
  end)
  one_rank("ERR_NO_MEM", "cannot be had", function(w)
    return rl.win_create(w and 2^62 or 64)
  end)
  one_rank("ERR_NO_MEM", "cannot be had", function(w)
    return rl.win_allocate_shared(w and math.maxinteger or 64)
  end)
  one_rank("ERR_ARG", "disp_unit is 1", function(w)
    return rl.win_create_dynamic(w and { disp_unit = 8 } or nil)
  end)
  -- The newcomer's mistake of the issue: every rank asks too much.
  for _, n in ipairs{ 2^40, 2^62 } do
    local err = T.raises("ERR_NO_MEM", function() return rl.win_allocate(n) end)
    T.ok(err.message:find("cannot be had on this rank", 1, true), err.message)
  end
end)

T.case("fence", function()
  local w <close> = rl.win_allocate(8 * T.size, { disp_unit = 8 })
  one_rank("ERR_RMA_SYNC", "passive-target epoch", function(wrong)
    if wrong then w:lock(0) end
    local ok, err = pcall(w.fence, w)
    if wrong then w:unlock(0) end
    if not ok then error(err, 0) end
  end)
  -- noprecede on one rank: no rank is at fault alone, every rank is told.
  for _, a in ipairs{ "noprecede", "nosucceed" } do
    local err = T.raises("ERR_ARG", function() return w:fence(at_fault and a or nil) end)
    T.ok(err.message:find('gave "' .. a .. '" and others did not', 1, true), err.message)
  end
  T.eq(w:epochs().access, "none", "no rank fenced")
  w:fence()
  w:put((T.rank + 1) % T.size, T.rank, "int64", T.rank + 10)
  one_rank("ERR_ARG", 'unknown assertion "bogus"', function(wrong)
    return w:fence(wrong and "bogus" or nil)
  end)
  one_rank("ERR_ARG", "does not apply to fence", function(wrong)
    return w:fence(wrong and "nocheck" or nil)
  end)
  one_rank("ERR_ARG", '"noprecede" promises that no RMA calls precede', function(wrong)
    return w:fence(wrong and { "noprecede", "nosucceed" } or "nosucceed")
  end)
  w:fence("nosucceed")
  local from = (T.rank - 1) % T.size
  T.eq(w:read(from, "int64"), from + 10, "the epoch the refusals left open completed")
end)

T.case("free refused on one rank leaves the window usable on every rank", function()
  local w = rl.win_allocate(8, { disp_unit = 8, name = "kept" })
  if at_fault then w:lock(0) end
  local err = T.raises("ERR_RMA_SYNC", function() return w:free() end)
  if at_fault then
    T.ok(err.message:find("freed outside of any epoch", 1, true), err.message)
    w:unlock(0)
  else
    T.ok(others_heard(err.message), err.message)
  end
  w:fence()
  w:put((T.rank + 1) % T.size, 0, "int64", 40 + T.rank)
  w:fence("nosucceed")
  T.eq(w:read(0, "int64"), 40 + (T.rank - 1) % T.size, "usable after the refusal")
  w:free()
  T.raises("ERR_WIN", function() return w:read(0, "int64") end)
end)

T.case("free refused for a buffer in flight on one rank", function()
  local w = rl.win_allocate(64, { disp_unit = 8 })
  local src = rl.win_allocate(64, { disp_unit = 8 })
  local view = w:local_view("int64")
  src:lock_all()
  if at_fault then src:get(0, 0, "int64", view:sub(1, 2)) end
  T.raises("ERR_RMA_SYNC", function() return w:free() end)
  src:unlock_all()
  w:free()
  src:free()
end)

T.case("set_info of windows and communicators", function()
  local w <close> = rl.win_allocate(8)
  one_rank("ERR_ARG", "table of hints or info object expected", function(wrong)
    return w:set_info(wrong and 42 or {})
  end)
  one_rank("ERR_INFO_VALUE", "longer than MPI_MAX_INFO_VAL", function(wrong)
    return w:set_info(wrong and { accumulate_ordering = ("x"):rep(2000) } or {})
  end)
  one_rank("ERR_INFO_VALUE", "info values are", function(wrong)
    return w:set_info(wrong and { no_locks = {} } or {})
  end)
  local c <close> = world:dup()
  one_rank("ERR_ARG", "table of hints or info object expected", function(wrong)
    return c:set_info(wrong and 42 or {})
  end)
  one_rank("ERR_ARG", "table of hints or info object expected", function(wrong)
    return world:dup(wrong and 42 or nil)
  end)
  T.eq(#w:check_hints(), 0, "check_hints after them")
  T.eq(#c:check_hints(), 0)
  c:set_info({ mpi_assert_no_any_tag = "true" })
  w:set_info({ accumulate_ordering = "none" })
end)

T.case("collectives on values", function()
  one_rank("ERR_RANK", "root 7 is not a rank", function(wrong)
    return world:bcast(1, wrong and 7 or 0)
  end)
  one_rank("ERR_OP", 'unknown op "bogus"', function(wrong)
    return world:reduce(1, wrong and "bogus" or "sum")
  end)
  for _, f in ipairs{ "allreduce", "scan", "exscan" } do
    one_rank("ERR_ARG", "a number expected", function(wrong)
      return world[f](world, wrong and "x" or 1, "sum")
    end)
  end
  for _, f in ipairs{ "gather", "allgather" } do
    one_rank("ERR_ARG", "a function cannot be sent", function(wrong)
      return world[f](world, wrong and print or 1)
    end)
  end
  one_rank("ERR_ARG", "one per rank", function(wrong)
    return world:scatter(wrong and 5 or {}, bad)
  end)
  one_rank("ERR_ARG", "one per rank", function(wrong)
    local all = {}
    for i = 1, T.size do all[i] = i end
    return world:alltoall(wrong and 5 or all)
  end)
  one_rank("ERR_ARG", "color (an integer) expected", function(wrong)
    return world:split(wrong and "x" or 1)
  end)
  local b = rl.buffer("int64", 4)
  one_rank("ERR_RANK", "root 9 is not a rank", function(wrong)
    return world:bcast(b, wrong and 9 or 0)
  end)
end)

T.case("traces", function()
  local path = os.tmpname()
  one_rank("ERR_ARG", "a file name expected", function(wrong)
    return rl.trace.dump(wrong and 42 or path)
  end)
  os.remove(path)
  T.eq(rl.races.total(), 0, "the race checker's collective after them")
  world:barrier()
end)

T.done()
