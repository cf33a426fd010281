-- ranks: 2
-- engines: native rma
-- timeout: 120
-- The race checker (docs/races.md): where a race is raised and what the
-- report says, the modes, what is ordered (no report), and that an
-- unchecked window records nothing. tests/races/ has the RMARaceBench cases.
local T = require "rmalab.test"
local rl = require "rmalab"

local function checked(mode, name, extra)
  local info = { rmalab_check = mode }
  for k, v in pairs(extra or {}) do info[k] = v end
  return rl.win_allocate(64, { disp_unit = 4, name = name, info = info })
end

-- Runs fn(win) on every rank with a fresh window in `mode`, frees it, and
-- returns the races found on all ranks meanwhile.
local function found(mode, fn, extra)
  rl.races.clear()
  local win = checked(mode, "w", extra)
  fn(win)
  rl.world:barrier()
  win:free()
  return rl.races.total()
end

T.case("an unchecked window records nothing", function()
  local win <close> = rl.win_allocate(64, { disp_unit = 4 })
  T.eq(win:check_mode(), "off")
  T.eq(win:get_info():get("rmalab_check"), "off", "get_info")
  rl.races.clear()
  win:fence()
  if T.rank == 0 then win:put(1, 0, "int32", 1) else win:write(0, "int32", 2) end
  win:fence()
  T.eq(rl.races.total(), 0)
end)

T.case("fence: every rank raises at the fence that ends the epoch", function()
  rl.races.clear()
  local win = checked("races", "halo")
  T.eq(win:check_mode(), "races")
  T.eq(win:get_info():get("rmalab_check"), "races", "get_info")
  win:fence()
  if T.rank == 0 then win:put(1, 2, "int32", 1) else win:write(2, "int32", 42) end
  local err = T.raises("ERR_RMA_CONFLICT", function() win:fence() end)
  local msg = tostring(err)
  T.ok(msg:find('race on window "halo", rank 1, bytes 8%-11'), msg)
  T.ok(msg:find("rank 0  write  put%(int32 x1%) at [%w/]*races.lua:%d+, in a fence epoch"), msg)
  T.ok(msg:find("rank 1  write  win:write%(int32 x1%) at [%w/]*races.lua:%d+, during a fence "
                .. "epoch"), msg)
  T.ok(msg:find("not ordered: rank 1's win:write happened during a fence epoch"), msg)
  if T.rank == 0 then T.ok(msg:find("win:fence: rank 1 found a race", 1, true), msg) end
  if T.rank == 1 then T.ok(msg:find('win:fence: race on window "halo"', 1, true), msg) end
  T.eq(err.finder, 1, "every rank's error names the finder in a field (err.finder)")
  -- The fence did its work: the window goes on, in step on both ranks.
  win:fence()
  win:free()
  T.eq(rl.races.total(), 1, "one race, found by rank 1")
end)

T.case("PSCW: the target raises at wait(), the origin goes on", function()
  rl.races.clear()
  local win = checked("races", "x")
  if T.rank == 1 then
    win:post({ 0 })
    win:read(1, "int32")
    local err = T.raises("ERR_RMA_CONFLICT", function() win:wait() end)
    T.ok(tostring(err):find("during its exposure epoch %(after post%(%), before wait%(%)%)"),
         tostring(err))
    T.ok(tostring(err):find("found by rank 1 at wait%(%) at [%w/]*races.lua:%d+"), tostring(err))
    T.ok(tostring(err):find('win:wait: race on window "x"', 1, true), tostring(err))
    T.eq(err.finder, 1, "its own report: err.finder is itself")
  else
    win:start({ 1 })
    win:put(1, 1, "int32", 5)
    win:complete()
  end
  win:free()
  T.eq(rl.races.total(), 1)
end)

T.case("passive target: one origin's put and get without flush, at unlock", function()
  rl.races.clear()
  local win = checked("races", "p")
  if T.rank == 0 then
    win:lock(1)
    win:put(1, 3, "int32", 1)
    win:get(1, 3, "int32")
    local err = T.raises("ERR_RMA_CONFLICT", function() win:unlock(1) end)
    T.ok(tostring(err):find("both from rank 0, and its put completes only at flush or unlock"),
         tostring(err))
    -- With a flush between them there is nothing to report.
    win:lock(1)
    win:put(1, 3, "int32", 1)
    win:flush(1)
    win:get(1, 3, "int32")
    win:unlock(1)
  end
  win:free()
  T.eq(rl.races.total(), 1)
end)

