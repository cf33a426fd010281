-- A 2-D halo exchange on a million cells (1000 x 1000 doubles), split by
-- columns, done four ways: PSCW on both engines, fence, and lock/unlock
-- with a barrier. A halo is a strided column, put with rl.vector from a
-- packed rl.buffer. Jacobi steps must agree bit for bit across the methods
-- and with rank 0 computing the whole grid alone; exchange times are shown.
--   build/repl/rmalab -n 2 scripts/halo.lua
-- ranks: 2
-- timeout: 60
-- Rank 0 narrates. Also runs on 4 ranks (250 columns each), much slower: 2 cores.
local rl = require "rmalab"
local lab = dofile(debug.getinfo(1, "S").source:match("^@(.-)[^/]*$") .. "lib/lab.lua")
if not lab.ranks(2, { 4 }) then return end
local me, size = rl.world:rank(), rl.world:size()
local say = lab.say

local N, M = 1000, 1000                 -- rows, columns: a million cells
local W = M // size                     -- columns per rank
local HOT = 1.0                         -- the grid's left edge; the others are 0
local STEPS = 3                         -- Jacobi steps per method (Lua computes ~60 ms a step)
local EXCHANGES, ROUNDS = size == 2 and 100 or 20, 5   -- exchanges alone, timed
local left = me > 0 and me - 1 or nil
local right = me < size - 1 and me + 1 or nil
local nbrs = {}
if left then nbrs[#nbrs + 1] = left end
if right then nbrs[#nbrs + 1] = right end

-- The window holds only the ghost columns, N rows of 4 doubles: { left
-- ghost, right ghost } for even steps, then for odd ones, so that a fast
-- neighbour's next put never overwrites a ghost this rank has not read yet
-- (fence and lock need this; PSCW would not, its post comes after the
-- read). The ghost column g of row i is element (i - 1) * 4 + g: a column is
-- N blocks of 1 double, 4 apart, which rl.vector describes to MPI
-- (MPI_Type_vector), so one put carries it.
local G = 4
local column = rl.vector("double", N, 1, G)
-- The origin side is contiguous: each edge column is packed into a buffer
-- that the put reads in place, without a copy.
local west, east = rl.buffer("double", N), rl.buffer("double", N)

-- This rank's piece, row-major in a Lua table (Lua computes faster on a
-- table than through a buffer's metamethods), with a deterministic start
-- that differs in every cell, so that a lost or misplaced halo shows.
local function initial()
  local u = {}
  for i = 1, N do
    for j = 1, W do
      local gj = me * W + j
      u[(i - 1) * W + j] = ((i * 7 + gj * 13) % 17) / 17
    end
  end
  return u
end

-- One Jacobi step over rows 1..N, columns 1..w of u, given ghost columns gl
-- and gr (numbers or arrays by row); rows 0 and N + 1 are 0.
local function relax(u, w, gl, gr)
  local v = {}
  for i = 1, N do
    local o = (i - 1) * w
    local l = type(gl) == "table" and gl[i] or gl
    local r = type(gr) == "table" and gr[i] or gr
    for j = 1, w do
      local k = o + j
      v[k] = 0.25 * ((j > 1 and u[k - 1] or l) + (j < w and u[k + 1] or r)
        + (i > 1 and u[k - w] or 0.0) + (i < N and u[k + w] or 0.0))
    end
  end
  return v
end

local function pack(u)
  for i = 1, N do
    west[i] = u[(i - 1) * W + 1]
    east[i] = u[i * W]
  end
end
local function put_edges(win, b)
  if left then win:put(left, 2 * b + 1, column, west) end   -- its right ghost
  if right then win:put(right, 2 * b, column, east) end     -- its left ghost
end
local function ghosts(view, b)
  local gl, gr = HOT, 0.0
  if left then
    gl = {}
    for i = 1, N do gl[i] = view[(i - 1) * G + 2 * b + 1] end
  end
  if right then
    gr = {}
    for i = 1, N do gr[i] = view[(i - 1) * G + 2 * b + 2] end
  end
  return gl, gr
end

local function pscw(win, b)
  win:post(nbrs); win:start(nbrs); put_edges(win, b); win:complete(); win:wait()
end
local methods = {
  { name = "pscw, rma", engine = "rma", exchange = pscw },
  { name = "pscw, native", engine = "native", exchange = pscw },
  -- one fence per step: the fence that ends step k opens step k + 1
  { name = "fence", engine = "rma", first = function(win) win:fence("noprecede") end,
    exchange = function(win, b) put_edges(win, b); win:fence() end },
  -- unlock completes the put at the target; the barrier tells the target.
  -- (MPI would also want MPI_Win_sync before reading the window's memory;
  -- in MPICH's unified model on one node the read sees the data.)
  { name = "lock+barrier", engine = "rma", exchange = function(win, b)
    if left then win:lock(left, "shared"); win:put(left, 2 * b + 1, column, west); win:unlock(left) end
    if right then win:lock(right, "shared"); win:put(right, 2 * b, column, east); win:unlock(right) end
    rl.world:barrier()
  end },
}

say(("A grid of %d x %d doubles (%d cells) on %d ranks, %d columns each; a halo is"):format(
  N, M, N * M, size, W))
say(("one column of %d doubles, strided in the target's window:"):format(N))
say(("  rl.vector(\"double\", %d, 1, %d) as the put's type, from a packed rl.buffer.\n"):format(N, G))

for _, m in ipairs(methods) do
  m.win = rl.win_allocate(N * G * 8, { disp_unit = 8, name = "halo-" .. m.name,
    info = { rmalab_pscw = m.engine } })
  m.view = m.win:local_view("double")
  m.view:fill(0.0)
end
rl.world:barrier()

-- 1. Jacobi steps, each method from the same start; time split into the
-- exchange (pack, puts, synchronisation, reading the ghosts) and the compute.
local final = {}
for _, m in ipairs(methods) do
  local u, tx, tc = initial(), 0.0, 0.0
  if m.first then m.first(m.win) end
  rl.world:barrier()
  for k = 1, STEPS do
    local b = k % 2
    local t0 = rl.wtime()
    pack(u); m.exchange(m.win, b)
    local gl, gr = ghosts(m.view, b)
    local t1 = rl.wtime()
    u = relax(u, W, gl, gr)
    tx, tc = tx + t1 - t0, tc + rl.wtime() - t1
  end
  final[#final + 1] = u
  m.step_x, m.step_c = tx / STEPS, tc / STEPS
end

-- 2. The exchange alone, many times (the ghosts it writes are not read):
-- what the synchronisation and the strided put cost, best of ROUNDS.
for _, m in ipairs(methods) do m.best = math.huge end
for _ = 1, ROUNDS do
  for _, m in ipairs(methods) do
    if m.first then m.first(m.win) end
    rl.world:barrier()
    local t0 = rl.wtime()
    for k = 1, EXCHANGES do m.exchange(m.win, k % 2) end
    m.best = math.min(m.best, rl.world:allreduce(rl.wtime() - t0, "max") / EXCHANGES)
  end
end
for _, m in ipairs(methods) do m.view = nil; m.win:free() end

-- 3. The checks: every method's piece equal, bit for bit, to the first's on
-- this rank; and the first's equal to rank 0 computing the whole grid.
local differ = {}
for i = 2, #methods do
  local d = 0
  for k = 1, N * W do if final[i][k] ~= final[1][k] then d = d + 1 end end
  differ[i] = rl.world:allreduce(d, "sum")
end
local pieces = rl.world:gather(final[1])
if me == 0 then
  local u = {}
  for i = 1, N do
    for j = 1, M do u[(i - 1) * M + j] = ((i * 7 + j * 13) % 17) / 17 end
  end
  local t0 = rl.wtime()
  for _ = 1, STEPS do u = relax(u, M, HOT, 0.0) end
  local alone = (rl.wtime() - t0) / STEPS
  local bad = 0
  for r = 0, size - 1 do
    local p = pieces[r + 1]
    for i = 1, N do
      for j = 1, W do
        if p[(i - 1) * W + j] ~= u[(i - 1) * M + r * W + j] then bad = bad + 1 end
      end
    end
  end
  differ[1] = bad
  print(("%d Jacobi steps per method, rank 0's times. A step's exchange (pack, puts,"):format(STEPS))
  print("synchronisation, reading the ghosts) includes waiting for the neighbour's compute:")
  print(("   %-13s %13s %12s %13s   %s"):format("method", "exchange, ms", "compute, ms",
    "Mcells/s", "result"))
  for i, m in ipairs(methods) do
    print(("   %-13s %13.1f %12.1f %13.1f   %s"):format(m.name, m.step_x * 1e3, m.step_c * 1e3,
      N * M / (m.step_x + m.step_c) / 1e6, differ[i] == 0 and (i == 1 and "identical to one rank alone"
        or "identical to pscw, rma") or ("%d cells DIFFER"):format(differ[i])))
  end
  print(("   %-13s %13s %12.1f %13.1f   (the reference, Lua on a table)"):format("one rank alone",
    "", alone * 1e3, N * M / alone / 1e6))
end

-- C beside it: bench/halo-c.c does the same exchange alone (the same
-- column put as an MPI_Type_vector from a contiguous array, the same
-- alternating ghosts, the same synchronisations, best of 5 rounds of 100,
-- the slower rank's time) in raw MPICH. Rank 0 starts it with mpiexec while
-- the other ranks wait, so both figures are this machine's, now; one run,
-- so the ratio moves by tens of percent between runs. The rma engine's
-- PSCW is rmalab's own: C's line for it is MPI's native PSCW.
local HALO_C = "build/bench/halo-c"
local function c_figures()
  if size ~= 2 then return nil, "compared on 2 ranks only: with more ranks than cores both measure the scheduler" end
  local f = io.open(HALO_C)
  if not f then return nil, HALO_C .. " is not built (ninja -C build)" end
  f:close()
  -- the child mpiexec must not take this job's process-manager variables
  local p = io.popen("env -u PMI_FD -u PMI_RANK -u PMI_SIZE -u PMI_PORT -u PMI_ID "
    .. "-u MPI_LOCALNRANKS -u MPI_LOCALRANKID mpiexec -n " .. size .. " " .. HALO_C .. " 2>&1")
  local out = p:read("a")
  if not p:close() then return nil, "it failed: " .. out end
  local us = {}
  for name, v in out:gmatch("\n   (%S[^\n]-)%s+([%d.]+) us per exchange") do us[name] = tonumber(v) end
  return us
end
local C_DONE = 27
if me ~= 0 then
  while not rl.world:iprobe(0, C_DONE) do rl.sleep(0.01) end
  rl.world:recv(0, C_DONE)
else
  local us, why = c_figures()
  for r = 1, size - 1 do rl.world:send(true, r, C_DONE) end
  if not us then
    print("\n   (no C figures: " .. why .. ")")
  else
    print(("\n   The exchange alone, %d times, best of %d rounds, the slower rank's time:"):format(
      EXCHANGES, ROUNDS))
    print(("   Lua here against raw MPICH in C (%s, run now while the lab's ranks sleep):"):format(HALO_C))
    print(("   %-13s %10s %10s %7s"):format("method", "Lua, us", "C, us", "ratio"))
    for _, m in ipairs(methods) do
      local c = us[m.name] or us["pscw, native"]
      print(("   %-13s %10.1f %10.1f %6.1fx%s"):format(m.name, m.best * 1e6, c, m.best * 1e6 / c,
        us[m.name] and "" or "  (C: native PSCW)"))
    end
  end
  if differ[1] ~= 0 then error("the methods' results differ from one rank alone") end
end
for i = 2, #methods do
  if differ[i] ~= 0 then error(methods[i].name .. " differs from pscw, rma") end
end

say("\nWhat to notice: one strided put per neighbour carries a 1000-double")
say("column, and no copy is made of it on the way. The exchange alone costs")
say("microseconds, as in C; a step costs Lua's compute, and the exchange inside")
say("a step is mostly waiting for the slower neighbour. PSCW involves only the")
say("neighbours, fence the whole group, lock/unlock needs a barrier to tell the")
say("target. Times are this machine's, now: 2 cores shared, they move between runs.")
