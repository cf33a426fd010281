-- ranks: 2
-- engines: native rma
-- Requests of every kind (issue 27), on 2 ranks: rput, rget, raccumulate
-- and rget_accumulate inside passive-target epochs and refused elsewhere;
-- local completion by rq:wait, rq:test and flush_local, and the buffers in
-- flight until then; rl.waitall and rl.waitany over RMA and message
-- requests; irecv matching in the order receives were posted; typed
-- buffers sent, received into, refused (ERR_TRUNCATE, ERR_TYPE) and left
-- receivable; bcast and the reductions of a buffer in place; win:sync;
-- and the race checker, for which a request's wait is local completion
-- only. Checks are soft (rmalab.test), so every rank makes the same
-- collective calls.
local rl = require "rmalab"
local T = require "rmalab.test"
local checkerr = T.checkerr

assert(T.size == 2, "requests.lua runs on 2 ranks")
local c = rl.world
local me = T.rank
local peer = 1 - me
local function get(b, i) return b[i] end
local function set(b, i, v) b[i] = v end

local function window()
  return rl.win_allocate(128, { disp_unit = 8 })
end

T.case("rput, rget, raccumulate, rget_accumulate under lock and lock_all", function()
  local w = window()
  w:lock(peer, "exclusive")
  local rq = w:rput(peer, 0, "int64", { me + 10, me + 20, me + 30 })
  T.eq(tostring(rq), ("rmalab.request (rput to rank %d, pending)"):format(peer))
  T.eq(rq:wait(), true, "an rput's wait gives true")
  checkerr("ERR_ARG", "rq:wait: this request has completed already", rq.wait, rq)
  w:flush(peer)
  T.eq(w:rget(peer, 0, "int64", 3):wait(), { me + 10, me + 20, me + 30 }, "rget of a count: an array")
  T.eq(w:rget(peer, 1, "int64"):wait(), me + 20, "rget without a count: one value")
  local b = rl.buffer("int64", 2)
  T.eq(w:rget(peer, 0, "int64", b):wait() == b, true, "rget into a buffer gives it back")
  T.eq(b:totable(), { me + 10, me + 20 })
  T.eq(w:raccumulate(peer, 0, "int64", 5, "sum"):wait(), true)
  T.eq(w:rget_accumulate(peer, 0, "int64", 1, "sum"):wait(), me + 15, "one value")
  local res = rl.buffer("int64", 2)
  local ga = w:rget_accumulate(peer, 1, "int64", rl.buffer("int64", { 1, 1 }), "sum", res)
  T.eq(ga:wait() == res, true)
  T.eq(res:totable(), { me + 20, me + 30 })
  w:unlock(peer)
  c:barrier()
  T.eq(w:read(0, "int64", 3), { peer + 16, peer + 21, peer + 31 }, "what landed here")
  c:barrier()
  -- lock_all, a vector layout, test until done
  w:lock_all()
  local col = w:rput(peer, 4, rl.vector("int64", 2, 1, 3), { -1, -2 })
  local done
  repeat done = col:test() until done
  w:flush_all()
  T.eq(w:rget(peer, 4, "int64", 4):wait(), { -1, 0, 0, -2 }, "the vector's blocks")
  w:unlock_all()
  w:free()
end)

