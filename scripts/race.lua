-- A race: ranks 0 and 1 put different data to the same location of rank 2
-- in the same exposure epoch, many epochs over, and rank 2 tallies which
-- origin's data it found. MPI says the outcome of conflicting puts in one
-- epoch is undefined: either value, or a mix of both.
--   build/repl/rmalab -n 3 scripts/race.lua
-- ranks: 3
-- timeout: 30
-- Rank 0 narrates; rank 2 is the target. Run it twice: the tally changes.
local rl = require "rmalab"
local lab = dofile(debug.getinfo(1, "S").source:match("^@(.-)[^/]*$") .. "lib/lab.lua")
if not lab.ranks(3) then return end
local me = rl.world:rank()
local say = lab.say
local TARGET = 2

-- Rank 2's tally reaches rank 0 through rl.world:gather: ranks' own prints
-- would interleave with rank 0's narration.
-- Windows are freed explicitly. (A <close> would do too: an error that
-- leaves its scope lets the window go without the collective free, which
-- the other ranks might never reach, docs/lua.md.)

say("Each epoch: rank 2 posts to {0, 1}; ranks 0 and 1 each start({2}), put")
say("their data at displacement 0 of rank 2, and complete; rank 2 waits and")
say("looks. Rank 0 puts bytes 'A', rank 1 bytes 'B'.\n")
say(("   %-7s %-22s %6s %6s %6s"):format("engine", "data", "A won", "B won", "mixed"))

-- Few epochs on native: on 3 ranks and 2 cores an epoch costs milliseconds.
local runs = {
  { "rma", "8 bytes", 8, 200 }, { "rma", "64 KiB", 65536, 200 },
  { "native", "8 bytes", 8, 40 }, { "native", "64 KiB", 65536, 40 },
}
local varied, mixed = 0, 0          -- runs with more than one outcome; mixed epochs
for _, run in ipairs(runs) do
  local engine, what, n, epochs = table.unpack(run)
  local win = rl.win_allocate(n, { disp_unit = 1, name = "race",
    info = { rmalab_pscw = engine } })
  local A, B = string.rep("A", n), string.rep("B", n)
  local tally = { A = 0, B = 0, mixed = 0 }
  rl.world:barrier()
  -- The two origins' puts overlap inside one exposure epoch of rank 2; to
  -- see them: build/repl/rmalab -n 3 --trace race.json scripts/race.lua
  for _ = 1, epochs do
    if me == TARGET then
      win:post({ 0, 1 }); win:wait()
      local s = win:read(0, "byte", n)
      local k = s == A and "A" or s == B and "B" or "mixed"
      tally[k] = tally[k] + 1
    else
      win:start({ TARGET }); win:put(TARGET, 0, "byte", me == 0 and A or B); win:complete()
    end
  end
  local line = ""
  if me == TARGET then
    line = ("   %-7s %-22s %6d %6d %6d"):format(engine, ("%s, %d epochs"):format(what, epochs),
      tally.A, tally.B, tally.mixed)
    local kinds = (tally.A > 0 and 1 or 0) + (tally.B > 0 and 1 or 0) + (tally.mixed > 0 and 1 or 0)
    line = line .. "\n" .. (kinds > 1 and 1 or 0) .. " " .. tally.mixed
  end
  -- rank 0 prints the row and learns whether the outcome varied
  local lines = rl.world:gather(line)
  if me == 0 then
    local row, v, m = lines[TARGET + 1]:match("^(.-)\n(%d+) (%d+)$")
    varied, mixed = varied + tonumber(v), mixed + tonumber(m)
    print(row)
  end
  rl.world:barrier()
  win:free()
end

say(("\nThis run: %d of the %d rows had more than one outcome; mixed epochs: %d."):format(
  varied, #runs, mixed))
say("The tally is measured: run the lab again and it changes. A row with one")
say("outcome is one of the outcomes MPI allows, not a promise: another load,")
say("network or MPI library can pick the other value. A mixed epoch found")
say("neither value but bytes of both: a put is not atomic, and conflicting")
say("puts can interleave.")
say("MPI: conflicting accesses to one location in the same epoch are erroneous")
say("and the outcome is undefined. To make it defined, give each origin its own")
say("location, or order the puts with two epochs. Accumulate (op \"replace\")")
say("makes concurrent updates legal and atomic per element, but still does not")
say("say which origin wins.")
