-- stress.lua: the long run of bench/stress.c through the Lua module, with
-- the Lua heap sampled too, since a user's program lives in it (issue 12).
--
--     rmalab -n 2 -bind-to core bench/stress.lua [epochs [engines]]
--
-- epochs: per engine, 1,000,000 by default; engines: "native,rma".
--
-- The same program as stress.c, in int64 cells (disp_unit 8): each epoch a
-- random directed graph drawn from a seed all ranks share and made safe for
-- MPICH's native PSCW, which counts posts of any epoch (stress.c says how:
-- unsafe edges are dropped, or once in 8 the epoch runs after a barrier);
-- every rank posts to its origins and starts to its targets, puts 1 to 16
-- cells into its slot at each, accumulates sums into a region all share,
-- gets from the target's identity, completes, and waits or, one time in
-- four, polls test(). Every rank keeps a model of its window and compares
-- what its origins touched after every epoch, and every get with the
-- identity; a mismatch raises an error naming the engine, epoch and cell.
-- Every CHECK epochs a checkpoint adds a fence epoch and a lock (or
-- lock_all with a flush) epoch between barriers and compares the whole
-- window. A second window stays in lock_all for the whole run: after each
-- epoch every rank puts the epoch's number into its cell at a rank drawn
-- for it and flushes that rank; checkpoints check the cells.
--
-- Samples at checkpoints (once warmed up, every tenth, the end) and before
-- each window and after its free: VmRSS and VmHWM, the Lua heap
-- (collectgarbage("count")) as the program left it and after a full
-- collection, the core's live allocations and the binding's live windows
-- (rl.debug.stats()). Verdicts, and an error (exit status 1) if one fails:
--   RSS flat: growth from the warmed-up sample at most RSS_TOL_KB (stress.c
--     says why 256 kB);
--   Lua heap flat: after a full collection, growth at most LUA_TOL_KB: a
--     leak of one small table (56 bytes) every 1,000 epochs grows a
--     1,000,000-epoch run by 54 kB, so 32 kB catches it;
--   core allocations flat: exact;
--   final memory identical between engines: after each free, the core's
--     count is where it was before the first window, and the Lua heap (after
--     a full collection) and RSS differ between the engines by at most the
--     tolerances;
--   window contents identical between engines.
local rl = require "rmalab"

local world = rl.world
local rank, size = world:rank(), world:size()
local args = arg or {}
local EPOCHS = math.tointeger(tonumber(args[1] or "1000000"))
local ENGINES = args[2] or "native,rma"
if not EPOCHS or EPOCHS < 1 or size < 2 or size > 64 then
  error("usage: rmalab -n 2..64 bench/stress.lua [epochs [native,rma]]")
