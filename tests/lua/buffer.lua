-- ranks: 2
-- engines: native rma
-- Typed buffers and layouts (issue 27), on 2 ranks: rl.buffer of every
-- type, element conversion and its errors, views (b:sub) and what keeps
-- what alive; buffers as the origin and result of put, get, accumulate and
-- get_accumulate, used in place, on windows of both sized flavours;
-- buffers in flight refused until the call that completes them, in every
-- kind of epoch, and kept alive by the window meanwhile; rl.vector as the
-- target layout, data and footprint checked, and the race checker seeing
-- its blocks; fetch_and_op and compare_and_swap on buffers; win:local_view
-- and win:shared_query, their use after the window is freed, and the race
-- checker seeing loads and stores through them. Checks are
-- soft (rmalab.test), so every rank makes the same collective calls.
local rl = require "rmalab"
local T = require "rmalab.test"
local checkerr = T.checkerr
local function get(b, i) return b[i] end
local function set(b, i, v) b[i] = v end

assert(T.size == 2, "buffer.lua runs on 2 ranks")
local rank = T.rank
local other = 1 - rank
local NOLOCAL = os.getenv("MPIR_CVAR_NOLOCAL") == "1" or os.getenv("RMALAB_TEST_NODES") == "each"
local FLAVOURS = { allocate = rl.win_allocate, create = rl.win_create }
local ORDER = { "allocate", "create" } -- pairs() order differs between processes