T.case("request-based RMA outside a passive-target epoch: ERR_RMA_SYNC", function()
  local w = window()
  checkerr("ERR_RMA_SYNC", ("win:rput to rank %d: request-based RMA (rput, rget, raccumulate, "
    .. "rget_accumulate) is allowed only inside a passive-target epoch, and no epoch is open; "
    .. "call lock(%d) or lock_all() first"):format(peer, peer), w.rput, w, peer, 0, "int64", 1)
  w:fence()
  checkerr("ERR_RMA_SYNC", "and this is a fence epoch; call lock", w.rget, w, peer, 0, "int64")
  checkerr("ERR_RMA_SYNC", "or use put, get and accumulate here", w.raccumulate, w, peer, 0,
    "int64", 1, "sum")
  w:fence()
  w:post({ peer }); w:start({ peer })
  checkerr("ERR_RMA_SYNC", "and this is an active-target start() epoch", w.rget_accumulate, w,
    peer, 0, "int64", 1, "sum")
  w:complete(); w:wait()
  w:lock(me)
  checkerr("ERR_RMA_SYNC", "in a passive-target epoch RMA calls may only target locked ranks",
    w.rput, w, peer, 0, "int64", 1)
  checkerr("ERR_RANK", "rank", w.rput, w, 7, 0, "int64", 1)
  checkerr("ERR_RMA_RANGE", "", w.rget, w, me, 100, "int64", 4)
  checkerr("ERR_TYPE", "the buffer (argument 4) holds double and the operation moves int64",
    w.rput, w, me, 0, "int64", rl.buffer("double", 1))
  checkerr("ERR_OP", "", w.raccumulate, w, me, 0, "int64", 1, "nonsense")
  T.eq(w:rput(me, 0, "int64", 7):wait(), true, "the window goes on")
  w:unlock(me)
  w:free()
end)

T.case("buffers in flight under a request, until its wait or a flush", function()
  local w = window()
  w:lock(peer, "shared")
  local b = rl.buffer("int64", { 1, 2 })
  local rq = w:rput(peer, 0, "int64", b)
  checkerr("ERR_RMA_SYNC", "buffer element 1 cannot be written: this buffer is the origin of a "
    .. ("rput to rank %d still in flight; it completes at the request's wait(), or unlock(%d) "
    .. "or flush(%d)"):format(peer, peer, peer), set, b, 1, 5)
  T.eq(b[1], 1, "an origin may be read")
  rq:wait()
  b[1] = 5 -- free again
  local r = rl.buffer("int64", 2)
  local g = w:rget(peer, 0, "int64", r)
  checkerr("ERR_RMA_SYNC", "cannot be read: this buffer is the result of a rget", get, r, 1)
  checkerr("ERR_RMA_SYNC", "b:fill", r.fill, r, 0)
  w:flush_local(peer) -- completes it locally too
  T.eq(r[1], 1, "readable after flush_local")
  T.eq(g:wait() == r, true, "its wait still gives the buffer")
  local g2 = w:rget(peer, 0, "int64", r)
  checkerr("ERR_RMA_SYNC", "the result of a rget", w.rget, w, peer, 0, "int64", r)
  w:unlock(peer)
  T.eq(get(r, 2), 2, "unlock completes it")
  g2:wait()
  w:free()
end)

T.case("rl.waitall and rl.waitany over RMA and message requests", function()
  local w = window()
  w:lock_all()
  local rr = c:irecv(peer, 3)
  local rs = c:isend({ from = me }, peer, 3)
  local rp = w:rget(peer, 0, "int64", 1)
  local all = rl.waitall { rr, rs, rp }
  T.eq(all[1], { from = peer }, "the receive's value")
  T.eq(all[2], true, "the send's true")
  T.eq(type(all[3]), "table", "the rget's values")
  checkerr("ERR_ARG", "rl.waitall (element 1): this request has completed already", rl.waitall, { rr })
  checkerr("ERR_ARG", "rl.waitany: element 1 is number, not a request", rl.waitany, { 5 })
  local a = c:irecv(peer, 4)
  local b = w:rput(me, 1, "int64", 42)
  local i, v = rl.waitany { a, b }
  T.ok(i == 1 or i == 2, "an index")
  c:send("four", peer, 4)
  local rest = i == 1 and b or a
  local j, v2, st = rl.waitany { rest }
  T.eq(j, 1)
  local got = i == 1 and v or v2
  T.eq(got, "four", "the message, whichever came first")
  if i == 2 then T.eq(st.source, peer, "a receive's status") end
  T.eq(rl.waitany {}, nil, "nothing to wait for")
  w:unlock_all()
  w:free()
end)

