-- A 1-D halo exchange done three ways over the same data: PSCW (on both
-- engines), fence, and lock/unlock followed by a barrier. A rod of 32
-- cells, hot at its left end, relaxes by Jacobi steps; each rank owns a
-- piece and, every step, puts its edge cells into its neighbours' ghost
-- cells. The results must be identical, bit for bit, to each other and to
-- one rank computing the whole rod alone; the time per step differs.
--   build/repl/rmalab -n 2 scripts/halo.lua
-- ranks: 2
-- timeout: 30
-- Rank 0 narrates. Also runs on 4 ranks (8 cells each), slower: 2 cores.
local rl = require "rmalab"
local me, size = rl.world:rank(), rl.world:size()
if size ~= 2 and size ~= 4 then
  if me == 0 then
    print(("this lab is written for 2 ranks (4 also work), not %d: build/repl/rmalab -n 2 "
      .. "scripts/halo.lua"):format(size))
  end
  return
end
local function say(...) if me == 0 then print(...) end end

local CELLS, HOT, COLD = 32, 1.0, 0.0       -- the rod and its fixed ends
local n = CELLS // size                      -- cells per rank
local STEPS = size == 2 and 200 or 20        -- per timed round
local ROUNDS = 3
local left = me > 0 and me - 1 or nil
local right = me < size - 1 and me + 1 or nil
local nbrs = {}
if left then nbrs[#nbrs + 1] = left end
if right then nbrs[#nbrs + 1] = right end

-- Windows are freed explicitly, not with <close>: a rank that fails then
-- ends at once with its error, instead of waiting in a collective free that
-- the other ranks never reach.

local function initial()
  local u = {}
  for i = 1, n do u[i] = 0.0 end
  return u
end

-- One Jacobi step given the ghost values; returns the new piece.
local function relax(u, gl, gr)
  local v = {}
  for i = 1, n do v[i] = 0.5 * ((i == 1 and gl or u[i - 1]) + (i == n and gr or u[i + 1])) end
  return v
end

-- The ghost window: two buffers of { left ghost, right ghost }, used by
-- alternate steps, so that a fast neighbour's next put never overwrites a
-- ghost this rank has not read yet (fence and lock need this; PSCW would
-- not, its post comes after the read).
local function ghosts(win, b)
  return left and win:read(2 * b, "double") or HOT, right and win:read(2 * b + 1, "double") or COLD
end
local function put_edges(win, u, b)
  if left then win:put(left, 2 * b + 1, "double", u[1]) end
  if right then win:put(right, 2 * b, "double", u[n]) end
end

local methods = {
  { name = "pscw, rma", engine = "rma", step = function(win, u, b)
    win:post(nbrs); win:start(nbrs); put_edges(win, u, b); win:complete(); win:wait()
  end },
  { name = "pscw, native", engine = "native", step = function(win, u, b)
    win:post(nbrs); win:start(nbrs); put_edges(win, u, b); win:complete(); win:wait()
  end },
  -- one fence per step: the fence that ends step k opens step k + 1
  { name = "fence", engine = "rma", first = function(win) win:fence("noprecede") end,
    step = function(win, u, b) put_edges(win, u, b); win:fence() end },
  -- unlock completes the put at the target; the barrier tells the target.
  -- (MPI would also want MPI_Win_sync before reading the window's memory:
  -- the Lua API has none; in MPICH's unified model on one node the read
  -- sees the data.)
  { name = "lock+barrier", engine = "rma", step = function(win, u, b)
    for _, r in ipairs(nbrs) do
      win:lock(r, "shared")
      if r == left then win:put(r, 2 * b + 1, "double", u[1]) else win:put(r, 2 * b, "double", u[n]) end
      win:unlock(r)
    end
    rl.world:barrier()
  end },
}

local function run(m, win, steps)
  local u = initial()
  if m.first then m.first(win) end
  for k = 1, steps do
    local b = k % 2
    m.step(win, u, b)
    u = relax(u, ghosts(win, b))
  end
  return u
end

say(("A rod of %d cells on %d ranks (%d each), %d Jacobi steps per round,"):format(
  CELLS, size, n, STEPS))
say(("best of %d rounds, the methods interleaved:\n"):format(ROUNDS))
-- One step of each method side by side, as Perfetto shows it:
--   build/repl/rmalab -n 2 --trace halo.json scripts/halo.lua
local wins, best, final = {}, {}, {}
for i, m in ipairs(methods) do
  wins[i] = rl.win_allocate(4 * 8, { disp_unit = 8, name = "halo-" .. m.name,
    info = { rmalab_pscw = m.engine } })
  wins[i]:write(0, "double", { 0, 0, 0, 0 })
  best[i] = math.huge
end
for _ = 1, ROUNDS do
  for i, m in ipairs(methods) do
    rl.world:barrier()
    local t0 = rl.wtime()
    final[i] = run(m, wins[i], STEPS)
    best[i] = math.min(best[i], (rl.wtime() - t0) / STEPS)
  end
end
for i = 1, #methods do wins[i]:free() end

-- The results, every rank's piece as exact hexadecimal floats.
local pieces = {}
for i = 1, #methods do
  local s = {}
  for k = 1, n do s[k] = ("%a"):format(final[i][k]) end
  pieces[i] = rl.world:gather(table.concat(s, " ")) -- rank r's at [r + 1], on rank 0
end
if me == 0 then
  -- the whole rod on one rank, as the reference
  local u = {}
  for k = 1, CELLS do u[k] = 0.0 end
  for _ = 1, STEPS do
    local v = {}
    for k = 1, CELLS do v[k] = 0.5 * ((k == 1 and HOT or u[k - 1]) + (k == CELLS and COLD or u[k + 1])) end
    u = v
  end
  local ref = {}
  for r = 0, size - 1 do
    local s = {}
    for k = 1, n do s[k] = ("%a"):format(u[r * n + k]) end
    ref[r] = table.concat(s, " ")
  end
  print(("   %-14s %12s   %s"):format("method", "us per step", "result"))
  for i, m in ipairs(methods) do
    local same = true
    for r = 0, size - 1 do same = same and pieces[i][r + 1] == ref[r] end
    print(("   %-14s %12.1f   %s"):format(m.name, best[i] * 1e6,
      same and "identical to one rank alone" or "DIFFERS from one rank alone"))
  end
  print(("\n   cell 1 = %.6f, cell %d = %.6f, cell %d = %.6f after %d steps"):format(
    u[1], CELLS // 2, u[CELLS // 2], CELLS, u[CELLS], STEPS))
end

say("\nWhat to notice: the same data, three synchronisations, one result. PSCW")
say("involves only the neighbours; fence synchronises the whole window group;")
say("lock/unlock needs something else (here a barrier) to tell the target")
say("that its ghosts arrived. Times are this machine's, now: with more ranks")
say("than cores they measure the scheduler as much as MPI.")
