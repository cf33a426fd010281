-- ranks: 2
-- engines: native rma
-- Post/start/complete/wait from Lua, on 2 ranks: exchanges with wait and
-- with test, empty groups, assertions, every misuse the epoch state machine
-- catches (each followed by a successful epoch on the same window), bad
-- groups, and what win:epochs() shows in each state. Checks are soft
-- (rmalab.test): a failed check never makes one rank skip a synchronisation
-- call the other is waiting in.
--
-- The file runs unchanged on both PSCW engines: its windows give no
-- rmalab_pscw hint, so RMALAB_PSCW in the environment picks the engine
-- (meson runs it on the default engine, rma, as lua-pscw, and with
-- RMALAB_PSCW=native as lua-pscw-native).
-- It uses no fence or lock except to check that they are refused inside a
-- PSCW epoch, with the same message on both engines; fence and lock epochs
-- next to PSCW ones are sync.lua's.
local rl = require "rmalab"
local T = require "rmalab.test"
local checkerr = T.checkerr
local S = dofile(debug.getinfo(1, "S").source:match("^@(.-)[^/]*$") .. "../lib/scenario.lua")
local has, poll = S.has, S.poll
local rank, other = S.pair()
local ENGINE = os.getenv("RMALAB_PSCW") == "native" and "native" or "rma"
local RMA = ENGINE == "rma"

local function window()
  return (rl.win_allocate(16, { disp_unit = 8, name = "pscw" }))
end

