-- races.lua: what the race checker (issue 14) costs: epochs per second on
-- windows that do not check against windows created with rmalab_check =
-- "races:quiet" (records and checks, reports nothing), side by side.
--
--     rmalab -n 2 -bind-to core bench/races.lua [epochs [rounds]]
--
-- epochs: per case and round, 200 by default (win:read does 50 times as
-- many), so that the table shows what an epoch costs more than how the log
-- grows (the last section); rounds: 101 by default, about 3 s here.
--
-- Every round runs every case twice, off and on, in alternating order,
-- each on a window created for it, so that every run starts with an empty
-- log, as a program's first epochs do. Rank 0 is the origin, rank 1 the
-- target; int64 elements (disp_unit 8). A run's time goes from a barrier
-- to a barrier after the last epoch. Passive-target runs end with a fence
-- (in the time, amortised over the epochs), where the target checks the
-- records it was sent: it calls nothing else on the window.
--
-- Cases (one epoch):
--   fence, 1 put           rank 0 puts to rank 1; both fence
--   pscw native / rma      start({1}) put complete / post({0}) wait
--   lock/put/unlock        rank 0: lock(1) put unlock(1)
--   lock_all put+flush     rank 0, inside one lock_all: put flush(1)
--   pscw rma, 64 puts      64 puts to adjacent elements: merged into one record
--   win:read               every rank reads its own element (µs per read)
--
-- Prints, per case, the medians over rounds of off and on µs per epoch, and
-- the median of the per-round ratios on/off (figures drift on a shared
-- machine; the ratio is taken within a round). Then the cost per epoch of
-- one PSCW window kept for many epochs, by how many it has run.
local rl = require "rmalab"

local world = rl.world
local me, size = world:rank(), world:size()
local args = arg or {}
local EPOCHS = math.tointeger(tonumber(args[1] or "200"))
local ROUNDS = math.tointeger(tonumber(args[2] or "101"))
if not EPOCHS or EPOCHS < 1 or not ROUNDS or ROUNDS < 1 or size ~= 2 then
  error("usage: rmalab -n 2 -bind-to core bench/races.lua [epochs [rounds]]")
end
local function say(...) if me == 0 then print(...) end end
local to_target, to_origin = { 1 }, { 0 }

local function open(engine, mode, elements)
  return rl.win_allocate(8 * (elements or 1), { disp_unit = 8,
    name = ("bench-races %s %s"):format(engine, mode),
    info = { rmalab_pscw = engine, rmalab_check = mode } })
end

local function pscw(win, n, puts)
  if me == 0 then
    for i = 1, n do
      win:start(to_target)
      for k = 0, puts - 1 do win:put(1, k, "int64", i) end
      win:complete()
    end
  else
    for _ = 1, n do win:post(to_origin); win:wait() end
  end
end

-- Each case: engine, elements, units per round (epochs or reads), run(win, n).
local cases = {
  { name = "fence, 1 put", engine = "rma", run = function(win, n)
    win:fence()
    for i = 1, n do
      if me == 0 then win:put(1, 0, "int64", i) end
      win:fence()
    end
  end },
  { name = "pscw native, 1 put", engine = "native", run = function(win, n) pscw(win, n, 1) end },
  { name = "pscw rma, 1 put", engine = "rma", run = function(win, n) pscw(win, n, 1) end },
  { name = "lock/put/unlock", engine = "rma", run = function(win, n)
    if me == 0 then
      for i = 1, n do win:lock(1); win:put(1, 0, "int64", i); win:unlock(1) end
    end
    win:fence()
  end },
  { name = "lock_all put+flush", engine = "rma", run = function(win, n)
    if me == 0 then
      win:lock_all()
      for i = 1, n do win:put(1, 0, "int64", i); win:flush(1) end
      win:unlock_all()
    end
    win:fence()
  end },
  { name = "pscw rma, 64 puts", engine = "rma", elements = 64,
    run = function(win, n) pscw(win, n, 64) end },
  { name = "win:read", engine = "rma", per = 50, unit = "read", run = function(win, n)
    local read = win.read
    for _ = 1, n do read(win, 0, "int64") end
  end },
}

