-- ranks: 2 3
-- engines: native rma
-- timeout: 90
-- The recorder (docs/trace.md): what a traced window records, the arrows
-- between ranks, clocks, bounds, and the writers' errors.
local T = require "rmalab.test"
local rl = require "rmalab"

local function traced(name, extra)
  local info = { rmalab_trace = "true" }
  for k, v in pairs(extra or {}) do info[k] = v end
  return rl.win_allocate(64, { disp_unit = 8, name = name, info = info })
end

local function find(set, pred)
  for i, e in ipairs(set.events) do if pred(e) then return e, i end end
end

T.case("a window records nothing unless asked", function()
  local win <close> = rl.win_allocate(64, { disp_unit = 8 })
  T.eq(win:trace_status().on, false, "status")
  T.eq(win:get_info():get("rmalab_trace"), "false", "get_info")
  T.raises("ERR_WIN", function() win:trace_events() end, "records nothing")
  win:fence()
  win:fence()
end)

T.case("get_info reports the recorder in force", function()
  local win <close> = traced("info", { rmalab_trace_size = "32" })
  local info = win:get_info()
  T.eq(info:get("rmalab_trace"), "true")
  T.eq(info:get("rmalab_trace_size"), "32")
  local st = win:trace_status()
  T.eq(st.capacity, 32)
  T.ok(st.uncertainty >= 0 and st.uncertainty < 0.01, "uncertainty " .. st.uncertainty)
  if T.rank == 0 then T.eq(st.offset, 0.0, "rank 0 is the reference") end
end)

-- Rank 1 posts 200 ms late: the origin's call that waited for the post
-- (start on the native engine, the first put on the rma engine) ends after
-- the post began, and an arrow joins them.
T.case("causality: a late post releases the origin after it", function()
  local win <close> = traced("causal")
  if T.rank == 1 then
    rl.sleep(0.2)
    win:post({ 0 })
    win:wait()
  elseif T.rank == 0 then
    win:start({ 1 })
    win:put(1, 0, "int64", 5)
    win:complete()
  end
  local set = win:trace_events()
  if T.rank ~= 0 then T.eq(set, nil, "only rank 0 gets the set"); return end
  local engine = set.windows[1].engine
  local post, ipost = find(set, function(e) return e.rank == 1 and e.kind == "post" end)
  local waited = engine == "native" and "start" or "put"
  local ev = find(set, function(e) return e.rank == 0 and e.kind == waited end)
  T.ok(post and ev, "post and " .. waited .. " recorded")
  if not (post and ev) then return end
  T.eq(post.group, { 0 }, "the post's group")
  T.ok(ev.t1 >= post.t0 - set.uncertainty, ("%s ends at %.6f, the post began at %.6f (+-%.6f)")
    :format(waited, ev.t1, post.t0, set.uncertainty))
  T.ok(ev.t1 - ev.t0 > 0.1, waited .. " waited for the post: " .. (ev.t1 - ev.t0))
  local flow
  for _, f in ipairs(set.flows) do if f.kind == "post" and f.from == ipost then flow = f end end
  T.ok(flow, "an arrow leaves the post")
  if flow then
    local to = set.events[flow.to]
    T.eq(to.rank, 0, "it ends on the origin")
    T.eq(to.kind, engine == "native" and "start" or "post_arrived")
    local ts, te = rl.trace.flow_times(set, flow)
    T.ok(te >= ts - set.uncertainty, "the arrow ends after it starts")
    T.ok(to.t0 >= ev.t0 and to.t1 <= ev.t1, "the release lies in the call that waited")
  end
  local comp, icomp = find(set, function(e) return e.rank == 0 and e.kind == "complete" end)
  local back
  for _, f in ipairs(set.flows) do if f.from == icomp then back = f end end
  T.ok(comp and back and back.kind == "complete", "an arrow leaves the complete")
  if back then T.eq(set.events[back.to].rank, 1, "to the target") end
end)

