-- ranks: 2 3
-- Communicators' collectives: values of every kind through bcast, gather,
-- allgather, scatter and alltoall; reductions of numbers with their
-- subtype; split; every error class, raised on every rank that would have
-- waited, and the communicator usable after it; the race checker's order.
local rl = require "rmalab"
local T = require "rmalab.test"
local c = rl.world
local me, n = c:rank(), c:size()

local checkerr = T.checkerr

-- A value that shows every kind the codec carries.
local function sample(r)
  return {
    1, 2.0, "three\0bytes", true, false, { nested = { deeper = { r } } },
    name = "rank " .. r, [2.5] = "float key", [-1] = "negative", [true] = "boolean key",
    ints = { 1, 2, 3 }, floats = { 0.5, 1.5 }, empty = {}, big = 1 << 62, neg = -0.0,
  }
end

T.case("bcast: any value, subtypes kept, from any root", function()
  for root = 0, n - 1 do
    local v = c:bcast(me == root and sample(root) or nil, root)
    T.eq(v, sample(root), "value from root " .. root)
    T.eq(math.type(v[1]), "integer", "1 stays an integer")
    T.eq(math.type(v[2]), "float", "2.0 stays a float")
    T.eq(math.type(v.floats[1]), "float")
    T.eq(math.type(v.big), "integer")
  end
  T.eq(c:bcast(me == 0 and "x" or nil), "x", "a string")
  T.eq(c:bcast(nil), nil, "nil")
  T.eq(c:bcast(me == 0 and 7 or 0), 7, "non-roots' values are ignored")
  local big = {}
  for i = 1, 1000 do big[i] = i * 0.5 end
  T.eq(c:bcast(me == 0 and big or nil), big, "1,000 numbers (a second collective)")
  local long = string.rep("abc", 100000) -- 300 KB: memory that the ranks agree on
  T.eq(c:bcast(me == 1 and long or nil, 1), long, "300 KB")
  local mixed = { 1, 2.5, "x", nil, 5 }
  T.eq(c:bcast(me == 0 and mixed or nil)[5], 5, "a hole in an array")
end)