T.case("a receive that does not fit fails its wait, waitall's too, once; the message stays", function()
  local small = rl.buffer("double", 1)
  local rq = c:irecv(peer, 13, small)
  local ok = c:irecv(peer, 14)
  c:send(rl.buffer("double", { 1, 2, 3 }), peer, 13)
  c:send("fits", peer, 14)
  checkerr("ERR_TRUNCATE", "comm:irecv: the message from rank " .. peer .. " (tag 13) has 24 bytes, "
    .. "more than the 8 given for it", rl.waitall, { ok, rq })
  checkerr("ERR_ARG", "rq:wait: this request has ended already, with ERR_TRUNCATE", rq.wait, rq)
  T.eq(ok:wait(), "fits", "the other request's value, still there")
  local b, st = c:recv(peer, 13)
  T.eq({ b:totable(), st.count }, { { 1, 2, 3 }, 3 }, "the message, still receivable")
  local rt = c:irecv(peer, 15, rl.buffer("int8", 8))
  c:send(rl.buffer("int32", { 7 }), peer, 15)
  checkerr("ERR_TYPE", "comm:irecv: the message from rank " .. peer .. " (tag 15) holds int32 "
    .. "elements, not int8", rt.wait, rt)
  T.eq(c:recv(peer, 15):totable(), { 7 })
end)

