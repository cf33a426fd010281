-- ranks: 2
-- engines: native rma
-- env: RMALAB_CHECK=races:quiet
-- timeout: 120
-- RMARaceBench 1.2.0 MPIRMA/misc/010-MPI-misc-get-store-deep-nesting-remote-yes.c
-- In one fence epoch rank 0 gets rank 1's element 0 through nine nested
-- calls, and rank 1 stores to it: a race. The nesting, meant to defeat
-- static analysis, changes nothing for a checker that sees every call.
local rl = require "rmalab"
local T = require "rmalab.test"

-- rank 0's get, nine calls deep (the C case's deep() ... deeeeeeeeep()).
-- No `return f()`: Lua's tail calls would flatten the nesting.
local function deeeeeeeeep(win, at) win:get(1, at(1, 0), "int32") end
local function deeeeeeeep(win, at) deeeeeeeeep(win, at) end
local function deeeeeeep(win, at) deeeeeeeep(win, at) end
local function deeeeeep(win, at) deeeeeeep(win, at) end
local function deeeeep(win, at) deeeeeep(win, at) end
local function deeeep(win, at) deeeeep(win, at) end
local function deeep(win, at) deeeep(win, at) end
local function deep(win, at) deeep(win, at) end
local function rank0(win, at) deep(win, at) end

T.case("misc 010: a deeply nested get and a store", function()
  T.races("yes", { bytes = 40, disp_unit = 4 }, function(win, at)
    win:write(at(T.rank, 0), "int32", { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }) -- win_base[i] = 0
    win:fence()
    if T.rank == 0 then
      rank0(win, at)
    else
      win:write(at(1, 0), "int32", 42)
    end
    win:fence()
    rl.world:barrier()
    win:read(at(T.rank, 0), "int32") -- the final printf of win_base[0]
  end)
end)
