-- What the Lua scenarios in tests/lua/ share beyond rmalab.test: the
-- messages of error objects, the rows of reports, polling win:test(). It
-- is no scenario, and `rmalab test tests/lua` takes every *.lua there for
-- one (docs/testing.md), so it lives here. A scenario loads it by its own
-- path, as the runner, lua5.4 under mpiexec and ./do asan all name it
-- (mpiexec starts the ranks in the folder it was started in):
--   local S = dofile(debug.getinfo(1, "S").source:match("^@(.-)[^/]*$") .. "../lib/scenario.lua")
-- The checks of errors themselves are rmalab.test's: T.checkerr, T.raises.
-- A scenario for two ranks opens with
--   local rank, other = S.pair()
local rl = require "rmalab"
local T = require "rmalab.test"
local S = {}

-- The scenario that calls this runs on 2 ranks: stops it with an error
-- naming its file on any other number, else returns this rank and the other.
function S.pair()
  local file = debug.getinfo(2, "S").short_src:match("[^/]*$")
  if T.size ~= 2 then error(file .. " runs on 2 ranks", 2) end
  return T.rank, 1 - T.rank
end

-- The message of an error object ("" for anything else).
function S.msg(err) return type(err) == "table" and err.message or "" end

-- The message of err contains every plain string given.
function S.has(err, ...)
  local m = S.msg(err)
  for i = 1, select("#", ...) do
    local s = select(i, ...)
    T.ok(m:find(s, 1, true), string.format("message %q contains %q", m, s))
  end
end

-- The row for `key` in an array of { key = ... } tables.
function S.row(rows, key)
  for _, r in ipairs(rows) do if r.key == key then return r end end
  return nil
end

-- Poll win:test() until it returns true; returns the number of calls (or
-- nil after 20 s).
function S.poll(w)
  local n, deadline = 0, rl.wtime() + 20
  repeat
    n = n + 1
    if w:test() then return n end
  until rl.wtime() > deadline
  return nil
end

return S