T.case("every operation is recorded with its target, bytes and displacement", function()
  local win <close> = traced("ops")
  win:fence()
  local right = (T.rank + 1) % T.size
  win:put(right, 1, "int64", { 1, 2, 3 })
  local g = win:get(right, 0, "int32", 2)
  win:accumulate(right, 4, "int64", 7, "sum")
  win:fence()
  win:lock(right, "exclusive")
  win:fetch_and_op(right, 5, "int64", 1, "sum")
  win:unlock(right)
  local set = win:trace_events()
  if T.rank ~= 0 then return end
  local kinds = {}
  for _, e in ipairs(set.events) do
    if e.rank == 0 then kinds[#kinds + 1] = e.kind end
  end
  T.eq(kinds, { "fence", "put", "get", "accumulate", "fence", "lock", "fetch_and_op", "unlock" })
  local put = find(set, function(e) return e.rank == 0 and e.kind == "put" end)
  T.eq({ put.peer, put.disp, put.bytes, put.count }, { 1, 1, 24, 3 }, "put 1 @1 24B")
  local get = find(set, function(e) return e.rank == 0 and e.kind == "get" end)
  T.eq({ get.peer, get.bytes }, { 1, 8 })
  local lock = find(set, function(e) return e.rank == 0 and e.kind == "lock" end)
  T.eq({ lock.peer, lock.flag }, { 1, 1 }, "exclusive lock of 1")
  T.ok(g:value(), "the get completed")
end)

T.case("a polling loop of tests is one event", function()
  local win <close> = traced("poll")
  -- Rank 1 tests once before rank 0 may start (the barrier), so the loop
  -- holds at least one false test whatever the scheduler does.
  if T.rank == 1 then
    win:post({ 0 })
    T.eq(win:test(), false, "nothing can have completed yet")
  end
  rl.world:barrier()
  if T.rank == 1 then
    while not win:test() do end
  elseif T.rank == 0 then
    rl.sleep(0.05)
    win:start({ 1 })
    win:put(1, 0, "int64", 1)
    win:complete()
  end
  local set = win:trace_events()
  if T.rank ~= 0 then return end
  local tests = {}
  for _, e in ipairs(set.events) do
    if e.rank == 1 and e.kind == "test" then tests[#tests + 1] = e end
  end
  T.eq(#tests, 1, "one event for the loop")
  if tests[1] then
    T.ok(tests[1].calls > 1, "calls: " .. tests[1].calls)
    T.eq(tests[1].flag, 1, "it ends with true")
    T.eq(tests[1].group, { 0 })
  end
end)

T.case("the ring keeps the last events", function()
  local win <close> = traced("ring", { rmalab_trace_size = "16" })
  win:fence()
  for i = 1, 40 do win:put((T.rank + 1) % T.size, 0, "int64", i) end
  win:fence()
  local st = win:trace_status()
  T.eq(st.recorded, 42, "recorded")
  T.eq(st.dropped, 26, "dropped")
  local set = win:trace_events()
  if T.rank == 0 then
    local mine = 0
    for _, e in ipairs(set.events) do mine = mine + (e.rank == 0 and 1 or 0) end
    T.eq(mine, 16, "rank 0's events")
    T.eq(set.dropped[1], 26, "the set says how many were lost")
  end
end)

T.case("records outlive their windows; dump and svg write them", function()
  rl.trace.clear()
  do
    local win <close> = traced("gone")
    win:fence()
    win:put((T.rank + 1) % T.size, 0, "int64", 1)
    win:fence()
  end
  local set = rl.trace.events()
  if T.rank == 0 then
    T.eq(#set.windows, 1, "one window")
    T.eq(set.windows[1].name, "gone")
    T.eq(set.windows[1].freed, true)
    T.eq(set.ranks, T.size, "a rank per process")
    T.eq(#set.events, 3 * T.size, "fence, put, fence on every rank")
  else
    T.eq(set, nil)
  end
  local path = os.tmpname()
  T.eq(rl.trace.dump(path), path, "dump returns the path on every rank")
  T.eq(rl.trace.svg(path .. ".svg"), path .. ".svg")
  if T.rank == 0 then
    local text = assert(io.open(path)):read("a")
    T.ok(text:find('"traceEvents"', 1, true), "trace-event JSON")
    T.ok(text:find('"window":"gone"', 1, true), "names the window")
    local svg = assert(io.open(path .. ".svg")):read("a")
    T.ok(svg:find("^<svg") and svg:find("</svg>\n$"), "an SVG document")
    os.remove(path)
    os.remove(path .. ".svg")
  end
  rl.trace.clear()
  local after = rl.trace.events()
  if T.rank == 0 then T.eq(#after.windows, 0, "clear forgets freed windows") end
end)

T.case("trace.on records live windows, trace.off pauses them", function()
  local win <close> = rl.win_allocate(64, { disp_unit = 8, name = "late" })
  rl.trace.on()
  T.eq(win:trace_status().on, true, "a live window records")
  local new <close> = rl.win_allocate(16, { name = "new" })
  T.eq(new:trace_status().on, true, "so do new windows")
  win:fence()
  win:fence()
  rl.trace.off()
  T.eq(win:trace_status().paused, true, "paused")
  win:fence()
  win:fence()
  T.eq(win:trace_status().recorded, 2, "nothing recorded while paused")
  local plain <close> = rl.win_allocate(16, { name = "plain" })
  T.eq(plain:trace_status().on, false, "off again for new windows")
  rl.trace.clear()
end)

T.case("bad arguments and files raise, on every rank", function()
  T.raises("ERR_ARG", function() rl.trace.dump(42) end, "a file name expected")
  T.raises("ERR_OTHER", function() rl.trace.dump("/nonexistent/dir/x.json") end,
    "/nonexistent/dir/x.json")
  local win <close> = traced("named")
  local set = win:trace_events()
  if T.rank == 0 then
    T.raises("ERR_ARG", function() rl.trace.timeline(set, { window = "nosuch" }) end,
      'no window "nosuch"')
    T.ok(rl.trace.timeline(set):find("trace of named", 1, true), "a timeline of the set")
  end
  rl.trace.clear()
end)

T.done()
