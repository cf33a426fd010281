-- Three classic one-sided patterns, each checked: a distributed counter
-- with fetch_and_op, an all-to-all of blocks under lock_all with flush, and
-- a producer-consumer handoff through a lock and a message.
--   build/repl/rmalab -n 2 scripts/patterns.lua
-- ranks: 2
-- timeout: 30
-- env: RMALAB_WAIT=spin
-- Rank 0 narrates. Also runs on 3 or 4 ranks. (rmalab test's ranks sleep
-- while blocked; a lock on rank 0 then waits for rank 0 to wake, tens of
-- ms per fetch_and_op here: the env line lets them spin, as scripts do.)
local rl = require "rmalab"
local lab = dofile(debug.getinfo(1, "S").source:match("^@(.-)[^/]*$") .. "lib/lab.lua")
if not lab.ranks(2, { 3, 4 }) then return end
local me, size = rl.world:rank(), rl.world:size()
local say = lab.say
local failed = {}
local function check(ok, what)
  if not ok then failed[#failed + 1] = what end
  return ok and "ok" or "WRONG"
end

-- Windows are freed explicitly. (A <close> would do too: an error that
-- leaves its scope lets the window go without the collective free, which
-- the other ranks might never reach, docs/lua.md.)

----------------------------------------------------------------------------
say("1. A distributed counter. Rank 0's window holds one int64; every rank,")
say("   many times, locks rank 0 (shared: the operation itself is atomic),")
say("   adds 1 with fetch_and_op and gets the value before its addition, as a")
say("   ticket. No two tickets may be equal, and the counter must end at the")
say("   sum of what every rank counted on its own (allreduce).")
local TIMES = 200
local win = rl.win_allocate(16, { disp_unit = 8, name = "counter" })
win:write(0, "int64", 0)
rl.world:barrier()
local mine, tickets = 0, {}
local t0 = rl.wtime()
for _ = 1, TIMES + me * 50 do            -- ranks count different amounts
  win:lock(0, "shared")
  local r = win:fetch_and_op(0, 0, "int64", 1, "sum")
  win:unlock(0)                          -- the result can be read after this
  tickets[#tickets + 1] = r:value()
  mine = mine + 1
end
local dt = rl.world:allreduce(rl.wtime() - t0, "max")
local total = rl.world:allreduce(mine, "sum")
rl.world:barrier()                       -- every increment is done
local counter = me == 0 and win:read(0, "int64") or nil
local all = rl.world:gather(tickets)
win:free()
if me == 0 then
  local seen, dup = {}, 0
  for _, t in ipairs(all) do
    for _, v in ipairs(t) do
      if seen[v] or v < 0 or v >= total then dup = dup + 1 end
      seen[v] = true
    end
  end
  print(("   counter = %d, sum of the ranks' own counts = %d: %s; %d tickets, each once: %s"):format(
    counter, total, check(counter == total, "counter"), total, check(dup == 0, "tickets")))
  print(("   %.1f us per lock, fetch_and_op, unlock on the busiest rank, all ranks at once\n"):format(
    dt / (TIMES + (size - 1) * 50) * 1e6))
end

----------------------------------------------------------------------------
-- rput gives a request per block: rl.waitall completes them at the origin
-- (the blocks may be reused), flush_all at the targets.
local B = 1000                           -- doubles per block
win = rl.win_allocate(size * B * 8, { disp_unit = 8, name = "alltoall" })
say("2. An all-to-all. Every rank's window has one block of " .. B .. " doubles per rank;")
say("   rank r puts its block for rank t into t's slot r, all inside one")
say("   lock_all epoch with win:rput, one request per block; rl.waitall completes")
say("   them here (the blocks may be reused), flush_all at the targets.")
local view = win:local_view("double")
view:fill(-1.0)
local blocks = {}
for t = 0, size - 1 do
  blocks[t] = rl.buffer("double", B)
  for i = 1, B do blocks[t][i] = me * 1e6 + t * 1e3 + i end   -- who, for whom, which
end
rl.world:barrier()                       -- every window is filled with -1 first
win:lock_all()
local requests = {}
for t = 0, size - 1 do
  requests[#requests + 1] = win:rput(t, me * B, "double", blocks[t])
end
rl.waitall(requests)                     -- complete here: the blocks may be reused
win:flush_all()                          -- complete at every target too
win:unlock_all()
rl.world:barrier()                       -- every rank's puts have completed everywhere
local wrong = 0
for r = 0, size - 1 do
  for i = 1, B do
    if view[r * B + i] ~= r * 1e6 + me * 1e3 + i then wrong = wrong + 1 end
  end
end
win:free()
wrong = rl.world:allreduce(wrong, "sum")
say(("   %d blocks of %d doubles, every one where it belongs: %s\n"):format(
  size * size, B, check(wrong == 0, "all-to-all")))

----------------------------------------------------------------------------
say("3. A producer-consumer handoff. Rank 0 produces, rank 1 consumes. For")
say("   each batch, the producer locks rank 1 exclusively, puts the batch into")
say("   its window, unlocks (the data is then at rank 1), and sends a message")
say("   \"ready\". The consumer receives it, reads its own window, and answers")
say("   \"taken\", so that the next batch never overwrites one not yet read.")
local BATCHES, LEN, READY, TAKEN = 5, 100, 1, 2
win = rl.win_allocate(LEN * 8, { disp_unit = 8, name = "handoff" })
local sums = {}
if me == 0 then
  local batch = rl.buffer("double", LEN)
  for k = 1, BATCHES do
    for i = 1, LEN do batch[i] = k * 1000 + i end
    win:lock(1, "exclusive")
    win:put(1, 0, "double", batch)
    win:unlock(1)                        -- complete at rank 1: only now say so
    rl.world:send({ batch = k, n = LEN }, 1, READY)
    rl.world:recv(1, TAKEN)
  end
elseif me == 1 then
  local own = win:local_view("double")
  for k = 1, BATCHES do
    local note = rl.world:recv(0, READY)
    -- (MPI would also want MPI_Win_sync before reading the window's memory
    -- here; in MPICH's unified model on one node the read sees the data.)
    local s, ok = 0, note.batch == k
    for i = 1, note.n do
      s = s + own[i]
      ok = ok and own[i] == k * 1000 + i
    end
    sums[k] = ok and s or -1
    rl.world:send("taken", 0, TAKEN)
  end
end
win:free()
local got = rl.world:bcast(sums, 1)
if me == 0 then
  local line, ok = {}, true
  for k = 1, BATCHES do
    local want = k * 1000 * LEN + LEN * (LEN + 1) / 2
    line[#line + 1] = ("%.0f"):format(got[k])
    ok = ok and got[k] == want
  end
  print(("   the consumer's sums of batches 1..%d: %s: %s"):format(BATCHES, table.concat(line, " "),
    check(ok, "handoff")))
end

say("\nWhat to notice: the counter needs no exclusive lock, fetch_and_op is")
say("atomic; the all-to-all opens one epoch for all targets and completes each")
say("with a flush; the handoff's message is sent only after unlock, which is")
say("what makes the data visible at the consumer before it reads.")
if #failed > 0 then error("checks failed: " .. table.concat(failed, ", ")) end
