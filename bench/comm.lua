-- The Lua side of bench-comm (bench-comm.c embeds Lua and times these
-- loops with the same clock as its raw MPICH loops): n repetitions each of
--   allreduce  c:allreduce(x, "sum") of one float
--   pingpong   rank 0: c:send(x, 1); c:recv(1)   rank 1: c:recv(0); c:send(x, 0)
--              x one float: 8 bytes of payload
--   pingbuf    the same with a buffer of one double, received into in place
--   bcast      c:bcast(t) of a table of 1,000 floats from rank 0
--   bcastbuf   c:bcast(b) of a buffer of 1,000 doubles from rank 0, in place
--   lock       win:lock(peer, "shared"), win:get(peer, 0, "int64"),
--              win:unlock(peer), r:value(): the sum of what was read
--   alloc      rl.win_allocate(64, { disp_unit = 8 }) and w:free()
--   allocapi   the same through the C API, in bench-comm.c's C loop
-- Each returns a number the C side checks, so nothing is skipped.
local rl = require "rmalab"
local c = rl.world
local me = c:rank()

local B = {}

function B.allreduce(n)
  local s = 0
  for i = 1, n do s = c:allreduce(i + 0.5, "sum") end
  return s
end

function B.pingpong(n)
  local x = 0.5
  if me == 0 then
    for _ = 1, n do c:send(x, 1); x = c:recv(1) + 1 end
  else
    for _ = 1, n do x = c:recv(0); c:send(x, 0) end
  end
  return x
end

local pb = rl.buffer("double", 1)
function B.pingbuf(n)
  pb[1] = 0.5
  if me == 0 then
    for _ = 1, n do c:send(pb, 1); c:recv(1, nil, pb); pb[1] = pb[1] + 1 end
  else
    for _ = 1, n do c:recv(0, nil, pb); c:send(pb, 0) end
  end
  return pb[1]
end

-- luacheck: read globals floor_sendbuf floor_recvbuf
function B.pingbuf_floor(n)
  pb[1] = 0.5
  if me == 0 then
    for _ = 1, n do floor_sendbuf(pb, 1); floor_recvbuf(1, pb); pb[1] = pb[1] + 1 end
  else
    for _ = 1, n do floor_recvbuf(0, pb); floor_sendbuf(pb, 0) end
  end
  return pb[1]
end

local t = {}
for i = 1, 1000 do t[i] = i + 0.25 end

function B.bcast(n)
  local v
  for _ = 1, n do v = c:bcast(me == 0 and t or nil) end
  return v[1000]
end

-- The floors (bench-comm.c's floor_* functions, registered as globals):
-- the same loops over a minimal binding, the least any Lua binding costs.
-- luacheck: read globals floor_allreduce floor_send floor_recv floor_bcast
function B.allreduce_floor(n)
  local s = 0
  for i = 1, n do s = floor_allreduce(i + 0.5) end
  return s
end

function B.pingpong_floor(n)
  local x = 0.5
  if me == 0 then
    for _ = 1, n do floor_send(x, 1); x = floor_recv(1) + 1 end
  else
    for _ = 1, n do x = floor_recv(0); floor_send(x, 0) end
  end
  return x
end

function B.bcast_floor(n)
  local v
  for _ = 1, n do v = floor_bcast(me == 0 and t or nil) end
  return v[1000]
end

local b = rl.buffer("double", 1000)
if me == 0 then for i = 1, 1000 do b[i] = i + 0.25 end end

function B.bcastbuf(n)
  for _ = 1, n do c:bcast(b) end
  return b[1000]
end

-- luacheck: read globals floor_bcastbuf
function B.bcastbuf_floor(n)
  local v
  for _ = 1, n do v = floor_bcastbuf() end
  return v
end

-- n epochs of a shared lock of the other rank, a get of 8 bytes, unlock,
-- on w: rmalab's window or the floor's, one loop for both
local function lock_epochs(w, n)
  local peer = 1 - me
  local s = 0
  for _ = 1, n do
    w:lock(peer, "shared")
    local r = w:get(peer, 0, "int64")
    w:unlock(peer)
    s = s + r:value()
  end
  return s
end

local win -- B.lock's, made at its first call; B.finish frees it
function B.lock(n)
  if not win then
    win = rl.win_allocate(64, { disp_unit = 8, name = "lock" })
    win:lock(me); win:write(0, "int64", 1); win:unlock(me)
    c:barrier()
  end
  return lock_epochs(win, n)
end

-- luacheck: read globals floor_win
local fwin -- the floor's window object (bench-comm.c), over C's window
function B.lock_floor(n)
  fwin = fwin or floor_win()
  return lock_epochs(fwin, n)
end

function B.alloc(n)
  for _ = 1, n do
    local w = rl.win_allocate(64, { disp_unit = 8 })
    w:free()
  end
  return n
end

-- luacheck: read globals capi_lock
function B.lockapi(n) return capi_lock(n) end
function B.lockmpi(n) return capi_lock(n, true) end

-- luacheck: read globals capi_alloc
function B.allocapi(n) return capi_alloc(n) end

function B.finish()
  if win then win:free() end
end

return B