T.case("irecv is posted when made: receives match in the order they were made", function()
  if me == 1 then
    local r1, r2, r3 = c:irecv(0, 1), c:irecv(0, 1), c:irecv(nil, 1)
    c:send("posted", 0, 9)
    -- waited for out of order: each still has its own message
    T.eq(r3:wait(), "third")
    T.eq(#r1:wait(), 100000, "the first, long: its rest came on the shadow")
    T.eq(r2:wait(), "second")
  else
    c:recv(1, 9)
    c:send(string.rep("a", 100000), 1, 1)
    c:send("second", 1, 1)
    c:send("third", 1, 1)
  end
  -- a long message to an irecv that its rank does not test yet
  local rq = c:irecv(peer, 2)
  c:send(string.rep("x", 50000), peer, 2)
  T.eq(#rq:wait(), 50000, "no deadlock when both send long messages first")
end)

T.case("typed buffers as messages: in place, checked, refusals leave them receivable", function()
  if me == 0 then
    c:send(rl.buffer("int32", { 1, 2, 3 }), 1, 4)
    c:send(rl.buffer("int32", { 1, 2, 3, 4, 5 }), 1, 5)
    c:send({ "a", "value" }, 1, 6)
    local big = rl.buffer("double", 3000)
    for k = 1, #big do big[k] = k end
    local sq = c:isend(big, 1, 7)
    checkerr("ERR_RMA_SYNC", "the buffer of an isend to rank 1 still in flight", set, big, 1, 0)
    T.eq(sq:wait(), true)
    big[1] = 0
  else
    local x, st = c:recv(0, 4)
    T.eq({ tostring(x), st.count, st.type }, { "rmalab.buffer (int32, 3 elements)", 3, "int32" })
    T.eq(x:totable(), { 1, 2, 3 })
    local small = rl.buffer("int32", 3)
    checkerr("ERR_TRUNCATE", "comm:recv: the message from rank 0 (tag 5) has 20 bytes, more than "
      .. "the 12 given for it; it stays queued for a receive that fits it", c.recv, c, 0, 5, small)
    checkerr("ERR_TYPE", "holds int32 elements, not int8", c.recv, c, 0, 5, rl.buffer("int8", 9))
    T.eq(c:iprobe(0, 5), true, "still there for probe")
    local room = rl.buffer("int32", 8)
    local y, st2 = c:recv(0, 5, room)
    T.eq({ y == room, st2.count, room[5], room[6] }, { true, 5, 5, 0 }, "received whole, later")
    checkerr("ERR_TYPE", "holds a value, not int32 elements", c.recv, c, 0, 6, room)
    T.eq(c:recv(0, 6), { "a", "value" }, "the value, afterwards")
    local into = rl.buffer("double", 3000)
    local rq = c:irecv(0, 7, into)
    checkerr("ERR_RMA_SYNC", "the buffer of an irecv still in flight", get, into, 1)
    T.eq(rq:wait() == into, true)
    T.eq({ into[1], into[3000] }, { 1.0, 3000.0 })
  end
  -- an irecv into a buffer too short: the request fails, the message stays
  local short = rl.buffer("int64", 1)
  local rq = c:irecv(peer, 8, short)
  c:send(rl.buffer("int64", { 7, 8 }), peer, 8)
  checkerr("ERR_TRUNCATE", "has 16 bytes, more than the 8 given", rq.wait, rq)
  T.eq(c:recv(peer, 8):totable(), { 7, 8 }, "still receivable")
  checkerr("ERR_ARG", "receiving into a buffer needs an rl.buffer", c.irecv, c, peer, 0, {})
end)

T.case("bcast and reductions of a buffer, in place", function()
  local b = rl.buffer("double", 1000)
  if me == 0 then for i = 1, #b do b[i] = i / 2 end end
  T.eq(c:bcast(b) == b, true, "bcast gives the buffer")
  T.eq({ b[1], b[1000] }, { 0.5, 500.0 })
  local s = rl.buffer("int64", { me + 1, 10 })
  T.eq(c:allreduce(s, "sum"):totable(), { 3, 20 })
  local m = rl.buffer("float", { me })
  local r = c:reduce(m, "max", 1)
  T.eq(r and r[1], me == 1 and 1.0 or nil, "reduce: the root's")
  local sc = rl.buffer("int32", { 1 })
  T.eq(c:scan(sc, "sum")[1], me + 1)
  local e = rl.buffer("int64", { 5 })
  local ex = c:exscan(e, "sum")
  T.eq({ ex and ex[1] or "nil", e[1] }, { me == 0 and "nil" or 5, 5 }, "exscan leaves rank 0's")
  checkerr("ERR_TYPE", "comm:allreduce: MPI defines band on integer types, and the buffer holds "
    .. "double", c.allreduce, c, rl.buffer("double", 1), "band")
  checkerr("ERR_TYPE", "MPI defines sum on number types, and the buffer holds byte", c.allreduce,
    c, rl.buffer("byte", 1), "sum")
  checkerr("ERR_RANK", "root 5", c.bcast, c, b, 5)
  T.eq(c:allreduce(rl.buffer("uint8", { 1 }), "bor")[1], 1, "the communicator goes on")
end)

T.case("buffer collectives: the ranks agree on count, type, root and op first", function()
  local b = rl.buffer("double", me == 0 and 4 or 2)
  b[1] = 10 + me
  checkerr("ERR_TRUNCATE", "comm:bcast: the ranks give 2 to 4 elements (" .. #b .. " here); "
    .. "every rank must give the same count", c.bcast, c, b)
  T.eq(b[1], 10 + me, "nothing moved")
  checkerr("ERR_TRUNCATE", "the ranks give 2 to 4 elements", c.allreduce, c, b, "sum")
  T.eq(b[1], 10 + me, "nothing reduced")
  local t = rl.buffer(me == 0 and "double" or "int64", { 1 })
  checkerr("ERR_TYPE", "the ranks give different types (" .. t.type .. " here)", c.bcast, c, t)
  local r = rl.buffer("int64", { 1 })
  checkerr("ERR_RANK", "the ranks name roots 0 to 1 (" .. me .. " here)", c.bcast, c, r, me)
  checkerr("ERR_OP", "the ranks give different ops", c.allreduce, c, r,
    me == 0 and "sum" or "max")
  checkerr("ERR_RANK", "the ranks name roots 0 to 1", c.reduce, c, r, "sum", me)
  -- a rank whose own check fails still joins: the other fails too, no wait
  checkerr("ERR_TYPE", me == 0 and "MPI defines band on integer types"
                        or "rank 0 could not take part",
    c.allreduce, c, rl.buffer(me == 0 and "double" or "int64", 1), "band")
  T.eq(c:allreduce(r, "sum")[1], 2, "the communicator goes on")
end)

T.case("a window whose view is in flight cannot be freed, on any rank", function()
  local NOLOCAL = os.getenv("MPIR_CVAR_NOLOCAL") == "1" or os.getenv("RMALAB_TEST_NODES") == "each"
  local function busy(what)
    return "win:free: this window's memory, through a view, is " .. what .. " still in flight; "
      .. "it completes at the request's wait(), and the window can be freed after that"
  end
  -- an irecv into a view's sub on both ranks: MPI would write freed memory
  local w = rl.win_allocate(8000 * 8)
  local rq = c:irecv(peer, 1, w:local_view("double"):sub(2, 8000))
  c:barrier()
  checkerr("ERR_RMA_SYNC", busy("the buffer of an irecv"), w.free, w)
  c:send(rl.buffer("double", 7999):fill(1.5 + me), peer, 1)
  rq:wait()
  T.eq(w:read(8, "double"), 1.5 + peer, "the message landed in the window")
  w:free()
  T.eq(tostring(w), "rmalab.win (freed)", "freed once the irecv completed")
  -- an isend of a view, too large to go eagerly: the peer reads it from
  -- this process's memory until the request completes
  w = rl.win_allocate(100000 * 8)
  w:local_view("double"):fill(me)
  local sq = c:isend(w:local_view("double"), peer, 2)
  checkerr("ERR_RMA_SYNC", busy("the buffer of an isend to rank " .. peer), w.free, w)
  local got = c:recv(peer, 2, rl.buffer("double", 100000))
  sq:wait()
  T.eq({ got[1], got[100000] }, { peer, peer }, "the view went whole")
  w:write(0, "int64", 5)
  w:free()
  -- a view as the origin of another window's rput
  w = rl.win_allocate(64, { disp_unit = 8 })
  local w2 = window()
  w:write(0, "int64", 40 + me)
  w2:lock_all()
  local pq = w2:rput(peer, 0, "int64", w:local_view("int64"):sub(1, 1))
  checkerr("ERR_RMA_SYNC", "win:free: this window's memory, through a view, is the origin of "
    .. "a rput to rank " .. peer .. " still in flight", w.free, w)
  pq:wait()
  w:free()
  w2:unlock_all()
  c:barrier()
  T.eq(w2:read(0, "int64"), 40 + peer, "the rput landed")
  w2:free()
  -- shared_query views of the other rank's segment
  if not NOLOCAL then
    local s = rl.win_allocate_shared(64, { disp_unit = 8 })
    rq = c:irecv(peer, 3, s:shared_query(peer, "int64"):sub(1, 2))
    checkerr("ERR_RMA_SYNC", busy("the buffer of an irecv"), s.free, s)
    c:send(rl.buffer("int64", 2):fill(7), peer, 3)
    rq:wait()
    s:free()
  end
end)

T.case("the race checker: a request's wait completes an rput locally only", function()
  local function races(flush)
    rl.races.clear()
    local w = rl.win_allocate(64, { disp_unit = 8, info = { rmalab_check = "races:quiet" } })
    if me == 0 then
      w:lock_all()
      w:rput(1, 0, "int64", 1):wait()
      if flush then w:flush(1) end
      c:send("go", 1)
      w:unlock_all()
    else
      c:recv(0)
      w:sync()
      w:read(0, "int64")
    end
    c:barrier()
    w:free()
    return rl.races.total()
  end
  T.eq(races(false), 1, "wait, then a message: the put may not have landed")
  T.eq(races(true), 0, "a flush completes it at the target")
end)
