-- races-passive.lua: the race checker on long passive-target patterns
-- (issue 27): does an epoch cost the same however long a window lives, and
-- does the log stay small?
--
--     rmalab -n 2 -bind-to core bench/races-passive.lua [messages [increments]]
--
-- messages: 100,000 by default (a multiple of 1,000); increments: 100,000
-- by default. Each pattern runs on two windows, one unchecked ("off"), one
-- checked ("races:quiet"), which take turns in chunks (1,000 messages, a
-- tenth of the increments; which goes first alternates), so that a loaded
-- machine slows both alike and the ratios come from one launch. The checked
-- window lives through all its chunks: its log grows as a program's would.
--
-- Mailbox: rank 1 owns a mailbox (a flag and a 4-int64 message). Rank 0,
-- under lock(1, "exclusive"), gets the flag, flushes, and when it is empty
-- puts a message and sets the flag. Rank 1, under an exclusive lock on
-- itself, reads the flag, and when it is set reads the message and clears
-- the flag. Each message costs one or more lock epochs on each rank. The
-- table gives, at 1,000, 10,000 and 100,000 messages (or fewer, as
-- `messages` allows), the medians over the chunks of 1,000 that end there
-- (up to ten) of µs per message off and on and of the per-chunk ratio
-- on/off; flat means the last ratio is the first's.
--
-- Counter: every rank adds 1 to rank 0's int64 with lock(0, "exclusive"),
-- fetch_and_op(sum), unlock(0), increments / size times; the total is
-- checked. Off against on, and the ratio.
--
-- No case races: a report here is a false positive. A "log of accesses is
-- full" warning on stderr is a failure of the pruning this measures.
local rl = require "rmalab"

local world = rl.world
local me, size = world:rank(), world:size()
local args = arg or {}
local MESSAGES = math.tointeger(tonumber(args[1] or "100000"))
local INCREMENTS = math.tointeger(tonumber(args[2] or "100000"))
if not MESSAGES or MESSAGES < 1000 or MESSAGES % 1000 ~= 0 or not INCREMENTS
    or INCREMENTS < size or size < 2 then
  error("usage: rmalab -n 2 -bind-to core bench/races-passive.lua [messages>=1000 [increments]]")
end
local function say(...) if me == 0 then print(...) end end

local function open(mode, name)
  return rl.win_allocate(64, { disp_unit = 8, name = name, info = { rmalab_check = mode } })
end

