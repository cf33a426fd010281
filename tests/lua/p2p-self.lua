-- ranks: 1 2
-- Messages a rank sends to itself: a blocking send to self returns before
-- its receive, as an eager send would (in a job of one process MPICH 4.0.2
-- blocks MPI_Send to self until the receive is posted, which would hang
-- the rank for good); values, buffers and messages past the eager part
-- arrive whole and in the order they were sent; a communicator freed with
-- sends to self and receives pending keeps them until they are done.
local rl = require "rmalab"
local T = require "rmalab.test"
local c = rl.world
local me = c:rank()

T.case("send to self, then receive", function()
  c:send({ 1, "two", 3.0 }, me, 4)
  local v, st = c:recv(me, 4)
  T.eq({ v, st.source, st.tag }, { { 1, "two", 3.0 }, me, 4 })
  local b = rl.buffer("int64", { 7, 8, 9 })
  c:send(b, me, 5)
  b[1] = 0 -- the send has returned: the buffer is free again
  local into = rl.buffer("int64", 3)
  c:recv(me, 5, into)
  T.eq(into:totable(), { 7, 8, 9 }, "the values as sent")
  local big = string.rep("x", 100000) -- past the eager part
  c:send(big, me, 6)
  T.eq(#c:recv(me, 6), 100000, "a long message whole")
end)

T.case("many sends to self arrive in order", function()
  for i = 1, 1000 do c:send(i, me, 7) end
  local ok = true
  for i = 1, 1000 do ok = ok and c:recv(me, 7) == i end
  T.ok(ok, "1,000 messages in the order sent")
  c:send("last", me)
  T.eq(c:sendrecv("x", me, me), "last", "sendrecv to self takes the first in line")
  T.eq(c:recv(me), "x")
end)

T.case("sends to self on a communicator freed before their receive", function()
  local s = c:split(me) -- this rank alone
  s:send("kept", 0, 1) -- returns before its receive
  local rq = s:irecv(0, 1)
  s:send(string.rep("y", 10000), 0, 2) -- long, and never received
  s:irecv(0, 3) -- never matched: its collection below cancels it
  s:free()
  T.eq(rq:wait(), "kept", "the receive pending at the free takes its message")
  collectgarbage()
  c:send("after", me, 9)
  T.eq(c:recv(me, 9), "after", "messages on the others go on")
end)
