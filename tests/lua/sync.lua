-- ranks: 2
-- engines: native rma
-- Fences and passive-target synchronisation from Lua, on 2 ranks: fence
-- assertions and epochs, what an idle fence allows, lock/unlock (exclusive
-- and shared), lock_all/unlock_all, flush/flush_all and the results they
-- complete, and every misuse the epoch state machine refuses, each followed
-- by a working call on the same window; PSCW epochs next to fence and lock
-- epochs, and the no_locks hint. Checks are soft (rmalab.test) so no rank
-- skips a synchronisation call the other waits in. The windows ask for the
-- native PSCW engine: the rma engine refuses fences and locks (pscw-rma.lua).
local rl = require "rmalab"
local T = require "rmalab.test"
local checkerr = T.checkerr
local S = dofile(debug.getinfo(1, "S").source:match("^@(.-)[^/]*$") .. "../lib/scenario.lua")
local has = S.has
local rank, other = S.pair()

local function window(name, info)
  info = info or {}
  info.rmalab_pscw = "native"
  return (rl.win_allocate(32, { disp_unit = 8, name = name or "sync", info = info }))
end

T.case("fence epochs and win:epochs()", function()
  local w <close> = window()
  w:fence()
  local e = w:epochs()
  T.eq(e.access, "fence", "access after fence"); T.eq(e.exposure, "fence", "exposure")
  T.eq(e.ops, 0, "no ops yet"); T.eq(e.text, "fence epoch (0 RMA calls)", "text")
  T.eq(e.access_group, nil, "fences have no group")
  for i = 1, 3 do
    w:put(other, 0, "int64", 10 * i + rank)
    w:accumulate(other, 1, "int64", i, "sum")
    T.eq(w:epochs().ops, 2, "two calls in epoch " .. i)
    T.eq(w:epochs().text, "fence epoch (2 RMA calls)", "text in epoch " .. i)
    w:fence()
    T.eq(w:read(0, "int64"), 10 * i + other, "put in epoch " .. i)
    T.eq(w:read(1, "int64"), i * (i + 1) // 2, "accumulated through epoch " .. i)
    T.eq(w:epochs().epochs, i, "epochs closed")
  end
  w:fence() -- an epoch without calls does not count
  T.eq(w:epochs().epochs, 3, "an empty fence epoch is not counted")
  w:fence("nosucceed")
  e = w:epochs()
  T.eq(e.access, "none", "nosucceed closes"); T.eq(e.exposure, "none", "exposure closed")
  T.eq(e.text, "no access epoch", "text after nosucceed")
  checkerr("ERR_RMA_SYNC", "win:put to rank " .. other .. ": RMA calls need an access epoch",
    w.put, w, other, 0, "int64", 1)
  w:free()
end)

T.case("fence assertions", function()
  local w <close> = window()
  w:fence("noprecede")
  w:put(other, 0, "int64", 1 + rank)
  w:fence("nostore")
  T.eq(w:read(0, "int64"), 1 + other, "after nostore")
  w:get(other, 0, "int64")
  w:fence({ "noput", "nostore" })
  w:put(other, 0, "int64", 2 + rank)
  -- noprecede after RMA calls since the last fence is a broken promise
  local err = checkerr("ERR_ARG", "fence: \"noprecede\" promises that no RMA calls precede "
    .. "this fence, but 1 were made since the last one; drop the assertion", w.fence, w,
    "noprecede")
  has(err, "[window \"sync\"]")
  checkerr("ERR_ARG", "but 1 were made", w.fence, w, { "nostore", "noprecede" })
  T.eq(w:epochs().ops, 1, "the epoch is still open")
  w:fence()
  T.eq(w:read(0, "int64"), 2 + other, "the refused fence did not close the epoch; this one did")
  checkerr("ERR_ARG", "fence: the assertion \"nocheck\" does not apply to fence; it takes "
    .. "nostore, noput, noprecede, nosucceed", w.fence, w, "nocheck")
  checkerr("ERR_ARG", "does not apply to fence", w.fence, w, { "noput", "nocheck" })
  checkerr("ERR_ARG", "unknown assertion \"nosuccede\"", w.fence, w, "nosuccede")
  checkerr("ERR_ARG", "assertion name or array of names expected", w.fence, w, 8)
  w:fence("noprecede") -- no calls since the last fence: allowed
  w:put(other, 0, "int64", 3 + rank)
  w:fence({ "nosucceed", "nostore" })
  T.eq(w:read(0, "int64"), 3 + other, "after nosucceed")
  T.eq(w:epochs().access, "none", "closed")
  w:fence({ "noprecede", "nosucceed" }) -- an empty epoch, opened and closed at once
  T.eq(w:epochs().access, "none", "noprecede + nosucceed leaves no epoch")
  w:free()
end)

T.case("what an idle fence allows", function()
  local w <close> = window()
  -- PSCW directly after a fence that no RMA call followed
  w:fence()
  w:post({ other }); w:start({ other })
  w:put(other, 0, "int64", 5 + rank)
  w:complete(); w:wait()
  T.eq(w:read(0, "int64"), 5 + other, "PSCW after an idle fence")
  T.eq(w:epochs().access, "none", "the idle fence epoch was dropped")
  -- a lock after an idle fence
  w:fence()
  w:lock(other)
  w:put(other, 1, "int64", 6 + rank)
  w:unlock(other)
  rl.world:barrier()
  T.eq(w:read(1, "int64"), 6 + other, "lock after an idle fence")
  -- lock_all after an idle fence
  w:fence()
  w:lock_all(); w:unlock_all()
  -- but not after a fence epoch with calls
  w:fence()
  w:put(other, 2, "int64", 7 + rank)
  checkerr("ERR_RMA_SYNC", "start: a fence epoch with 1 RMA calls is open; end it with "
    .. "fence(\"nosucceed\") before start", w.start, w, { other })
  checkerr("ERR_RMA_SYNC", "post: a fence epoch with RMA calls is open; end it with "
    .. "fence(\"nosucceed\") before post", w.post, w, { other })
  checkerr("ERR_RMA_SYNC", "lock: a fence epoch with RMA calls is open; end it with "
    .. "fence(\"nosucceed\") first", w.lock, w, other)
  checkerr("ERR_RMA_SYNC", "lock_all: a fence epoch with RMA calls is open", w.lock_all, w)
  checkerr("ERR_RMA_SYNC", "free: a window may only be freed outside of any epoch, and this "
    .. "one has fence epoch (1 RMA calls); close it first (fence())", w.free, w)
  w:fence()
  T.eq(w:read(2, "int64"), 7 + other, "the fence epoch carried on")
  w:free() -- after an idle fence: allowed
  T.eq(tostring(w), "rmalab.win (freed)", "freed after an idle fence")
end)

T.case("lock and unlock", function()
  local w <close> = window("locks")
  w:lock(other)
  local e = w:epochs()
  T.eq(e.access, "lock", "access"); T.eq(e.access_group, { other }, "locked ranks")
  T.eq(e.locks and e.locks[other], "exclusive", "exclusive by default")
  T.eq(e.text, "passive-target epoch: locked {" .. other .. "}", "text")
  w:put(other, 0, "int64", 100 + rank)
  local err = checkerr("ERR_RMA_SYNC", "lock: rank " .. other .. " is already locked by this "
    .. "process; a rank can be locked once at a time, so unlock(" .. other .. ") first",
    w.lock, w, other)
  has(err, "[window \"locks\"]")
  checkerr("ERR_RMA_SYNC", "lock: rank " .. other .. " is already locked", w.lock, w, other,
    "shared")
  checkerr("ERR_RMA_SYNC", "unlock: rank " .. rank .. " is not locked by this process; lock "
    .. "it first", w.unlock, w, rank)
  checkerr("ERR_RMA_SYNC", "fence: a passive-target epoch is open; unlock before fencing",
    w.fence, w)
  checkerr("ERR_RMA_SYNC", "complete: it ends an access epoch opened by start(group), and "
    .. "none is open (this is a passive-target epoch: end it with unlock)", w.complete, w)
  checkerr("ERR_RMA_SYNC", "lock_all: a passive-target epoch (lock) is already open; unlock "
    .. "first", w.lock_all, w)
  checkerr("ERR_RMA_SYNC", "unlock_all: no lock_all() epoch is open (use "
    .. "unlock(target) after lock(target))", w.unlock_all, w)
  checkerr("ERR_RMA_SYNC", "close it first (unlock(target))", w.free, w)
  checkerr("ERR_RANK", "lock: rank 2 is not in the window's group (ranks 0 to 1)", w.lock, w,
    2)
  checkerr("ERR_RANK", "unlock: rank -1 is not in the window's group", w.unlock, w, -1)
  -- ranks that are not C ints, or not integers
  checkerr("ERR_RANK", "win: rank 4294967296 is not in the window's group", w.lock, w, 1 << 32)
  checkerr("ERR_RANK", "win: rank -2147483649 is not in the window's group", w.unlock, w,
    -(1 << 31) - 1)
  checkerr("ERR_RANK", "bad argument #1 to 'flush' (rank (an integer) expected, got a number "
    .. "with no integer representation)", function() w:flush(0.5) end)
  checkerr("ERR_RANK", "bad argument #1 to 'lock' (rank (an integer) expected, got string)",
    function() w:lock("1") end)
  checkerr("ERR_ARG", "invalid option 'exclusiv'", w.lock, w, rank, "exclusiv")
  checkerr("ERR_ARG", "lock: the assertion \"noput\" does not apply to lock; it takes nocheck",
    w.lock, w, rank, "shared", "noput")
  w:unlock(other)
  T.eq(w:epochs().epochs, 1, "one epoch"); T.eq(w:epochs().access, "none", "closed")
  rl.world:barrier()
  T.eq(w:read(0, "int64"), 100 + other, "the locked put arrived")
  -- two ranks in one epoch, exclusive and shared: rank 0 only, so that no
  -- lock conflicts with one the other rank holds
  if rank == 0 then
    w:lock(1)
    w:lock(0, "shared")
    e = w:epochs()
    T.eq(e.access_group, { 0, 1 }, "both locked")
    T.eq(e.locks and e.locks[0], "shared", "shared")
    T.eq(e.locks and e.locks[1], "exclusive", "still exclusive")
    T.eq(e.text, "passive-target epoch: locked {0, 1}", "text with two ranks")
    local mine = w:get(0, 3, "int64")
    local theirs = w:get(1, 0, "int64")
    w:unlock(1)
    T.eq(theirs:ready(), true, "unlock(1) completes operations to 1")
    T.eq(theirs:value(), 100, "rank 0's earlier put")
    T.eq(mine:ready(), false, "but not those to the rank still locked")
    checkerr("ERR_RMA_SYNC", "unlock(0) or flush(0)", mine.value, mine)
    T.eq(w:epochs().epochs, 1, "the epoch is still open")
    T.eq(w:epochs().text, "passive-target epoch: locked {0}", "one rank left")
    w:unlock(0)
    T.eq(mine:value(), 0, "ready once unlocked")
    T.eq(w:epochs().access, "none", "closed"); T.eq(w:epochs().epochs, 2, "two epochs")
  end
  rl.world:barrier()
  -- lock with nocheck (no other process holds or asks for a conflicting lock)
  w:lock(rank, "exclusive", "nocheck")
  w:put(rank, 1, "int64", 7)
  w:unlock(rank)
  T.eq(w:read(1, "int64"), 7, "lock nocheck")
  rl.world:barrier()
  w:free()
end)

T.case("exclusive locks exclude", function()
  -- both ranks increment a counter on rank 0 with get + put under an
  -- exclusive lock: no increment may be lost
  local w <close> = window()
  local N = 15
  for _ = 1, N do
    w:lock(0)
    local r = w:get(0, 0, "int64")
    w:flush(0)
    w:put(0, 0, "int64", r:value() + 1)
    w:unlock(0)
  end
  rl.world:barrier()
  if rank == 0 then T.eq(w:read(0, "int64"), 2 * N, "every increment counted") end
  -- shared locks: both ranks read rank 0 at once, then add atomically
  w:lock(0, "shared")
  local r = w:get(0, 0, "int64")
  w:accumulate(0, 1, "int64", rank + 1, "sum")
  w:unlock(0)
  T.eq(r:value(), 2 * N, "read under a shared lock")
  rl.world:barrier()
  if rank == 0 then T.eq(w:read(1, "int64"), 3, "accumulates under shared locks") end
  w:free()
end)

T.case("flush_local and flush_local_all", function()
  local w <close> = window("local")
  w:write(3, "int64", 300 + rank)
  rl.world:barrier()
  checkerr("ERR_RMA_SYNC", "flush_local: flushes complete operations of a passive-target "
    .. "epoch, and rank " .. other .. " is not locked; call lock(" .. other .. ") or "
    .. "lock_all() first", w.flush_local, w, other)
  checkerr("ERR_RMA_SYNC", "flush_local_all: flushes complete operations of a passive-target "
    .. "epoch, and none is open", w.flush_local_all, w)
  w:lock(other)
  local r1 = w:get(other, 3, "int64")
  T.eq(r1:ready(), false, "not ready before flush_local")
  w:flush_local(other)
  T.eq(r1:ready(), true, "flush_local(other) completes it at this origin")
  T.eq(r1:value(), 300 + other, "value after flush_local")
  checkerr("ERR_RANK", "flush_local: rank 5 is not in the window's group (ranks 0 to 1)",
    w.flush_local, w, 5)
  w:unlock(other)
  w:lock_all()
  local r0 = w:get(rank, 3, "int64")
  w:flush_local_all()
  T.eq(r0:ready(), true, "flush_local_all completes it")
  T.eq(r0:value(), 300 + rank, "own value")
  T.eq(w:epochs().access, "lock_all", "local flushes keep the epoch open")
  w:unlock_all()
  w:free()
end)

T.case("lock_all, unlock_all, flush and flush_all", function()
  local w <close> = window("all")
  w:write(3, "int64", 300 + rank)
  rl.world:barrier()
  w:lock_all()
  local e = w:epochs()
  T.eq(e.access, "lock_all", "access"); T.eq(e.text, "passive-target epoch: lock_all", "text")
  T.eq(e.access_group, nil, "no group"); T.eq(e.locks, nil, "no per-rank locks")
  w:put(other, 0, "int64", 200 + rank)
  local r1 = w:get(other, 3, "int64")
  local r0 = w:get(rank, 3, "int64")
  T.eq(r1:ready(), false, "not ready before flush")
  checkerr("ERR_RMA_SYNC", "here at unlock_all() or flush(" .. other .. ")", r1.value,
    r1)
  w:flush(other)
  T.eq(r1:ready(), true, "flush(other) completes it")
  T.eq(r1:value(), 300 + other, "value after flush")
  T.eq(r0:ready(), false, "flush(other) does not complete operations to this rank")
  w:flush_all()
  T.eq(r0:ready(), true, "flush_all completes the rest")
  T.eq(r0:value(), 300 + rank, "own value")
  T.eq(w:epochs().access, "lock_all", "flushes keep the epoch open")
  checkerr("ERR_RMA_SYNC", "lock_all: a passive-target epoch (lock_all) is already open; "
    .. "unlock first", w.lock_all, w)
  checkerr("ERR_RMA_SYNC", "lock: lock_all() already locks every rank; unlock_all first",
    w.lock, w, other)
  checkerr("ERR_RMA_SYNC", "unlock: rank " .. other .. " is not locked by this process (use "
    .. "unlock_all() after lock_all())", w.unlock, w, other)
  checkerr("ERR_RMA_SYNC", "fence: a passive-target epoch is open; unlock before fencing",
    w.fence, w)
  checkerr("ERR_RMA_SYNC", "close it first (unlock_all())", w.free, w)
  checkerr("ERR_RANK", "flush: rank 5 is not in the window's group (ranks 0 to 1)", w.flush, w,
    5)
  local late = w:get(other, 0, "int64")
  w:unlock_all()
  T.eq(late:ready(), true, "unlock_all completes everything")
  T.eq(w:epochs().epochs, 1, "one epoch")
  rl.world:barrier()
  T.eq(w:read(0, "int64"), 200 + other, "put under lock_all arrived")
  checkerr("ERR_RMA_SYNC", "unlock_all: no lock_all() epoch is open", w.unlock_all, w)
  -- assertions
  w:lock_all("nocheck"); w:unlock_all()
  checkerr("ERR_ARG", "lock_all: the assertion \"noput\" does not apply to lock_all", w.lock_all,
    w, "noput")
  -- flush in a lock epoch: only locked ranks
  w:lock(other, "shared")
  local r = w:get(other, 3, "int64")
  w:flush(other)
  T.eq(r:ready(), true, "flush in a lock epoch")
  checkerr("ERR_RMA_SYNC", "flush: flushes complete operations of a passive-target epoch, and "
    .. "rank " .. rank .. " is not locked; call lock(" .. rank .. ") or lock_all() "
    .. "first", w.flush, w, rank)
  w:flush_all()
  w:unlock(other)
  rl.world:barrier()
  w:free()
end)

T.case("flush without a lock", function()
  local w <close> = window()
  checkerr("ERR_RMA_SYNC", "flush: flushes complete operations of a passive-target epoch, and "
    .. "rank " .. other .. " is not locked; call lock(" .. other .. ") or lock_all() first",
    w.flush, w, other)
  checkerr("ERR_RMA_SYNC", "flush_all: flushes complete operations of a passive-target epoch, "
    .. "and none is open; call lock(target) or lock_all() first", w.flush_all, w)
  w:fence()
  checkerr("ERR_RMA_SYNC", "flush: flushes complete operations", w.flush, w, other)
  local r = w:get(other, 0, "int64")
  checkerr("ERR_RMA_SYNC", "flush_all: flushes complete operations", w.flush_all, w)
  w:fence("nosucceed")
  T.eq(r:value(), 0, "the fence completed the get")
  w:post({ other }); w:start({ other })
  checkerr("ERR_RMA_SYNC", "flush: flushes complete operations", w.flush, w, other)
  w:complete(); w:wait()
  -- the window works after all of it
  w:lock(other); w:put(other, 0, "int64", 9); w:flush(other); w:unlock(other)
  rl.world:barrier()
  T.eq(w:read(0, "int64"), 9, "a lock epoch after the refused flushes")
  w:free()
end)

T.case("PSCW next to fence and lock epochs", function()
  local w <close> = window("mixed")
  -- complete inside a fence epoch with RMA calls names the fence
  w:fence()
  w:put(other, 1, "int64", 1)
  checkerr("ERR_RMA_SYNC", "complete: it ends an access epoch opened by start(group), and "
    .. "none is open (this is a fence epoch: end it with fence())", w.complete, w)
  checkerr("ERR_RMA_SYNC", "wait: it ends an exposure epoch opened by post(group), and "
    .. "none is open (this is a fence epoch: end it with fence())", w.wait, w)
  w:fence("nosucceed")
  T.eq(w:read(1, "int64"), 1, "the fence epoch")
  w:post({ other }); w:start({ other })
  w:put(other, 0, "int64", 13 + rank)
  w:complete(); w:wait()
  T.eq(w:read(0, "int64"), 13 + other, "an epoch after the fence")
  -- start and post inside a passive-target epoch
  w:lock(other, "shared")
  checkerr("ERR_RMA_SYNC", "start: a passive-target epoch (lock) is open; only one access "
    .. "epoch may be open at a time, so unlock first", w.start, w, { other })
  checkerr("ERR_RMA_SYNC", "post: a passive-target epoch is open on this window; unlock "
    .. "before mixing in post/start/complete/wait", w.post, w, { other })
  checkerr("ERR_RMA_SYNC", "complete: it ends an access epoch opened by start(group), and "
    .. "none is open (this is a passive-target epoch: end it with unlock)", w.complete, w)
  w:unlock(other)
  w:lock_all()
  checkerr("ERR_RMA_SYNC", "start: a passive-target epoch (lock_all) is open", w.start, w,
    { other })
  checkerr("ERR_RMA_SYNC", "post: a passive-target epoch is open", w.post, w, { other })
  w:unlock_all()
  T.eq(w:epochs().epochs, 4, "fence, PSCW, lock and lock_all epochs (the last two empty)")
  rl.world:barrier()
  w:post({ other }); w:start({ other })
  w:put(other, 0, "int64", 21 + rank)
  -- flush is for passive-target epochs only
  checkerr("ERR_RMA_SYNC", "flush: flushes complete operations of a passive-target epoch",
    w.flush, w, other)
  w:complete(); w:wait()
  T.eq(w:read(0, "int64"), 21 + other, "an epoch after the locks")
  w:free()
end)

T.case("no_locks refuses locks on the ranks that promised it", function()
  -- rank 1 promises no_locks at creation; rank 0 does not
  local w <close> = window("nl", { no_locks = rank == 1 })
  T.eq(w:get_info():get("no_locks"), rank == 1 and "true" or "false", "no_locks in effect")
  local err = checkerr("ERR_RMA_SYNC", "lock: rank 1 gave the hint no_locks = true, promising "
    .. "that no passive-target lock targets it; use fence or PSCW, or set no_locks = false on "
    .. "rank 1", w.lock, w, 1)
  has(err, "[window \"nl\"]")
  checkerr("ERR_RMA_SYNC", "lock: rank 1 gave the hint no_locks = true", w.lock, w, 1, "shared")
  checkerr("ERR_RMA_SYNC", "lock_all: rank 1 gave the hint no_locks = true, promising that no "
    .. "passive-target lock targets it; use fence or PSCW", w.lock_all, w)
  T.eq(w:epochs().access, "none", "the refusals opened nothing")
  -- rank 0 may still be locked, by both ranks
  w:lock(0, "shared")
  w:accumulate(0, 0, "int64", rank + 1, "sum")
  w:unlock(0)
  rl.world:barrier()
  if rank == 0 then T.eq(w:read(0, "int64"), 3, "locks on rank 0 work") end
  -- set_info moves the promise: rank 1 withdraws it, rank 0 gives it
  w:set_info{ no_locks = rank == 0 }
  T.eq(w:get_info():get("no_locks"), rank == 0 and "true" or "false", "no_locks after set_info")
  checkerr("ERR_RMA_SYNC", "lock: rank 0 gave the hint no_locks = true", w.lock, w, 0)
  checkerr("ERR_RMA_SYNC", "lock_all: rank 0 gave the hint no_locks = true", w.lock_all, w)
  w:lock(1)
  w:put(1, 1, "int64", 40 + rank)
  w:unlock(1)
  rl.world:barrier()
  if rank == 1 then
    local v = w:read(1, "int64")
    T.ok(v == 40 or v == 41, "a locked put into rank 1, got " .. tostring(v))
  end
  -- a set_info that does not name no_locks keeps the promise
  w:set_info{ accumulate_ordering = "none" }
  checkerr("ERR_RMA_SYNC", "lock: rank 0 gave the hint no_locks = true", w.lock, w, 0)
  -- fences are not locks
  w:fence()
  w:put(other, 2, "int64", 50 + rank)
  w:fence("nosucceed")
  T.eq(w:read(2, "int64"), 50 + other, "fence epochs under no_locks")
  -- withdrawn everywhere: lock_all works again
  w:set_info(rl.info{ no_locks = false })
  w:lock_all()
  w:put(other, 3, "int64", 60 + rank)
  w:unlock_all()
  rl.world:barrier()
  T.eq(w:read(3, "int64"), 60 + other, "lock_all after no_locks was withdrawn")
  w:free()
end)

T.done()
