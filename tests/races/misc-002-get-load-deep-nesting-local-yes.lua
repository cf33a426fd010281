-- ranks: 2
-- engines: native rma
-- env: RMALAB_CHECK=races:quiet
-- timeout: 120
-- RMARaceBench 1.2.0 MPIRMA/misc/002-MPI-misc-get-load-deep-nesting-local-yes.c
-- In one fence epoch rank 0 gets into its buffer `value` through nine nested
-- calls and then reads value before the fence: a race on the result buffer.
-- The nesting hides nothing from the buffer rule, which refuses the load
-- (ERR_RMA_SYNC).
local rl = require "rmalab"
local T = require "rmalab.test"

-- rank 0's get into its buffer, nine calls deep (the C case's deep() ...
-- deeeeeeeeep()), then its load of that buffer in rank0. No `return f()`:
-- Lua's tail calls would flatten the nesting.
local function deeeeeeeeep(buf, win, at) win:get(1, at(1, 0), "int32", buf) end
local function deeeeeeeep(buf, win, at) deeeeeeeeep(buf, win, at) end
local function deeeeeeep(buf, win, at) deeeeeeeep(buf, win, at) end
local function deeeeeep(buf, win, at) deeeeeeep(buf, win, at) end
local function deeeeep(buf, win, at) deeeeeep(buf, win, at) end
local function deeeep(buf, win, at) deeeeep(buf, win, at) end
local function deeep(buf, win, at) deeeep(buf, win, at) end
local function deep(buf, win, at) deeep(buf, win, at) end
local function rank0(buf, win, at)
  deep(buf, win, at)
  T.racy(function() return buf[1] end) -- printf("*buf is %d\n", *buf)
end

T.case("misc 002: a deeply nested get, then a load of its result", function()
  T.races("yes", { bytes = 40, disp_unit = 4 }, function(win, at)
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