T.case("races:warn prints and goes on; rl.races.list() has the report", function()
  rl.races.clear()
  local win = checked("races:warn", "warned")
  win:fence()
  if T.rank == 0 then win:accumulate(1, 0, "int32", 1, "sum") else win:read(0, "int32") end
  win:fence() -- no error
  local list = rl.races.list()
  if T.rank == 1 then
    T.eq(#list, 1, "rank 1 found it")
    local r = list[1] or { a = {}, b = {} }
    T.eq({ r.window, r.target, r.lo, r.hi, r.found_by }, { "warned", 1, 0, 4, 1 })
    T.eq({ r.a.rank, r.a.call, r.a.kind, r.b.rank, r.b.call, r.b.kind },
         { 0, "accumulate", "atomic", 1, "win:read", "read" })
    T.ok(r.a.site:find("races.lua:%d+$"), r.a.site)
    T.ok(r.text:find("not ordered"), r.text)
  else
    T.eq(#list, 0, "rank 0 found nothing")
  end
  win:free()
  local text = rl.races.text()
  if T.rank == 0 then T.ok(text:find('race on window "warned"'), text) else T.eq(text, nil) end
end)

T.case("ordered accesses are not races", function()
  T.eq(found("races", function(win)
    -- PSCW: the target reads after wait, writes before post.
    for i = 1, 5 do
      if T.rank == 1 then
        win:write(0, "int32", i)
        win:post({ 0 })
        win:wait()
        win:read(0, "int32")
      else
        win:start({ 1 })
        win:put(1, 0, "int32", i)
        win:complete()
      end
    end
    -- Fence: disjoint bytes, two reads, accumulates with one op.
    win:fence()
    win:put(1 - T.rank, T.rank, "int32", 7)
    win:get(1, 9, "int32")
    win:read(9, "int32")
    win:accumulate(1, 10, "int32", 1, "sum")
    win:fetch_and_op(1, 10, "int32", 0, "no_op")
    win:fence()
    -- Passive target: unlock, barrier, then the target reads.
    if T.rank == 0 then win:lock(1, "shared"); win:put(1, 4, "int32", 1); win:unlock(1) end
    rl.world:barrier()
    if T.rank == 1 then win:read(4, "int32") end
    -- ... or an allreduce of one number, which carries the clocks as barrier
    -- does (twice: a process's first reduction takes the general path).
    for i = 6, 7 do
      if T.rank == 0 then win:lock(1, "shared"); win:put(1, i, "int32", 1); win:unlock(1) end
      rl.world:allreduce(1.5, "sum")
      if T.rank == 1 then win:read(i, "int32") end
    end
    -- Exclusive locks keep two origins apart.
    win:lock(1, "exclusive")
    win:put(1, 5, "int32", T.rank)
    win:unlock(1)
  end), 0)
end)

T.case("what is not ordered is a race, whatever the timing", function()
  -- A put still in flight across a barrier (completed only at unlock).
  T.eq(found("races:quiet", function(win)
    if T.rank == 0 then win:lock(1, "shared"); win:put(1, 5, "int32", 1) end
    rl.world:barrier()
    if T.rank == 1 then win:read(5, "int32") end
    if T.rank == 0 then win:unlock(1) end
  end), 1, "put before a barrier, unlock after it")
  -- Shared locks do not exclude each other.
  T.eq(found("races:quiet", function(win)
    win:lock(1, "shared")
    win:put(1, 6, "int32", T.rank)
    win:unlock(1)
  end), 1, "two shared locks")
  -- Accumulates with different ops.
  T.eq(found("races:quiet", function(win)
    win:fence()
    win:accumulate(1, 7, "int32", 1, T.rank == 0 and "sum" or "replace")
    win:fence()
  end), 1, "sum and replace")
end)

-- A view of the window's memory that a message or a collective reads (or
-- a receive writes) is an access to the window, alone or inside a value
-- (a table holding it): during the epoch in which the other rank's put may
-- land, it races; after the fence that ends the epoch, it does not. Before,
-- only an element's load or store through the view was recorded.
T.case("a view sent in a message or a collective, alone or in a table", function()
  local c = rl.world
  local ways = { -- in one order on every rank
    { "send, in a table", function(v)
      if T.rank == 1 then c:send({ v, tag = "halo" }, 0, 7) else c:recv(1, 7) end
    end },
    { "send, alone", function(v)
      if T.rank == 1 then c:send(v, 0, 8) else c:recv(1, 8) end
    end },
    { "isend, in a table", function(v)
      if T.rank == 1 then c:isend({ { v } }, 0, 9):wait() else c:recv(1, 9) end
    end },
    { "bcast, in a table", function(v) c:bcast(T.rank == 1 and { data = v } or nil, 1) end },
    { "gather, in a table", function(v) c:gather({ v }, 0) end },
    { "allgather, in a table", function(v) c:allgather({ v, 1 }) end },
  }
  for _, way in ipairs(ways) do
    local name, send = way[1], way[2]
    local racy = found("races:quiet", function(win)
      local v = win:local_view("int32")
      win:fence()
      if T.rank == 0 then win:put(1, 3, "int32", 5) end
      send(v)
      win:fence()
    end)
    T.eq(racy, 1, name .. " during the put's epoch: one race")
    local quiet = found("races:quiet", function(win)
      local v = win:local_view("int32")
      win:fence()
      if T.rank == 0 then win:put(1, 3, "int32", 5) end
      win:fence()
      send(v)
      win:fence()
    end)
    T.eq(quiet, 0, name .. " after the fence that ends the epoch: no race")
  end
end)

T.case("free reports a passive-target race that no later call saw", function()
  rl.races.clear()
  local win = checked("races", "late")
  if T.rank == 0 then win:lock(1, "shared"); win:put(1, 0, "int32", 1); win:unlock(1) end
  if T.rank == 1 then win:write(0, "int32", 3) end
  local err = T.raises("ERR_RMA_CONFLICT", function() win:free() end)
  T.ok(tostring(err):find("race on window \"late\""), tostring(err))
  T.eq(rl.races.total(), 1)
end)

T.case("bad arguments to rl.races are error objects", function()
  T.raises("ERR_ARG", function() rl.races.jitter("soon") end, "number expected, got string")
  T.raises("ERR_ARG", function() rl.races.jitter(-1) end, "seconds from 0 to 10")
  T.raises("ERR_ARG", function() rl.races.jitter(11) end, "seconds from 0 to 10")
  T.raises("ERR_ARG", function() rl.races.jitter(0.001, 1.5) end, "seed")
  rl.races.jitter(0)
  local win = rl.win_allocate(16)
  T.raises("ERR_WIN", function() win.check_mode(42) end, "window expected")
  win:free()
  T.raises("ERR_WIN", function() win:check_mode() end)
end)

T.case("a bad hint value is dropped, as every invalid hint is", function()
  local win <close> = rl.win_allocate(16, { info = { rmalab_check = "sometimes" } })
  T.eq(win:check_mode(), "off")
end)

T.case("the timeline marks both accesses and the race", function()
  rl.races.clear()
  local win = checked("races:quiet", "marked", { rmalab_trace = "true" })
  win:fence()
  if T.rank == 0 then win:put(1, 2, "int32", 1) else win:write(2, "int32", 42) end
  win:fence()
  local text = rl.trace.timeline(win, { times = false })
  if T.rank == 0 then
    -- Races are numbered in the order the process found them.
    local n = text:match("RACE (%d+): bytes 8%-11 of rank 1")
    T.ok(n, text)
    T.ok(text:find("put 1 @2 4B !! race " .. tostring(n), 1, true), text)
    T.ok(text:find("win:write @2 4B !! race " .. tostring(n), 1, true), text)
  end
  local set = win:trace_events()
  if T.rank == 0 then
    local n = 0
    for _, f in ipairs(set.flows) do n = n + (f.kind == "race" and 1 or 0) end
    T.eq(n, 2, "a race flow to each access")
  end
  win:free()
end)
