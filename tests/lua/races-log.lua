-- ranks: 2
-- engines: native rma
-- env: RMALAB_WAIT=spin
-- timeout: 170
-- The race checker's log of a passive target (docs/races.md, "Cost and
-- memory"): a record of the same access supersedes the earlier one, so a
-- counter or a mailbox under locks keeps a few records however long it
-- runs; a sweep drops what every rank's clock has passed. Neither changes a
-- verdict: what races with an access that left the log still races.
-- rl.debug.races_log(win) says how many records this rank keeps.
-- RMALAB_WAIT=spin: a target asleep in a barrier would leave the lock
-- requests of a rank still in its loop to MPICH's rare progress.
local T = require "rmalab.test"
local rl = require "rmalab"

local function checked(bytes)
  return rl.win_allocate(bytes or 64, { disp_unit = 8, name = "log",
    info = { rmalab_check = "races:quiet" } })
end

T.case("a counter of 20,000 increments under exclusive locks keeps a record per rank", function()
  rl.races.clear()
  local win = checked()
  local n = 20000 // T.size
  for _ = 1, n do
    win:lock(0, "exclusive")
    win:fetch_and_op(0, 0, "int64", 1, "sum")
    win:unlock(0)
  end
  rl.world:barrier()
  if T.rank == 0 then
    win:lock(0, "shared"); win:unlock(0) -- takes in what has arrived
    local log, past = rl.debug.races_log(win)
    T.ok(log <= 2 * T.size, ("%d records in the log after %d increments"):format(log, n * T.size))
    T.eq(past, 0, "past")
  end
  win:fence()
  if T.rank == 0 then T.eq(win:read(0, "int64"), n * T.size, "the counter") end
  win:fence()
  win:free()
  T.eq(rl.races.total(), 0, "no race")
end)

T.case("after many clean lock epochs, two shared ones on one element race", function()
  rl.races.clear()
  local win = checked()
  for i = 1, 2000 do -- rank 0 too, on its own memory
    win:lock(0, "exclusive"); win:put(0, 1, "int64", i); win:unlock(0)
  end
  rl.world:barrier()
  if T.rank == 0 then
    win:lock(0, "shared"); win:unlock(0)
    local log = rl.debug.races_log(win)
    T.ok(log <= 2, ("%d records in the log after 4,000 epochs"):format(log))
  end
  rl.world:barrier()
  -- Shared locks do not exclude each other, and nothing orders these two.
  win:lock(0, "shared"); win:put(0, 1, "int64", -1); win:unlock(0)
  rl.world:barrier()
  win:free()
  T.eq(rl.races.total(), 1, "ranks 0 and 1 under shared locks")
end)

T.case("the target's unlocked write races with the last of many locked puts", function()
  rl.races.clear()
  local win = checked()
  if T.rank == 1 then
    for i = 1, 2000 do
      win:lock(0, "exclusive"); win:put(0, 2, "int64", i); win:unlock(0)
    end
  elseif T.rank == 0 then
    for i = 1, 2000 do -- under a lock of its own: no race, one record
      win:lock(0, "exclusive"); win:write(3, "int64", i); win:unlock(0)
    end
    local log = rl.debug.races_log(win)
    T.ok(log <= 3, ("%d records in the log"):format(log))
  end
  rl.world:barrier()
  -- The barrier orders rank 1's puts before this write: no race. Then one
  -- more put that nothing orders with a second write.
  if T.rank == 0 then win:write(2, "int64", 0) end
  rl.world:barrier()
  if T.rank == 1 then win:lock(0, "exclusive"); win:put(0, 2, "int64", 1); win:unlock(0) end
  if T.rank == 0 then win:write(2, "int64", 0) end
  rl.world:barrier()
  win:free()
  T.eq(rl.races.total(), 1, "the last put and the second write")
end)

T.case("a sweep drops what a barrier ordered before every rank, and the rest still races",
  function()
  rl.races.clear()
  local N = 1500
  local win = checked(8 * (N + 700))
  local function epochs(from, to)
    if T.rank == 1 then
      for i = from, to do win:lock(0, "exclusive"); win:put(0, i, "int64", i); win:unlock(0) end
    end
  end
  epochs(0, N - 1) -- a record each: every element its own
  rl.world:barrier() -- orders them before everything after
  if T.rank == 1 then win:lock(0, "shared"); win:get(0, 0, "int64"); win:unlock(0) end
  rl.world:barrier()
  if T.rank == 0 then win:lock(0, "shared"); win:unlock(0) end -- rank 1's clock is in
  rl.world:barrier()
  epochs(N, N + 599)
  rl.world:barrier()
  if T.rank == 0 then
    win:lock(0, "shared"); win:unlock(0)
    local log = rl.debug.races_log(win)
    -- The sweep at 2,048 records dropped at least the first N.
    T.ok(log <= 601, ("%d records in the log, of %d"):format(log, N + 601))
    win:write(5, "int64", 0)     -- ordered by the barrier: no race
    win:write(N + 5, "int64", 0) -- ordered: the barrier after the puts
  end
  rl.world:barrier()
  if T.rank == 1 then win:lock(0, "exclusive"); win:put(0, N + 6, "int64", 1); win:unlock(0) end
  if T.rank == 0 then win:write(N + 6, "int64", 0) end -- nothing orders these
  rl.world:barrier()
  win:free()
  T.eq(rl.races.total(), 1, "only the last put and write")
end)

T.case("rl.debug.races_log of an unchecked window is 0, 0", function()
  local win <close> = rl.win_allocate(16)
  T.eq({ rl.debug.races_log(win) }, { 0, 0 })
  T.raises("ERR_WIN", function() rl.debug.races_log(42) end)
end)
