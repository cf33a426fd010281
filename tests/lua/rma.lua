-- ranks: 2
-- engines: native rma
-- RMA operations from Lua, on 2 ranks: put and get of every type, every
-- accumulate op on a type it is defined on, get_accumulate, fetch_and_op,
-- compare_and_swap, result handles and when they may be read, and the
-- origin-side errors (rank, range against the TARGET's size, epoch, op,
-- type), each followed by a successful use of the same window. The two
-- ranks give windows of different sizes so that the range checks must use
-- the target's. Checks are soft (rmalab.test) so no rank skips a collective.
local rl = require "rmalab"
local T = require "rmalab.test"
local checkerr = T.checkerr
local S = dofile(debug.getinfo(1, "S").source:match("^@(.-)[^/]*$") .. "../lib/scenario.lua")
local has = S.has
local rank, other = S.pair()

local TYPES = { "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
  "float", "double", "byte" }
local LIMITS = {
  int8 = { -128, 127 }, uint8 = { 0, 255 }, int16 = { -32768, 32767 }, uint16 = { 0, 65535 },
  int32 = { -2147483648, 2147483647 }, uint32 = { 0, 4294967295 },
  int64 = { math.mininteger, math.maxinteger }, uint64 = { 0, math.maxinteger },
}

-- Values rank r puts: different on each rank, extremes included.
local function pattern(t, r)
  if t == "byte" then return "r" .. r .. "\0\255x" end
  if t == "float" then return { 1.5 + r, -0.25, 1024.0 * (r + 1) } end
  if t == "double" then return { 0.1 * (r + 1), -1e300, math.huge } end
  local lim = LIMITS[t]
  return { lim[1] + r, lim[2] - r, 17 + r }
end

local function count(v) return type(v) == "string" and #v or #v end

T.case("put and get every type in fence epochs", function()
  local w <close> = rl.win_allocate(64, { disp_unit = 1 })
  for _, t in ipairs(TYPES) do
    local mine, theirs = pattern(t, rank), pattern(t, other)
    local n = count(mine)
    w:fence()
    w:put(other, 8, t, mine)
    w:fence()
    local got = w:read(8, t, n)
    if t == "byte" then T.eq(got, theirs, "put " .. t)
    else T.eq(got, theirs, "put " .. t) end
    local r = w:get(other, 8, t, n)
    local one = w:get(other, 8, t)
    w:fence()
    T.eq(r:ready(), true, t .. ": ready after the fence")
    if t == "byte" then
      T.eq(r:values(), mine, "get " .. t)
      T.eq(one:value(), "r", "one byte")
    else
      T.eq(r:values(), mine, "get " .. t)
      T.eq(r:value(), mine[1], "value() is the first element")
      T.eq(one:value(), mine[1], "get of one " .. t)
      T.eq(one:values(), { mine[1] }, "values() of one " .. t)
    end
    T.eq(w:read(0, "int64"), 0, t .. ": bytes before disp 8 untouched")
  end
  -- uint64: negative integers are the values from 2^63 up, and round-trip
  w:fence()
  w:put(other, 8, "uint64", { -1, math.mininteger, -2 - rank })
  w:fence()
  T.eq(w:read(8, "uint64", 3), { -1, math.mininteger, -2 - other }, "uint64 from 2^63 up")
  T.eq(w:read(8, "byte", 8), string.rep("\255", 8), "2^64 - 1 is all ones")
  local back = w:get(other, 8, "uint64", 3)
  w:fence()
  T.eq(back:values(), { -1, math.mininteger, -2 - rank }, "uint64 got back as put")
  -- a put of a single value, and a put to oneself
  w:fence()
  w:put(rank, 0, "int32", 1000 + rank)
  w:put(other, 4, "int32", 2000 + rank)
  w:fence("nosucceed")
  T.eq(w:read(0, "int32", 2), { 1000 + rank, 2000 + other }, "put to self and to other")
  w:free()
end)

