-- rl.trace's writers (docs/trace.md), shipped inside the module (ltrace.c
-- loads this file with the table of C functions and the module).
--   rl.trace.dump(path [, opts])    collective: Chrome trace-event JSON
--   rl.trace.svg(path [, opts])     collective: one lane per rank, arrows
--   rl.trace.timeline(win | set [, opts])  ASCII lanes, a string on rank 0
--   rl.trace.chrome(set), rl.trace.svg_text(set [, opts])  the texts alone
--     (svg_text is in trace-svg.lua)
-- opts: window = name or key (only that window's events), last = N (the
-- last N events; svg and timeline), times = false (timeline: no times or
-- durations, for comparing runs), scale = "order" | "time" and titles =
-- {...} (svg: trace-svg.lua).
local T, rl = ...
local fmt, concat = string.format, table.concat

-- The core's synchronisation kinds (rmalab/sync.h): name -> scope, collective.
local SYNC = T._sync
local PSCW = {}   -- the calls that name a group
for k, s in pairs(SYNC) do PSCW[k] = s.scope == "group" or nil end
local OPS = { put = true, get = true, accumulate = true, get_accumulate = true,
              fetch_and_op = true, compare_and_swap = true }
local ARRIVED = { post_arrived = "post", complete_arrived = "complete" }

local function category(kind)
  if kind == "race" then return "race" end
  if kind == "read" or kind == "write" then return "local" end
  if PSCW[kind] then return "pscw" end
  if OPS[kind] then return "rma" end
  if ARRIVED[kind] then return "arrival" end
  if SYNC[kind] and SYNC[kind].collective then return "fence" end
  return "passive"
end

-- "{0, 1}"
local function group_text(g)
  local t = {}
  for i, r in ipairs(g or {}) do t[i] = tostring(r) end
  return "{" .. concat(t, ",") .. "}"
end

-- What a person reads: "put 1 @0 8B", "post {0}", "test x12 -> true".
-- An event's `call` (rmalab run --trace: "MPI_Put", "load") names it
-- instead of its kind.
local function label(e)
  local k = e.kind
  local n = e.call or k
  if OPS[k] then return fmt("%s %d @%d %dB", n, e.peer, e.disp, e.bytes) end
  if ARRIVED[k] then return fmt("%s %d arrived", ARRIVED[k], e.peer) end
  if k == "read" or k == "write" then
    return fmt("%s @%d %dB", e.call or "win:" .. k, e.disp, e.bytes)
  end
  if k == "race" then
    return fmt("RACE %d: bytes %d-%d of rank %d", e.seq, e.disp, e.disp + e.bytes - 1, e.peer)
  end
  if k == "test" then
    return fmt("%s%s -> %s", n, e.calls > 1 and (" x" .. e.calls) or "", e.flag ~= 0)
  end
  if PSCW[k] then return n .. " " .. group_text(e.group) end
  if k == "lock" then return fmt("%s %d %s", n, e.peer, e.flag ~= 0 and "excl" or "shared") end
  if SYNC[k] and SYNC[k].scope == "peer" then return fmt("%s %d", n, e.peer) end
  return n
end

-- What is wrong with a writer's options (nil when nothing): a table or
-- nil, whose window is a name or key, last a positive count and scale
-- "order" or "time". Every rank checks its own, also where only rank 0
-- renders, so that a mistake made on one rank is not ignored there.
local function opts_error(call, opts)
  if opts == nil then return nil end
  if type(opts) ~= "table" then
    return fmt("bad argument #2 to 'trace.%s' (an options table expected, got %s)", call,
      type(opts))
  end
  local w, last = opts.window, opts.last
  if w ~= nil and type(w) ~= "string" and type(w) ~= "number" then
    return fmt("trace.%s: opts.window is a window's name or key, not a %s", call, type(w))
  end
  if last ~= nil and (math.type(last) ~= "integer" or last < 1) then
    return fmt("trace.%s: opts.last is a count of events (an integer of 1 or more), not %s",
      call, tostring(last))
  end
  if opts.scale ~= nil and opts.scale ~= "order" and opts.scale ~= "time" then
    return fmt('trace.%s: scale must be "order" or "time", not %q', call, tostring(opts.scale))
  end
