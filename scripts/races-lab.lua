-- The race checker (issue 14) on two classic mistakes and their fixes: a
-- fence halo exchange that updates a boundary cell inside the epoch, and
-- two PSCW origins that put to the same element in one exposure epoch.
-- Reports come from happens-before, not timing: the same on every run.
--   build/repl/rmalab -n 3 scripts/races-lab.lua   (RMALAB_PSCW=native too)
-- ranks: 3
-- engines: native rma
-- timeout: 60
-- Rank 0 narrates; every rank's findings are gathered to rank 0, so the
-- output is the same on every run. The windows record races quietly
-- (races:quiet) and the lab prints what rl.races.list() holds: with
-- races:warn each rank would print its reports on stderr as it finds them,
-- interleaved with the narration in another order on every run.
local rl = require "rmalab"
local lab = dofile(debug.getinfo(1, "S").source:match("^@(.-)[^/]*$") .. "lib/lab.lua")
if not lab.ranks(3) then return end
local me, size = rl.world:rank(), rl.world:size()
local say, report = lab.say, lab.report
local left, right = (me - 1) % size, (me + 1) % size
local CELLS = 4

-- Windows are freed explicitly. (A <close> would do too: an error that
-- leaves its scope lets the window go without the collective free, which
-- the other ranks might never reach, docs/lua.md.)
local function window(name, mode, bytes, disp_unit)
  return rl.win_allocate(bytes, { disp_unit = disp_unit, name = name,
    info = { rmalab_check = mode } })
end

-- What the checker found since the last call, on every rank: rank 0 prints
-- one line per race, in rank order (`lines` false: none), then the total;
-- `full`: also the whole report of rank `full`'s first race (collective).
local seen = 0
local function findings(lines, full)
  local mine, text = {}, ""
  for _, r in ipairs(rl.races.list()) do
    if r.seq > seen then
      mine[#mine + 1] = ("     rank %d found at %s: rank %d's bytes %d-%d, %s %s by rank %d"
        .. " and %s %s by rank %d"):format(r.found_by, r.found_at, r.target, r.lo, r.hi - 1,
        r.a.kind, r.a.call, r.a.rank, r.b.kind, r.b.call, r.b.rank)
      if me == full and text == "" then text = r.text:gsub("%s+$", "") end
      seen = r.seq
    end
  end
  report(lines ~= false and table.concat(mine, "\n") or "")
  local n = rl.races.total()
  say(("     races found so far: %d"):format(n))
  if full then
    say(("   Rank %d's report in full, as rl.races.list()[i].text, rl.races.text()"):format(full))
    say("   and the error of mode races hold it:")
    report(text ~= "" and ("     " .. text:gsub("\n", "\n     ")) or "")
  end
end

say(("Engine for PSCW: %s (the other: RMALAB_PSCW=%s). Windows are created with"):format(
  os.getenv("RMALAB_PSCW") or "rma",
  (os.getenv("RMALAB_PSCW") or "rma") == "rma" and "native" or "rma"))
say('the hint rmalab_check = "races:quiet": a race is recorded, and the program')
say('goes on ("races:warn" would also print it on stderr, "races" raise it: 5).')

------------------------------------------------------------------------------
-- 1 and 2: a halo exchange by fence
------------------------------------------------------------------------------

-- Each rank owns CELLS cells of a ring of 3 * CELLS; each step it gets its
-- left neighbour's last cell and its right neighbour's first cell. `early`:
-- write the new first cell before the opening fence; otherwise after the
-- gets, inside the epoch.
local function halo(name, mode, early)
  local win = window(name, mode, CELLS * 8, 8)
  local cells = {}
  for i = 1, CELLS do cells[i] = 100 * me + i end
  win:write(0, "double", cells)
  local new = -(100 * me + 1)                 -- this step's new boundary value
  if early then win:write(0, "double", new) end
  win:fence()
  local gl = win:get(left, CELLS - 1, "double")
  local gr = win:get(right, 0, "double")
  if not early then win:write(0, "double", new) end  -- the bug: inside the epoch
  local ok, err = pcall(win.fence, win)
  win:free()
  return ok, err, gl, gr
end

say("\n1. A halo exchange by fence on a ring of 3 ranks. Rank r's cells hold")
say("   100r + 1 to 100r + 4. After the opening fence every rank gets its left")
say("   neighbour's last cell and its right neighbour's first cell, then, to")
say("   overlap work with communication, writes the new value of its own first")
say("   cell, -(100r + 1), with win:write before the closing fence. But its left")
say("   neighbour's get of that cell may land at any time in the epoch: it may")
say("   read the old value or the new one. The checker records both accesses")
say("   and finds the race at the closing fence, each rank on its own cell:")
rl.world:barrier()
halo("halo (write inside the epoch)", "races:quiet", false)
findings(true, 0)

