-- ranks: 2
-- An error about a value names the call, the argument and, for an array,
-- the element, then what was wrong and the value itself (issue 30):
-- `win:write(0, "int64", 2.5)` once said `value 1 is not an integer`, with
-- no call named and an element index for a value given alone. Every call
-- that converts values (win:write, put, accumulate, get_accumulate,
-- fetch_and_op, compare_and_swap, the request-based calls, rl.buffer,
-- b[i] = v, b:fill) says it the same way; the window stays usable.
local rl = require "rmalab"
local T = require "rmalab.test"
local checkerr = T.checkerr

local other = 1 - T.rank

T.case("a window's own memory: win:write", function()
  local w <close> = rl.win_allocate(64, { name = "vals" })
  checkerr("ERR_ARG", 'win:write: the value (argument 3) is not an integer (2.5); int64 needs '
    .. 'an integer [window "vals"]', w.write, w, 0, "int64", 2.5)
  checkerr("ERR_ARG", "win:write: element 2 of the values (argument 3) is not an integer (2.5)",
    w.write, w, 0, "int64", { 1, 2.5 })
  checkerr("ERR_ARG", 'win:write: element 1 of the values (argument 3) is a string ("7"); '
    .. "int32 needs an integer", w.write, w, 0, "int32", { "7" })
  checkerr("ERR_ARG", "win:write: element 1 of the values (argument 3) is a table; double windows hold numbers",
    w.write, w, 0, "double", { {} })
  checkerr("ERR_ARG", "win:write: element 3 of the values (argument 3) does not fit uint8 (256); "
    .. "uint8 holds 0 to 255", w.write, w, 0, "uint8", { 1, 2, 256 })
  w:write(0, "int64", 5)
  T.eq(w:read(0, "int64"), 5, "the window still works")
end)

T.case("RMA operations name themselves and their argument", function()
  local w <close> = rl.win_allocate(64, { name = "ops" })
  w:lock_all()
  checkerr("ERR_ARG", "win:put: element 2 of the values (argument 4) is not an integer (0.5)",
    w.put, w, other, 0, "int64", { 1, 0.5 })
  checkerr("ERR_ARG", "win:put: the value (argument 4) is nil; int64 needs", w.put, w, other, 0,
    "int64", nil)
  checkerr("ERR_ARG", "win:accumulate: the value (argument 4) is a boolean (true)",
    w.accumulate, w, other, 0, "int64", true, "sum")
  checkerr("ERR_ARG", "win:get_accumulate: element 1 of the values (argument 4) is not an "
    .. "integer (1.5)", w.get_accumulate, w, other, 0, "int64", { 1.5 }, "sum")
  checkerr("ERR_ARG", "win:fetch_and_op: the value (argument 4) is not an integer (1.5)",
    w.fetch_and_op, w, other, 0, "int64", 1.5, "sum")
  checkerr("ERR_ARG", "win:compare_and_swap: the compare value (argument 4) is not an integer "
    .. "(1.5)", w.compare_and_swap, w, other, 0, "int64", 1.5, 2)
  checkerr("ERR_ARG", "win:compare_and_swap: the value (argument 5) is not an integer (2.5)",
    w.compare_and_swap, w, other, 0, "int64", 1, 2.5)
  checkerr("ERR_ARG", "win:rput: element 2 of the values (argument 4) does not fit int8 (-200)",
    w.rput, w, other, 0, "int8", { 1, -200 })
  checkerr("ERR_ARG", "win:raccumulate: the value (argument 4) is a string (\"x\")",
    w.raccumulate, w, other, 0, "int64", "x", "sum")
  checkerr("ERR_ARG", "win:put: element 2 of the values (argument 4) is not an integer (0.5)",
    w.put, w, other, 0, rl.vector("int64", 2, 1, 2), { 1, 0.5 })
  checkerr("ERR_ARG", "win:fetch_and_op: the value (argument 4) is not an integer (0.5)",
    w.fetch_and_op, w, other, 0, "int64", 0.5, "sum", rl.buffer("int64", 1))
  w:put(other, 0, "int64", 40 + T.rank)
  w:unlock_all()
  rl.world:barrier()
  T.eq(w:read(0, "int64"), 40 + other, "the window still works")
end)

T.case("buffers: rl.buffer, b[i] = v, b:fill", function()
  checkerr("ERR_ARG", 'rl.buffer: element 2 of the values (argument 2) is a string ("2"); '
    .. "int32 needs an integer", rl.buffer, "int32", { 1, "2" })
  local b = rl.buffer("int8", 3)
  checkerr("ERR_ARG", "b[3]: the value is not an integer (0.5); int8 needs an integer",
    function() b[3] = 0.5 end)
  checkerr("ERR_ARG", "b:fill: the value (argument 1) does not fit int8 (128)", b.fill, b, 128)
  checkerr("ERR_ARG", 'b[1]: the value is a longer string ("ab"); byte buffers hold strings of '
    .. "one character", function() rl.buffer("byte", 1)[1] = "ab" end)
  T.eq(b:fill(3):totable(), { 3, 3, 3 }, "the buffer still works")
end)
