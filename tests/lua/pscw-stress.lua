-- ranks: 2 3 4
-- timeout: 180
-- PSCW under load, on 2, 3 or 4 ranks: many epochs, every one of them
-- checked, on both engines.
--   1. a ring: 10,000 epochs on the rma engine, each rank checking what its
--      left neighbour put, and again on a create window (data through MPI)
--      with the engine of the environment;
--   2. seeded random communication graphs: in every epoch every rank picks
--      (from a generator seeded alike on all ranks) the ranks it accesses,
--      posts to the ranks that access it and starts to the ones it accesses
--      (post before start, as the standard advises), puts a value tagged
--      with epoch, origin and target into a slot per origin, adds it into a
--      sum slot, and gets an identity slot; the target checks every slot
--      after every wait. The same graphs run on an rma window and a native
--      window side by side, whose memories must end identical and equal to
--      what every rank predicts (the native window needs a barrier after
--      each epoch, see MPICH_COUNTS below);
--   3. races: epochs back to back, no barrier, with one rank held up by a
--      random busy wait at a random point of the epoch.
-- The engine of the windows that give no hint comes from RMALAB_PSCW (see
-- meson.build).
--
-- Epoch counts: the test machine has 2 cores. With more ranks than cores,
-- an epoch whose data goes through MPI costs milliseconds (measured at 3
-- ranks: native PSCW ~15 ms, rma engine with MPI puts or accumulates
-- ~8 ms, rma engine with shared-memory copies ~10 us), so those parts run
-- fewer epochs there. RMALAB_STRESS_SCALE (default 1) scales every count.
local rl = require "rmalab"
local T = require "rmalab.test"

local rank, size = T.rank, T.size
assert(size >= 2 and size <= 8, "pscw-stress.lua runs on 2 to 8 ranks")
local ENGINE = os.getenv("RMALAB_PSCW") == "native" and "native" or "rma"
local SCALE = tonumber(os.getenv("RMALAB_STRESS_SCALE") or "1")
local CROWDED = size > 2 -- more ranks than the 2 cores

-- `fast` epochs, or `crowded` when ranks outnumber cores.
local function epochs(fast, crowded)
  return math.max(1, math.floor((CROWDED and crowded or fast) * SCALE))
end

local function spin(seconds)
  local t = rl.wtime()
  while rl.wtime() - t < seconds do end
end

-- A small generator of our own (splitmix64), so that every rank draws the
-- same numbers from the same seed whatever else calls math.random.
local function generator(seed)
  local state = seed
  local g = {}
  function g.next()
    state = state + 0x9E3779B97F4A7C15
    local z = state
    z = (z ~ (z >> 30)) * 0xBF58476D1CE4E5B9
    z = (z ~ (z >> 27)) * 0x94D049BB133111EB
    return z ~ (z >> 31)
  end
  function g.below(n) return (g.next() >> 1) % n end -- 0 .. n-1
  return g
end