T.case("result handles: reading before the epoch completes", function()
  local w <close> = rl.win_allocate(16, { disp_unit = 8 })
  w:write(0, "int64", { 100 + rank, 200 + rank })
  w:fence()
  local r = w:get(other, 0, "int64", 2)
  T.eq(r:ready(), false, "not ready inside the fence epoch")
  local err = checkerr("ERR_RMA_SYNC", "here at the next fence()", r.value, r)
  has(err, "from rank " .. other, "has not arrived yet")
  checkerr("ERR_RMA_SYNC", "the next fence()", r.values, r)
  w:get(other, 1, "int64") -- its result dropped at once: the window keeps what MPI writes into alive
  collectgarbage()
  w:fence()
  T.eq(r:ready(), true, "ready after the fence")
  T.eq(r:values(), { 100 + other, 200 + other }, "values after the fence")
  T.eq(r:value(), 100 + other, "value after the fence")
  T.eq(r:ready(), true, "reading does not consume")
  T.eq(r:values(), { 100 + other, 200 + other }, "read twice")

  -- lock: unlock or flush completes it
  w:fence("nosucceed")
  w:lock(other, "shared")
  local a = w:get(other, 0, "int64")
  err = checkerr("ERR_RMA_SYNC", "here at unlock(" .. other .. ") or flush("
    .. other .. ")", a.value, a)
  has(err, "from rank " .. other, "has not arrived yet")
  w:unlock(other)
  T.eq(a:value(), 100 + other, "after unlock")
  -- the error names the window, which the core is asked for when it is raised
  w:set_name("early")
  w:lock(other, "shared")
  a = w:get(other, 0, "int64")
  err = checkerr("ERR_RMA_SYNC", "has not arrived yet", a.value, a)
  has(err, '[window "early"]')
  w:unlock(other)
  -- lock_all
  w:lock_all()
  local b = w:fetch_and_op(other, 1, "int64", 0, "no_op")
  checkerr("ERR_RMA_SYNC", "here at unlock_all() or flush(" .. other .. ")", b.value, b)
  T.eq(b:ready(), false, "not ready in lock_all")
  w:flush(other)
  T.eq(b:ready(), true, "ready after flush")
  T.eq(b:value(), 200 + other, "fetch_and_op no_op after flush")
  w:unlock_all()
  -- start/complete
  w:post({ other }); w:start({ other })
  local c = w:get(other, 0, "int64")
  checkerr("ERR_RMA_SYNC", "here at complete()", c.value, c)
  w:complete(); w:wait()
  T.eq(c:value(), 100 + other, "after complete")
  -- a get of no elements
  w:fence()
  local none = w:get(other, 0, "int64", 0)
  w:fence()
  T.eq(none:values(), {}, "values() of an empty get")
  T.eq(none:value(), nil, "value() of an empty get")
  T.eq(select("#", none:value()), 1, "value() of an empty get returns one nil")
  -- a byte get of nothing is the empty string
  w:fence()
  local nobytes = w:get(other, 0, "byte", 0)
  w:fence()
  T.eq(nobytes:values(), "", "values() of an empty byte get")
  T.eq(nobytes:value(), "", "value() of an empty byte get")
  -- results outlive their window
  w:fence()
  local d = w:get(other, 0, "int64", 2)
  w:fence()
  w:free()
  T.eq(d:values(), { 100 + other, 200 + other }, "a result outlives its window")
  checkerr("ERR_ARG", "RMA result expected", d.value, {})
end)

