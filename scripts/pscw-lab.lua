-- A lab on general active-target synchronisation (post/start/complete/wait)
-- on 2 ranks, on both of rmalab's PSCW engines.
--   build/repl/rmalab -n 2 scripts/pscw-lab.lua
-- ranks: 2
-- timeout: 30
-- Rank 0 narrates; rank 0 is the origin and rank 1 the target. Rank 1's
-- lines are gathered to rank 0, which prints them where they belong.
local rl = require "rmalab"
local lab = dofile(debug.getinfo(1, "S").source:match("^@(.-)[^/]*$") .. "lib/lab.lua")
if not lab.ranks(2) then return end
local me = rl.world:rank()
local say, report = lab.say, lab.report
local function show(label, win)   -- every rank's state, in rank order (collective)
  report(("     rank %d %s: %s"):format(me, label, win:epochs().text))
end

for _, engine in ipairs{ "native", "rma" } do
  say(("\n== engine %s ==\n"):format(engine))
  local win <close> = rl.win_allocate(8 * 4, { disp_unit = 8, name = "lab-" .. engine,
    info = { rmalab_pscw = engine } })

  say("1. The target exposes its window with post, the origin opens an access")
  say("   epoch with start; puts land once the origin completes and the target")
  say("   has waited.")
  -- The target posts before the origin starts (the barrier orders them), so
  -- what the origin's start() has seen of the post is the same on every run.
  if me == 1 then win:post({ 0 }) end
  rl.world:barrier()
  if me == 0 then win:start({ 1 }) end
  show("after post/start", win)
  if me == 0 then
    win:put(1, 0, "int64", { 10, 20, 30 })
    local r = win:get(1, 3, "int64")
    local _, err = pcall(r.value, r)
    say("     reading a get before complete: " .. tostring(err))
    win:complete()
    say("     after complete the get holds " .. r:value() .. " (element 3, which no put wrote)")
  else
    win:wait()
  end
  report(me == 1 and "     rank 1 after wait reads " .. table.concat(win:read(0, "int64", 3), ", ") or "")
  rl.world:barrier()   -- a gather lets rank 1 leave before rank 0: keep the ranks in step

  say("\n2. Misuse is refused before MPI sees it, and the window stays usable:")
  local function try(f, ...)
    local _, err = pcall(f, ...)
    if me == 0 then print("     " .. tostring(err)) end
  end
  if me == 0 then
    try(win.complete, win)                       -- no access epoch open
    win:start({ 1 })
    try(win.put, win, 0, 0, "int64", 1)          -- rank 0 is not in the start group
    try(win.put, win, 1, 4, "int64", 1)          -- past the end of rank 1's window
    try(win.fence, win)                          -- fence inside a PSCW epoch (collective:
    win:put(1, 3, "int64", 99)                   -- every rank calls it, and every rank
    win:complete()                               -- learns that some rank was refused)
  else
    try(win.wait, win)                           -- no exposure epoch yet
    win:post({ 0 })
    try(win.fence, win)                          -- fence inside the exposure epoch
    win:wait()
  end
  report(me == 1 and "     rank 1 got " .. win:read(3, "int64") .. " after the refused calls" or "")
  rl.world:barrier()   -- a gather lets rank 1 leave before rank 0: keep the ranks in step

  if engine == "rma" then
    say("\n3. The rma engine matches per peer, so it can say what is missing.")
    say("   Rank 1 posts and polls test() while rank 0 has not started yet:")
    local lines = ""
    if me == 1 then
      win:post({ 0 })
      lines = "     rank 1 test() -> " .. tostring(win:test()) .. "; " .. win:epochs().text
      rl.world:barrier()
      repeat until win:test()
      lines = lines .. "\n     rank 1 test() -> true once rank 0 completed"
    else
      rl.world:barrier()
      win:start({ 1 }); win:put(1, 0, "int64", 1); win:complete()
    end
    report(lines)
    local info = win:get_info()
    say(("     paths on this machine: counters %s, data %s"):format(
      info:get("rmalab_pscw_sync_path"), info:get("rmalab_pscw_data_path")))
  end
  rl.world:barrier()
end

say("\nTime 2,000 epochs on each engine (one 8-byte put each):")
for _, engine in ipairs{ "native", "rma" } do
  local win <close> = rl.win_allocate(16, { disp_unit = 8, info = { rmalab_pscw = engine } })
  rl.world:barrier()
  local t0 = rl.wtime()
  for i = 1, 2000 do
    if me == 0 then win:start({ 1 }); win:put(1, 0, "int64", i); win:complete()
    else win:post({ 0 }); win:wait() end
  end
  local dt = rl.wtime() - t0
  say(("     %-6s %.2f us per epoch (Lua, this machine, now)"):format(engine, dt / 2000 * 1e6))
end