-- The chunks of 1,000 messages that end at 1,000, 10,000, 100,000...
local marks, mark = {}, 1000
while true do
  marks[#marks + 1] = mark
  if mark == MESSAGES then break end
  mark = math.min(mark * 10, MESSAGES)
end

-- Messages from..to through the mailbox window `win`.
local function mailbox(win, from, to)
  if me == 0 then
    for i = from, to do
      while true do
        win:lock(1, "exclusive")
        local flag = win:get(1, 0, "int64")
        win:flush(1)
        local empty = flag:value() == 0
        if empty then
          win:put(1, 1, "int64", { i, i, i, i })
          win:put(1, 0, "int64", 1)
        end
        win:unlock(1)
        if empty then break end
      end
    end
  elseif me == 1 then
    local got = from - 1
    while got < to do
      win:lock(1, "exclusive")
      if win:read(0, "int64") == 1 then
        local msg = win:read(1, "int64", 4)
        if msg[4] ~= got + 1 then error(("message %d reads %d"):format(got + 1, msg[4])) end
        win:write(0, "int64", 0)
        got = got + 1
      end
      win:unlock(1)
    end
  end
end

-- n increments of rank 0's counter on `win` by this rank.
local function counter(win, n)
  for _ = 1, n do
    win:lock(0, "exclusive")
    win:fetch_and_op(0, 0, "int64", 1, "sum")
    win:unlock(0)
  end
end

-- Runs step(win, k) for k = 1..chunks on an unchecked and a checked window
-- by turns (which goes first alternates), each chunk timed from a barrier
-- to a barrier; returns the seconds of each chunk, off and on. Rank
-- `owner` then says how many records its checked log holds.
local function interleaved(name, owner, chunks, step)
  local wins = { off = open("off", name), on = open("races:quiet", name) }
  local t = { off = {}, on = {} }
  for k = 1, chunks do
    local order = k % 2 == 1 and { "off", "on" } or { "on", "off" }
    for _, mode in ipairs(order) do
      world:barrier()
      local t0 = rl.wtime()
      step(wins[mode], k)
      world:barrier()
      t[mode][k] = rl.wtime() - t0
    end
  end
  -- The checked window's log on the rank whose memory the pattern uses
  -- (a build without rl.debug.races_log runs the rest, for comparison).
  wins.on:lock(owner, "shared"); wins.on:unlock(owner) -- takes in what arrived
  local log, past = (rl.debug.races_log or function() end)(wins.on)
  if me == owner and log then
    print(("  (%s: the checked log of rank %d holds %d records, and %d already ordered)")
      :format(name, owner, log, past))
  end
  return wins, t
end

say(("race checker on passive-target patterns, %d ranks: one window off and one races:quiet, "
  .. "taking turns in chunks"):format(size))
local t_start = rl.wtime()
local wins, t = interleaved("mailbox", 1, MESSAGES // 1000, function(win, k)
  mailbox(win, (k - 1) * 1000 + 1, k * 1000)
end)
wins.off:free(); wins.on:free() -- collective: the same order on every rank
local function median(v)
  local s = table.move(v, 1, #v, 1, {})
  table.sort(s)
  local m = #s // 2
  return #s % 2 == 1 and s[m + 1] or (s[m] + s[m + 1]) / 2
end
say(("\nMailbox (rank 0 -> rank 1, flag + 4 int64 under exclusive locks), %d messages in "
  .. "chunks of 1,000;\nmedians over the chunks (up to 10) that end at each mark, µs per message:")
  :format(MESSAGES))
say(("  %17s %10s %10s %8s"):format("messages", "off", "on", "on/off"))
local ratios = {}
for _, m in ipairs(marks) do
  local hi = m // 1000
  local lo = math.max(1, hi - 9)
  local off, on, r = {}, {}, {}
  for k = lo, hi do
    off[#off + 1], on[#on + 1], r[#r + 1] = t.off[k], t.on[k], t.on[k] / t.off[k]
  end
  ratios[#ratios + 1] = median(r)
  say(("  %17s %10.2f %10.2f %7.2fx"):format(("%d-%d"):format((lo - 1) * 1000 + 1, m),
    median(off) * 1e3, median(on) * 1e3, median(r)))
end
say(("  on/off at the last mark against the first: %.2fx"):format(ratios[#ratios] / ratios[1]))

local CHUNKS = 10
local n = INCREMENTS // (size * CHUNKS)
wins, t = interleaved("counter", 0, CHUNKS, function(win) counter(win, n) end)
local total = {}
for _, mode in ipairs{ "off", "on" } do
  local win = wins[mode]
  win:fence()
  total[mode] = me == 0 and win:read(0, "int64") or n * size * CHUNKS
  win:fence()
  win:free()
  if total[mode] ~= n * size * CHUNKS then
    error(("the %s counter reads %d, not %d"):format(mode, total[mode], n * size * CHUNKS))
  end
end
local sum = { off = 0, on = 0 }
for k = 1, CHUNKS do sum.off, sum.on = sum.off + t.off[k], sum.on + t.on[k] end
say(("\nCounter (every rank: lock(0, exclusive) fetch_and_op(sum) unlock(0)), %d increments "
  .. "in %d chunks:"):format(n * size * CHUNKS, CHUNKS))
say(("  off %.3f s (%.2f µs each)   on %.3f s (%.2f µs each)   on/off %.2fx"):format(
  sum.off, sum.off / (n * size * CHUNKS) * 1e6, sum.on, sum.on / (n * size * CHUNKS) * 1e6,
  sum.on / sum.off))
say(("  on/off of the last chunk %.2fx, of the first %.2fx"):format(t.on[CHUNKS] / t.off[CHUNKS],
  t.on[1] / t.off[1]))
say(("  (%.1f s in all)"):format(rl.wtime() - t_start))

local found = rl.races.total()
if found ~= 0 then
  error(("the checker reported %d races in race-free loops: %s"):format(found,
    me == 0 and rl.races.text() or ""))
end
