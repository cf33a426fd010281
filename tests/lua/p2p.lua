-- ranks: 2
-- Communicators' messages: send and recv of every kind of value, any source
-- and tag, probe and iprobe, sendrecv, isend and irecv requests; the
-- errors, with the communicator usable after each; the race checker's
-- order from a send to its receive; requests pending when their
-- communicator is freed, which complete as MPI's do.
local rl = require "rmalab"
local T = require "rmalab.test"
local c = rl.world
local me = c:rank()
local peer = 1 - me

-- T.checkerr's equal. Kept here: with T.checkerr, lua-p2p-standalone under
-- ./do asan ends in a crash of gcc 12's LeakSanitizer at exit (its tracer
-- reads garbage as the main thread's dynamic TLS), every run, all checks
-- passed; the change moves the Lua collector's timing, nothing else.
local function checkerr(class, text, fn, ...)
  local args = table.pack(...)
  return T.raises(class, function() return fn(table.unpack(args, 1, args.n)) end, text)
end

local value = { 1, 2.0, "x\0y", { deep = { true, false } }, [1.5] = "k", n = math.mininteger }

-- First, while the receive's scratch space has never grown: a message of
-- 0 bytes was refused there as "out of memory", and lost.
T.case("an empty buffer arrives, by recv and by sendrecv", function()
  c:send(rl.buffer("int32", 0), peer, 11)
  local b, st = c:recv(peer, 11)
  T.eq({ #b, b.type, st.count, st.type }, { 0, "int32", 0, "int32" })
  local b2, st2 = c:sendrecv(rl.buffer("double", 0), peer, peer, 12)
  T.eq({ #b2, b2.type, st2.tag }, { 0, "double", 12 })
  T.eq(c:iprobe(peer, 11), false, "nothing left behind")
end)

T.case("send and recv: values kept with their subtype", function()
  if me == 0 then
    c:send(value, 1, 5)
    c:send(42, 1)
    c:send(string.rep("s", 100000), 1, 2) -- past the stack copy
  else
    local v, st = c:recv(0, 5)
    T.eq(v, value)
    T.eq(math.type(v[2]), "float")
    T.eq({ st.source, st.tag }, { 0, 5 }, "status")
    local x, st2 = c:recv(0)
    T.eq({ x, math.type(x), st2.tag }, { 42, "integer", 0 }, "tag 0 by default")
    T.eq(#c:recv(), 100000, "any source, any tag")
  end
end)

T.case("statuses: read-only, listed, shown, shared per source and tag", function()
  if me == 0 then
    for i = 1, 3 do c:send(i, 1, 6) end
    for _ = 1, 3 do c:send(rl.buffer("int32", 2), 1, 6) end
    c:send(rl.buffer("int32", 1), 1, 6)
    c:send(rl.buffer("double", 1), 1, 6)
    c:send(7, 1, 6)
    c:send(8, 1, 9)
  else
    local _, s1 = c:recv(0, 6)
    local _, s2 = c:recv(0, 6)
    T.eq(s1 == s2, true, "one status per source and tag")
    T.eq(tostring(s1), "{source = 0, tag = 6}")
    local keys = {}
    for k, v in pairs(s1) do keys[#keys + 1] = k .. "=" .. v end
    table.sort(keys)
    T.eq(keys, { "source=0", "tag=6" }, "pairs lists the fields")
    checkerr("ERR_ARG", "read-only", function() s1.source = 1 end)
    checkerr("ERR_ARG", "read-only", function() s1.note = "mine" end)
    T.eq({ s1.source, s1.note }, { 0, nil }, "a refused write changes nothing")
    T.eq(getmetatable(s1), "a message's status (read-only)", "a protected metatable")
    T.eq((pcall(setmetatable, s1, nil)), false, "that cannot be taken off")
    local mt = debug.getmetatable(s1) -- its metamethods check what they are given
    checkerr("ERR_ARG", "a message's status expected", mt.__tostring, {})
    checkerr("ERR_ARG", "a message's status expected", mt.__tostring, io.stdout)
    T.eq((pcall(mt.__tostring, 5)), false, "a number is refused, not read")
    T.eq((pcall(mt.__pairs(s1), 5)), false, "next of a number is refused")
    T.eq(type(s2), "userdata", "not a table: rawset cannot write into the shared status")
    T.eq((pcall(rawset, s2, "source", 42)), false, "rawset is refused")
    local _, s3 = c:recv(0, 6)
    T.eq({ s3.source, s3.tag, s3 == s2 }, { 0, 6, true }, "the shared status is intact")
    local st = c:probe(0, 6)
    T.eq(tostring(st), '{source = 0, tag = 6, count = 2, type = "int32", bytes = 8}')
    local b, s4 = c:recv(0, 6)
    T.eq({ #b, s4.count, s4.type, type(s4) }, { 2, 2, "int32", "userdata" })
    checkerr("ERR_ARG", "read-only", function() s4.count = 0 end)
    -- a buffer's status is shared too, per source, tag, type and count
    local _, s5 = c:recv(0, 6, rl.buffer("int32", 2))
    local _, s6 = c:recv(0, 6, rl.buffer("int32", 2))
    T.eq({ s5 == s4, s6 == s4 }, { true, true }, "one status per source, tag, type and count")
    local _, s7 = c:recv(0, 6, rl.buffer("int32", 3))
    T.eq({ s7.count, s7.type, s7 == s4 }, { 1, "int32", false }, "another count, another status")
    local _, s8 = c:recv(0, 6, rl.buffer("double", 1))
    T.eq({ s8.count, s8.type, s8 == s7 }, { 1, "double", false }, "another type, another status")
    local _, s9 = c:recv(0, 6)
    T.eq({ s9.count, s9.type, s9.tag }, { nil, nil, 6 }, "a value's status has no count")
    -- recv gives its last status again (a memo) only for the same source and tag
    local _, s10 = c:recv(0)
    T.eq({ s10.tag, s10.source, s10 == s9 }, { 9, 0, false }, "another tag, another status")
  end
end)

T.case("statuses: each communicator's receives keep their own memo", function()
  local d <close> = c:dup()
  if me == 0 then
    c:send(1, 1, 3); d:send(2, 1, 3)
    c:send(rl.buffer("int32", 1), 1, 3); d:send(rl.buffer("int32", 2), 1, 3)
    c:send(3, 1, 3); d:send(4, 1, 3)
    c:send(5, 1, 3)
  else
    local x1, s1 = c:recv(0, 3)
    local x2, s2 = d:recv(0, 3)
    local _, s3 = c:recv(0, 3, rl.buffer("int32", 2))
    local _, s4 = d:recv(0, 3, rl.buffer("int32", 2))
    local x5, s5 = c:recv(0, 3)
    local x6, s6 = d:recv(0, 3)
    T.eq({ x1, x2, s3.count, s4.count, x5, x6 }, { 1, 2, 1, 2, 3, 4 })
    T.eq({ s1 == s2, s5 == s6, s3 == s4 }, { true, true, false },
         "shared by source, tag, type and count, whichever communicator")
    T.eq({ s3.tag, s3.type, s5.count, s6.tag }, { 3, "int32", nil, 3 },
         "a value's after a buffer's")
    -- what the debug library leaves in the memo's place is not given as a status
    debug.setuservalue(c, "not a status", 1)
    local x7, s7 = c:recv(0, 3)
    T.eq({ x7, s7 == s5 }, { 5, true })
  end
end)

T.case("recv by tag takes the message with that tag first", function()
  if me == 0 then
    c:send("first", 1, 1)
    c:send("second", 1, 2)
  else
    T.eq(c:recv(0, 2), "second")
    T.eq(c:recv(nil, 1), "first")
  end
  -- Both ranks send, then receive: short messages do not block.
  c:send(me, peer, 9)
  local v, st = c:recv(nil, 9)
  T.eq({ v, st.source }, { peer, peer })
end)

T.case("probe and iprobe", function()
  if me == 0 then
    c:send({ 1, 2, 3 }, 1, 4)
    c:recv(1, 99) -- the receiver has probed
  else
    local st = c:probe(0)
    T.eq({ st.source, st.tag }, { 0, 4 })
    T.ok(st.bytes > 0, "bytes")
    local ok, st2 = c:iprobe(nil, 4)
    T.eq({ ok, st2.tag }, { true, 4 })
    T.eq(c:iprobe(0, 5), false, "no message with tag 5")
    T.eq(c:recv(0, 4), { 1, 2, 3 }, "probing received nothing")
    c:send("done", 0, 99)
  end
end)

T.case("sendrecv: a ring step without deadlock", function()
  local v, st = c:sendrecv({ from = me }, peer, peer, 3)
  T.eq({ v.from, st.source, st.tag }, { peer, peer, 3 })
  local big = string.rep("b", 200000) -- rendezvous-sized both ways
  T.eq(#c:sendrecv(big, peer, peer), 200000)
end)

T.case("sendrecv: buffers in place, received new or into a buffer", function()
  local b = rl.buffer("double", { me + 0.5, me + 1.5 })
  local v, st = c:sendrecv(b, peer, peer, 4)
  T.eq({ v[1], v[2], #v, st.source, st.tag, st.type, st.count },
       { peer + 0.5, peer + 1.5, 2, peer, 4, "double", 2 })
  local into = rl.buffer("double", 2)
  T.eq(c:sendrecv(b, peer, peer, 5, into) == into, true, "returns the buffer given")
  T.eq({ into[1], into[2] }, { peer + 0.5, peer + 1.5 })
  checkerr("ERR_TYPE", "comm:sendrecv's recv: the message from rank " .. peer, c.sendrecv, c,
           { me }, peer, peer, 6, into)
  T.eq(c:recv(peer, 6), { peer }, "a value that is not a buffer's stays receivable")
  checkerr("ERR_ARG", "shares memory with the buffer sent", c.sendrecv, c, b, peer, peer, 7,
           b:sub(2, 2))
  checkerr("ERR_TRUNCATE", "comm:sendrecv's recv: ", c.sendrecv, c, b, peer, peer, 8,
           rl.buffer("double", 1))
  T.eq(c:recv(peer, 8)[2], peer + 1.5, "the message that did not fit is still there")
end)

T.case("isend and irecv: requests", function()
  local rq = c:irecv(peer, 7)
  T.eq(tostring(rq), "rmalab.request (irecv, pending)")
  local sq = c:isend({ me, "payload" }, peer, 7)
  local v, st = rq:wait()
  T.eq({ v[1], v[2], st.source, st.tag }, { peer, "payload", peer, 7 })
  T.eq(sq:wait(), true, "a send's wait gives true")
  checkerr("ERR_ARG", "rq:wait: this request has completed already", rq.wait, rq)
  -- test until done
  local tq = c:irecv()
  c:isend("t", peer, 8):wait()
  local done, tv, tst
  repeat done, tv, tst = tq:test() until done
  T.eq({ tv, tst.tag }, { "t", 8 })
  checkerr("ERR_ARG", "rq:test: this request has completed already", tq.test, tq)
  local never = c:irecv(peer, 12345)
  T.eq(never:test(), false, "nothing came")
  c:barrier() -- the peer has tested too before its message goes
  c:send("late", peer, 12345)
  T.eq(never:wait(), "late")
end)

-- A short message, and one past the eager part (its rest goes on the
-- communicator's shadow), of `n` doubles from rank `from`.
local function payload(long, from)
  if not long then return "short from " .. from end
  local b = rl.buffer("double", 3000)
  for i = 1, 3000 do b[i] = i + from end
  return b
end

local function check_payload(v, long, from, what)
  if long then
    T.eq({ #v, v[1], v[3000] }, { 3000, 1 + from, 3000 + from }, what)
  else
    T.eq(v, "short from " .. from, what)
  end
end

-- rq polled until done, for 10 s at most: a request that never completes
-- fails the case instead of hanging the run. Its value.
local function settle(rq, what)
  local t0 = rl.wtime()
  while true do
    local done, v = rq:test()
    if done then return v end
    if rl.wtime() - t0 > 10 then error(what .. ": not done after 10 s", 0) end
    rl.sleep(0.001)
  end
end

T.case("requests pending when their communicator is freed complete (MPI_Comm_free)", function()
  for _, long in ipairs({ false, true }) do
    local kind = long and "long" or "short"
    -- both ranks: an irecv and an isend pending at the free
    local s = c:split(0)
    local rq = s:irecv(peer, 3)
    local sq = s:isend(payload(long, me), peer, 3)
    s:free()
    checkerr("ERR_COMM", "freed", s.rank, s)
    checkerr("ERR_COMM", "freed", s.irecv, s, peer, 3)
    check_payload(settle(rq, kind .. " irecv"), long, peer, kind .. ": irecv after the free")
    T.eq(settle(sq, kind .. " isend"), true, kind .. ": isend after the free")
    -- one request pending at the free, on one rank: the other's blocking
    -- call takes or gives its message, then it frees
    for _, kind2 in ipairs({ "isend", "irecv" }) do
      local what = kind .. " " .. kind2 .. " alone"
      for pending = 0, 1 do
        s = c:split(0)
        if me == pending then
          local q = kind2 == "isend" and s:isend(payload(long, me), peer, 4) or s:irecv(peer, 4)
          s:free()
          local v = settle(q, what)
          if kind2 == "isend" then T.eq(v, true, what) else check_payload(v, long, peer, what) end
        else
          if kind2 == "isend" then check_payload(s:recv(peer, 4), long, peer, what)
          else s:send(payload(long, me), peer, 4) end
          s:free()
        end
      end
    end
  end
  c:barrier()
end)

T.case("errors: ERR_RANK, ERR_ARG, and the communicator goes on", function()
  checkerr("ERR_RANK", "comm:send: destination 2 is not a rank of this communicator (0 to 1)",
    c.send, c, 1, 2)
  checkerr("ERR_RANK", "comm:send: destination -1 is not a rank of this communicator (0 to 1)",
    c.send, c, 1, -1)
  checkerr("ERR_RANK", "comm:recv: source -1 is not a rank of this communicator (0 to 1)",
    c.recv, c, -1)
  checkerr("ERR_RANK", "comm:sendrecv: source -2 is not a rank", c.sendrecv, c, 1, peer, -2)
  checkerr("ERR_RANK", "destination (an integer) expected", c.send, c, 1, "one")
  checkerr("ERR_RANK", "comm:recv: source 5 is not a rank", c.recv, c, 5)
  checkerr("ERR_ARG", "comm:send: tag -3 is outside 0 to ", c.send, c, 1, peer, -3)
  checkerr("ERR_ARG", "comm:irecv: tag 1099511627776 is outside 0 to ", c.irecv, c, peer, 1 << 40)
  checkerr("ERR_ARG", "comm:send: tag 2147483647 is outside 0 to", c.send, c, 1, peer, (1 << 31) - 1)
  checkerr("ERR_ARG", "tag (an integer) expected", c.recv, c, nil, 1.5)
  checkerr("ERR_ARG", "comm:send: value.f: a function cannot be sent", c.send, c, { f = print }, peer)
  checkerr("ERR_ARG", "comm:isend: value: a userdata cannot be sent", c.isend, c, io.stdout, peer)
  checkerr("ERR_RANK", "comm:irecv: source 9", c.irecv, c, 9)
  checkerr("ERR_ARG", "receiving into a buffer", c.recv, c, peer, 0, {})
  checkerr("ERR_RANK", "comm:probe: source 2", c.probe, c, 2)
  checkerr("ERR_RANK", "comm:iprobe: source 2", c.iprobe, c, 2)
  local last = rl.debug and rl.debug.last_failure and rl.debug.last_failure()
  if last then T.eq(last.call, "iprobe", "the last failure names the call") end
  c:send("still here", peer, 1)
  T.eq(c:recv(peer, 1), "still here")
end)

T.case("a message orders its send before its receive (race checker)", function()
  local function races(ordered)
    rl.races.clear()
    local win = rl.win_allocate(64, { disp_unit = 4, info = { rmalab_check = "races:quiet" } })
    if me == 0 then
      win:lock(1, "shared"); win:put(1, 0, "int32", 1); win:unlock(1)
      c:send("go", 1, ordered and 1 or 2)
    elseif ordered then
      c:recv(0, 1)
      win:read(0, "int32")
    else
      win:read(0, "int32") -- before the message: unordered
      c:recv(0, 2)
    end
    c:barrier()
    win:free()
    return rl.races.total()
  end
  T.eq(races(false), 1, "read before the receive: a race")
  T.eq(races(true), 0, "read after the receive: ordered")
  -- isend / irecv carry it too
  rl.races.clear()
  local win = rl.win_allocate(64, { disp_unit = 4, info = { rmalab_check = "races:quiet" } })
  if me == 0 then
    win:lock(1, "shared"); win:put(1, 0, "int32", 1); win:unlock(1)
    c:isend("go", 1):wait()
  else
    c:irecv(0):wait()
    win:read(0, "int32")
  end
  c:barrier()
  win:free()
  T.eq(rl.races.total(), 0, "isend to irecv")
end)
