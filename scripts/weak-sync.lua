-- The weak-synchronisation puzzle, on 2 ranks and on both PSCW engines.
-- The origin (rank 0) calls start, put and complete while the target
-- (rank 1) is still busy for 0.3 s before it posts. MPI lets start return
-- before the post, or block; where does the origin wait here? The lab
-- measures it instead of asserting it.
--   build/repl/rmalab -n 2 scripts/weak-sync.lua
-- ranks: 2
-- timeout: 30
-- Rank 0 narrates; times are seconds since a common barrier.
local rl = require "rmalab"
local lab = dofile(debug.getinfo(1, "S").source:match("^@(.-)[^/]*$") .. "lib/lab.lua")
if not lab.ranks(2) then return end
local me = rl.world:rank()
local say, report = lab.say, lab.report
local DELAY = 0.3

-- Windows are freed explicitly. (A <close> would do too: an error that
-- leaves its scope lets the window go without the collective free, which
-- the other ranks might never reach, docs/lua.md.)

say("The standard (MPI_WIN_COMPLETE): start may block until the matching post,")
say("or return at once and let put block, or let complete block, or even let all")
say("three return before the post if the data is buffered. Only this is fixed:")
say("the data reaches the target after its post, and once the post is made the")
say(("sequence completes. Here the target works %.1f s before it posts.\n"):format(DELAY))

local where = {}
for _, engine in ipairs{ "native", "rma" } do
  say(("== engine %s =="):format(engine))
  local win = rl.win_allocate(8, { disp_unit = 8, name = "weak-" .. engine,
    info = { rmalab_pscw = engine, rmalab_trace = "true" } })
  win:write(0, "int64", 0)
  rl.world:barrier()
  local t0 = rl.wtime()
  if me == 0 then
    win:start({ 1 }); local t1 = rl.wtime()
    win:put(1, 0, "int64", 42); local t2 = rl.wtime()
    win:complete(); local t3 = rl.wtime()
    local spans = { start = t1 - t0, put = t2 - t1, complete = t3 - t2 }
    report(("   rank 0 (origin): start %.3f s, put %.3f s, complete %.3f s"):format(
      spans.start, spans.put, spans.complete))
    local blocked = {}
    for _, call in ipairs{ "start", "put", "complete" } do
      if spans[call] > DELAY / 2 then blocked[#blocked + 1] = call end
    end
    where[engine] = #blocked > 0 and table.concat(blocked, " and ") or "none of the three"
  else
    rl.sleep(DELAY)
    local tp = rl.wtime()
    win:post({ 0 }); win:wait()
    local tw = rl.wtime()
    report(("   rank 1 (target): posted at %.3f s, wait returned at %.3f s, holds %d"):format(
      tp - t0, tw - t0, win:read(0, "int64")))
  end
  say(("   measured: the origin blocked in %s"):format(where[engine] or "?"))
  say("   The recorder's view (docs/trace.md): \"<= post 1\" marks what rank 1's")
  say("   post released; on rma, the post's arrival falls inside the put.")
  local text = rl.trace.timeline(win)
  if text then print(text .. "\n") end
  win:free()
end

say(("Why it matters: the origin has %.1f s of its own work to do after start."):format(DELAY))
say("If start blocks, that work waits for the post; if only the first put")
say("blocks, the work overlaps the target's. Work done between start and put:")
for _, engine in ipairs{ "native", "rma" } do
  local win = rl.win_allocate(8, { disp_unit = 8, info = { rmalab_pscw = engine } })
  rl.world:barrier()
  local t0 = rl.wtime()
  if me == 0 then
    win:start({ 1 }); rl.sleep(DELAY); win:put(1, 0, "int64", 7); win:complete()
    report(("   %-6s origin done at %.3f s (its work %.1f s, the target's %.1f s)"):format(
      engine, rl.wtime() - t0, DELAY, DELAY))
  else
    rl.sleep(DELAY); win:post({ 0 }); win:wait()
    report("")
  end
  rl.world:barrier()
  win:free()
end

say("\nWhat to notice: MPI allows every one of these behaviours, so a correct")
say("program must not depend on start returning early, nor on it blocking.")
say("MPICH's own PSCW (native) is expected to wait in start; rmalab's rma engine")
say("lets start return and waits at the first operation to a target whose post")
say("has not arrived. The lines above say what this machine did today.")