-- Arrays of numbers of one subtype travel as raw numbers: whole floats,
-- an integer among floats, holes and keys besides 1..#t must not fool it.
T.case("bcast: arrays of numbers keep their subtypes and their other keys", function()
  local function types(t)
    local s = {}
    for i = 1, #t do s[i] = math.type(t[i]) or type(t[i]) end
    return table.concat(s, " ")
  end
  local values = {
    { 0.5, 2.0, 3.0, 1e300, -0.0, 1 / 0, 0 / 0 }, -- floats, some whole
    { 0.5, 2.0, 3 },                          -- a last integer among floats
    { 1, 2, 3.0 },                            -- a last whole float among integers
    { 1, 2, 3, n = 3, [0] = 0, [-2] = 5.5 },  -- integers and other keys
    { 0.5, 1.5, name = "x", [2.5] = 7 },      -- floats and other keys
    { 1, 2, nil, 4, ["3"] = 9 },              -- a hole and a string "3"
  }
  -- Tables whose keys went in one by one, the others first: where
  -- lua_next finds them does not change what is sent.
  for _, others in ipairs({ { x = 1 }, { [0] = 0.5 }, { [2.5] = true, y = "y" } }) do
    local t = others
    for i = 1, 5 do t[i] = i * 0.5 end
    values[#values + 1] = t
  end
  for key in ("abcdefghijkl"):gmatch(".") do -- in the hash part with 1..3, in some order
    local t = { [key] = key }
    for i = 3, 1, -1 do t[i] = i * 0.5 end
    values[#values + 1] = t
  end
  -- Arrays whose hash part came after them, or emptied again, or sits
  -- beside a metatable: the codec reads Lua 5.4's table head to skip
  -- counting the keys of a table with no hash part.
  local later, emptied = { 0.5, 1.5 }, { 2.5, 3.5 }
  later.k = "v"
  emptied.x = 1
  emptied.x = nil
  values[#values + 1] = later
  values[#values + 1] = emptied
  values[#values + 1] = setmetatable({ 4.5, 5.5, m = true }, {})
  for k, t in ipairs(values) do
    local v = c:bcast(me == 0 and t or nil)
    T.eq(v, t, "value " .. k)
    T.eq(types(v), types(t), "value " .. k .. "'s subtypes")
  end
end)

T.case("bcast refuses what cannot be sent, on every rank, and goes on", function()
  local bad = { config = { 1, 2, print } }
  checkerr("ERR_ARG", me == 0 and "comm:bcast: value.config[3]: a function cannot be sent"
                       or "comm:bcast: rank 0 could not take part (ERR_ARG",
    c.bcast, c, me == 0 and bad or nil)
  local cyc = { a = {} }
  cyc.a.b = cyc
  checkerr("ERR_ARG", me == 0 and "value.a.b: a table that contains itself (a cycle)"
                       or "rank 0 could not take part", c.bcast, c, me == 0 and cyc or nil)
  checkerr("ERR_ARG", me == 0 and "value[\"my key\"]: a userdata cannot be sent" or "rank 0",
    c.bcast, c, me == 0 and { ["my key"] = io.stdout } or nil)
  checkerr("ERR_ARG", me == 0 and "value: a thread cannot be sent" or "rank 0",
    c.bcast, c, me == 0 and coroutine.create(print) or nil)
  checkerr("ERR_ARG", me == 0 and "value: a table key cannot be sent" or "rank 0",
    c.bcast, c, me == 0 and { [{}] = 1 } or nil)
  local deep = {}
  for _ = 1, 150 do deep = { deep } end
  checkerr("ERR_ARG", me == 0 and "nested more than 100 deep" or "rank 0",
    c.bcast, c, me == 0 and deep or nil)
  checkerr("ERR_RANK", "comm:bcast: root " .. n .. " is not a rank of this communicator (0 to "
    .. n - 1 .. ")", c.bcast, c, 1, n)
  checkerr("ERR_RANK", "root (an integer) expected", c.bcast, c, 1, 0.5)
  T.eq(c:bcast(me == 0 and "still usable" or nil), "still usable")
end)

T.case("gather and allgather: element r + 1 is rank r's value", function()
  local want = {}
  for r = 0, n - 1 do want[r + 1] = sample(r) end
  T.eq(c:allgather(sample(me)), want, "allgather")
  T.eq(c:gather(sample(me), n - 1), me == n - 1 and want or nil, "gather at the last rank")
  local lens = {}
  for r = 0, n - 1 do lens[r + 1] = string.rep("x", 40 * r * r) end
  T.eq(c:allgather(string.rep("x", 40 * me * me)), lens, "mixed lengths")
  T.eq(c:gather(me % 2 == 0 and me or nil), me == 0 and (n == 3 and { 0, nil, 2 } or { 0 }) or nil,
    "nil values")
  checkerr("ERR_ARG", me == 1 and "comm:allgather: value: a function cannot be sent"
                       or "comm:allgather: rank 1 could not take part",
    c.allgather, c, me == 1 and print or 1)
  checkerr("ERR_ARG", me == 1 and "a function" or "rank 1 could not take part",
    c.gather, c, me == 1 and print or 1)
  T.eq(c:allgather(me), n == 2 and { 0, 1 } or { 0, 1, 2 }, "usable after")
end)

T.case("scatter and alltoall: element r + 1 goes to rank r", function()
  local parts = {}
  for r = 0, n - 1 do parts[r + 1] = { r = r, pad = string.rep("p", 30 * r) } end
  T.eq(c:scatter(me == 0 and parts or nil), parts[me + 1], "scatter from 0")
  T.eq(c:scatter(me == n - 1 and parts or 42, n - 1), parts[me + 1], "from the last rank")
  local out, want = {}, {}
  for r = 0, n - 1 do
    out[r + 1] = { from = me, to = r, s = string.rep("z", 20 * (me + r)) }
    want[r + 1] = { from = r, to = me, s = string.rep("z", 20 * (me + r)) }
  end
  T.eq(c:alltoall(out), want, "alltoall")
  checkerr("ERR_ARG", me == 0 and "comm:scatter: an array of " .. n .. " values (one per rank) "
                                   .. "expected, got 1" or "rank 0 could not take part",
    c.scatter, c, { 1 })
  checkerr("ERR_ARG", me == 0 and "expected, got string" or "rank 0 could not take part",
    c.scatter, c, "x")
  checkerr("ERR_ARG", me == 0 and "array[2]: a function cannot be sent"
                       or "rank 0 could not take part", c.scatter, c,
    n == 2 and { 1, print } or { 1, print, 3 })
  checkerr("ERR_ARG", me == 1 and "comm:alltoall: an array of" or "rank 1 could not take part",
    c.alltoall, c, me == 1 and {} or out)
  T.eq(c:alltoall(out), want, "usable after")
end)

T.case("allreduce: numbers and arrays, integer stays integer", function()
  local s = c:allreduce(me + 1, "sum")
  T.eq(s, n * (n + 1) // 2)
  T.eq(math.type(s), "integer")
  T.eq(math.type(c:allreduce(me + 0.5, "sum")), "float")
  T.eq(c:allreduce(me == 0 and 1 or 2.5, "sum"), 1 + 2.5 * (n - 1), "int and float mix")
  T.eq(math.type(c:allreduce(me == 0 and 1 or 2.5, "max")), "float")
  T.eq(c:allreduce({ me, -me, 10 }, "max"), { n - 1, 0, 10 })
  T.eq(c:allreduce({ me, -me, 10 }, "min"), { 0, -(n - 1), 10 })
  T.eq(c:allreduce(2, "prod"), 1 << n)
  T.eq(c:allreduce(1 << me, "bor"), (1 << n) - 1)
  T.eq(c:allreduce(1 << me, "bxor"), (1 << n) - 1)
  T.eq(c:allreduce(3, "band"), 3)
  T.eq(c:allreduce(3.0, "band"), 3, "a float with an integer value")
  T.eq(c:allreduce(me, "land"), 0)
  T.eq(c:allreduce(me, "lor"), 1)
  T.eq(c:allreduce(0.5, "land"), 1, "logical ops: nonzero is true")
  T.eq(c:allreduce(math.maxinteger, "sum"), math.maxinteger * n, "wraps as Lua does")
  local long, want = {}, {}
  for i = 1, 100 do
    long[i] = i == 50 and me + 0.25 or i * (me + 1)
    want[i] = i == 50 and (n * (n - 1) // 2 + 0.25 * n) or i * n * (n + 1) // 2
  end
  local got = c:allreduce(long, "sum")
  T.eq(got, want, "100 numbers past the packet")
  T.eq(math.type(got[1]), "float", "a float anywhere makes every element a float")
  T.eq(c:allreduce({}, "sum"), {}, "no numbers")
end)

-- IEEE 754-2019's maximum and minimum: a NaN on any rank gives NaN on
-- every rank, whichever rank has it, in Lua values (one number, arrays
-- past the one-collective packet) and in buffers of doubles and floats;
-- +0 is above -0. MPI's MPI_MAX compares with >, and the same allreduce
-- gave NaN on some ranks and a number on others.
T.case("max and min: a NaN on any rank gives NaN on every rank", function()
  local function isnan(x) return x ~= x end
  for bad = 0, n - 1 do
    local v = me == bad and 0 / 0 or me + 1.5
    for _, op in ipairs({ "max", "min" }) do
      local what = op .. ", the NaN on rank " .. bad
      T.ok(isnan(c:allreduce(v, op)), "a number: " .. what)
      local arr = {}
      for i = 1, 10 do arr[i] = (i % 3 == 0) and v or me + i end
      local got = c:allreduce(arr, op)
      for i = 1, 10 do
        T.eq(isnan(got[i]), i % 3 == 0, ("an array, element %d: %s"):format(i, what))
      end
      local scan = c:scan(v, op)
      T.eq(isnan(scan), me >= bad, "scan: " .. what)
      for _, ty in ipairs({ "double", "float" }) do
        local b = rl.buffer(ty, 40)
        for i = 1, 40 do b[i] = (i % 4 == 0) and v or me + i end
        c:allreduce(b, op)
        local ok = true
        for i = 1, 40 do ok = ok and isnan(b[i]) == (i % 4 == 0) end
        T.ok(ok, ("a buffer of %ss: %s"):format(ty, what))
      end
    end
  end
  local z = me % 2 == 0 and 0.0 or -0.0
  if n > 1 then
    T.eq(1 / c:allreduce(z, "max"), 1 / 0, "max(-0, +0) is +0")
    T.eq(1 / c:allreduce(z, "min"), -1 / 0, "min(-0, +0) is -0")
  end
  T.eq(c:allreduce(me + 0.5, "max"), n - 0.5, "numbers without NaN as before")
end)

T.case("reductions refuse on every rank, before anything is reduced", function()
  checkerr("ERR_ARG", "the ranks gave different numbers of values",
    c.allreduce, c, me == 0 and { 1, 2 } or { 1 }, "sum")
  checkerr("ERR_ARG", "different numbers", c.allreduce, c,
    me == 0 and { 1, 2, 3, 4, 5, 6 } or { 1, 2, 3, 4, 5 }, "sum")
  checkerr("ERR_TYPE", me == 0 and "comm:allreduce: value: 2.5 has no integer representation; "
                                   .. "band takes integers" or "rank 0 could not take part",
    c.allreduce, c, me == 0 and 2.5 or 1, "band")
  checkerr("ERR_ARG", me == 1 and "value[2]: a number expected, got string"
                       or "rank 1 could not take part",
    c.allreduce, c, me == 1 and { 1, "x" } or { 1, 2 }, "sum")
  checkerr("ERR_ARG", "the ranks gave different numbers of values",
    c.allreduce, c, me == 0 and 1 or { 1, 2 }, "sum")
  local ops = "the ranks gave different ops"
  checkerr("ERR_OP", ops, c.allreduce, c, 1.5, me == 0 and "sum" or "max")
  checkerr("ERR_OP", ops, c.allreduce, c, 1, me == 0 and "sum" or "bor")
  checkerr("ERR_OP", "replace is not a reduction", c.allreduce, c, 1, "replace")
  checkerr("ERR_OP", "unknown op \"avg\"", c.allreduce, c, 1, "avg")
  checkerr("ERR_RANK", "comm:reduce: root -1 is not a rank", c.reduce, c, 1, "sum", -1)
  T.eq(c:allreduce(1, "sum"), n, "usable after")
end)

T.case("rooted collectives refuse different roots on every rank, and go on", function()
  local roots = "the ranks name roots 0 to " .. (n - 1) .. " (" .. me .. " here)"
  checkerr("ERR_RANK", "comm:bcast: " .. roots, c.bcast, c, { me }, me)
  checkerr("ERR_RANK", "comm:gather: " .. roots, c.gather, c, me, me)
  checkerr("ERR_RANK", "comm:scatter: " .. roots, c.scatter, c, {}, me)
  checkerr("ERR_RANK", "comm:reduce: " .. roots, c.reduce, c, 1, "sum", me)
  T.eq(c:bcast(me == 1 and "one" or nil, 1), "one", "nothing was left unmatched")
  T.eq(c:allreduce(1, "sum"), n, "usable after")
end)

-- An argument wrong on one rank only: that rank raises its own error, the
-- others an error of its class naming it, and the next collective meets
-- on every rank (nothing was left unmatched for it to take).
T.case("an argument wrong on one rank raises on every rank, and the next collective meets",
  function()
    local bad = n - 1
    local function one(class, call, mine, fn, ...)
      checkerr(class, me == bad and mine
                        or "comm:" .. call .. ": rank " .. bad .. " could not take part (" .. class,
        fn, ...)
      T.eq(c:bcast(me == 0 and "next" or nil), "next", call .. ": the next collective met")
    end
    local mine = me == bad
    one("ERR_ARG", "split", "color (an integer) expected, got string",
      c.split, c, mine and "red" or 0)
    one("ERR_ARG", "split", "comm:split: color and key are C ints",
      c.split, c, 0, mine and 1 << 40 or 0)
    one("ERR_ARG", "split", "key (an integer) expected, got a number with no integer",
      c.split, c, 0, mine and 0.5 or 0)
    for _, call in ipairs { "gather", "scatter", "bcast" } do
      one("ERR_RANK", call, "comm:" .. call .. ": root " .. n .. " is not a rank",
        c[call], c, call == "scatter" and {} or me, mine and n or 0)
    end
    one("ERR_RANK", "bcast", "root (an integer) expected, got string",
      c.bcast, c, me, mine and "x" or 0)
    one("ERR_RANK", "reduce", "comm:reduce: root -1 is not a rank",
      c.reduce, c, 1, "sum", mine and -1 or 0)
    one("ERR_OP", "allreduce", "unknown op \"summ\"",
      c.allreduce, c, 1, mine and "summ" or "sum")
    one("ERR_OP", "scan", "string expected, got number", c.scan, c, { 1, 2 }, mine and 3 or "sum")
    one("ERR_OP", "allreduce", "replace is not a reduction",
      c.allreduce, c, 1, mine and "replace" or "sum")
    local b = rl.buffer("double", 4)
    one("ERR_RANK", "bcast", "comm:bcast: root " .. n .. " is not a rank",
      c.bcast, c, b, mine and n or 0)
    one("ERR_RANK", "reduce", "comm:reduce: root " .. n .. " is not a rank",
      c.reduce, c, b, "sum", mine and n or 0)
    one("ERR_OP", "allreduce", "unknown op \"summ\"",
      c.allreduce, c, b, mine and "summ" or "sum")
    -- the buffer in flight on one rank: an irecv from rank 0, sent after
    local rq = mine and c:irecv(0, 9, b)
    local flight = "comm:%s: this buffer is the buffer of an irecv still in flight"
    one("ERR_RMA_SYNC", "bcast", flight:format("bcast"), c.bcast, c, b)
    one("ERR_RMA_SYNC", "allreduce", flight:format("allreduce"), c.allreduce, c, b, "max")
    if me == 0 then c:send(rl.buffer("double", { 1, 2, 3, 4 }), bad, 9) end
    if rq then T.eq(rq:wait() == b, true, "the irecv completes") end
    T.eq(c:bcast(mine and b or rl.buffer("double", 4), bad):totable(), { 1.0, 2.0, 3.0, 4.0 },
      "usable after")
    T.eq(c:allreduce(1, "sum"), n, "usable after")
  end)

T.case("reduce, scan and exscan", function()
  T.eq(c:reduce(me, "sum", n - 1), me == n - 1 and n * (n - 1) // 2 or nil)
  T.eq(c:reduce({ me, 1, 1, 1, 1, 1 }, "sum"), me == 0 and { n * (n - 1) // 2, n, n, n, n, n }
    or nil, "past the packet")
  T.eq(c:scan(me + 1, "sum"), (me + 1) * (me + 2) // 2)
  T.eq(c:exscan(me + 1, "sum"), me > 0 and me * (me + 1) // 2 or nil, "nil on rank 0")
  T.eq(c:scan({ 1, 2.5 }, "sum"), { me + 1.0, 2.5 * (me + 1) })
  T.eq(math.type(c:exscan(1, "max") or 0), "integer")
end)

T.case("split: by color, ordered by key", function()
  local sub <close> = c:split(me % 2, -me)
  local size = me % 2 == 0 and (n + 1) // 2 or n // 2
  T.eq(sub:size(), size)
  T.eq(sub:rank(), size - 1 - me // 2, "keys reverse the order")
  T.eq(sub:allreduce(1, "sum"), size, "a collective on it")
  T.eq(tostring(sub), ("rmalab.comm (split, rank %d of %d)"):format(sub:rank(), size))
  local one = c:split(me == 0 and 1 or nil)
  if me == 0 then T.eq(one:size(), 1); one:free() else T.eq(one, nil) end
  checkerr("ERR_ARG", "color (an integer) expected", c.split, c, "red")
end)

T.case("collectives order accesses for the race checker, in their direction", function()
  -- The directions are the same at 3 ranks, where 3 oversubscribed ranks
  -- make each window's creation slow.
  if n ~= 2 then T.skip("run at 2 ranks") return end
  -- A put from rank 0 to rank 1 completed at unlock, then `sync`, then rank
  -- 1 reads: a race unless the sync orders rank 0 before rank 1.
  local function races(sync)
    rl.races.clear()
    local win = rl.win_allocate(64, { disp_unit = 4, info = { rmalab_check = "races:quiet" } })
    if me == 0 then win:lock(1, "shared"); win:put(1, 0, "int32", 1); win:unlock(1) end
    sync()
    if me == 1 then win:read(0, "int32") end
    c:barrier()
    win:free()
    return rl.races.total()
  end
  T.eq(races(function() end), 1, "no sync: the checker sees the race")
  T.eq(races(function() c:bcast(1) end), 0, "bcast from 0")
  T.eq(races(function() c:bcast(1, 1) end), 1, "bcast from 1 orders nothing for 1")
  T.eq(races(function() c:allreduce(1, "sum") end), 0, "allreduce")
  T.eq(races(function() c:allreduce({ 1, 2, 3, 4, 5, 6 }, "max") end), 0, "allreduce, long")
  T.eq(races(function() c:reduce(1, "sum", 1) end), 0, "reduce to 1")
  T.eq(races(function() c:reduce(1, "sum", 0) end), 1, "reduce to 0")
  T.eq(races(function() c:scan(1, "sum") end), 0, "scan")
  T.eq(races(function() c:gather(1, 1) end), 0, "gather to 1")
  T.eq(races(function() c:gather(1, 0) end), 1, "gather to 0")
  T.eq(races(function() c:allgather(1) end), 0, "allgather")
  local parts = n == 2 and { 1, 2 } or { 1, 2, 3 }
  T.eq(races(function() c:scatter(parts) end), 0, "scatter from 0")
  T.eq(races(function() c:scatter(parts, 1) end), 1, "scatter from 1")
  T.eq(races(function() c:alltoall(n == 2 and { 1, 2 } or { 1, 2, 3 }) end), 0, "alltoall")
end)
