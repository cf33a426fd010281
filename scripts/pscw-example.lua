-- The MPI standard's example of general active-target synchronisation, on
-- 4 ranks: MPI-2.2 Figure 20 (section 11.4.2; section 11.5.2 "General
-- Active Target Synchronization" in MPI-3.1). "Process 0 puts data in the
-- windows of processes 1 and 2 and process 3 puts data in the window of
-- process 2." Each start lists the targets, each post lists the origins.
--   build/repl/rmalab -n 4 scripts/pscw-example.lua [picture.svg [--to-scale]]
-- With a file name, it also draws the native engine's run as an SVG in
-- the style of the standard's figure (the README shows it); --to-scale
-- draws time to scale instead of in order.
-- ranks: 4
-- timeout: 30
-- Rank 0 narrates; every rank's own lines are gathered to rank 0 and printed
-- in rank order. Both PSCW engines run the figure.
local rl = require "rmalab"
local lab = dofile(debug.getinfo(1, "S").source:match("^@(.-)[^/]*$") .. "lib/lab.lua")
if not lab.ranks(4) then return end
local me = rl.world:rank()
local say, report = lab.say, lab.report

-- Windows are freed explicitly. (A <close> would do too: an error that
-- leaves its scope lets the window go without the collective free, which
-- the other ranks might never reach, docs/lua.md.)

-- The figure: who accesses whom. Values put are 10 * origin + target, each
-- origin into its own slot of the target's window (slot = origin's rank).
local targets = { [0] = { 1, 2 }, [1] = {}, [2] = {}, [3] = { 2 } }
local origins = { [0] = {}, [1] = { 0 }, [2] = { 0, 3 }, [3] = {} }
local function set(t) return "{" .. table.concat(t, ", ") .. "}" end

say("The figure's pattern, as each rank's calls:")
do
  local calls = {}
  if #origins[me] > 0 then calls[#calls + 1] = ("post(%s)"):format(set(origins[me])) end
  if #targets[me] > 0 then
    calls[#calls + 1] = ("start(%s)"):format(set(targets[me]))
    for _, t in ipairs(targets[me]) do calls[#calls + 1] = ("put to %d"):format(t) end
    calls[#calls + 1] = "complete()"
  end
  if #origins[me] > 0 then calls[#calls + 1] = "wait()" end
  report(("  rank %d: %s"):format(me, table.concat(calls, "; ")))
end
say("  Every start names its targets, every post its origins: the groups")
say("  must mirror each other (0 is in 1's post group because 1 is in 0's start).")

for _, engine in ipairs{ "native", "rma" } do
  say(("\n== engine %s (hint rmalab_pscw = %q) ==\n"):format(engine, engine))
  local win = rl.win_allocate(4 * 8, { disp_unit = 8, name = "fig-" .. engine,
    info = { rmalab_pscw = engine, rmalab_trace = "true" } })
  win:write(0, "int64", { -1, -1, -1, -1 })
  rl.world:barrier()

  say("1. The targets post (post never blocks), then the origins start. The")
  say("   figure draws this strong order; a barrier between the two keeps it here:")
  if #origins[me] > 0 then win:post(origins[me]) end
  rl.world:barrier()
  if #targets[me] > 0 then win:start(targets[me]) end
  report(("     rank %d: %s"):format(me, win:epochs().text))
  if engine == "native" then
    say("   (native is MPICH's own matching: it cannot show which posts arrived)")
  end

  say("\n2. The origins put and complete; the targets wait. Then each target")
  say("   reads its own window (slot k holds what rank k put, -1 if nothing):")
  for _, t in ipairs(targets[me]) do win:put(t, me, "int64", 10 * me + t) end
  if #targets[me] > 0 then win:complete() end
  if #origins[me] > 0 then win:wait() end
  local slots = win:read(0, "int64", 4)
  local from = {}
  for k = 0, 3 do if slots[k + 1] ~= -1 then from[#from + 1] = ("%d from %d"):format(slots[k + 1], k) end end
  report(("     rank %d holds: %s"):format(me, #from > 0 and table.concat(from, ", ") or "nothing"))
  rl.world:barrier()

  say("\n3. A wait ends when every origin of its post group has completed. Rank 3")
  say("   now works 0.2 s between its put and its complete; rank 2's wait waits")
  say("   for it, rank 1's does not (seconds since a common barrier):")
  rl.world:barrier()
  local t0 = rl.wtime()
  if #origins[me] > 0 then win:post(origins[me]) end
  rl.world:barrier()
  local line
  if #targets[me] > 0 then
    win:start(targets[me])
    for _, t in ipairs(targets[me]) do win:put(t, me, "int64", 100 + 10 * me + t) end
    if me == 3 then rl.sleep(0.2) end
    win:complete()
    line = ("     rank %d: complete() returned at %.3f s"):format(me, rl.wtime() - t0)
  else
    win:wait()
    line = ("     rank %d: wait() returned at %.3f s"):format(me, rl.wtime() - t0)
  end
  report(line)
  rl.world:barrier()
  win:free()
end
say("\n4. What happened, as the recorder saw it (rmalab.trace, docs/trace.md): the")
say("   native engine's run, a lane per rank. \"<= post 1\" marks the call that")
say("   rank 1's post released, \"=> 0\" a post or complete that released rank 0;")
say("   \"put 2 @3 8B\" is a put to rank 2 at displacement 3 (the origin's slot,")
say("   rank 3's), 8 bytes (one int64), and (0.020 ms) a call's duration. The")
say("   pattern ran twice, in 2 and in 3: both runs are in the timeline, in turn.")
local text = rl.trace.timeline("fig-native")
if text then print(text) end
if arg and arg[1] then
  rl.trace.svg(arg[1], { window = "fig-native", scale = arg[2] == "--to-scale" and "time" or nil,
    titles = { "first run: the figure's order",
               "second run: rank 3 works 0.2 s before its complete()" } })
  say("   The picture is in " .. arg[1] .. ".")
end
say("\nThe figure is one possible timing. With weak synchronisation, start, put")
say("and complete may run ahead of the matching post: see scripts/weak-sync.lua.")