end
local SEED, CHECK = 1, 1000
local WARMUP = math.max(1, math.min(10000, EPOCHS // 10))
local RSS_TOL_KB, LUA_TOL_KB = 256, 32
local SLOT, ACC, IDS, SIDE = 16, 8, 16, 4 -- cells

-- Layout in cells.
local function put_at(o) return o * SLOT end
local ACC_AT = put_at(size)
local ID_AT = ACC_AT + ACC
local function fence_at(o) return ID_AT + IDS + o * SIDE end
local function lock_at(o) return fence_at(size) + o * SIDE end
local NCELLS = lock_at(size)

-- Random numbers every rank draws alike: splitmix64 over one state, so that
-- drawing allocates nothing. Lua's integers wrap and >> is logical, as in C.
local S = 0
local function mix(z)
  z = z + 0x9E3779B97F4A7C15
  z = (z ~ (z >> 30)) * 0xBF58476D1CE4E5B9
  z = (z ~ (z >> 27)) * 0x94D049BB133111EB
  return z ~ (z >> 31)
end
local function seed_at(a, b, c) S = mix(SEED ~ mix(a ~ mix(b ~ mix(c)))) end
local function nxt()
  S = S + 0x9E3779B97F4A7C15
  return mix(S)
end
local function below(n) return (((nxt() >> 32) * n) >> 32) end -- 0 .. n-1

local function identity(r, i) return mix(r << 32 | i) end

-- ---------------------------------------------------------------------------
-- The schedule (stress-schedule.c: draw_graph, advance)

local ALL = size == 64 and -1 or (1 << size) - 1
local function popcount(m)
  local n = 0
  while m ~= 0 do m = m & (m - 1); n = n + 1 end
  return n
end

local function new_schedule()
  local s = { after = {}, barriers = 0, edges = 0, dropped = 0 }
  for o = 0, size - 1 do s.after[o] = ALL end
  return s
end

local function reset(s)
  for o = 0, size - 1 do s.after[o] = ALL end
end

-- The graph of epoch e into g = { out = {}, ins = {}, quiet = {} }.
local function draw_graph(s, e, g)
  seed_at(e, 1, 0)
  local out, ins, quiet, after = g.out, g.ins, g.quiet, s.after
  local unsafe = 0
  for o = 0, size - 1 do
    local m, q = 0, 0
    for t = 0, size - 1 do
      if below(2) == 1 then
        m = m | (1 << t)
        if below(8) == 0 then q = q | (1 << t) end
      end
    end
    out[o], quiet[o], ins[o] = m, q, 0
    unsafe = unsafe | (m & ~after[o])
  end
  g.barrier = false
  if unsafe ~= 0 and below(8) == 0 then
    g.barrier = true
    s.barriers = s.barriers + 1
    reset(s)
  end
  for o = 0, size - 1 do
    local drop = out[o] & ~after[o]
    s.dropped = s.dropped + popcount(drop)
    out[o] = out[o] & ~drop
    quiet[o] = quiet[o] & out[o]
    s.edges = s.edges + popcount(out[o])
    for t = 0, size - 1 do
      if out[o] >> t & 1 == 1 then ins[t] = ins[t] | (1 << o) end
    end
  end
  local next_after = g.next_after
  for o = 0, size - 1 do
    if out[o] ~= 0 then
      next_after[o] = (1 << o) | out[o]
    else
      local m = after[o]
      for r = 0, size - 1 do
        if after[o] >> r & 1 == 1 then m = m | out[r] end
      end
      next_after[o] = m
    end
  end
  for o = 0, size - 1 do after[o] = next_after[o] end
end

-- The ranks of m into list (reused), in an order drawn now.
local function ranks_of(m, list)
  local n = 0
  for i = 0, size - 1 do
    if m >> i & 1 == 1 then n = n + 1; list[n] = i end
  end
  for i = #list, n + 1, -1 do list[i] = nil end
  for i = n, 2, -1 do
    local j = below(i) + 1
    list[i], list[j] = list[j], list[i]
  end
  return n
end

-- ---------------------------------------------------------------------------
-- Operations of origin o to target t in epoch e: (kind, first cell, count)
-- triples into ops, and their data drawn by data().

local PUT, ACCUM, GET = 1, 2, 3

local function draw_ops(e, o, t, ops)
  seed_at(e, 2, o * 64 + t)
  local n, put_done = 1 + below(3), false
  for k = 1, n do
    local kind = below(4)
    kind = (kind == 0 or kind == 3) and PUT or kind == 1 and ACCUM or GET
    if kind == PUT and put_done then kind = ACCUM end
    local count, at
    if kind == PUT then
      put_done = true
      count = 1 + below(SLOT)
      at = put_at(o) + below(SLOT - count + 1)
    elseif kind == ACCUM then
      count = 1 + below(4)
      at = ACC_AT + below(ACC - count + 1)
    else
      count = 1 + below(8)
      at = ID_AT + below(IDS - count + 1)
    end
    ops[3 * k - 2], ops[3 * k - 1], ops[3 * k] = kind, at, count
  end
  return n
end

-- The data of op k of (e, o, t) into vals (reused), count cells.
local function data(e, o, t, k, count, vals)
  seed_at(e, 3 + k, o * 64 + t)
  for i = 1, count do vals[i] = nxt() end
  for i = #vals, count + 1, -1 do vals[i] = nil end
  return vals
end

-- ---------------------------------------------------------------------------
-- One engine's run

local function status_kb()
  local f = assert(io.open("/proc/self/status"))
  local text = f:read("a")
  f:close()
  return tonumber(text:match("VmRSS:%s*(%d+)")), tonumber(text:match("VmHWM:%s*(%d+)"))
end

-- A sample into s, a table made before the run (so that what the run keeps
-- of itself does not grow the heap it measures). The full collection comes
-- after the RSS is read, so that the RSS is that of the program as it runs.
local function new_sample()
  return { epoch = 0, rss = 0, hwm = 0, lua = 0.0, lua_live = 0.0, core = 0, wins = 0 }
end

local function sample(s, epoch)
  local rss, hwm = status_kb()
  s.epoch, s.rss, s.hwm, s.lua = epoch, rss, hwm, collectgarbage("count")
  collectgarbage(); collectgarbage()
  local st = rl.debug.stats()
  s.core, s.wins, s.lua_live = st.core_allocs, st.wins, collectgarbage("count")
end

local function fail(r, fmt, ...)
  error(string.format("stress.lua: rank %d: %s engine, epoch %d: " .. fmt, rank, r.engine,
    r.epoch, ...), 0)
end

local function compare(r, at, count, what)
  local got, model = r.w:read(at, "int64", count), r.model
  for i = 1, count do
    if got[i] ~= model[at + i] then
      fail(r, "%s: cell %d holds %d, expected %d", what, at + i - 1, got[i], model[at + i])
    end
  end
end

local function check_get(r, res, t, at)
  local v = res:values()
  for i = 1, #v do
    if v[i] ~= identity(t, at - ID_AT + i - 1) then
      fail(r, "get from rank %d, cell %d of its identity: %d", t, at - ID_AT + i - 1, v[i])
    end
  end
end

local function pscw_epoch(r, g)
  local w, e, ops, vals = r.w, r.epoch, r.ops, r.vals
  seed_at(e, 4, rank)
  local norigins = ranks_of(g.ins[rank], r.origins)
  local ntargets = ranks_of(g.out[rank], r.targets)
  local poll = below(4) == 0
  if g.barrier then world:barrier() end
  w:post(r.origins)
  w:start(r.targets)
  local gets, ngets = r.gets, 0
  for i = 1, ntargets do
    local t = r.targets[i]
    if g.quiet[rank] >> t & 1 == 0 then
      local n = draw_ops(e, rank, t, ops)
      for k = 1, n do
        local kind, at, count = ops[3 * k - 2], ops[3 * k - 1], ops[3 * k]
        r.nops = r.nops + 1
        if kind == GET then
          gets[ngets + 1], gets[ngets + 2], gets[ngets + 3] = w:get(t, at, "int64", count), t, at
          ngets = ngets + 3
        elseif kind == PUT then
          w:put(t, at, "int64", data(e, rank, t, k, count, vals))
        else
          w:accumulate(t, at, "int64", data(e, rank, t, k, count, vals), "sum")
        end
      end
    end
  end
  w:complete()
  for i = 1, ngets, 3 do check_get(r, gets[i], gets[i + 1], gets[i + 2]) end
  for i = #gets, 1, -1 do gets[i] = nil end
  if poll then
    r.polled = r.polled + 1
    repeat until w:test()
  else
    w:wait()
  end
  local model = r.model
  for i = 1, norigins do
    local o = r.origins[i]
    if g.quiet[o] >> rank & 1 == 0 then
      local n = draw_ops(e, o, rank, ops)
      for k = 1, n do
        local kind, at, count = ops[3 * k - 2], ops[3 * k - 1], ops[3 * k]
        if kind ~= GET then
          local d = data(e, o, rank, k, count, vals)
          for j = 1, count do
            model[at + j] = kind == PUT and d[j] or model[at + j] + d[j]
          end
        end
      end
      compare(r, put_at(o), SLOT, "the put slot of rank " .. o)
    end
  end
  if norigins > 0 then compare(r, ACC_AT, ACC, "the accumulate region") end
end

local function side_data(e, kind, o, t)
  seed_at(e, kind, o * 64 + t)
  local v = {}
  for i = 1, SIDE do v[i] = nxt() end
  return v
end

local function fence_epoch(r)
  local w = r.w
  w:fence("noprecede")
  for t = 0, size - 1 do w:put(t, fence_at(rank), "int64", side_data(r.epoch, 5, rank, t)) end
  w:fence("nosucceed")
  for o = 0, size - 1 do
    local v = side_data(r.epoch, 5, o, rank)
    for i = 1, SIDE do r.model[fence_at(o) + i] = v[i] end
  end
end

local function lock_epoch(r)
  local w = r.w
  seed_at(r.epoch, 6, 0)
  local target_of, exclusive = {}, {}
  for o = 0, size - 1 do target_of[o], exclusive[o] = below(size), below(2) == 1 end
  local all, t = r.checkpoints % 2 == 1, target_of[rank]
  if all then w:lock_all() else w:lock(t, exclusive[rank] and "exclusive" or "shared") end
  w:put(t, lock_at(rank), "int64", side_data(r.epoch, 7, rank, 0))
  local res = w:get(t, (ID_AT + 1), "int64", 4)
  if all then
    w:flush(t)
    check_get(r, res, t, ID_AT + 1)
    w:unlock_all()
  else
    w:unlock(t)
    check_get(r, res, t, ID_AT + 1)
  end
  for o = 0, size - 1 do
    if target_of[o] == rank then
      local v = side_data(r.epoch, 7, o, 0)
      for i = 1, SIDE do r.model[lock_at(o) + i] = v[i] end
    end
  end
end

local function side_target(e, o)
  seed_at(e, 8, o)
  return below(size)
end

local function side_epoch(r)
  local e = r.epoch
  local t = side_target(e, rank)
  r.side:put(t, rank, "int64", e)
  r.side:flush(t)
  for o = 0, size - 1 do
    if side_target(e, o) == rank then r.side_last[o] = e end
  end
end

-- After a barrier: every put into the side window has been flushed.
local function side_check(r)
  local cells = r.side:read(0, "int64", size)
  for o = 0, size - 1 do
    if cells[o + 1] ~= r.side_last[o] then
      fail(r, "the side window's cell of rank %d holds %d, expected %d", o, cells[o + 1],
        r.side_last[o])
    end
  end
end

local function checkpoint(r)
  r.checkpoints = r.checkpoints + 1
  world:barrier()
  side_check(r)
  fence_epoch(r)
  lock_epoch(r)
  world:barrier()
  compare(r, 0, NCELLS, "the whole window at a checkpoint")
  reset(r.sched)
  local e = r.epoch
  if e == r.warmup or e >= r.next_tenth then
    local n = r.nsamples
    if (n == 0 or r.samples[n].epoch ~= e) and n < #r.samples then
      r.nsamples = n + 1
      sample(r.samples[n + 1], e)
    end
  end
  while r.next_tenth <= e do r.next_tenth = r.next_tenth + math.max(1, r.epochs // 10) end
end

local function checksum(values)
  local h = 0
  for i = 1, #values do h = mix(h ~ values[i]) end
  return h
end

-- A run's record, with every field it will hold, made before any run so
-- that the records the program keeps are the same at every sample.
local MAX_SAMPLES = 14
local function new_run(engine, epochs, warmup)
  local r = { engine = engine, epochs = epochs, warmup = warmup, sched = new_schedule(),
    w = false, side = false, side_last = {}, model = false, ops = false, vals = false,
    gets = false, origins = false, targets = false, samples = {}, nsamples = 0, nops = 0,
    polled = 0, checkpoints = 0, next_tenth = math.max(1, epochs // 10), epoch = 0,
    seconds = 0.0, checksum = 0, before = new_sample(), after_free = new_sample() }
  for i = 1, MAX_SAMPLES do r.samples[i] = new_sample() end
  for o = 0, size - 1 do r.side_last[o] = 0 end
  return r
end

local function run_engine(r)
  world:barrier()
  sample(r.before, 0)
  r.ops, r.vals, r.gets, r.origins, r.targets, r.model = {}, {}, {}, {}, {}, {}
  r.w = rl.win_allocate(NCELLS * 8, { disp_unit = 8, name = "stress",
    info = { rmalab_pscw = r.engine } })
  r.side = rl.win_allocate(size * 8, { disp_unit = 8, name = "stress-side",
    info = { rmalab_pscw = r.engine } })
  r.side:lock_all()
  for i = 1, NCELLS do r.model[i] = 0 end
  for i = 0, IDS - 1 do r.model[ID_AT + i + 1] = identity(rank, i) end
  r.w:write(ID_AT, "int64", table.move(r.model, ID_AT + 1, ID_AT + IDS, 1, {}))
  world:barrier()
  local g = { out = {}, ins = {}, quiet = {}, next_after = {} }
  local t0 = rl.wtime()
  for e = 1, r.epochs do
    r.epoch = e
    draw_graph(r.sched, e, g)
    pscw_epoch(r, g)
    side_epoch(r)
    if e % CHECK == 0 or e == r.epochs or e == r.warmup then checkpoint(r) end
  end
  r.seconds = rl.wtime() - t0
  r.checksum = checksum(r.w:read(0, "int64", NCELLS))
  r.side:unlock_all()
  r.side:free()
  r.w:free()
  r.side, r.w, r.model, r.ops, r.vals, r.gets, r.origins, r.targets = false, false, false,
    false, false, false, false, false
  g = nil -- luacheck: ignore
  world:barrier()
  sample(r.after_free, r.epochs)
end

-- ---------------------------------------------------------------------------
-- Report

local function fmt_sample(s)
  return string.format("%d %d %d %.0f %.1f %d %d", s.epoch, s.rss, s.hwm, s.lua, s.lua_live,
    s.core, s.wins)
end

-- Every rank's verdicts on run r, and the lines of its samples.
local function judge(r)
  local first, growth, lua_growth, core_flat = r.samples[1], 0, 0, true
  local lines = {}
  for i = 1, r.nsamples do
    local s = r.samples[i]
    growth = math.max(growth, s.rss - first.rss)
    lua_growth = math.max(lua_growth, s.lua_live - first.lua_live)
    core_flat = core_flat and s.core == first.core and s.wins == 2
    lines[#lines + 1] = fmt_sample(s)
  end
  return table.concat(lines, ";"), growth, math.ceil(lua_growth), core_flat
end

local function report(r, ok)
  local text, growth, lua_growth, core_flat = judge(r)
  local slowest = world:gather(string.format("%.6f %d %d", r.seconds, r.nops, r.polled))
  local all = world:gather(text)
  local verdicts = world:gather(string.format("%d %d %s", growth, lua_growth,
    core_flat and "yes" or "no"))
  local rss_ok = growth <= RSS_TOL_KB
  local lua_ok = lua_growth <= LUA_TOL_KB
  ok = ok and rss_ok and lua_ok and core_flat
  if rank ~= 0 then return ok end
  local secs, nops, polled = 0, 0, 0
  for _, line in ipairs(slowest) do
    local s, n, p = line:match("(%S+) (%d+) (%d+)")
    secs, nops, polled = math.max(secs, tonumber(s)), nops + tonumber(n), polled + tonumber(p)
  end
  local sc = r.sched
  print(string.format("\n%s engine (Lua): %d ranks, %d epochs in %.1f s: %.0f epochs/s " ..
    "(%.2f us/epoch)", r.engine, size, r.epochs, secs, r.epochs / secs, secs / r.epochs * 1e6))
  print(string.format("  %.2f edges and %.2f operations per epoch; %.1f%% of epochs after a " ..
    "barrier; %.1f%% of exposures ended by test() in a loop; %d checkpoints",
    sc.edges / r.epochs, nops / r.epochs, 100 * sc.barriers / r.epochs,
    100 * polled / (r.epochs * size), r.checkpoints))
  local head = string.format("  %9s", "epoch")
  for p = 0, size - 1 do
    head = head .. string.format(" | rank %-2d %6s %6s %7s %7s %5s", p, "RSS kB", "HWM kB",
      "Lua kB", "live kB", "core")
  end
  print(head)
  local rows = {}
  for p = 1, size do
    local i = 0
    local fields = "(%d+) (%d+) (%d+) (%d+) ([%d.]+) (%d+) %d+"
    for e, rss, hwm, lua_kb, live, core in all[p]:gmatch(fields) do
      i = i + 1
      rows[i] = (rows[i] or string.format("  %9d", tonumber(e))) ..
        string.format(" | %7s %6s %6s %7s %7s %5s", "", rss, hwm, lua_kb, live, core)
    end
  end
  for _, row in ipairs(rows) do print(row) end
  local worst, worst_lua, all_core = 0, 0, true
  for _, v in ipairs(verdicts) do
    local g, l, c = v:match("(%-?%d+) (%-?%d+) (%a+)")
    worst, worst_lua = math.max(worst, tonumber(g)), math.max(worst_lua, tonumber(l))
    all_core = all_core and c == "yes"
  end
  print(string.format("  RSS flat: %s (max growth %d kB, worst rank, from epoch %d; tolerance " ..
    "%d kB)", worst <= RSS_TOL_KB and "yes" or "no", worst, r.samples[1].epoch, RSS_TOL_KB))
  print(string.format("  Lua heap flat: %s (after a full collection, max growth %d kB; " ..
    "tolerance %d kB)", worst_lua <= LUA_TOL_KB and "yes" or "no", worst_lua, LUA_TOL_KB))
  print(string.format("  core allocations flat: %s (%d on rank 0 at the first sample; two " ..
    "live windows at every sample)", all_core and "yes" or "no", r.samples[1].core))
  return ok
end

-- ---------------------------------------------------------------------------

local engines = {}
for e in ENGINES:gmatch("[^,]+") do
  assert(e == "native" or e == "rma", "engines: native, rma or both")
  engines[#engines + 1] = e
end
if rank == 0 then
  print(string.format("stress.lua: %d ranks, %d epochs per engine, checkpoint every %d, " ..
    "warm-up %d epochs; %d int64 cells per rank; %s", size, EPOCHS, CHECK, WARMUP, NCELLS,
    _VERSION))
end
-- MPI's first-use allocations land before the baseline (stress.c says why).
for _, e in ipairs(engines) do run_engine(new_run(e, 2000, 1000)) end
local runs = {}
for i, e in ipairs(engines) do runs[i] = new_run(e, EPOCHS, WARMUP) end
collectgarbage(); collectgarbage()
local core_start = rl.debug.stats().core_allocs
for _, r in ipairs(runs) do run_engine(r) end
local ok = true
for _, r in ipairs(runs) do ok = report(r, ok) end

if #runs == 2 then
  local a, b = runs[1], runs[2]
  local core_same = a.after_free.core == core_start and b.after_free.core == core_start
  local d_rss = b.after_free.rss - a.after_free.rss
  local d_lua = b.after_free.lua_live - a.after_free.lua_live
  local same = core_same and math.abs(d_rss) <= RSS_TOL_KB and math.abs(d_lua) <= LUA_TOL_KB
  local contents = a.checksum == b.checksum
  local lines = world:gather(string.format("%d %d %d %d %d %.0f %.0f %s %s", a.before.rss,
    a.after_free.rss, b.before.rss, b.after_free.rss, core_start, a.after_free.lua_live,
    b.after_free.lua_live, same and "yes" or "no", contents and "yes" or "no"))
  ok = ok and same and contents
  if rank == 0 then
    print(string.format("\nbefore each window and after its free, core allocations %d before " ..
      "the first", core_start))
    print(string.format("  %4s %15s %15s %15s %15s %11s %11s", "rank",
      a.engine .. " RSS before", a.engine .. " RSS after", b.engine .. " RSS before",
      b.engine .. " RSS after", a.engine .. " Lua", b.engine .. " Lua"))
    local all_same, all_contents = true, true
    for p, line in ipairs(lines) do
      local f = {}
      for x in line:gmatch("%S+") do f[#f + 1] = x end
      print(string.format("  %4d %15s %15s %15s %15s %11s %11s", p - 1, f[1], f[2], f[3], f[4],
        f[6], f[7]))
      all_same, all_contents = all_same and f[8] == "yes", all_contents and f[9] == "yes"
    end
    print(string.format("final memory identical between engines: %s (core allocations back " ..
      "to %d after each free; RSS and the Lua heap after each free within %d and %d kB)",
      all_same and "yes" or "no", core_start, RSS_TOL_KB, LUA_TOL_KB))
    print("window contents identical between engines: " .. (all_contents and "yes" or "no"))
  end
end
local verdicts = world:gather(ok and "ok" or "failed")
if rank == 0 then
  local all_ok = true
  for _, v in ipairs(verdicts) do all_ok = all_ok and v == "ok" end
  print("\nstress.lua: " .. (all_ok and "PASS" or "FAIL"))
end
if not ok then error("stress.lua: rank " .. rank .. ": a verdict failed", 0) end
