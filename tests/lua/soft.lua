-- Soft checks for multi-rank scenarios. A check that fails inside S.test is
-- recorded and the scenario goes on, so every rank keeps making the same
-- collective calls (fence, free, ...) and no rank is left waiting for one
-- that gave up; at the end of the test every recorded failure is raised at
-- once. The checks are the harness's: S.eq, S.ok, S.same, S.checkerr.
-- RMALAB_TEST_TRACE=1 in the environment prints each test's name as it
-- starts, to find where a hang happens.
local T = require "harness"

local S = { rank = T.rank, size = T.size, row = T.row, done = T.done }
local pending

local function soft(check)
  return function(...)
    if not pending then return check(...) end -- outside S.test: hard
    local ok, res = pcall(check, ...)
    if ok then return res end
    local where = debug.getinfo(2, "Sl")
    pending[#pending + 1] = string.format("%s:%d: %s", where.short_src, where.currentline,
      tostring(res))
    return nil
  end
end

S.eq, S.ok, S.same, S.checkerr = soft(T.eq), soft(T.ok), soft(T.same), soft(T.checkerr)

-- S.test(name, fn): T.test with soft checks inside fn.
local trace = os.getenv("RMALAB_TEST_TRACE")

function S.test(name, fn)
  if trace then io.stderr:write(string.format("rank %d: %s\n", S.rank, name)) end
  T.test(name, function()
    pending = {}
    local ok, err = xpcall(fn, debug.traceback)
    local failures = pending
    pending = nil
    if not ok then failures[#failures + 1] = tostring(err) end
    if #failures > 0 then error(table.concat(failures, "\n"), 0) end
  end)
end

-- Messages of an error object, for checks that want several substrings.
function S.msg(err) return type(err) == "table" and err.message or "" end

-- S.has(err, ...): the message of err contains every plain string given.
function S.has(err, ...)
  local m = S.msg(err)
  for i = 1, select("#", ...) do
    local s = select(i, ...)
    S.ok(m:find(s, 1, true), string.format("message %q contains %q", m, s))
  end
end

return S