-- A handle holds the memory MPI writes into, and the window holds the
-- handle until its operation completes: dropped handles and a collection
-- in the epoch, with gets of earlier epochs kept, and the atomics' origins
-- (a copy in the handle) read by MPI after the call.
T.case("result handles: kept alive by their window while in flight", function()
  local w <close> = rl.win_allocate(16, { disp_unit = 8 })
  w:write(0, "int64", { 100 + rank, 200 + rank })
  w:fence(); w:fence("nosucceed")
  local kept = {}
  for e = 1, 3 do
    w:lock(other, "shared")
    for i = 1, 40 do
      local r = w:get(other, i % 2, "int64")
      if i % 10 == 0 then kept[#kept + 1] = { r, i % 2 } end
    end
    collectgarbage()
    T.eq(kept[#kept][1]:ready(), false, "epoch " .. e .. ": in flight after a collection")
    w:unlock(other)
  end
  for _, k in ipairs(kept) do
    T.eq(k[1]:value(), (k[2] == 0 and 100 or 200) + other, "every kept handle read after its epoch")
  end
  rl.world:barrier()
  w:lock(other)
  local f = w:fetch_and_op(other, 1, "int64", 5, "sum")
  local s = w:compare_and_swap(other, 0, "int64", 100 + other, 7)
  collectgarbage()
  w:unlock(other)
  T.eq({ f:value(), s:value() }, { 200 + other, 100 + other }, "atomics' results")
  rl.world:barrier()
  T.eq(w:read(0, "int64", 2), { 7, 205 + rank }, "the atomics' origins as given")
end)

-- { type, op, initial value at the target, operand, expected result }
local ACC = {
  { "int32", "sum", 5, 7, 12 }, { "int32", "prod", -3, 7, -21 },
  { "int32", "max", 5, 7, 7 }, { "int32", "min", 5, 7, 5 },
  { "int64", "sum", math.maxinteger - 10, 10, math.maxinteger },
  { "uint8", "sum", 250, 5, 255 }, { "uint8", "sum", 250, 10, 4 },
  { "uint16", "prod", 300, 200, 60000 },
  { "int8", "max", -5, 3, 3 }, { "int8", "min", -5, 3, -5 }, { "int16", "max", -300, -7, -7 },
  { "int32", "min", 2147483647, -2147483648, -2147483648 },
  { "int64", "max", math.mininteger, -1, -1 }, { "int64", "min", 3, math.mininteger,
    math.mininteger },
  { "int16", "band", 0x0F0F, 0x3C3C, 0x0C0C }, { "int16", "bor", 0x0F0F, 0x3C3C, 0x3F3F },
  { "uint32", "bxor", 0xFF00FF00, 0x0FF00FF0, 0xF0F0F0F0 },
  { "int8", "land", 3, 0, 0 }, { "int8", "land", 3, 5, 1 }, { "int8", "lor", 0, 5, 1 },
  { "int8", "lor", 0, 0, 0 }, { "int8", "lxor", 3, 5, 0 }, { "uint64", "lxor", 0, 5, 1 },
  { "int64", "replace", 5, -9, -9 },
  { "double", "sum", 1.5, 0.25, 1.75 }, { "double", "prod", 1.5, -2, -3.0 },
  { "double", "max", -1.5, -2.5, -1.5 }, { "double", "min", -1.5, -2.5, -2.5 },
  { "double", "replace", 1.5, 0.1, 0.1 },
  { "float", "sum", 1.5, 0.25, 1.75 }, { "float", "prod", 3, 0.5, 1.5 },
  { "float", "max", 0.5, 2, 2.0 }, { "float", "min", 0.5, 2, 0.5 },
  { "byte", "band", "\x0F", "\x3C", "\x0C" }, { "byte", "bor", "\x0F", "\x3C", "\x3F" },
  { "byte", "bxor", "\x0F", "\x3C", "\x33" }, { "byte", "replace", "a", "z", "z" },
}

T.case("accumulate: every op on a type it is defined on", function()
  local w <close> = rl.win_allocate(16, { disp_unit = 8 })
  for _, c in ipairs(ACC) do
    local t, op, init, operand, want = table.unpack(c)
    w:write(0, t, init)
    w:fence()
    w:accumulate(other, 0, t, operand, op)
    w:fence()
    T.eq(w:read(0, t), want, string.format("%s %s", t, op))
  end
  -- max and min on unsigned types: MPICH 4.0.2 compares them as signed
  -- (max(3, 254) on uint8 gives 3), so rmalab refuses them, in every call
  -- that applies an op; the target is left alone and no call is counted
  w:write(0, "uint8", 3)
  w:write(1, "uint16", 65535)
  w:fence()
  for _, t in ipairs{ "uint8", "uint16", "uint32", "uint64" } do
    for _, op in ipairs{ "max", "min" } do
      local why = "MPICH 4.0.2 computes \"" .. op .. "\" on unsigned types as if they were signed"
      checkerr("ERR_OP", "win:accumulate: " .. why, w.accumulate, w, other, 0, t, 254, op)
      checkerr("ERR_OP", "win:get_accumulate: " .. why, w.get_accumulate, w, other, 0, t,
        { 254 }, op)
      checkerr("ERR_OP", "win:fetch_and_op: " .. why, w.fetch_and_op, w, other, 0, t, 254, op)
    end
  end
  local err = checkerr("ERR_OP", "use the signed type of the next size up", w.accumulate, w,
    other, 0, "uint8", 254, "max")
  T.eq(w:epochs().ops, 0, "no refused call was counted")
  -- the other ops on unsigned types still work in the same epoch
  w:accumulate(other, 0, "uint8", 254, "bor")
  local fo = w:fetch_and_op(other, 1, "uint16", 0, "no_op")
  w:fence()
  T.eq(w:read(0, "uint8"), 255, "3 bor 254 on uint8")
  T.eq(fo:value(), 65535, "fetch_and_op no_op on uint16 after the refusals")
  local _ = err
  -- arrays, and both ranks adding into rank 0's window at once
  w:write(0, "int64", { 1, 2 })
  w:fence()
  w:accumulate(0, 0, "int64", { 10 * (rank + 1), 100 * (rank + 1) }, "sum")
  w:fence()
  if rank == 0 then T.eq(w:read(0, "int64", 2), { 31, 302 }, "two ranks summed into one")
  else T.eq(w:read(0, "int64", 2), { 1, 2 }, "rank 1 untouched") end
  w:free()
end)

T.case("get_accumulate, fetch_and_op and compare_and_swap", function()
  local w <close> = rl.win_allocate(32, { disp_unit = 8 })
  w:write(0, "int64", { 10 + rank, 20 + rank, 30 + rank, 0 })
  w:fence()
  local ga = w:get_accumulate(other, 0, "int64", { 1, 2 }, "sum")
  local gn = w:get_accumulate(other, 2, "int64", 99, "no_op")
  w:fence()
  T.eq(ga:values(), { 10 + other, 20 + other }, "get_accumulate returns the old values")
  T.eq(w:read(0, "int64", 2), { 11 + rank, 22 + rank }, "and applies the op")
  T.eq(gn:value(), 30 + other, "no_op fetches")
  T.eq(w:read(2, "int64"), 30 + rank, "no_op leaves the target alone")

  local fa = w:fetch_and_op(other, 0, "int64", 5, "sum")
  local fr = w:fetch_and_op(other, 1, "int64", -1, "replace")
  local fn = w:fetch_and_op(other, 2, "int64", 0, "no_op")
  local fm = w:fetch_and_op(other, 3, "int64", 7, "max")
  w:fence()
  T.eq(fa:value(), 11 + other, "fetch_and_op sum returns the old value")
  T.eq(fr:value(), 22 + other, "fetch_and_op replace returns the old value")
  T.eq(fn:value(), 30 + other, "fetch_and_op no_op")
  T.eq(fm:value(), 0, "fetch_and_op max")
  T.eq(w:read(0, "int64", 4), { 16 + rank, -1, 30 + rank, 7 }, "fetch_and_op applied")

  -- compare_and_swap: rank 0 succeeds on rank 1, rank 1 fails on rank 0
  local compare = rank == 0 and 16 + other or 12345
  local cs = w:compare_and_swap(other, 0, "int64", compare, 500 + rank)
  w:fence()
  T.eq(cs:value(), 16 + other, "compare_and_swap returns the old value")
  if rank == 1 then T.eq(w:read(0, "int64"), 500, "swapped where compare matched")
  else T.eq(w:read(0, "int64"), 16, "unchanged where compare did not match") end
  -- on bytes, and on a smaller integer type at a byte offset
  w:write(3, "byte", "q")
  w:fence()
  local cb = w:compare_and_swap(other, 3, "byte", "q", "Z")
  local cf = w:fetch_and_op(other, 3, "byte", "\x20", "bxor")
  w:fence()
  T.eq(cb:value(), "q", "byte compare_and_swap old value")
  T.eq(cf:value(), "Z", "ordered after the swap in this epoch")
  T.eq(w:read(3, "byte"), "z", "Z xor 0x20")
  w:free()
end)

T.case("origin-side errors, each followed by a working call", function()
  -- rank 0 has 32 bytes (4 x int64), rank 1 has 64 (8 x int64)
  local w <close> = rl.win_allocate(rank == 0 and 32 or 64, { disp_unit = 8 })
  -- no epoch
  for _, call in ipairs{
    { "put", function() w:put(other, 0, "int64", 1) end },
    { "get", function() return w:get(other, 0, "int64") end },
    { "accumulate", function() w:accumulate(other, 0, "int64", 1, "sum") end },
    { "get_accumulate", function() return w:get_accumulate(other, 0, "int64", 1, "sum") end },
    { "fetch_and_op", function() return w:fetch_and_op(other, 0, "int64", 1, "sum") end },
    { "compare_and_swap", function() return w:compare_and_swap(other, 0, "int64", 1, 2) end },
  } do
    local err = checkerr("ERR_RMA_SYNC", "win:" .. call[1] .. " to rank " .. other
      .. ": RMA calls need an access epoch, and none is open", call[2])
    has(err, "fence()", "start({" .. other .. "})", "lock(" .. other .. ")")
  end
  w:fence()
  -- ranks outside the group
  checkerr("ERR_RANK", "win:put to rank 2: the window's group has ranks 0 to 1", w.put, w, 2,
    0, "int64", 1)
  checkerr("ERR_RANK", "win:get to rank -1: the window's group has ranks 0 to 1", w.get, w, -1,
    0, "int64")
  checkerr("ERR_RANK", "win:accumulate to rank 9", w.accumulate, w, 9, 0, "int64", 1, "sum")
  checkerr("ERR_RANK", "bad argument #1 to 'put' (rank (an integer) expected, got a number "
    .. "with no integer representation)", function() w:put(1.5, 0, "int64", 1) end)
  checkerr("ERR_RANK", "bad argument #1 to 'get' (rank (an integer) expected, got string)",
    function() local _ = w:get("1", 0, "int64") end)
  checkerr("ERR_RANK", "rank (an integer) expected, got nil", w.put, w, nil, 0, "int64", 1)
  -- ranks beyond the C int range are shown as given
  checkerr("ERR_RANK", "win: rank 4294967296 is not in the window's group", w.put, w, 1 << 32,
    0, "int64", 1)
  checkerr("ERR_RANK", "win: rank -4294967295 is not in the window's group", w.get, w,
    1 - (1 << 32), 0, "int64")
  checkerr("ERR_RANK", "win: rank 9223372036854775807 is not in the window's group",
    w.accumulate, w, math.maxinteger, 0, "int64", 1, "sum")
  checkerr("ERR_RANK", "win: rank 2147483648 is not in the window's group", w.fetch_and_op, w,
    1 << 31, 0, "int64", 1, "sum")
  -- counts and displacements that are not integers
  checkerr("ERR_ARG", "bad argument #4 to 'get' (count (an integer) expected, got a number "
    .. "with no integer representation)", function() local _ = w:get(other, 0, "int64", 1.5) end)
  checkerr("ERR_ARG", "bad argument #4 to 'get' (count (an integer) expected, got string)",
    function() local _ = w:get(other, 0, "int64", "1") end)
  checkerr("ERR_ARG", "bad argument #2 to 'put' (displacement (an integer) expected, got a "
    .. "number with no integer representation)", function() w:put(other, 0.5, "int64", 1) end)
  checkerr("ERR_ARG", "bad argument #2 to 'compare_and_swap' (displacement (an integer) "
    .. "expected, got string)", function() local _ = w:compare_and_swap(other, "0", "int64", 1,
    2) end)
  -- ranges against the TARGET's window: disp 6 fits rank 1 (64 bytes), not rank 0 (32)
  local err = checkerr("ERR_RMA_RANGE", "win:put to rank 0: displacement 4 (x disp_unit 8 = "
    .. "byte 32) with 1 x int64 reaches past the end of rank 0's window of 32 bytes; valid "
    .. "displacements are 0 to 3", w.put, w, 0, 4, "int64", 1)
  local e6 = checkerr("ERR_RMA_RANGE", "win:put to rank 0: displacement 6 (x disp_unit 8",
    w.put, w, 0, 6, "int64", 1)
  has(e6, "with 1 x int64 reaches past the end of rank 0's window of 32 bytes; valid "
    .. "displacements are 0 to 3")
  -- displacements whose byte offset would overflow are refused, not wrapped
  checkerr("ERR_RMA_RANGE", "win:put to rank 1: displacement 2305843009213693952 (x disp_unit "
    .. "8", w.put, w, 1, 1 << 61, "int64", 1)
  checkerr("ERR_RMA_RANGE", "win:get to rank 1: displacement 9223372036854775807 (x disp_unit "
    .. "8", w.get, w, 1, math.maxinteger, "int8")
  checkerr("ERR_RMA_RANGE", "win:accumulate to rank 0: displacement -1 is negative; valid "
    .. "displacements in rank 0's window of 32 bytes are 0 to 3",
    w.accumulate, w, 0, -1, "int64", 1, "sum")
  w:put(1, 6 - rank, "int64", 60 + rank) -- fits rank 1
  checkerr("ERR_RMA_RANGE", "rank 0's window of 32 bytes", w.get, w, 0, 3, "int64", 2)
  checkerr("ERR_RMA_RANGE", "9 x int64 (72 bytes) do not fit in rank 1's window of 64 bytes",
    w.get, w, 1, 0, "int64", 9)
  checkerr("ERR_RMA_RANGE", "5 x int64 (40 bytes) do not fit in rank 0's window of 32 bytes",
    w.put, w, 0, 0, "int64", { 1, 2, 3, 4, 5 })
  checkerr("ERR_RMA_RANGE", "rank 1's window of 64 bytes", w.accumulate, w, 1, 8, "int64", 1,
    "sum")
  checkerr("ERR_RMA_RANGE", "rank 0's window", w.fetch_and_op, w, 0, 4, "int64", 1, "sum")
  checkerr("ERR_RMA_RANGE", "rank 0's window", w.compare_and_swap, w, 0, 4, "int64", 1, 2)
  checkerr("ERR_RMA_RANGE", "rank 1's window", w.get_accumulate, w, 1, -1, "int64", 1, "sum")
  checkerr("ERR_RMA_RANGE", "rank 1's window", w.put, w, 1, 7, "byte", "123456789")
  local last = w:get(0, 3, "int64") -- the last int64 of rank 0
  if rank == 0 then w:put(1, 7, "byte", "12345678") end -- the last 8 bytes of rank 1
  -- ops not defined on the type
  checkerr("ERR_OP", "win:accumulate: the op \"band\" is not defined on double values",
    w.accumulate, w, other, 0, "double", 1.0, "band")
  checkerr("ERR_OP", "the op \"land\" is not defined on float values", w.accumulate, w, other,
    0, "float", 1.0, "land")
  checkerr("ERR_OP", "the op \"sum\" is not defined on byte values", w.accumulate, w, other, 0,
    "byte", "a", "sum")
  checkerr("ERR_OP", "the op \"lor\" is not defined on byte values", w.get_accumulate, w,
    other, 0, "byte", "a", "lor")
  checkerr("ERR_OP", "the op \"bxor\" is not defined on double values", w.fetch_and_op, w,
    other, 0, "double", 1.0, "bxor")
  checkerr("ERR_OP", "no_op only makes sense for operations that fetch", w.accumulate, w,
    other, 0, "int64", 1, "no_op")
  checkerr("ERR_OP", "unknown op \"add\"", w.accumulate, w, other, 0, "int64", 1, "add")
  checkerr("ERR_OP", "string expected, got no value", w.accumulate, w, other, 0, "int64", 1)
  -- types
  checkerr("ERR_TYPE", "unknown type \"int\"", w.put, w, other, 0, "int", 1)
  checkerr("ERR_TYPE", "unknown type \"Double\"", w.get, w, other, 0, "Double")
  checkerr("ERR_TYPE", "compare_and_swap: MPI defines it on integer and byte types, not on "
    .. "double", w.compare_and_swap, w, other, 0, "double", 1.0, 2.0)
  checkerr("ERR_TYPE", "not on float", w.compare_and_swap, w, other, 0, "float", 1.0, 2.0)
  -- arguments
  checkerr("ERR_ARG", "fetch_and_op takes exactly one value", w.fetch_and_op, w, other, 0,
    "int64", { 1, 2 }, "sum")
  checkerr("ERR_ARG", "compare_and_swap takes exactly one value", w.compare_and_swap, w,
    other, 0, "int64", { 1, 2 }, 3)
  checkerr("ERR_ARG", "win:compare_and_swap: the value (argument 5) is nil; int64 needs an integer",
    w.compare_and_swap, w, other, 0, "int64", 1)
  checkerr("ERR_ARG", "win:put: the value (argument 4) does not fit int8 (300)",
    w.put, w, other, 0, "int8", 300)
  checkerr("ERR_ARG", "win:put: element 2 of the values (argument 4) does not fit float (1e+300)",
    w.put, w, other, 0, "float", { 1, 1e300 })
  checkerr("ERR_ARG", "win:accumulate: the value (argument 4) does not fit float (-3.5e+38)",
    w.accumulate, w, other, 0, "float", -3.5e38, "sum")
  -- the same window still works after all that
  w:accumulate(other, 0, "int64", 7, "sum")
  local g = w:get_accumulate(other, 1, "int64", 1, "sum")
  w:fence()
  T.eq(last:value(), 0, "get of rank 0's last element")
  T.eq(g:value(), 0, "get_accumulate after the errors")
  T.eq(w:read(0, "int64"), 7, "accumulate after the errors")
  T.eq(w:read(1, "int64"), 1, "get_accumulate applied")
  if rank == 1 then
    T.eq(w:read(5, "int64", 2), { 61, 60 }, "puts at disp 5 and 6 of rank 1")
    T.eq(w:read(7, "byte", 8), "12345678", "the last 8 bytes of rank 1")
  end
  T.eq(w:epochs().epochs, 1, "one epoch carried operations")
  w:free()
  T.eq(err and err.class, "ERR_RMA_RANGE", "error objects stay usable")
end)

T.case("dynamic windows: RMA to attached memory", function()
  local w <close> = rl.win_create_dynamic()
  local mine = w:attach(16)
  local aw <close> = rl.win_allocate(8, { disp_unit = 8 }) -- to learn the other's address
  aw:write(0, "int64", mine)
  aw:fence()
  local r = aw:get(other, 0, "int64")
  aw:fence("nosucceed")
  local theirs = r:value()
  aw:free()
  checkerr("ERR_RMA_SYNC", "RMA calls need an access epoch", w.put, w, other, theirs, "int64",
    1)
  w:fence()
  w:put(other, theirs, "int64", 70 + rank)
  w:accumulate(other, theirs + 8, "int32", 5, "sum")
  checkerr("ERR_RANK", "win:put to rank 2", w.put, w, 2, theirs, "int64", 1)
  w:fence()
  local g = w:get(other, theirs, "int64", 2)
  w:fence("nosucceed")
  T.eq(w:read(mine, "int64"), 70 + other, "put to the attached address")
  T.eq(w:read(mine + 8, "int32"), 5, "accumulate at an address")
  T.eq(g:values(), { 70 + rank, 5 }, "get from the attached address")
  -- addresses the target never attached: refused at the origin, which reads
  -- the target's attached regions, instead of crashing the target in MPICH
  w:fence()
  local function outside(addr, bytes)
    return string.format("to rank %d: address %d (+%d bytes) is not inside memory rank %d has "
      .. "attached to this dynamic window (1 region); use an address its attach() returned",
      other, addr, bytes, other)
  end
  checkerr("ERR_RMA_RANGE", "win:put " .. outside(16, 8), w.put, w, other, 16, "int64", 5)
  checkerr("ERR_RMA_RANGE", "win:get " .. outside(theirs + 16, 1), w.get, w, other,
    theirs + 16, "int8")
  checkerr("ERR_RMA_RANGE", "win:accumulate " .. outside(theirs + 8, 16), w.accumulate, w,
    other, theirs + 8, "int64", { 1, 2 }, "sum")
  checkerr("ERR_RMA_RANGE", "win:compare_and_swap " .. outside(theirs - 8, 8),
    w.compare_and_swap, w, other, theirs - 8, "int64", 0, 1)
  checkerr("ERR_RMA_RANGE", "win:fetch_and_op " .. outside(0, 8), w.fetch_and_op, w, other, 0,
    "int64", 1, "sum")
  -- the last byte of the region is in, and the window still works
  w:put(other, theirs + 15, "int8", 9)
  w:fence()
  T.eq(w:read(mine + 15, "int8"), 9, "put to the last attached byte")
  T.eq(w:read(mine, "int64"), 70 + other, "nothing else changed")
  -- a second region is seen by the origins; a detached one is refused
  local second = w:attach(8)
  local aw2 <close> = rl.win_allocate(16, { disp_unit = 8 })
  aw2:write(0, "int64", { mine, second })
  aw2:fence()
  local addrs = aw2:get(other, 0, "int64", 2)
  aw2:fence("nosucceed")
  local their2 = addrs:values()[2]
  aw2:free()
  w:fence()
  w:put(other, their2, "int64", 80 + rank)
  checkerr("ERR_RMA_RANGE", "(2 regions)", w.put, w, other, their2 + 8, "int64", 1)
  w:fence()
  T.eq(w:read(second, "int64"), 80 + other, "put into the second region")
  w:detach(mine)
  w:detach(second)
  rl.world:barrier() -- both ranks have detached
  w:fence()
  checkerr("ERR_RMA_RANGE", "win:put to rank " .. other .. ": address " .. theirs
    .. " (+8 bytes) is not inside memory rank " .. other .. " has attached to this dynamic "
    .. "window (0 regions)", w.put, w, other, theirs, "int64", 1)
  w:fence("nosucceed")
  w:free()
end)

T.case("an operation whose buffer overlaps its target in this process is refused", function()
  -- MPI forbids it; MPICH 4.0.2 aborted the job ("memcpy argument memory
  -- ranges overlap") for a put, get, rget or rput to this very rank
  local w <close> = rl.win_allocate(64, { disp_unit = 4 })
  local lv = w:local_view("int32")
  lv:fill(7)
  local function refused(role, disp, reach, fn, ...)
    local e = checkerr("ERR_ARG", "to rank " .. rank .. ": its " .. role .. " buffer overlaps the "
      .. "bytes it reaches in rank " .. rank .. "'s window (displacement " .. disp .. ", " .. reach
      .. "), which are this process's own memory", fn, ...)
    has(e, "MPI forbids an operation whose buffers overlap its target")
  end
  local v2 = lv:sub(1, 2)
  w:lock_all()
  refused("origin", 1, "2 x int32", w.put, w, rank, 1, "int32", v2)
  refused("result", 0, "2 x int32", w.get, w, rank, 0, "int32", v2)
  refused("origin", 0, "2 x int32", w.accumulate, w, rank, 0, "int32", v2, "sum")
  refused("result", 1, "2 x int32", w.get_accumulate, w, rank, 1, "int32", { 1, 2 }, "sum", v2)
  refused("origin", 0, "1 x int32", w.fetch_and_op, w, rank, 0, "int32", lv:sub(1, 1), "sum")
  refused("result", 0, "1 x int32", w.fetch_and_op, w, rank, 0, "int32", 1, "sum", lv:sub(1, 1))
  refused("compare", 0, "1 x int32", w.compare_and_swap, w, rank, 0, "int32", lv:sub(1, 1), 5)
  refused("result", 0, "2 x int32", function() return w:rget(rank, 0, "int32", v2):wait() end)
  refused("origin", 0, "2 x int32", function() return w:rput(rank, 0, "int32", v2):wait() end)
  refused("origin", 0, "2 blocks of 1 x int32", w.put, w, rank, 0, rl.vector("int32", 2, 1, 4),
    lv:sub(5, 6))
  -- between a vector's blocks, beside the target, or a copy: allowed
  w:put(rank, 0, rl.vector("int32", 2, 1, 4), lv:sub(2, 3))
  w:put(rank, 2, "int32", lv:sub(15, 16))
  w:flush_all()
  w:put(rank, 8, "int32", v2:totable())
  w:unlock_all()
  T.eq(lv:totable(), { 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7 }, "the window is intact")
  w:fence()
  refused("result", 2, "2 x int32", w.get, w, rank, 2, "int32", lv:sub(2, 3))
  local g = w:get(other, 2, "int32", lv:sub(5, 6)) -- another rank's memory: allowed
  w:fence("nosucceed")
  T.eq(lv:sub(5, 6):totable(), { 7, 7 }, "the window still works")
  w:free()
  T.ok(g, "get to the other rank")
  -- a shared window's segment of another rank on this node is this
  -- process's memory too
  local s <close> = rl.win_allocate_shared(16, { disp_unit = 4 })
  if os.getenv("MPIR_CVAR_NOLOCAL") ~= "1" and os.getenv("RMALAB_TEST_NODES") ~= "each" then
    local theirs = s:shared_query(other, "int32")
    s:lock_all()
    local e = checkerr("ERR_ARG", "win:put to rank " .. other .. ": its origin buffer overlaps",
      s.put, s, other, 1, "int32", theirs:sub(2, 3))
    has(e, "which are memory this process shares")
    s:put(other, 2, "int32", theirs:sub(1, 2))
    s:unlock_all()
  end
  s:free()
end)

T.case("epoch errors in lock and PSCW epochs name the fix", function()
  local w <close> = rl.win_allocate(16, { disp_unit = 8 })
  w:lock(rank) -- lock oneself, then target the other rank
  checkerr("ERR_RMA_SYNC", "win:put to rank " .. other .. ": in a passive-target epoch RMA "
    .. "calls may only target locked ranks; call lock(" .. other .. ") first", w.put, w,
    other, 0, "int64", 1)
  w:put(rank, 0, "int64", 3)
  w:unlock(rank)
  T.eq(w:read(0, "int64"), 3, "put to the locked rank")
  rl.world:barrier()
  w:post({}); w:start({})
  checkerr("ERR_RMA_SYNC", "win:get to rank " .. other .. ": RMA calls in an access epoch may "
    .. "only target processes in its group; start() was given {}", w.get, w, other, 0,
    "int64")
  w:complete(); w:wait()
  w:free()
end)

T.done()
