-- A lab on general active-target synchronisation (post/start/complete/wait)
-- on 2 ranks, on both of rmalab's PSCW engines.
--   mpiexec -n 2 lua5.4 scripts/pscw-lab.lua
-- ranks: 2
-- Rank 0 narrates; rank 0 is the origin and rank 1 the target.
local rl = require "rmalab"
local me, size = rl.world:rank(), rl.world:size()
if size ~= 2 then
  if me == 0 then print("run this lab on 2 ranks: mpiexec -n 2 lua5.4 " .. arg[0]) end
  return
end
local function say(...) if me == 0 then print(...) end end
local function show(label, win)
  -- every rank reports its own state, rank by rank
  for r = 0, size - 1 do
    if r == me then print(("     rank %d %s: %s"):format(me, label, win:epochs().text)) end
    io.stdout:flush()
    rl.world:barrier()
  end
end

for _, engine in ipairs{ "native", "rma" } do
  say(("\n== engine %s ==\n"):format(engine))
  local win <close> = rl.win_allocate(8 * 4, { disp_unit = 8, name = "lab-" .. engine,
    info = { rmalab_pscw = engine } })

  say("1. The target exposes its window with post, the origin opens an access")
  say("   epoch with start; puts land once the origin completes and the target")
  say("   has waited.")
  if me == 1 then win:post({ 0 }) else win:start({ 1 }) end
  show("after post/start", win)
  if me == 0 then
    win:put(1, 0, "int64", { 10, 20, 30 })
    local r = win:get(1, 3, "int64")
    local _, err = pcall(r.value, r)
    say("     reading a get before complete: " .. tostring(err))
    win:complete()
    say("     after complete the get holds " .. r:value())
  else
    win:wait()
    print("     rank 1 after wait reads " .. table.concat(win:read(0, "int64", 3), ", "))
  end
  rl.world:barrier()

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
    try(win.fence, win)                          -- fence inside a PSCW epoch
    win:put(1, 3, "int64", 99)
    win:complete()
  else
    try(win.wait, win)                           -- no exposure epoch yet
    win:post({ 0 })
    win:wait()
    print("     rank 1 got " .. win:read(3, "int64") .. " after the refused calls")
  end
  rl.world:barrier()

  if engine == "rma" then
    say("\n3. The rma engine matches per peer, so it can say what is missing.")
    say("   Rank 1 posts and polls test() while rank 0 has not started yet:")
    if me == 1 then
      win:post({ 0 })
      print("     rank 1 test() -> " .. tostring(win:test()) .. "; " .. win:epochs().text)
      rl.world:barrier()
      repeat until win:test()
      print("     rank 1 test() -> true once rank 0 completed")
    else
      rl.world:barrier()
      win:start({ 1 }); win:put(1, 0, "int64", 1); win:complete()
    end
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