end

-- Keep the events of one window (opts.window, a name or key) and the last
-- opts.last of them; flows between kept events. Returns a new set.
local function pick(set, opts)
  opts = opts or {}
  local keepwin
  if opts.window then
    for i, w in ipairs(set.windows) do
      if w.name == opts.window or w.key == opts.window then keepwin = i end
    end
    if not keepwin then T._raise("ERR_ARG", fmt("trace: no window %q was recorded", opts.window)) end
  end
  local idx = {}
  for i, e in ipairs(set.events) do
    if not keepwin or e.win == keepwin then idx[#idx + 1] = i end
  end
  table.sort(idx, function(a, b)
    local x, y = set.events[a], set.events[b]
    if x.t0 ~= y.t0 then return x.t0 < y.t0 end
    return a < b
  end)
  local first = opts.last and math.max(1, #idx - opts.last + 1) or 1
  local out, map = {}, {}
  for k = first, #idx do
    out[#out + 1] = set.events[idx[k]]
    map[idx[k]] = #out
  end
  local flows = {}
  for _, f in ipairs(set.flows) do
    if map[f.from] and map[f.to] then
      flows[#flows + 1] = { kind = f.kind, from = map[f.from], to = map[f.to] }
    end
  end
  return { ranks = set.ranks, uncertainty = set.uncertainty, shared_clock = set.shared_clock,
           windows = set.windows,
           events = out, flows = flows, total = #idx, dropped = set.dropped }
end

-- Where a flow ends: an arrival is an instant; a call returned when it was
-- released, at its end (a hair inside, so viewers bind it to the slice).
local HAIR = 1e-9
local function flow_times(set, f)
  local a, b = set.events[f.from], set.events[f.to]
  local ts = a.t0 + math.min(HAIR, (a.t1 - a.t0) / 2)
  local te = b.t1 - math.min(HAIR, (b.t1 - b.t0) / 2)
  return ts, te
end
T.flow_times = function(set, f) return flow_times(set, f) end

---------------------------------------------------------------------------
-- Chrome trace-event JSON

local function jstr(s)
  return '"' .. tostring(s):gsub('[%c"\\]', function(c)
    return fmt("\\u%04x", c:byte())
  end) .. '"'
end

local function jval(v)
  local t = type(v)
  if t == "string" then return jstr(v) end
  if t == "boolean" then return tostring(v) end
  if t == "number" then
    if math.type(v) == "integer" then return tostring(v) end
    return fmt("%.3f", v)
  end
  if t == "table" then
    if #v > 0 or next(v) == nil then
      local a = {}
      for i, x in ipairs(v) do a[i] = jval(x) end
      return "[" .. concat(a, ",") .. "]"
    end
    local keys = {}
    for k in pairs(v) do keys[#keys + 1] = k end
    table.sort(keys)
    local a = {}
    for i, k in ipairs(keys) do a[i] = jstr(k) .. ":" .. jval(v[k]) end
    return "{" .. concat(a, ",") .. "}"
  end
  return "null"
end

local function us(t) return t * 1e6 end

local function event_json(set, e)
  local w = set.windows[e.win]
  local args = { window = w.name ~= "" and w.name or w.key, engine = w.engine }
  if e.peer >= 0 then args.peer = e.peer end
  if e.group then args.group = e.group end
  if OPS[e.kind] then args.disp, args.bytes, args.count = e.disp, e.bytes, e.count end
  if e.kind == "test" then args.calls, args.result = e.calls, e.flag ~= 0 end
  local ev = { name = label(e), cat = category(e.kind), pid = e.rank, tid = e.rank,
               ts = us(e.t0), args = args }
  if ARRIVED[e.kind] then
    ev.ph, ev.s = "i", "t"
  else
    ev.ph, ev.dur = "X", us(e.t1 - e.t0)
  end
  return jval(ev)
end

function T.chrome(set)
  local out = {}
  for r = 0, set.ranks - 1 do
    out[#out + 1] = jval{ ph = "M", name = "process_name", pid = r, tid = r,
                          args = { name = "rank " .. r } }
    out[#out + 1] = jval{ ph = "M", name = "process_sort_index", pid = r, tid = r,
                          args = { sort_index = r } }
    out[#out + 1] = jval{ ph = "M", name = "thread_name", pid = r, tid = r,
                          args = { name = "rank " .. r } }
  end
  for _, e in ipairs(set.events) do out[#out + 1] = event_json(set, e) end
  for i, f in ipairs(set.flows) do
    local a, b = set.events[f.from], set.events[f.to]
    local ts, te = flow_times(set, f)
    local name = f.kind == "post" and "post -> start"
      or f.kind == "race" and "race" or "complete -> wait"
    out[#out + 1] = jval{ ph = "s", id = i, name = name, cat = "flow", pid = a.rank,
                          tid = a.rank, ts = us(ts) }
    out[#out + 1] = jval{ ph = "f", bp = "e", id = i, name = name, cat = "flow",
                          pid = b.rank, tid = b.rank, ts = us(te) }
  end
  local other = { clock_uncertainty_us = us(set.uncertainty), ranks = set.ranks,
                  shared_clock = set.shared_clock or false,
                  rmalab = rl.version, flows = #set.flows }
  return '{"displayTimeUnit":"ns","otherData":' .. jval(other) .. ',"traceEvents":[\n'
         .. concat(out, ",\n") .. "\n]}\n"
end

---------------------------------------------------------------------------
-- The ASCII timeline: a row per event in time order, a column per rank.
-- "<= post 1": the call or arrival that rank 1's post released; "=> 0":
-- a post or complete that released something on rank 0.

function T.timeline_text(set, opts)
  opts = opts or {}
  set = pick(set, { window = opts.window, last = opts.last or 40 })
  local marks, sources = {}, {}
  for _, f in ipairs(set.flows) do
    local a = set.events[f.from]
    local m = marks[f.to]
    if f.kind == "race" then -- the two accesses of a race
      marks[f.to] = (m and m .. " " or "") .. fmt("!! race %d", a.seq)
    else
      marks[f.to] = m and m .. "," .. a.rank or fmt("<= %s %d", f.kind, a.rank)
      sources[f.from] = (sources[f.from] and sources[f.from] .. "," or "=> ") .. set.events[f.to].rank
    end
  end
  local cells, width = {}, {}
  for r = 0, set.ranks - 1 do width[r] = #("rank " .. r) end
  for i, e in ipairs(set.events) do
    local c = label(e)
    if opts.times ~= false and not ARRIVED[e.kind] and e.t1 > e.t0 then
      c = c .. fmt(" (%.3f ms)", (e.t1 - e.t0) * 1e3)
    end
    if sources[i] then c = c .. " " .. sources[i] end
    if marks[i] then c = c .. " " .. marks[i] end
    cells[i] = c
    width[e.rank] = math.max(width[e.rank], #c)
  end
  local lines = {}
  local what = "all windows"
  for _, x in ipairs(set.windows) do
    if #set.windows == 1 or opts.window == x.name or opts.window == x.key then
      what = x.name ~= "" and fmt("%s (%s)", x.name, x.engine) or fmt("%s (%s)", x.key, x.engine)
    end
  end
  lines[1] = fmt("trace of %s: %d ranks%s%s", what, set.ranks,
    opts.times ~= false and (set.shared_clock and ", one host's clock"
      or set.uncertainty < 1e-3 and fmt(", clocks within %.1f us", set.uncertainty * 1e6)
      or fmt(", clocks within %.1f ms", set.uncertainty * 1e3)) or "",
    set.total > #set.events and fmt(", the last %d of %d events", #set.events, set.total) or "")
  local head = { fmt("%10s", opts.times ~= false and "t (ms)" or "#") }
  for r = 0, set.ranks - 1 do head[#head + 1] = fmt("%-" .. width[r] .. "s", "rank " .. r) end
  lines[#lines + 1] = (concat(head, "  "):gsub("%s+$", ""))
  local t0 = #set.events > 0 and set.events[1].t0 or 0
  for i, e in ipairs(set.events) do
    local row = { opts.times ~= false and fmt("%10.3f", (e.t0 - t0) * 1e3) or fmt("%10d", i) }
    for r = 0, set.ranks - 1 do
      row[#row + 1] = fmt("%-" .. width[r] .. "s", r == e.rank and cells[i] or (r < e.rank and "." or ""))
    end
    lines[#lines + 1] = (concat(row, "  "):gsub("%s+$", ""))
  end
  return concat(lines, "\n")
end

-- timeline(win) is collective over the window, timeline(name) and
-- timeline() over the world (a name picks that window, nothing the one
-- with the latest event); timeline(set) is local. A string on the rank
-- that gathered (rank 0), nil on the others. Options wrong on one rank
-- are its own error once the gather is over, which the others do not wait
-- for.
function T.timeline(what, opts)
  local bad = opts_error("timeline", opts)
  opts = opts or {}
  local set = what
  if type(what) == "userdata" then
    set = what:trace_events()
  elseif type(what) ~= "table" then
    set = T.events()
  end
  if bad then T._raise("ERR_ARG", bad) end
  if type(what) ~= "userdata" and type(what) ~= "table" then
    if set and #set.events == 0 then
      return "nothing was recorded: :trace on (rl.trace.on()), or create windows with the "
        .. 'hint rmalab_trace = "true"'
    end
    if set then
      local latest = set.events[1]
      for _, e in ipairs(set.events) do if e.t1 > latest.t1 then latest = e end end
      opts = { window = what or set.windows[latest.win].key, last = opts.last,
               times = opts.times }
    end
  end
  if set == nil then return nil end
  return T.timeline_text(set, opts)
end

---------------------------------------------------------------------------
-- Files: rank 0 writes, every rank learns whether it could.

local function write_file(path, text)
  local f, err = io.open(path, "w")
  if not f then return false, err end
  local ok, werr = f:write(text)
  f:close()
  if not ok then return false, werr end
  return true
end

-- Collective: a wrong path on any rank, or rank 0's failure to write,
-- fails the call on every rank (the rank at fault with its own error,
-- the others saying which rank failed), once every rank has taken part.
local function collective_write(call, path, opts, render)
  local class, err
  if type(path) ~= "string" then
    class, err = "ERR_ARG", fmt("bad argument #1 to 'trace.%s' (a file name expected, got %s)",
      call, type(path))
  end
  if not err then
    err = opts_error(call, opts)
    class = err and "ERR_ARG"
  end
  local set = T.events()
  if set and not err then
    local rok, text = pcall(render, set)
    local ok, werr = false, text
    if rok then ok, werr = write_file(path, text) end
    if not ok then class, err = "ERR_OTHER", fmt("trace.%s: %s", call, tostring(werr)) end
  end
  local all_ok, rank, rclass, msg = T._agree(not err, class, err)
  if all_ok then return path end
  if err then T._raise(class, err) end
  T._raise(rclass, fmt("trace.%s: another rank failed (rank %d: %s), so every rank gives up",
    call, rank, msg))
end

function T.dump(path, opts)
  return collective_write("dump", path, opts, function(set)
    return T.chrome(opts and opts.window and pick(set, opts) or set)
  end)
end

function T.svg(path, opts)
  return collective_write("svg", path, opts, function(set) return T.svg_text(set, opts) end)
end

-- For trace-svg.lua, which ltrace.c runs next with this table.
T._label, T._category, T._pick, T._ARRIVED = label, category, pick, ARRIVED

return T