-- A window of `slots` int64 with the given engine (nil: the environment's)
-- and flavour (allocate by default: plain copies on the rma engine; create
-- sends the data through MPI).
local function window(engine, slots, name, flavour)
  local info = engine and { rmalab_pscw = engine } or nil
  return (rl["win_" .. (flavour or "allocate")](8 * slots, { disp_unit = 8, name = name,
    info = info }))
end

-- 1. The ring --------------------------------------------------------------

local right, left = (rank + 1) % size, (rank - 1) % size

local function ring(engine, n, flavour)
  local w <close> = window(engine, 2, "ring", flavour)
  local e_name = w:epochs().engine
  T.eq(e_name, engine or ENGINE, "ring engine")
  local bad, first_bad = 0, nil
  local t0 = rl.wtime()
  for e = 1, n do
    w:post({ left })
    w:start({ right })
    w:put(right, e % 2, "int64", e * 16 + rank)
    w:complete()
    w:wait()
    local got = w:read(e % 2, "int64")
    if got ~= e * 16 + left then
      bad = bad + 1
      first_bad = first_bad or string.format("epoch %d: %d", e, got)
    end
  end
  local dt = rl.wtime() - t0
  T.eq(bad, 0, string.format("%s ring: epochs with wrong data (first: %s)", e_name,
    tostring(first_bad)))
  T.eq(w:read(n % 2, "int64"), n * 16 + left, e_name .. " ring: last value")
  T.eq(w:read((n + 1) % 2, "int64"), n > 1 and (n - 1) * 16 + left or 0,
    e_name .. " ring: the value before it")
  T.eq(w:epochs().epochs, n, e_name .. " ring: access epochs closed")
  w:free()
  if rank == 0 then
    io.stdout:write(string.format("ring: %d epochs on %s (%s), %d ranks: %.3f s (%.1f us/epoch)\n",
      n, e_name, flavour or "allocate", size, dt, dt / n * 1e6))
  end
end

T.case("ring: 10,000 epochs on the rma engine, data checked", function()
  ring("rma", math.floor(10000 * SCALE))
end)

T.case("ring on the engine of the environment (" .. ENGINE .. "), data through MPI", function()
  ring(nil, epochs(10000, 200), "create")
end)

-- 2. Random graphs -------------------------------------------------------------

-- Slots of a window of the graph test (int64, disp_unit 8): 0 .. size-1
-- hold the last value each origin put, SUM the sum of everything added
-- into this rank, ID this rank's identity, which origins get.
local SUM, ID = size, size + 1
local NSLOTS = size + 2
local function tag(e, o, t) return (e * 64 + o) * 64 + t end
local function identity(r) return 1000 * r + 7 end

-- The graph of epoch e from generator g: out[r] = ranks r accesses (each
-- with probability 1/2, itself included), quiet[r][t] = r accesses t but
-- issues nothing to it (the target's wait must end all the same),
-- ins[t] = ranks that access t. Every rank draws the same graph.
local function draw(g)
  local out, ins, quiet = {}, {}, {}
  for t = 0, size - 1 do ins[t] = {} end
  for r = 0, size - 1 do
    out[r], quiet[r] = {}, {}
    for t = 0, size - 1 do
      if g.below(2) == 1 then
        out[r][#out[r] + 1] = t
        ins[t][#ins[t] + 1] = r
        quiet[r][t] = g.below(8) == 0
      end
    end
    -- a random order: groups need not be sorted
    for i = #out[r], 2, -1 do
      local j = g.below(i) + 1
      out[r][i], out[r][j] = out[r][j], out[r][i]
    end
  end
  return out, ins, quiet
end

-- What every rank's memory holds after the epochs run so far.
local function model()
  local m = {}
  for r = 0, size - 1 do
    m[r] = {}
    for s = 0, NSLOTS - 1 do m[r][s] = 0 end
    m[r][ID] = identity(r)
  end
  return m
end

local function apply(m, e, out, quiet)
  for o = 0, size - 1 do
    for _, t in ipairs(out[o]) do
      if not quiet[o][t] then
        m[t][o] = tag(e, o, t)
        m[t][SUM] = m[t][SUM] + tag(e, o, t)
      end
    end
  end
end

-- One epoch of the graph on window w: returns the get results.
local function graph_epoch(w, e, out, ins, quiet)
  w:post(ins[rank])
  w:start(out[rank])
  local gets = {}
  for _, t in ipairs(out[rank]) do
    if not quiet[rank][t] then
      w:put(t, rank, "int64", tag(e, rank, t))
      w:accumulate(t, SUM, "int64", tag(e, rank, t), "sum")
      gets[t] = w:get(t, ID, "int64")
    end
  end
  w:complete()
  w:wait()
  return gets
end

-- Check this rank's memory of w against the model; returns the number of
-- wrong slots and a description of the first.
local function check(w, m, gets, e, what)
  local bad, first = 0, nil
  local mem = w:read(0, "int64", NSLOTS)
  for s = 0, NSLOTS - 1 do
    if mem[s + 1] ~= m[rank][s] then
      bad = bad + 1
      first = first or string.format("%s epoch %d slot %d: %s, expected %s", what, e, s,
        tostring(mem[s + 1]), tostring(m[rank][s]))
    end
  end
  for t, r in pairs(gets) do
    if r:value() ~= identity(t) then
      bad = bad + 1
      first = first or string.format("%s epoch %d: get from %d gave %s", what, e, t,
        tostring(r:value()))
    end
  end
  return bad, first
end

-- A checksum of memory contents (order-dependent).
local function checksum(values)
  local h = 0
  for _, v in ipairs(values) do h = h * 31 + v end
  return h
end

-- Every rank's checksum, gathered through a native window with fences.
local function gather(mine)
  local g <close> = rl.win_allocate(8 * size, { disp_unit = 8, name = "gather",
    info = { rmalab_pscw = "native" } })
  g:fence()
  for r = 0, size - 1 do g:put(r, rank, "int64", mine) end
  g:fence("nosucceed")
  local all = g:read(0, "int64", size)
  g:free()
  return all
end

local SEEDS = { 1, 42, 20251122 }

-- MPICH_COUNTS: MPICH 4.0.2's MPI_Win_start waits until its count of post
-- notifications EQUALS the size of the start group, then zeroes the count
-- (MPIDIG_mpi_win_start); it never looks at who posted. A post for a later
-- epoch that arrives before a start (legal, and common in random graphs
-- without a barrier) makes the count overshoot and the start spin forever.
-- The native window therefore gets a barrier after each epoch, so that
-- every start of epoch e has returned before any post of epoch e + 1; the
-- rma engine matches per peer and runs without one.

T.case("random graphs on both engines, side by side", function()
  local n = epochs(400, 40)
  local t0 = rl.wtime()
  for _, seed in ipairs(SEEDS) do
    local wr <close> = window("rma", NSLOTS, "graph-rma")
    local wn <close> = window("native", NSLOTS, "graph-native")
    wr:write(ID, "int64", identity(rank)); wn:write(ID, "int64", identity(rank))
    rl.world:barrier() -- identities written before anyone gets them
    local g, m = generator(seed), model()
    local bad, first = 0, nil
    for e = 1, n do
      local out, ins, quiet = draw(g)
      apply(m, e, out, quiet)
      -- alternate which engine goes first
      local a, b = wr, wn
      if e % 2 == 0 then a, b = wn, wr end
      local ga = graph_epoch(a, e, out, ins, quiet)
      local ba, fa = check(a, m, ga, e, a:get_name())
      if a == wn then rl.world:barrier() end -- MPICH_COUNTS
      local gb = graph_epoch(b, e, out, ins, quiet)
      local bb, fb = check(b, m, gb, e, b:get_name())
      if b == wn then rl.world:barrier() end
      bad, first = bad + ba + bb, first or fa or fb
    end
    T.eq(bad, 0, string.format("seed %d: wrong slots or gets (first: %s)", seed, tostring(first)))
    local mr, mn = wr:read(0, "int64", NSLOTS), wn:read(0, "int64", NSLOTS)
    T.eq(mr, mn, "seed " .. seed .. ": the engines leave identical memory")
    -- every rank's memory, as every rank predicts it
    local want = {}
    for r = 0, size - 1 do
      local vals = {}
      for s = 0, NSLOTS - 1 do vals[#vals + 1] = m[r][s] end
      want[r + 1] = checksum(vals)
    end
    T.eq(gather(checksum(mr)), want, "seed " .. seed .. ": checksums of all ranks")
    T.eq(wr:epochs().epochs, n, "seed " .. seed .. ": rma access epochs")
    T.eq(wn:epochs().epochs, n, "seed " .. seed .. ": native access epochs")
    wr:free(); wn:free()
  end
  if rank == 0 then
    io.stdout:write(string.format("graphs: %d seeds x %d epochs x 2 engines, %d ranks: %.3f s\n",
      #SEEDS, n, size, rl.wtime() - t0))
  end
end)

T.case("random graphs, many epochs on the rma engine", function()
  local n = epochs(3000, 300) -- the accumulates go through MPI
  local t0 = rl.wtime()
  for _, seed in ipairs(SEEDS) do
    local w <close> = window("rma", NSLOTS, "graph-rma-long")
    w:write(ID, "int64", identity(rank))
    rl.world:barrier()
    local g, m = generator(seed * 7 + 1), model()
    local bad, first = 0, nil
    for e = 1, n do
      local out, ins, quiet = draw(g)
      apply(m, e, out, quiet)
      local b, f = check(w, m, graph_epoch(w, e, out, ins, quiet), e, "rma")
      bad, first = bad + b, first or f
    end
    T.eq(bad, 0, string.format("seed %d: wrong slots or gets (first: %s)", seed, tostring(first)))
    T.eq(w:epochs().epochs, n, "access epochs")
    w:free()
  end
  if rank == 0 then
    io.stdout:write(string.format("graphs: %d seeds x %d epochs on rma, %d ranks: %.3f s\n",
      #SEEDS, n, size, rl.wtime() - t0))
  end
end)

-- 3. Races -------------------------------------------------------------------

-- Epochs back to back without a barrier: every epoch one rank (a different
-- one each time) is held up for up to `max_delay` seconds, at one of the
-- points of its epoch, so that fast ranks run into the next epoch while it
-- is still in the last one. Everybody accesses everybody; the target checks
-- every slot after every epoch, and some epochs end with test() polling.
local POINTS = { "before post", "before start", "before put", "before complete",
  "before wait" }

local function races(engine, n, max_delay, flavour)
  local w <close> = window(engine, NSLOTS, "races", flavour)
  local all = {}
  for r = 0, size - 1 do all[#all + 1] = r end
  local g = generator(7) -- who waits, where: the same on every rank
  local mine = generator(1000 + rank) -- how long: each rank its own
  local bad, first, polled = 0, nil, 0
  local t0 = rl.wtime()
  for e = 1, n do
    local slow, point = g.below(size), POINTS[g.below(#POINTS) + 1]
    local function maybe(p)
      if rank == slow and point == p then spin(mine.below(1000) / 1000 * max_delay) end
    end
    maybe("before post")
    w:post(all)
    maybe("before start")
    w:start(all)
    maybe("before put")
    for _, t in ipairs(all) do w:put(t, rank, "int64", tag(e, rank, t)) end
    maybe("before complete")
    w:complete()
    maybe("before wait")
    if mine.below(4) == 0 then
      polled = polled + 1
      repeat until w:test()
    else
      w:wait()
    end
    local mem = w:read(0, "int64", size)
    for o = 0, size - 1 do
      if mem[o + 1] ~= tag(e, o, rank) then
        bad = bad + 1
        first = first or string.format("epoch %d (rank %d slow %s): slot %d holds %d", e, slow,
          point, o, mem[o + 1])
      end
    end
  end
  T.eq(bad, 0, string.format("%s: wrong slots (first: %s)", w:epochs().engine, tostring(first)))
  T.ok(polled > 0, "some epochs ended with test()")
  T.eq(w:epochs().epochs, n, "access epochs")
  if rank == 0 then
    io.stdout:write(string.format("races: %d epochs on %s, %d ranks: %.3f s\n", n,
      w:epochs().engine, size, rl.wtime() - t0))
  end
  w:free()
end

T.case("races: back-to-back epochs, one rank held up (rma)", function()
  races("rma", epochs(2000, 800), 0.002)
end)

T.case("races: back-to-back epochs, one rank held up (" .. ENGINE .. ", create)", function()
  races(nil, epochs(2000, 60), 0.002, "create")
end)

-- Origins far ahead of a slow target, and a slow origin behind fast
-- targets: one rank alternates long holds with none, so that the others
-- post and start several epochs' worth of calls ahead.
T.case("races: a target that lags behind its origins (rma)", function()
  local w <close> = window("rma", NSLOTS, "lag")
  local n = epochs(300, 300)
  local bad, first = 0, nil
  local lag = size - 1
  for e = 1, n do
    if rank == lag and e % 50 < 3 then spin(0.005) end
    if rank == lag then
      local origins = {}
      for r = 0, size - 2 do origins[#origins + 1] = r end
      w:post(origins)
      w:wait()
      local mem = w:read(0, "int64", size - 1)
      for o = 0, size - 2 do
        if mem[o + 1] ~= tag(e, o, lag) then
          bad = bad + 1
          first = first or string.format("epoch %d slot %d: %d", e, o, mem[o + 1])
        end
      end
    else
      w:start({ lag })
      w:put(lag, rank, "int64", tag(e, rank, lag))
      w:complete()
    end
  end
  T.eq(bad, 0, "the lagging target saw every epoch's data (first: " .. tostring(first) .. ")")
  w:free()
end)

T.done()
