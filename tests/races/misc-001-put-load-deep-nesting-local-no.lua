-- ranks: 2
-- engines: native rma
-- env: RMALAB_CHECK=races:quiet
-- timeout: 120
-- RMARaceBench 1.2.0 MPIRMA/misc/001-MPI-misc-put-load-deep-nesting-local-no.c
-- In one fence epoch rank 0 puts its buffer `value` to rank 1 through nine
-- nested calls and then reads value: an origin is only read, no race, and
-- rmalab lets it be read in flight.
local rl = require "rmalab"
local T = require "rmalab.test"

-- rank 0's put, nine calls deep (the C case's deep() ... deeeeeeeeep()),
-- then its load of the origin buffer in rank0. No `return f()`: Lua's tail
-- calls would flatten the nesting.
local function deeeeeeeeep(buf, win, at) win:put(1, at(1, 0), "int32", buf) end
local function deeeeeeeep(buf, win, at) deeeeeeeeep(buf, win, at) end
local function deeeeeeep(buf, win, at) deeeeeeeep(buf, win, at) end
local function deeeeeep(buf, win, at) deeeeeeep(buf, win, at) end
local function deeeeep(buf, win, at) deeeeeep(buf, win, at) end
local function deeeep(buf, win, at) deeeeep(buf, win, at) end
local function deeep(buf, win, at) deeeep(buf, win, at) end
local function deep(buf, win, at) deeep(buf, win, at) end
local function rank0(buf, win, at)
  deep(buf, win, at)
  local _ = buf[1] -- printf("*buf is %d\n", *buf)
end

T.case("misc 001: a deeply nested put, then a load of its origin", function()
  T.races("no", { bytes = 40, disp_unit = 4 }, function(win, at)
    local value, value2 = rl.buffer("int32", { 1 }), rl.buffer("int32", { 2 }) -- int value = 1, value2 = 2
    win:write(at(T.rank, 0), "int32", { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }) -- win_base[i] = 0
    win:fence()
    if T.rank == 0 then
      rank0(value, win, at)
    end
    win:fence()
    rl.world:barrier()
    -- the final printf of value, value2 and win_base[0]
    local _ = { value[1], value2[1], win:read(at(T.rank, 0), "int32") }
  end)
end)
