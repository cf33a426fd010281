-- The Lua side of bench-buffer (bench/bench-buffer.c, which says how to
-- run it and what `bench` holds). Two measures, each as ratios from one
-- run, the variants interleaved round by round (the order rotated), each
-- ratio the median of per-round ratios:
--
-- 1. A put of 8 MB + fence on 2 ranks: rank 0 puts into rank 1's window,
--    both fence; raw MPICH (bench.raw_put) against win:put of an
--    rl.buffer (in place), and of a Lua table of the same doubles (copied
--    into the core's staging arena, as before buffers). Goal: the buffer
--    at >= 0.9x raw's bandwidth.
-- 2. An element read (s = s + x[i]) and write (x[i] = v) of a double, in a
--    loop over 1,000 elements: an rl.buffer against a Lua table, beside a
--    userdata whose metamethods do nothing (bench.floor: what any element
--    access through a metamethod costs in this Lua). Goal: <= 2x a table.
local rl = require "rmalab"
local bench, rounds_arg = ...
local rounds = tonumber(rounds_arg) or 7
local rank = rl.world:rank()
local N = 1024 * 1024           -- doubles: 8 MB
local REPS, TABLE_REPS = 20, 2  -- puts per variant and round
local function say(...) if rank == 0 then print(string.format(...)) end end

local function median(t)
  local s = { table.unpack(t) }
  table.sort(s)
  local n = #s
  return n % 2 == 1 and s[(n + 1) // 2] or (s[n // 2] + s[n // 2 + 1]) / 2
end

-- Runs each variant once per round, rotating their order; returns the
-- per-round times of each, by name.
local function interleave(variants, each)
  local times = {}
  for _, v in ipairs(variants) do times[v] = {} end
  for k = 1, rounds do
    for j = 1, #variants do
      local v = variants[(j + k - 2) % #variants + 1]
      table.insert(times[v], each(v))
    end
  end
  return times
end

-- per-round ratios of a's time to b's, their median
local function ratio(times, a, b)
  local r = {}
  for k = 1, rounds do r[k] = times[a][k] / times[b][k] end
  return median(r)
end

-- 1. put + fence ----------------------------------------------------------
local win <close> = rl.win_allocate(8 * N, { disp_unit = 8, name = "bench-buffer" })
local buf = rl.buffer("double", N):fill(1.5)
local tbl = buf:totable()

local function lua_put(origin, reps)
  rl.world:barrier()
  local t0 = rl.wtime()
  for i = 1, reps do
    if rank == 0 then
      buf[N] = i -- the last element says which put landed (the buffer is free after fence)
      win:put(1, 0, "double", origin)
    end
    win:fence()
  end
  local t = bench.slowest(rl.wtime() - t0)
  if rank == 1 and origin == buf then
    assert(win:read(N - 1, "double") == reps, "the last put from the buffer landed")
  end
  return t / reps
end

win:fence()
lua_put(buf, 3); bench.raw_put(8 * N, 3) -- warm up
local put = interleave({ "raw", "buffer", "table" }, function(v)
  if v == "raw" then return bench.raw_put(8 * N, REPS) / REPS end
  if v == "buffer" then return lua_put(buf, REPS) end
  return lua_put(tbl, TABLE_REPS)
end)
local gbs = function(v) return 8 * N / median(put[v]) / 1e9 end
say("put of 8 MB + fence, 2 ranks, %d rounds (median time per put):", rounds)
say("  raw MPICH      %8.3f ms  %5.2f GB/s", median(put.raw) * 1e3, gbs("raw"))
say("  rl.buffer      %8.3f ms  %5.2f GB/s  bandwidth %.2fx raw", median(put.buffer) * 1e3,
  gbs("buffer"), 1 / ratio(put, "buffer", "raw"))
say("  Lua table      %8.3f ms  %5.2f GB/s  bandwidth %.2fx raw", median(put.table) * 1e3,
  gbs("table"), 1 / ratio(put, "table", "raw"))
local bw = 1 / ratio(put, "buffer", "raw")
say("  goal: a buffer's put at >= 0.9x raw's bandwidth: %s (%.2fx)",
  bw >= 0.9 and "PASS" or "MISS", bw)
win:fence("nosucceed")

-- 2. element access -------------------------------------------------------
local M, PASSES = 1000, 2000
local arrays = {
  table = (function() local t = {} for i = 1, M do t[i] = 0.0 end return t end)(),
  buffer = rl.buffer("double", M),
  floor = bench.floor(),
}
local function reads(x)
  local t0, s = os.clock(), 0
  for _ = 1, PASSES do for i = 1, M do s = s + x[i] end end
  return (os.clock() - t0) / (PASSES * M)
end
local function writes(x)
  local t0 = os.clock()
  for _ = 1, PASSES do for i = 1, M do x[i] = 1.0 end end
  return (os.clock() - t0) / (PASSES * M)
end
local order = { "table", "buffer", "floor" }
local rd = interleave(order, function(v) return reads(arrays[v]) end)
local wr = interleave(order, function(v) return writes(arrays[v]) end)
say("\nelement access of a double, 1,000 elements x %d passes, %d rounds (rank 0):", PASSES,
  rounds)
for _, v in ipairs(order) do
  say("  %-8s read %6.1f ns (%.2fx table)   write %6.1f ns (%.2fx table)", v,
    median(rd[v]) * 1e9, ratio(rd, v, "table"), median(wr[v]) * 1e9, ratio(wr, v, "table"))
end
local r, w = ratio(rd, "buffer", "table"), ratio(wr, "buffer", "table")
say("  goal: a buffer's element read and write at <= 2x a table's: %s (read %.2fx, write %.2fx;"
  .. " the do-nothing metamethods alone: %.2fx, %.2fx)", r <= 2 and w <= 2 and "PASS" or "MISS",
  r, w, ratio(rd, "floor", "table"), ratio(wr, "floor", "table"))