T.case("buffers: creation, elements, conversion", function()
  local b = rl.buffer("double", 4)
  T.eq(#b, 4, "#b")
  T.eq(b.type, "double", "b.type")
  T.eq(b:totable(), { 0.0, 0.0, 0.0, 0.0 }, "zeroed")
  b[2] = 2.5; b[4] = 7
  T.eq(math.type(b[4]), "float", "a double holds floats")
  T.eq(b:totable(), { 0.0, 2.5, 0.0, 7.0 }, "set and read back")
  T.eq(b[2.0], 2.5, "an integral float indexes")
  T.eq(tostring(b), "rmalab.buffer (double, 4 elements)", "tostring")
  local i = rl.buffer("int16", { 1, -2, 32767 })
  T.eq(i:totable(), { 1, -2, 32767 }, "from an array")
  T.eq(math.type(i[1]), "integer", "integers stay integers")
  T.eq(i:totable(2), { -2, 32767 }, "totable(i)")
  T.eq(i:totable(2, 2), { -2 }, "totable(i, j)")
  T.eq(i:totable(3, 2), {}, "an empty range")
  T.eq(rl.buffer("uint64", { -1 })[1], -1, "uint64 round-trips its 64 bits")
  local s = rl.buffer("byte", "abc")
  T.eq(#s, 3, "byte buffer from a string")
  T.eq(s[2], "b", "bytes are one-character strings")
  s[2] = "z"
  T.eq(s:totable(), "azc", "totable of bytes is a string")
  T.eq(rl.buffer("float", 0):totable(), {}, "an empty buffer")
  T.eq(rl.buffer("int8", 3):fill(-5):totable(), { -5, -5, -5 }, "fill returns the buffer")
end)

T.case("buffers: errors", function()
  local b = rl.buffer("int8", 4)
  checkerr("ERR_ARG", "buffer index 5 is outside 1..4", get, b, 5)
  checkerr("ERR_ARG", "buffer index 0 is outside 1..4", set, b, 0, 1)
  checkerr("ERR_ARG", "buffer index -1 is outside 1..4", get, b, -1)
  checkerr("ERR_ARG", "not an integer", get, b, 1.5)
  checkerr("ERR_ARG", "buffer index is boolean", set, b, true, 1)
  checkerr("ERR_ARG", 'b.lenght: a buffer has no field "lenght"; its elements are b[1] to b[4]',
    get, b, "lenght")
  checkerr("ERR_ARG", "b[2]: the value does not fit int8 (300); int8 holds -128 to 127", set, b, 2, 300)
  checkerr("ERR_ARG", "b[3]: the value is not an integer (0.5); int8 needs an integer", set, b, 3, 0.5)
  checkerr("ERR_ARG", "b[1]: the value is a string (\"x\"); double buffers hold numbers", set,
    rl.buffer("double", 1), 1, "x")
  checkerr("ERR_ARG", "b[1]: the value does not fit float (1e+300)", set, rl.buffer("float", 1), 1,
    1e300)
  checkerr("ERR_ARG", "byte buffers hold strings of one character", set, rl.buffer("byte", 1),
    1, "xy")
  checkerr("ERR_ARG", "rl.buffer: element 2 of the values (argument 2) is a string", rl.buffer, "int32", { 1, "2" })
  checkerr("ERR_ARG", "b:fill: the value (argument 1) does not fit uint8 (-1)", b.fill, rl.buffer("uint8", 2), -1)
  checkerr("ERR_TYPE", "", rl.buffer, "complex", 4)
  checkerr("ERR_ARG", "a buffer holds 0 to", rl.buffer, "double", -1)
  checkerr("ERR_ARG", "element count or array", rl.buffer, "double", "4")
  checkerr("ERR_ARG", "not a range", b.totable, b, 2, 5)
  checkerr("ERR_ARG", "not a range", b.sub, b, 0, 2)
  checkerr("ERR_ARG", "not a range", b.sub, b, 3, 5)
  checkerr("ERR_ARG", "buffer expected", b.fill, {}, 1)
  checkerr("ERR_ARG", "buffer index is string", set, b, "2", 1)
  checkerr("ERR_ARG", 'a buffer has no field "2"', get, b, "2") -- a string is no index
  -- The element metamethods trust their first argument but through the
  -- debug library, and then refuse other objects without touching them.
  T.eq(getmetatable(b), "rmalab.buffer", "getmetatable hides the metamethods")
  local mt = debug.getmetatable(b)
  for _, foreign in ipairs({ io.stdout, rl.world, rl.vector("int32", 1, 1, 1), {}, 1 }) do
    checkerr("ERR_ARG", "buffer expected", mt.__index, foreign, 1)
    checkerr("ERR_ARG", "buffer expected", mt.__newindex, foreign, 1, 0)
  end
  T.eq(b:totable(), { 0, 0, 0, 0 }, "the buffer is untouched")
  checkerr("ERR_ARG", "a vector is count >= 0", rl.vector, "double", 2, 3, 2)
  checkerr("ERR_ARG", "a vector is count >= 0", rl.vector, "double", -1, 1, 1)
  checkerr("ERR_ARG", "a vector is count >= 0", rl.vector, "double", 2, 0, 1)
  checkerr("ERR_TYPE", "", rl.vector, "quad", 2, 1, 1)
  local v = rl.vector("int32", 3, 2, 5)
  T.eq({ #v, v.type, v.count, v.blocklen, v.stride }, { 6, "int32", 3, 2, 5 }, "vector fields")
  T.eq(tostring(v), "rmalab.vector (int32, 3 blocks of 2, stride 5)", "vector tostring")
end)

T.case("views share memory and keep their base alive", function()
  local weak = setmetatable({}, { __mode = "v" })
  local v
  do
    local b = rl.buffer("int32", { 1, 2, 3, 4, 5 })
    weak[1] = b
    v = b:sub(2, 4)
    b[3] = 30
  end
  collectgarbage(); collectgarbage()
  T.ok(weak[1] ~= nil, "the base lives while its view does")
  T.eq(v:totable(), { 2, 30, 4 }, "the view sees the base's memory")
  v[1] = 20
  T.eq(weak[1][2], 20, "and the base sees the view's writes")
  local vv = v:sub(2)
  T.eq({ #vv, vv[1], vv[2] }, { 2, 30, 4 }, "a view of a view")
  T.eq(#v:sub(2, 1), 0, "an empty view")
  T.ok(tostring(v):find("a view", 1, true), "tostring says view")
  checkerr("ERR_ARG", "buffer index 4 is outside 1..3", get, v, 4)
end)

-- Every rank's window: 16 doubles, disp_unit 8, zeroed.
local function window(flavour)
  return FLAVOURS[flavour](16 * 8, { disp_unit = 8, name = "buffers " .. flavour })
end

for _, flavour in ipairs(ORDER) do
  T.case("put, get, accumulate from buffers in place: " .. flavour, function()
    local w <close> = window(flavour)
    local b = rl.buffer("double", { 1.5, 2.5, 3.5 })
    w:fence()
    w:put(other, 2, "double", b)
    w:fence()
    T.eq(w:read(2, "double", 3), { 1.5, 2.5, 3.5 }, "put from a buffer")
    local r = rl.buffer("double", 3)
    w:fence()
    local got = w:get(other, 2, "double", r)
    T.ok(rawequal(got, r), "get returns the buffer it fills")
    w:fence()
    T.eq(r:totable(), { 1.5, 2.5, 3.5 }, "get into a buffer")
    w:accumulate(other, 2, "double", b:sub(1, 2), "sum")
    w:fence()
    T.eq(w:read(2, "double", 3), { 3.0, 5.0, 3.5 }, "accumulate from a view")
    local res = w:get_accumulate(other, 2, "double", rl.buffer("double", { 1, 1, 1 }), "sum",
      rl.buffer("double", 3))
    w:fence()
    T.eq(res:totable(), { 3.0, 5.0, 3.5 }, "get_accumulate into a buffer")
    T.eq(w:read(2, "double", 3), { 4.0, 6.0, 4.5 }, "and its sum landed")
    local res2 = w:get_accumulate(other, 2, "double", rl.buffer("double", { 0, 0 }), "no_op")
    w:fence()
    T.eq(res2:totable(), { 4.0, 6.0 }, "get_accumulate makes its result buffer")
    -- errors, each leaving the window usable
    checkerr("ERR_TYPE", "the buffer (argument 4) holds int32 and the operation moves double",
      w.put, w, other, 0, "double", rl.buffer("int32", 2))
    checkerr("ERR_TYPE", "holds float", w.get, w, other, 0, "double", rl.buffer("float", 2))
    checkerr("ERR_RMA_RANGE", "", w.put, w, other, 14, "double", b)
    checkerr("ERR_RMA_RANGE", "", w.get, w, other, 15, "double", r)
    checkerr("ERR_OP", "", w.accumulate, w, other, 0, "double", b, "band")
    checkerr("ERR_RANK", "", w.put, w, 7, 0, "double", b)
    checkerr("ERR_ARG", "overlaps the origin", w.get_accumulate, w, other, 0, "double",
      b:sub(1, 2), "sum", b:sub(2, 3))
    checkerr("ERR_ARG", "they must agree", w.get_accumulate, w, other, 0, "double", b, "sum",
      rl.buffer("double", 2))
    w:fence("nosucceed")
    checkerr("ERR_RMA_SYNC", "need an access epoch", w.put, w, other, 0, "double", b)
    T.eq(b[1], 1.5, "a refused buffer is not in flight")
    b[1] = 9
    w:fence()
    w:put(other, 0, "double", b)
    w:fence()
    T.eq(w:read(0, "double"), 9.0, "the window works after the errors")
  end)
end

-- The message of an element write refused while b is the origin of a put.
local function refused_write(b, i, what, by)
  checkerr("ERR_RMA_SYNC", "buffer element " .. i .. " cannot be written: this buffer is " ..
    what .. " still in flight; it completes at " .. by, set, b, i, 0)
end

T.case("buffers in flight: passive target", function()
  local w <close> = window("allocate")
  local b = rl.buffer("double", { 1, 2, 3, 4 })
  local r = rl.buffer("double", 4)
  w:lock(other, "shared")
  w:put(other, 0, "double", b:sub(1, 2))
  local put = "the origin of a put to rank " .. other
  local by = "unlock(" .. other .. ") or flush(" .. other .. ")"
  refused_write(b, 1, put, by)
  refused_write(b:sub(2, 3), 1, put, by)
  T.eq(b[1], 1.0, "an origin in flight may be read")
  b[3] = 30
  T.eq(b[3], 30.0, "elements outside the operation are free")
  checkerr("ERR_RMA_SYNC", "b:fill: this buffer is " .. put, b.fill, b, 0)
  checkerr("ERR_RMA_SYNC", "win:get: this buffer is " .. put, w.get, w, other, 0, "double",
    b:sub(2, 3))
  w:put(other, 4, "double", b:sub(1, 2)) -- two reads of one origin may overlap
  w:get(other, 8, "double", r)
  local getr = "the result of a get from rank " .. other
  checkerr("ERR_RMA_SYNC", "buffer element 1 cannot be read: this buffer is " .. getr, get, r, 1)
  checkerr("ERR_RMA_SYNC", "cannot be written: this buffer is " .. getr, set, r, 4, 1)
  checkerr("ERR_RMA_SYNC", "b:totable: this buffer is " .. getr, r.totable, r)
  checkerr("ERR_RMA_SYNC", "win:put: this buffer is " .. getr, w.put, w, other, 0, "double", r)
  T.ok(tostring(r):find("in flight", 1, true), "tostring says in flight")
  w:flush(other)
  b[1] = 10
  T.eq(r:totable(), { 0.0, 0.0, 0.0, 0.0 }, "flush completes a get")
  w:get(other, 0, "double", r)
  w:unlock(other)
  T.eq(r:totable(), { 1.0, 2.0, 0.0, 0.0 }, "unlock completes a get")
  w:lock_all()
  w:put(other, 0, "double", b)
  refused_write(b, 4, "the origin of a put to rank " .. other,
    "unlock_all() or flush(" .. other .. ")")
  w:flush_local(other)
  b[4] = 40
  w:accumulate(other, 0, "double", b, "sum")
  refused_write(b, 2, "the origin of an accumulate to rank " .. other,
    "unlock_all() or flush(" .. other .. ")")
  w:flush_all()
  b[2] = 20
  w:unlock_all()
  rl.world:barrier()
end)

T.case("buffers in flight: fence and PSCW", function()
  local b = rl.buffer("int64", 2)
  local iw <close> = rl.win_allocate(64, { disp_unit = 8 })
  iw:fence()
  iw:put(other, 0, "int64", b)
  refused_write(b, 1, "the origin of a put to rank " .. other, "the next fence()")
  iw:fence()
  b[1] = 5
  iw:post({ other }); iw:start({ other })
  iw:get(other, 0, "int64", b)
  -- MPI's rule, whichever engine: the rma engine on one node gets by a
  -- plain copy, done within the call, and the buffer still waits for complete()
  checkerr("ERR_RMA_SYNC", "it completes at complete()", get, b, 2)
  iw:complete(); iw:wait()
  T.eq(b:totable(), { 0, 0 }, "complete completes a get")
  iw:fence()
end)

T.case("the window keeps buffers in flight alive", function()
  local w <close> = window("allocate")
  local weak = setmetatable({}, { __mode = "v" })
  w:lock(other, "shared")
  do
    local b = rl.buffer("double", 4):fill(rank + 0.5)
    weak.put = b
    w:put(other, 0, "double", b)
    weak.get = w:get(other, 8, "double", rl.buffer("double", 4))
    weak.view = w:get(other, 4, "double", rl.buffer("double", 8):sub(3, 6))
  end
  collectgarbage(); collectgarbage()
  T.ok(weak.put and weak.get and weak.view, "buffers in flight are not collected")
  w:unlock(other)
  collectgarbage(); collectgarbage()
  T.eq({ weak.put, weak.get, weak.view }, {}, "and are let go once they complete")
  rl.world:barrier()
  T.eq(w:read(0, "double", 4), { other + 0.5, other + 0.5, other + 0.5, other + 0.5 },
    "what the collected buffer put")
end)

for _, flavour in ipairs(ORDER) do
  T.case("vectors shape the target: " .. flavour, function()
    local w <close> = window(flavour)
    local col = rl.vector("double", 4, 1, 4)  -- a column of a 4x4 matrix
    local b = rl.buffer("double", { 1, 2, 3, 4 })
    w:fence()
    w:put(other, 1, col, b)
    w:fence()
    T.eq(w:read(0, "double", 16), { 0.0, 1.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 3.0, 0.0, 0.0,
      0.0, 4.0, 0.0, 0.0 }, "a strided put lands in column 2 only")
    local blocks = rl.vector("double", 3, 2, 5)
    w:put(other, 0, blocks, { 10, 11, 12, 13, 14, 15 }) -- values work too
    w:fence()
    local got = w:read(0, "double", 16)
    T.eq({ got[1], got[2], got[3], got[6], got[7], got[8], got[11], got[12], got[13] },
      { 10.0, 11.0, 0.0, 12.0, 13.0, 0.0, 14.0, 15.0, 0.0 }, "blocks of 2, stride 5")
    local r = w:get(other, 1, col)
    w:fence()
    T.eq(r:totable(), { 11.0, 12.0, 3.0, 4.0 }, "a strided get returns a buffer")
    w:accumulate(other, 1, col, b, "sum")
    w:fence()
    T.eq(w:get(other, 1, col, rl.buffer("double", 4)) ~= nil, true, "get into a buffer")
    w:fence()
    local col2 = w:read(0, "double", 16)
    T.eq({ col2[2], col2[6], col2[10], col2[14] }, { 12.0, 14.0, 6.0, 8.0 }, "strided sum")
    local ga = w:get_accumulate(other, 1, col, b, "replace")
    w:fence()
    T.eq(ga:totable(), { 12.0, 14.0, 6.0, 8.0 }, "strided get_accumulate")
    -- the whole footprint is range-checked: 4 elements that span 13
    checkerr("ERR_RMA_RANGE", "", w.put, w, other, 4, col, b)
    checkerr("ERR_RMA_RANGE", "", w.get, w, other, 4, col)
    checkerr("ERR_ARG", "the vector holds 4 elements", w.put, w, other, 0, col,
      rl.buffer("double", 3))
    checkerr("ERR_TYPE", "holds int32", w.put, w, other, 0, col, rl.buffer("int32", 4))
    w:fence()
  end)
end

T.case("the race checker sees a vector's blocks, not its bounding range", function()
  local w <close> = rl.win_allocate(16 * 8, { disp_unit = 8, info = { rmalab_check = "races" } })
  local col = rl.vector("double", 4, 1, 4)
  w:fence()
  if rank == 0 then w:put(1, 1, col, rl.buffer("double", 4)) end
  if rank == 1 then w:write(6, "double", 1.0) end -- between two blocks: no race
  w:fence()
  if rank == 0 then w:put(1, 1, col, rl.buffer("double", 4)) end
  if rank == 1 then w:write(5, "double", 1.0) end -- in the second block: a race
  local ok, err = pcall(w.fence, w)
  if rank == 1 then
    T.ok(not ok and err.class == "ERR_RMA_CONFLICT" and err.message:find("bytes 40-47", 1, true),
      "the race on element 5 is found: " .. tostring(err))
  end
end)

T.case("a vector's blocks are exact when its stride is no whole number of units", function()
  -- int32 blocks 12 bytes apart on a window of 8-byte units: bytes 8-11,
  -- 20-23, 32-35 and 44-47 from disp 1
  local w <close> = rl.win_allocate(16 * 8, { disp_unit = 8, info = { rmalab_check = "races" } })
  local col = rl.vector("int32", 4, 1, 3)
  w:fence()
  if rank == 0 then w:put(1, 1, col, rl.buffer("int32", 4)) end
  if rank == 1 then w:write(2, "int32", 1) end -- bytes 16-19, between two blocks: no race
  w:fence()
  if rank == 0 then w:put(1, 1, col, rl.buffer("int32", 4)) end
  if rank == 1 then w:write(4, "int32", 1) end -- bytes 32-35, the third block: a race
  local ok, err = pcall(w.fence, w)
  if rank == 1 then
    T.ok(not ok and err.class == "ERR_RMA_CONFLICT" and err.message:find("bytes 32-35", 1, true),
      "the race on bytes 32-35 is found: " .. tostring(err))
  end
end)

T.case("local views and shared_query", function()
  local weak = setmetatable({}, { __mode = "v" })
  local w = rl.win_allocate(32, { disp_unit = 4 })
  local v = w:local_view("int32")
  T.eq(#v, 8, "elements: window bytes / type size")
  v[2] = 100 + rank
  T.eq(w:read(1, "int32"), 100 + rank, "a store through the view is in the window")
  w:fence()
  w:put(other, 3, "int32", 7 + rank)
  w:fence()
  T.eq(v[4], 7 + other, "a put by the other rank shows in the view")
  weak[1] = w
  w = nil -- luacheck: ignore 311 (dropped: only the view holds the window now)
  collectgarbage(); collectgarbage()
  T.ok(weak[1] ~= nil, "a view keeps its window alive")
  w = weak[1]
  local sub = v:sub(2, 3)
  w:free()
  checkerr("ERR_WIN", "views the memory of a window that was freed", get, v, 1)
  checkerr("ERR_WIN", "window that was freed", set, sub, 1, 1)
  checkerr("ERR_WIN", "window that was freed", v.totable, v)
  T.ok(tostring(v):find("freed window", 1, true), "tostring says so")
  local w2 <close> = rl.win_allocate(16)
  checkerr("ERR_WIN", "window that was freed", w2.put, w2, other, 0, "int32", v)
  checkerr("ERR_WIN", "only win_allocate_shared windows share memory", w2.shared_query, w2,
    other, "double")
  local d <close> = rl.win_create_dynamic()
  checkerr("ERR_WIN", "dynamic window has no memory", d.local_view, d, "int8")
  local s <close> = rl.win_allocate_shared(8 * (rank + 1))
  checkerr("ERR_RANK", "", s.shared_query, s, 2, "double")
  local mine = s:shared_query(rank, "double")
  T.eq(#mine, rank + 1, "my own segment, at the size I asked")
  mine[1] = 0.25 + rank
  s:fence()
  if NOLOCAL then
    checkerr("ERR_RANK", "is on another node", s.shared_query, s, other, "double")
  else
    local theirs = s:shared_query(other, "double")
    T.eq(#theirs, other + 1, "the other rank's segment, at its size")
    T.eq(theirs[1], 0.25 + other, "the other rank's memory, directly")
  end
  s:fence()
end)

T.case("fetch_and_op and compare_and_swap on buffers", function()
  local w <close> = rl.win_allocate(16, { disp_unit = 4 })
  w:write(0, "int32", { 5, 7 })
  w:fence()
  local o, r, c, v = rl.buffer("int32", { 3 }), rl.buffer("int32", 1), rl.buffer("int32", { 7 }),
    rl.buffer("int32", { 9 })
  local r2
  if rank == 0 then
    T.eq(w:fetch_and_op(1, 0, "int32", o, "sum", r), r, "the result buffer is returned")
    checkerr("ERR_RMA_SYNC", "the origin of a fetch_and_op to rank 1", set, o, 1, 4)
    checkerr("ERR_RMA_SYNC", "the result of a fetch_and_op from rank 1", get, r, 1)
    T.eq(o[1], 3, "the origin may be read in flight")
    r2 = w:compare_and_swap(1, 1, "int32", c, v)
    checkerr("ERR_RMA_SYNC", "compare_and_swap to rank 1", set, c, 1, 4)
    checkerr("ERR_ARG", "exactly one", w.fetch_and_op, w, 1, 0, "int32", rl.buffer("int32", 2),
      "sum")
    checkerr("ERR_ARG", "an operand too", w.compare_and_swap, w, 1, 0, "int32", 1, v, v)
    checkerr("ERR_TYPE", "holds int64", w.fetch_and_op, w, 1, 0, "int32", rl.buffer("int64", 1),
      "sum")
  end
  w:fence()
  if rank == 0 then
    T.eq({ r[1], r2[1] }, { 5, 7 }, "what they fetched")
  end
  T.eq(w:read(0, "int32", 2), rank == 1 and { 8, 9 } or { 5, 7 }, "what they left")
end)

T.case("the race checker sees loads and stores through views", function()
  local function run(store_at, shared)
    rl.races.clear()
    local ctor = shared and rl.win_allocate_shared or rl.win_allocate
    local w = ctor(32, { disp_unit = 4, info = { rmalab_check = "races:quiet" } })
    local mine = w:local_view("int8")
    w:fence()
    if rank == 0 and not shared then w:put(1, 1, "int32", 1) end -- bytes 4-7
    if rank == 0 and shared then w:shared_query(1, "int8")[store_at] = 1 end
    if rank == 1 then mine[store_at] = 2 end
    w:fence()
    local _ = mine:totable() -- after the fence: ordered
    w:free()
    return rl.races.total()
  end
  T.eq(run(6), 1, "a store to byte 5 during a put to bytes 4-7")
  T.eq(run(9), 0, "byte 8 is outside the put")
  if not NOLOCAL then
    T.ok(run(6, true) > 0, "two ranks' stores to one byte of a shared segment race")
  end
  rl.races.clear()
  local w <close> = rl.win_allocate(16, { info = { rmalab_check = "off" } })
  T.ok(not tostring(w:local_view("int32")):find("in flight"), "unchecked: nothing to record")
end)

T.case("buffers as values: gathered, scattered, inside messages, refused when unreadable", function()
  local c, me = rl.world, T.rank
  local peer = 1 - me
  local g = c:allgather(rl.buffer("int32", { me, me + 10 }))
  T.eq({ g[1].type, g[1]:totable(), g[2]:totable() }, { "int32", { 0, 10 }, { 1, 11 } })
  local t = c:gather({ b = rl.buffer("double", { 1.5 * me }), n = me }, 0)
  if me == 0 then T.eq({ t[2].b.type, t[2].b[1], t[2].n }, { "double", 1.5, 1 }) end
  local s = c:scatter(me == 0 and { rl.buffer("int8", { 1 }), rl.buffer("int8", { 2, 3 }) } or nil, 0)
  T.eq(s:totable(), me == 0 and { 1 } or { 2, 3 }, "scatter")
  local a = c:alltoall { rl.buffer("uint16", { me }), rl.buffer("uint16", { me, me }) }
  T.eq({ #a[1], #a[2], a[peer + 1][1] }, { me + 1, me + 1, peer }, "alltoall")
  c:send({ rl.buffer("int64", 0), x = rl.buffer("float", { 0.5 }) }, peer, 3)
  local v = c:recv(peer, 3)
  T.eq({ #v[1], v[1].type, v.x.type, v.x[1] }, { 0, "int64", "float", 0.5 }, "inside a message")
  local w = rl.win_allocate(64, {})
  local gone = w:local_view("int64")
  w:free()
  checkerr("ERR_WIN", "comm:send: value.x: it cannot be sent: this buffer views the memory of a "
    .. "window that was freed", c.send, c, { x = gone }, peer, 4)
  local w2 <close> = rl.win_allocate(64, { disp_unit = 8 })
  local b = rl.buffer("int64", 2)
  w2:lock_all()
  local rq = w2:rget(peer, 0, "int64", b)
  checkerr("ERR_RMA_SYNC", "comm:isend: value[1]: it cannot be sent: this buffer is the result of "
    .. "a rget from rank " .. peer .. " still in flight", c.isend, c, { b }, peer, 5)
  rq:wait()
  w2:unlock_all()
  c:send({ b }, peer, 5)
  T.eq(c:recv(peer, 5)[1]:totable(), { 0, 0 }, "readable once its get completed")
end)

T.done()