-- One timed run: seconds per unit.
local function timed(c, mode)
  local win = open(c.engine, mode, c.elements)
  local n = EPOCHS * (c.per or 1)
  world:barrier()
  local t0 = rl.wtime()
  c.run(win, n)
  world:barrier()
  local dt = rl.wtime() - t0
  win:free()
  return dt / n
end

local function median(t)
  local s = table.move(t, 1, #t, 1, {})
  table.sort(s)
  local m = #s // 2
  return #s % 2 == 1 and s[m + 1] or (s[m] + s[m + 1]) / 2
end

say(("race checker: off against races:quiet, 2 ranks, %d epochs per case per round "
  .. "(win:read: %d reads), %d rounds, interleaved"):format(EPOCHS, EPOCHS * 50, ROUNDS))
local off, on, ratio = {}, {}, {}
for i = 1, #cases do off[i], on[i], ratio[i] = {}, {}, {} end
local t_start = rl.wtime()
for r = 1, ROUNDS do
  for i, c in ipairs(cases) do
    local a, b
    if r % 2 == 1 then
      a = timed(c, "off"); b = timed(c, "races:quiet")
    else
      b = timed(c, "races:quiet"); a = timed(c, "off")
    end
    off[i][r], on[i][r], ratio[i][r] = a, b, b / a
  end
end
world:barrier()

say(("\n  %-20s %13s %13s %9s %10s"):format("case", "off µs/epoch", "on µs/epoch", "on/off",
  "added µs"))
for i, c in ipairs(cases) do
  local mo, mn = median(off[i]) * 1e6, median(on[i]) * 1e6
  say(("  %-20s %13.3f %13.3f %8.2fx %10.3f%s"):format(c.name, mo, mn, median(ratio[i]),
    mn - mo, c.unit and ("   (per " .. c.unit .. ")") or ""))
end
say(("  (medians over %d rounds; on/off: the median of the per-round ratios; %.1f s)"):format(
  ROUNDS, rl.wtime() - t_start))
say("  Each window ran the round's epochs only; below, one window for many epochs.")

-- A PSCW target's wait() moves the records its clock has passed out of the
-- log it compares new records with (races.c, prune): an epoch should
-- cost the same however long the window lives. (A passive-target target's
-- log still grows until a fence: no clock of the target orders those.)
local CHUNK, CHUNKS = 2000, 5
say(("\nOne window kept for %d PSCW epochs (rma, 1 put each), µs per epoch by epochs run:"):format(
  CHUNK * CHUNKS))
local rows = {}
for _, mode in ipairs{ "off", "races:quiet" } do
  local win = open("rma", mode)
  for k = 1, CHUNKS do
    world:barrier()
    local t0 = rl.wtime()
    pscw(win, CHUNK, 1)
    world:barrier()
    rows[k] = (rows[k] or ("  %6d-%-6d"):format((k - 1) * CHUNK, k * CHUNK))
      .. ("  %-6s %7.2f"):format(mode == "off" and "off" or "on", (rl.wtime() - t0) / CHUNK * 1e6)
  end
  win:free()
end
for _, row in ipairs(rows) do say(row) end
if me == 0 then
  local first = tonumber(rows[1]:match("on%s+([%d.]+)"))
  local last = tonumber(rows[CHUNKS]:match("on%s+([%d.]+)"))
  print(("  on: +%.2f µs per epoch for every 1,000 epochs the window has run"):format(
    (last - first) / ((CHUNKS - 1) * CHUNK / 1000)))
end

-- No case races: a report here would be a false positive.
local found = rl.races.total()
if found ~= 0 then
  error(("the checker reported %d races in race-free benchmark loops: %s"):format(found,
    me == 0 and rl.races.text() or ""))
end