say("\n2. The fix: write the new boundary value before the opening fence. The")
say("   fence orders it before every get of the epoch: nothing is reported,")
say("   and every rank's right ghost holds its neighbour's new value.")
rl.world:barrier()
do
  local _, _, _, gr = halo("halo (write before the fence)", "races:quiet", true)
  local got = rl.world:gather(("%g"):format(gr:value()))
  say("     right ghosts on ranks 0, 1, 2: " .. table.concat(got or {}, ", "))
  say("     (the new first cells of their right neighbours 1, 2 and 0: -(100r + 1))")
end
findings()

------------------------------------------------------------------------------
-- 3 and 4: PSCW, two origins, one element
------------------------------------------------------------------------------

-- Rank 0 exposes its window to `groups[k]` in epoch k; ranks 1 and 2 each
-- put 100 + rank to element disp(rank) of rank 0 in one access epoch.
local function pscw(name, mode, groups, disp)
  local win = window(name, mode, 2 * 8, 8)
  win:write(0, "int64", { 0, 0 })
  rl.world:barrier()
  local ok, err = true, nil
  if me == 0 then
    for _, g in ipairs(groups) do
      win:post(g)
      local ok1, err1 = pcall(win.wait, win)   -- where a race at rank 0 is found
      if not ok1 then ok, err = false, err1 end
    end
  else
    ok, err = pcall(function()
      win:start({ 0 })
      win:put(0, disp(me), "int64", 100 + me)
      win:complete()
    end)
  end
  local values = me == 0 and win:read(0, "int64", 2) or nil
  win:free()
  return ok, err, values
end

say("\n3. PSCW: rank 0 posts to {1, 2}; ranks 1 and 2 each start({0}), put")
say("   100 + their rank to element 0 of rank 0, and complete. Both puts are in")
say("   one exposure epoch and nothing orders them: the element ends up with")
say("   either value. Rank 0 sees both accesses at wait(), and reports there:")
rl.world:barrier()
pscw("pscw (one element)", "races:quiet", { { 1, 2 } }, function() return 0 end)
findings(true, 0)

say("\n4. Two fixes. (a) Two exposure epochs: rank 0 posts to {1} and waits,")
say("   then posts to {2} and waits. Rank 1's complete -> rank 0's wait ->")
say("   rank 0's second post -> rank 2's start orders the puts: element 0 is")
say("   always 102. (b) One epoch, distinct elements: rank r puts to element")
say("   r - 1. Neither is reported:")
rl.world:barrier()
do
  local _, _, a = pscw("pscw (two epochs)", "races:quiet", { { 1 }, { 2 } },
    function() return 0 end)
  local _, _, b = pscw("pscw (two elements)", "races:quiet", { { 1, 2 } },
    function(r) return r - 1 end)
  if me == 0 then
    print(("     (a) rank 0's elements: %d, %d   (b) rank 0's elements: %d, %d"):format(
      a[1], a[2], b[1], b[2]))
  end
end
findings()

------------------------------------------------------------------------------
-- 5: the same races as errors
------------------------------------------------------------------------------

-- One line for an error: its class, and whose report it carries (every
-- message holds the whole report, ending "found by rank R at CALL").
local function describe(ok, err)
  if ok then return "no error" end
  local by = tostring(err.message):match("found by (rank %d+ at [^\n]*)") or "?"
  by = by:gsub("%s*%[window .*$", "")         -- the window's name, which errors end with
  return ("%s, report found by %s"):format(err.class, by)
end

-- What each rank's call returned, gathered to rank 0 (collective).
local function show_each_rank(ok, err)
  local all = rl.world:gather(describe(ok, err))
  if me == 0 then
    for r, l in ipairs(all) do print(("     rank %d: %s"):format(r - 1, l)) end
  end
end

say('\n5. With rmalab_check = "races" a race raises ERR_RMA_CONFLICT from the')
say("   call that found it, once that call has done its work (the epoch is")
say("   closed). In PSCW that is the target's wait(): only rank 0 can raise,")
say("   but every rank calls through pcall, as a program would.")
rl.world:barrier()
show_each_rank(pscw("pscw (races mode)", "races", { { 1, 2 } }, function() return 0 end))
findings(false)

say("\n   At a fence the ranks raise together, so that no rank runs on into a")
say("   collective that another left: every rank's closing fence raises. A rank")
say("   that found a race raises with its own report; a rank that found none,")
say('   with the report of the lowest rank that did (its message begins "fence:')
say('   rank R found a race on this window"). The halo of 1 again, where each')
say("   rank finds the race on its own first cell:")
rl.world:barrier()
show_each_rank(halo("halo (races mode)", "races", false))
findings(false)

say("\nrl.races.text() (collective) gathers every rank's reports to rank 0 in")
say(("full: the %d of this run, one of each kind shown above."):format(rl.races.total()))

say("\nWhat to notice: each report names both accesses with their file:line,")
say("says why nothing orders them, and how to fix it. The verdicts do not")
say("depend on timing: the race in 1 is found even in a run where every get")
say("happened to land before the write, and the fixes in 2 and 4 are silent")
say("in every run.")
