-- A small test harness for rmalab's Lua scenarios, in the manner of Lua's
-- own testes/: every rank runs the same tests in the same order; each check
-- names what it expected; errors are asserted by class and message. At the
-- end, done() checks that nothing leaked and exits non-zero on failure, so
-- mpiexec fails when any rank does.
local rl = require "rmalab"

local T = { rank = rl.world:rank(), size = rl.world:size() }
local failed, passed = 0, 0

local function fmt(v)
  if type(v) == "string" then return string.format("%q", v) end
  return tostring(v)
end

function T.test(name, fn)
  local ok, err = xpcall(fn, debug.traceback)
  if ok then
    passed = passed + 1
  else
    failed = failed + 1
    io.stderr:write(string.format("rank %d: FAIL %s: %s\n", T.rank, name, tostring(err)))
  end
end

function T.eq(got, want, what)
  if got ~= want then
    error(string.format("%s: expected %s, got %s", what or "value", fmt(want), fmt(got)), 2)
  end
end

function T.ok(cond, what)
  if not cond then error((what or "condition") .. " is false", 2) end
end

-- Deep comparison of arrays/tables of plain values.
function T.same(got, want, what)
  local function same(a, b)
    if type(a) ~= "table" or type(b) ~= "table" then return a == b end
    for k, v in pairs(a) do if not same(v, b[k]) then return false end end
    for k in pairs(b) do if a[k] == nil then return false end end
    return true
  end
  if not same(got, want) then
    local function dump(t)
      if type(t) ~= "table" then return fmt(t) end
      local parts = {}
      for k, v in pairs(t) do parts[#parts + 1] = tostring(k) .. "=" .. dump(v) end
      table.sort(parts)
      return "{" .. table.concat(parts, ", ") .. "}"
    end
    error(string.format("%s: expected %s, got %s", what or "table", dump(want), dump(got)), 2)
  end
end

-- Call fn(...) and require an rmalab error object of `class` whose message
-- contains `pattern` (plain text). Returns the error object.
function T.checkerr(class, pattern, fn, ...)
  local ok, err = pcall(fn, ...)
  if ok then error("expected an error of class " .. class .. ", but the call succeeded", 2) end
  if type(err) ~= "table" then
    error("expected an error object of class " .. class .. ", got: " .. tostring(err), 2)
  end
  if err.class ~= class then
    error(string.format("expected class %s, got %s (%s)", class, tostring(err.class),
      tostring(err.message)), 2)
  end
  if type(err.message) ~= "string" or (pattern and not err.message:find(pattern, 1, true)) then
    error(string.format("message %s does not contain %s", fmt(err.message), fmt(pattern)), 2)
  end
  T.ok(tostring(err):find(class, 1, true), "tostring(err) names the class")
  return err
end

-- Find the row for `key` in an array of { key = ... } tables.
function T.row(rows, key)
  for _, r in ipairs(rows) do if r.key == key then return r end end
  return nil
end

function T.done()
  collectgarbage(); collectgarbage()
  local s = rl.debug.stats()
  T.test("nothing leaked", function()
    T.eq(s.infos, 0, "live info objects")
    T.eq(s.comms, 0, "live communicators")
    T.eq(s.wins, 0, "live windows")
    T.eq(s.keyvals, 0, "live keyvals")
    T.eq(s.refs, 0, "registry references")
  end)
  io.stdout:write(string.format("rank %d: %d passed, %d failed\n", T.rank, passed, failed))
  io.stdout:flush()
  os.exit(failed == 0, true)
end

return T
