-- A ring with PSCW on 4 ranks: every rank exposes its window to its left
-- neighbour (post) and accesses its right neighbour (start), puts, and
-- closes both epochs. What arrives, in what order the ranks finish, and
-- which orderings MPI promises: between epochs, and inside one.
--   build/repl/rmalab -n 4 scripts/ring.lua
-- ranks: 4
-- timeout: 30
-- Rank 0 narrates; every rank's own lines are gathered to rank 0 and printed
-- in rank order. Runs on rmalab's default PSCW engine (rma).
local rl = require "rmalab"
local lab = dofile(debug.getinfo(1, "S").source:match("^@(.-)[^/]*$") .. "lib/lab.lua")
if not lab.ranks(4) then return end
local me, size = rl.world:rank(), rl.world:size()
local say, report = lab.say, lab.report
local left, right = (me - 1) % size, (me + 1) % size

-- Windows are freed explicitly. (A <close> would do too: an error that
-- leaves its scope lets the window go without the collective free, which
-- the other ranks might never reach, docs/lua.md.)

local win = rl.win_allocate(4 * 8, { disp_unit = 8, name = "ring" })

say("1. One round: post({left}), start({right}), put 100 * (my rank + 1) to")
say("   the right, complete(), wait(). Every post comes before every start:")
say("   if the ranks started first, each would wait for a post its neighbour")
say("   has not made yet (in start on MPICH's native engine, in put on rma):")
say("   a deadlock.")
-- To see the four post -> start arrows around the ring, record the run:
--   build/repl/rmalab -n 4 --trace ring.json scripts/ring.lua
-- and open ring.json in ui.perfetto.dev (docs/trace.md).
win:post({ left }); win:start({ right })
win:put(right, 0, "int64", 100 * (me + 1))
win:complete(); win:wait()
report(("     rank %d got %d from rank %d, which put 100 * (%d + 1) = %d"):format(me,
  win:read(0, "int64"), left, left, 100 * (left + 1)))

say("\n2. Five rounds in a row, each putting 10 * round + rank. A rank's wait")
say("   returns only once its left neighbour completed that round, so each")
say("   round's value arrives in its own round: epochs order the data. The")
say("   order in which the ranks leave wait() is another matter:")
local seen, order = {}, {}
for round = 1, 5 do
  rl.world:barrier()
  local t0 = rl.wtime()
  win:post({ left }); win:start({ right })
  win:put(right, 0, "int64", 10 * round + me)
  win:complete(); win:wait()
  local dt = rl.wtime() - t0
  seen[round] = win:read(0, "int64")
  local t = rl.world:gather(("%.9f"):format(dt)) -- rank r's at [r + 1], on rank 0
  if t then
    local ranks = { 0, 1, 2, 3 }
    table.sort(ranks, function(a, b) return tonumber(t[a + 1]) < tonumber(t[b + 1]) end)
    order[round] = table.concat(ranks, " ")
  end
end
local ok = true
for round = 1, 5 do ok = ok and seen[round] == 10 * round + left end
report(("     rank %d saw %s: %s"):format(me, table.concat(seen, ", "),
  ok and "each round's value in its round" or "A VALUE OUT OF ITS ROUND"))
for round = 1, 5 do say(("     round %d: ranks left wait() in the order %s"):format(round, order[round])) end
say("   That order changes from run to run (who gets the core first); the data")
say("   never does.")

say("\n3. Inside one epoch MPI does not order puts: two puts by one origin to one")
say("   location leave either value. Accumulates are ordered (accumulate_ordering")
say("   defaults to rar,raw,war,waw), so of two \"replace\" accumulates the second")
say("   one wins, promised:")
win:post({ left }); win:start({ right })
win:put(right, 1, "int64", 1); win:put(right, 1, "int64", 2)
win:accumulate(right, 2, "int64", 1, "replace"); win:accumulate(right, 2, "int64", 2, "replace")
win:complete(); win:wait()
report(("     rank %d: put 1 then 2 left %d (not promised); accumulate 1 then 2 left %d"):format(
  me, win:read(1, "int64"), win:read(2, "int64")))
say("   A second put that wins here wins by the implementation's choice, not")
say("   by MPI's: use accumulate, or two epochs, when order matters.")
win:free()