-- The part of win:epochs().text that both engines show: the rma engine adds
-- what has arrived (": post() arrived from 1 of 1", ": waits for complete()
-- from {0}: 0 of 1 arrived"), native has nothing to add.
local function common(text)
  text = text:gsub(": post%(%) arrived from %d+ of %d+, missing {[%d, ]*}", "")
  text = text:gsub(": post%(%) arrived from %d+ of %d+", "")
  text = text:gsub(": waits for complete%(%) from {[%d, ]*}: %d+ of %d+ arrived", "")
  return text
end

-- The text of win:epochs() is `want` on native; on the rma engine it is one
-- of the texts in `rma` (an array: what has arrived may depend on timing).
local function text_is(e, want, rma, what)
  T.eq(common(e.text), want, what .. " (common part)")
  if not RMA then
    T.eq(e.text, want, what)
    return
  end
  for _, t in ipairs(rma) do if e.text == t then return end end
  T.eq(e.text, rma[1], what .. " (one of " .. #rma .. " texts)")
end

-- One symmetric epoch: put `v` into the other rank's slot 0; returns what
-- arrived here.
local function exchange(w, v, post_assert, start_assert)
  w:post({ other }, post_assert)
  w:start({ other }, start_assert)
  w:put(other, 0, "int64", v)
  w:complete()
  w:wait()
  return w:read(0, "int64")
end

T.case("post, start, complete, wait", function()
  local w <close> = window()
  for i = 1, 3 do
    T.eq(exchange(w, 100 * i + rank), 100 * i + other, "epoch " .. i)
  end
  -- one-sided roles: rank 0 only accesses, rank 1 only exposes
  if rank == 0 then
    w:start({ 1 })
    w:put(1, 1, "int64", 77)
    local r = w:get(1, 0, "int64")
    w:complete()
    T.eq(r:value(), 300, "get in the same epoch")
  else
    w:post({ 0 })
    w:wait()
    T.eq(w:read(1, "int64"), 77, "rank 0's put arrived")
  end
  T.eq(w:epochs().epochs, rank == 0 and 4 or 3, "access epochs closed")
  w:free()
end)

T.case("test polls until the exposure epoch is over", function()
  local w <close> = window()
  w:post({ other })
  w:start({ other })
  w:put(other, 0, "int64", 40 + rank)
  w:complete()
  local n = poll(w)
  T.ok(n, "test returned true within 20 s")
  T.eq(w:read(0, "int64"), 40 + other, "data arrived when test said so")
  T.eq(w:epochs().exposure, "none", "test closed the exposure epoch")
  -- the epoch after a test-ended one is normal
  T.eq(exchange(w, 50 + rank), 50 + other, "next epoch")
  w:free()
end)

T.case("test is false until the origin completes", function()
  local w <close> = window()
  if rank == 0 then
    w:post({ 1 })
    -- rank 1 cannot have started: it waits in the barrier below
    T.eq(w:test(), false, "test before the origin started")
    T.eq(w:epochs().exposure, "post", "a false test leaves the epoch open")
    T.eq(w:epochs().exposure_group, { 1 }, "and its group")
    T.eq(w:epochs().arrived, RMA and { [1] = false } or nil, "arrived (rma engine only)")
    text_is(w:epochs(), "no access epoch; exposure epoch to {1}",
      { "no access epoch; exposure epoch to {1}: waits for complete() from {1}: 0 of 1 arrived" },
      "text while rank 1 has not completed")
    rl.world:barrier()
    T.ok(poll(w), "true once rank 1 completed")
    T.eq(w:read(0, "int64"), 71, "rank 1's put")
  else
    rl.world:barrier()
    w:start({ 0 })
    w:put(0, 0, "int64", 71)
    w:complete()
  end
  w:free()
end)

T.case("empty groups", function()
  local w <close> = window()
  w:post({})
  w:start({})
  T.eq(w:epochs().access_group, {}, "empty access group")
  T.eq(w:epochs().exposure_group, {}, "empty exposure group")
  checkerr("ERR_RMA_SYNC", "start() was given {}", w.put, w, other, 0, "int64", 1)
  checkerr("ERR_RMA_SYNC", "start() was given {}", w.put, w, rank, 0, "int64", 1)
  w:complete()
  T.ok(poll(w), "test on an empty exposure epoch turns true")
  w:post({}); w:wait()
  T.eq(exchange(w, 60 + rank), 60 + other, "an epoch after the empty ones")
  w:free()
end)

T.case("assertions", function()
  local w <close> = window()
  T.eq(exchange(w, 2 + rank, "nostore", nil), 2 + other, "post nostore")
  T.eq(exchange(w, 4 + rank, {}, nil), 4 + other, "empty array")
  -- nocheck must be given to post and start alike, and promises that each
  -- post comes before its start: a barrier orders them
  w:post({ other }, { "nostore", "nocheck" })
  rl.world:barrier()
  w:start({ other }, "nocheck")
  w:put(other, 0, "int64", 3 + rank)
  w:complete(); w:wait()
  T.eq(w:read(0, "int64"), 3 + other, "post and start nocheck")
  -- noput: the window is not updated by puts; only read it
  w:write(0, "int64", 90 + rank)
  w:post({ other }, "noput")
  w:start({ other })
  local r = w:get(other, 0, "int64")
  w:complete(); w:wait()
  T.eq(r:value(), 90 + other, "get under noput")
  -- what does not apply, or does not exist
  checkerr("ERR_ARG", "start: the assertion \"nostore\" does not apply to start; it takes "
    .. "nocheck", w.start, w, { other }, "nostore")
  checkerr("ERR_ARG", "the assertion \"noput\" does not apply to start", w.start, w, { other },
    { "nocheck", "noput" })
  checkerr("ERR_ARG", "post: the assertion \"noprecede\" does not apply to post; it takes "
    .. "nocheck, nostore, noput", w.post, w, { other }, "noprecede")
  checkerr("ERR_ARG", "the assertion \"nosucceed\" does not apply to post", w.post, w,
    { other }, "nosucceed")
  checkerr("ERR_ARG", "unknown assertion \"fast\"; use nocheck, nostore, noput, noprecede or "
    .. "nosucceed", w.post, w, { other }, "fast")
  checkerr("ERR_ARG", "unknown assertion \"NOCHECK\"", w.start, w, { other }, { "NOCHECK" })
  checkerr("ERR_ARG", "assertions are strings", w.start, w, { other }, { true })
  checkerr("ERR_ARG", "unknown assertion \"1\"", w.start, w, { other }, { 1 })
  checkerr("ERR_ARG", "assertion name or array of names expected", w.post, w, { other }, 1)
  T.eq(w:epochs().access, "none", "no epoch opened by the refused calls")
  T.eq(w:epochs().exposure, "none", "no exposure opened by the refused calls")
  T.eq(exchange(w, 8 + rank), 8 + other, "an epoch after the refused assertions")
  w:free()
end)

T.case("completing what was never opened", function()
  local w <close> = window()
  checkerr("ERR_RMA_SYNC", "complete: it ends an access epoch opened by start(group), and "
    .. "none is open", w.complete, w)
  checkerr("ERR_RMA_SYNC", "wait: it ends an exposure epoch opened by post(group), and "
    .. "none is open", w.wait, w)
  checkerr("ERR_RMA_SYNC", "test: it ends an exposure epoch opened by post(group)", w.test,
    w)
  T.eq(exchange(w, 10 + rank), 10 + other, "an epoch after the misuse")
  -- after test returned true
  w:post({ other }); w:start({ other })
  w:put(other, 0, "int64", 11 + rank)
  w:complete()
  T.ok(poll(w), "test turned true")
  checkerr("ERR_RMA_SYNC", "test: test() already returned true, which ended the exposure "
    .. "epoch; post again to open a new one", w.test, w)
  checkerr("ERR_RMA_SYNC", "wait: test() already returned true", w.wait, w)
  T.eq(w:read(0, "int64"), 11 + other, "the data of that epoch")
  T.eq(exchange(w, 12 + rank), 12 + other, "post again works")
  checkerr("ERR_RMA_SYNC", "wait: it ends an exposure epoch opened by post(group), and "
    .. "none is open", w.wait, w) -- closed by wait: the plain message again
  -- ending the access epoch does not end the exposure epoch, and vice versa
  w:post({ other }); w:start({ other })
  w:put(other, 0, "int64", 13 + rank)
  w:complete()
  checkerr("ERR_RMA_SYNC", "complete: it ends an access epoch opened by start(group), and "
    .. "none is open", w.complete, w)
  w:wait()
  checkerr("ERR_RMA_SYNC", "wait: it ends an exposure epoch opened by post(group), and "
    .. "none is open", w.wait, w)
  T.eq(w:read(0, "int64"), 13 + other, "the epoch around the misuse")
  w:free()
end)

T.case("opening an epoch twice, locks and fences inside PSCW", function()
  local w <close> = window()
  w:post({ other })
  checkerr("ERR_RMA_SYNC", "post: an exposure epoch (posted to {" .. other .. "}) is already "
    .. "open; end it with wait() or test() before posting again", w.post, w, { other })
  checkerr("ERR_RMA_SYNC", "lock: a PSCW epoch is open (exposure, from post()); locks may "
    .. "not be taken inside it, so end it with wait() first", w.lock, w, other)
  checkerr("ERR_RMA_SYNC", "lock_all: a PSCW epoch is open (exposure, from post())",
    w.lock_all, w)
  checkerr("ERR_RMA_SYNC", "fence: a PSCW epoch is open (exposure, from post()); fences may "
    .. "not be called inside it, so end it with wait() first", w.fence, w)
  w:start({ other })
  checkerr("ERR_RMA_SYNC", "start: an access epoch (started to {" .. other .. "}) is already "
    .. "open; end it with complete() before starting another", w.start, w, { other })
  checkerr("ERR_RMA_SYNC", "lock: a PSCW epoch is open (access, from start())", w.lock, w,
    other)
  checkerr("ERR_RMA_SYNC", "fence: a PSCW epoch is open (access, from start()); fences may "
    .. "not be called inside it, so end it with complete() first", w.fence, w)
  checkerr("ERR_RMA_SYNC", "end it with complete() first", w.fence, w, "nosucceed")
  checkerr("ERR_RMA_SYNC", "lock_all: a PSCW epoch is open (access, from start())",
    w.lock_all, w)
  w:put(other, 0, "int64", 20 + rank)
  w:complete()
  -- the exposure epoch alone still refuses them, and names wait
  checkerr("ERR_RMA_SYNC", "lock: a PSCW epoch is open (exposure, from post()); locks may "
    .. "not be taken inside it, so end it with wait() first", w.lock, w, other, "shared")
  checkerr("ERR_RMA_SYNC", "fence: a PSCW epoch is open (exposure, from post()); fences may "
    .. "not be called inside it, so end it with wait() first", w.fence, w, "noprecede")
  w:wait()
  T.eq(w:read(0, "int64"), 20 + other, "the epoch went on after the misuse")
  T.eq(w:epochs().access, "none", "no epoch opened by the refused calls")
  T.eq(exchange(w, 21 + rank), 21 + other, "an epoch after the refusals")
  w:free()
end)

T.case("RMA calls to a rank outside the start group", function()
  local w <close> = window()
  w:post({ rank })
  w:start({ rank }) -- an epoch to oneself
  for _, call in ipairs{
    { "put", function() w:put(other, 0, "int64", 1) end },
    { "get", function() return w:get(other, 0, "int64") end },
    { "accumulate", function() w:accumulate(other, 0, "int64", 1, "sum") end },
    { "fetch_and_op", function() return w:fetch_and_op(other, 0, "int64", 1, "sum") end },
  } do
    checkerr("ERR_RMA_SYNC", "win:" .. call[1] .. " to rank " .. other .. ": RMA calls in an "
      .. "access epoch may only target processes in its group; start() was given {" .. rank
      .. "} [window \"pscw\"]", call[2])
  end
  w:put(rank, 0, "int64", 30 + rank)
  T.eq(w:epochs().ops, 1, "refused calls are not counted")
  w:complete(); w:wait()
  T.eq(w:read(0, "int64"), 30 + rank, "put to oneself")
  T.eq(exchange(w, 31 + rank), 31 + other, "an epoch to the other rank")
  w:free()
end)

T.case("freeing inside an epoch", function()
  local w <close> = window()
  w:post({ other })
  w:start({ other })
  local err = checkerr("ERR_RMA_SYNC", "free: a window may only be freed outside of any epoch, "
    .. "and this one has access epoch to {" .. other .. "}; exposure epoch to {" .. other
    .. "}; close it first (complete())", w.free, w)
  has(err, "[window \"pscw\"]")
  w:put(other, 0, "int64", 40 + rank)
  w:complete()
  checkerr("ERR_RMA_SYNC", "close it first (wait())", w.free, w)
  w:wait()
  T.eq(w:read(0, "int64"), 40 + other, "the window still worked")
  w:free()
  T.eq(tostring(w), "rmalab.win (freed)", "and was freed afterwards")
end)

T.case("bad groups", function()
  local w <close> = window()
  checkerr("ERR_RANK", "post: rank 2 is not in the window's group (ranks 0 to 1)", w.post, w,
    { 2 })
  checkerr("ERR_RANK", "start: rank -1 is not in the window's group (ranks 0 to 1)", w.start,
    w, { other, -1 })
  checkerr("ERR_GROUP", "start: rank " .. other .. " appears twice in the group; list each "
    .. "rank once", w.start, w, { other, other })
  -- duplicates are named even in groups longer than the window
  checkerr("ERR_GROUP", "post: rank 0 appears twice in the group; list each rank once", w.post,
    w, { 0, 1, 0 })
  checkerr("ERR_GROUP", "start: rank 1 appears twice", w.start, w, { 1, 1, 1, 1 })
  local long = {}
  for i = 1, 40 do long[i] = (i + rank) % 2 end -- longer than the 16 kept on the C stack
  checkerr("ERR_GROUP", "post: rank " .. other .. " appears twice", w.post, w, long)
  long[3] = 5
  checkerr("ERR_RANK", "start: rank 5 is not in the window's group (ranks 0 to 1)", w.start, w,
    long)
  checkerr("ERR_RANK", "post: rank 2 is not in the window's group", w.post, w, { 0, 1, 2 })
  -- ranks beyond the C int range
  checkerr("ERR_RANK", "group element 1: rank 4294967296 is not in the window's group",
    w.post, w, { 1 << 32 })
  checkerr("ERR_GROUP", "group element 1 is string; groups hold integer ranks", w.post, w,
    { "1" })
  checkerr("ERR_GROUP", "group element 2 is number; groups hold integer ranks", w.start, w,
    { 0, 1.5 })
  checkerr("ERR_GROUP", "group element 1 is boolean", w.start, w, { true })
  checkerr("ERR_GROUP", "group (an array of ranks, e.g. {1, 2}) expected", w.post, w, 1)
  checkerr("ERR_GROUP", "group (an array of ranks, e.g. {1, 2}) expected", w.start, w)
  local e = w:epochs()
  T.eq(e.access, "none", "nothing opened"); T.eq(e.exposure, "none", "nothing posted")
  T.eq(exchange(w, 50 + rank), 50 + other, "an epoch after the bad groups")
  w:free()
end)

T.case("win:epochs() in every state", function()
  local w <close> = window()
  local e = w:epochs()
  T.eq(e.access, "none", "access"); T.eq(e.exposure, "none", "exposure")
  T.eq(e.access_group, nil, "no access group"); T.eq(e.exposure_group, nil, "no exposure group")
  T.eq(e.ops, 0, "ops"); T.eq(e.epochs, 0, "epochs"); T.eq(e.engine, ENGINE, "engine")
  T.eq(w:get_info():get("rmalab_pscw"), ENGINE, "engine reported by get_info")
  T.eq(e.blocked_in, nil, "not blocked"); T.eq(e.locks, nil, "no locks")
  T.eq(e.posted, nil, "nothing posted"); T.eq(e.arrived, nil, "nothing arrived")
  T.eq(e.text, "no access epoch", "text")

  w:post({ other })
  e = w:epochs()
  T.eq(e.exposure, "post", "exposure after post")
  T.eq(e.exposure_group, { other }, "exposure group")
  T.eq(e.access, "none", "no access epoch yet")
  -- nobody starts before the barrier, so nothing can have arrived yet
  T.eq(e.arrived, RMA and { [other] = false } or nil, "arrived before anyone started")
  local o = "{" .. other .. "}"
  text_is(e, "no access epoch; exposure epoch to " .. o,
    { "no access epoch; exposure epoch to " .. o .. ": waits for complete() from " .. o
      .. ": 0 of 1 arrived" }, "text after post")
  rl.world:barrier()

  w:start({ other })
  w:put(other, 0, "int64", 1)
  local r = w:get(other, 1, "int64")
  e = w:epochs()
  T.eq(e.access, "start", "access after start")
  T.eq(e.access_group, { other }, "access group")
  T.eq(e.ops, 2, "two RMA calls")
  T.eq(e.epochs, 0, "none closed yet")
  -- the put could not touch the other rank's memory before its post
  T.eq(e.posted, RMA and { [other] = true } or nil, "posted, seen by the put")
  local both = "access epoch to " .. o .. "; exposure epoch to " .. o
  local head = "access epoch to " .. o .. ": post() arrived from 1 of 1; exposure epoch to " .. o
    .. ": waits for complete() from "
  text_is(e, both, { head .. o .. ": 0 of 1 arrived", head .. o .. ": 1 of 1 arrived" },
    "text in both epochs")
  T.ok(common(tostring(w)):find("; " .. both .. ")", 1, true), "tostring shows the state")

  w:complete()
  e = w:epochs()
  T.eq(e.access, "none", "access after complete"); T.eq(e.ops, 0, "ops reset")
  T.eq(e.epochs, 1, "one epoch closed"); T.eq(e.access_group, nil, "group gone")
  T.eq(e.posted, nil, "no posted table without an access epoch")
  T.eq(e.exposure, "post", "still exposed")
  T.eq(r:ready(), true, "the get completed with the epoch")
  w:wait()
  e = w:epochs()
  T.eq(e.exposure, "none", "exposure after wait"); T.eq(e.text, "no access epoch", "text")
  T.eq(e.arrived, nil, "no arrived table without an exposure epoch")
  T.eq(r:value(), 0, "the get read the slot nobody wrote")

  -- a group of both ranks, in the order given
  w:post({ 1, 0 })
  rl.world:barrier()
  w:start({ 1, 0 })
  w:put(1, rank, "int64", 10 + rank) -- both ranks put into rank 1, a slot each,
  w:accumulate(0, 1, "int64", 1, "sum") -- and add into rank 0's slot 1
  e = w:epochs()
  T.eq(e.access_group, { 1, 0 }, "access group as given")
  T.eq(e.exposure_group, { 1, 0 }, "exposure group as given")
  T.eq(e.posted, RMA and { [0] = true, [1] = true } or nil, "both posts seen")
  local h2 = "access epoch to {1, 0}: post() arrived from 2 of 2; exposure epoch to {1, 0}: "
    .. "waits for complete() from "
  -- this rank has not completed; the other may have
  text_is(e, "access epoch to {1, 0}; exposure epoch to {1, 0}",
    { h2 .. "{1, 0}: 0 of 2 arrived", h2 .. "{" .. rank .. "}: 1 of 2 arrived" },
    "text of two ranks")
  w:complete(); w:wait()
  T.eq(w:epochs().epochs, 2, "two epochs closed")
  if rank == 0 then T.eq(w:read(0, "int64", 2), { 1, 2 }, "two accumulates into rank 0")
  else T.eq(w:read(0, "int64", 2), { 10, 11 }, "a put from each rank into rank 1") end
  w:free()
end)

T.done()
