-- rmalab.test: cases for multi-rank scenarios (docs/testing.md).
--
--   local T = require "rmalab.test"
--   T.case("exchange", function() ... T.eq(got, want, "what") ... end)
--   T.done()   -- only needed when the file runs by itself under mpiexec
--
-- Every rank runs the same file. A check that fails (T.eq, T.ok, T.raises)
-- is recorded and the case goes on, so that this rank still makes the
-- synchronisation calls its peers wait for; the case fails at its end. An
-- error raised in a case ends the case on that rank. T.skip(why) ends the
-- case as skipped.
--
-- T.races(expect, shape, body [, opts]) runs a race-checker case (issue 14,
-- tests/races/) many times on fresh checked windows of every flavour and
-- checks the checker's verdict each time: see its comment below.
--
-- Who hears the verdicts: `rmalab test` (the runner) installs a sink that
-- takes each event to the front end, which combines the ranks' verdicts.
-- Run by itself (lua5.4 or `rmalab file.lua` under mpiexec), each rank
-- prints its own failures and T.done() ends the process with its verdict.
-- The C loader passes the sink as this chunk's argument (nil when none).
local sink = ...
local rl = require "rmalab"

local T = { rank = rl.world:rank(), size = rl.world:size() }
local current            -- the case that runs: { name =, failures = {} }
local counts = { passed = 0, failed = 0, skipped = 0 }
local skip_mt = {}       -- T.skip's error value

-- "file:line" of the function `level` levels above the caller.
local function where(level)
  local info = debug.getinfo(level + 1, "Sl")
  if not info then return "?" end
  return info.currentline > 0 and (info.short_src .. ":" .. info.currentline) or info.short_src
end

local function is_error_object(e)
  local ok, cls = pcall(function() return e.class end)
  return ok and type(cls) == "string"
end

local function show(v, depth, seen)
  local t = type(v)
  if t == "string" then return string.format("%q", v):gsub("\\\n", "\\n") end
  if t ~= "table" or is_error_object(v) then return tostring(v) end
  local mt = getmetatable(v)
  if type(mt) == "table" and mt.__tostring then return tostring(v) end
  seen = seen or {}
  if seen[v] or (depth or 0) > 4 then return "{...}" end
  seen[v] = true
  local parts, n = {}, #v
  for i = 1, n do parts[#parts + 1] = show(v[i], (depth or 0) + 1, seen) end
  local keys = {}
  for k in pairs(v) do
    if not (math.type(k) == "integer" and k >= 1 and k <= n) then keys[#keys + 1] = k end
  end
  table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
  for _, k in ipairs(keys) do
    local name = type(k) == "string" and k:match("^[%a_][%w_]*$") and k
      or "[" .. show(k, 5, seen) .. "]"
    parts[#parts + 1] = name .. " = " .. show(v[k], (depth or 0) + 1, seen)
  end
  seen[v] = nil
  return "{" .. table.concat(parts, ", ") .. "}"
end

-- Deep equality: tables by their keys and values (metatables aside, unless
-- both sides share an __eq), with cycles followed once.
local function same(a, b, seen)
  if a == b then return true end
  if type(a) ~= "table" or type(b) ~= "table" then
    return a ~= a and b ~= b -- NaN equals NaN here
  end
  seen = seen or {}
  if seen[a] == b then return true end
  seen[a] = b
  for k, v in pairs(a) do
    if not same(v, rawget(b, k), seen) then return false end
  end
  for k in pairs(b) do
    if rawget(a, k) == nil then return false end
  end
  return true
end

-- A failed check: recorded in a case, raised outside one.
local function fail(msg, level)
  if not current then error(msg, level + 1) end
  current.failures[#current.failures + 1] = where(level + 1) .. ": " .. msg
end

function T.eq(got, want, what)
  if same(got, want) then return true end
  fail(string.format("%s: expected %s, got %s", what or "value", show(want), show(got)), 2)
  return false
end

function T.ok(v, what)
  if v then return true end
  fail(string.format("%s: expected a true value, got %s", what or "condition", show(v)), 2)
  return false
end

-- T.raises(class, fn [, text]): fn() must raise an rmalab error of `class`
-- (and, when given, whose message contains the plain `text`). Returns the
-- error that fn raised, whatever it was, or nil when fn returned.
local function raises(class, fn, text, level)
  local ok, err = pcall(fn)
  if ok then
    fail("expected an error of class " .. class .. ", but the call succeeded", level)
    return nil
  end
  if not is_error_object(err) then
    fail("expected an rmalab error of class " .. class .. ", got: " .. tostring(err), level)
  elseif err.class ~= class then
    fail(string.format("expected an error of class %s, got %s: %s", class, err.class,
      tostring(err.message)), level)
  elseif text and not tostring(err.message):find(text, 1, true) then
    fail(string.format("the message %s does not contain %s", show(tostring(err.message)),
      show(text)), level)
  end
  return err
end

function T.raises(class, fn, text)
  local err = raises(class, fn, text, 3) -- not a tail call: `level` counts this frame
  return err
end

-- T.checkerr(class, text, fn, ...): the same for fn(...).
function T.checkerr(class, text, fn, ...)
  local args = table.pack(...)
  local err = raises(class, function() return fn(table.unpack(args, 1, args.n)) end, text, 3)
  return err
end

function T.skip(why)
  if not current then error("T.skip is for use inside T.case", 2) end
  error(setmetatable({ why = tostring(why or "skipped") }, skip_mt), 0)
end

-- The message of an error raised in a case: the class and message of an
-- rmalab error, with the traceback down to the case's function.
local function handler(e)
  if getmetatable(e) == skip_mt then return e end
  local msg = is_error_object(e) and (e.class .. ": " .. tostring(e.message)) or tostring(e)
  local tb = debug.traceback(msg, 2)
  local cut = tb:find("\n%s*%[C%]: in function 'xpcall'")
  return cut and tb:sub(1, cut - 1) or tb
end

local function report(kind, name, verdict, detail)
  if sink then sink(kind, name, verdict, detail) end
end

-- Standalone: this rank's verdict on stderr, failures in full.
local function tell(name, verdict, detail)
  if sink or verdict == "pass" then return end
  io.stderr:write(string.format("rank %d: %s %s%s\n", T.rank,
    verdict == "fail" and "FAIL" or "SKIP", name, detail ~= "" and (": " .. detail) or ""))
end

function T.case(name, fn)
  if type(name) ~= "string" or type(fn) ~= "function" then
    error("T.case(name, fn): a string and a function expected", 2)
  end
  if current then error("T.case inside the case \"" .. current.name .. "\"", 2) end
  current = { name = name, failures = {} }
  report("case", name)
  local ok, err = xpcall(fn, handler)
  local failures = current.failures
  current = nil
  local verdict, detail = "pass", ""
  if not ok and getmetatable(err) ~= skip_mt then failures[#failures + 1] = err end
  if #failures > 0 then
    verdict, detail = "fail", table.concat(failures, "\n")
  elseif not ok then
    verdict, detail = "skip", err.why
  end
  local key = verdict == "pass" and "passed" or verdict == "fail" and "failed" or "skipped"
  counts[key] = counts[key] + 1
  report("end", name, verdict, detail)
  tell(name, verdict, detail)
  return verdict == "pass"
end

-- What a case is running now (its name), or nil.
function T.current() return current and current.name end

-- T.races(expect, shape, body [, opts]): a case of the race checker
-- (tests/races/, RMARaceBench's cases).
--   expect  "yes": the checker must find a race in every run; "no": never
--   shape   { bytes = 40, disp_unit = 4, windows = 1 }: each window's size in
--           bytes on every rank, its disp_unit, and 1 or 2 windows
--   body    function(win, at [, win2, at2]), run by every rank
--   opts    { reps = n, delay = seconds, flavours = {...} }
-- Runs body `reps` times (20 for "yes", 5 for "no"; RMALAB_RACES_REPS="y,n"
-- sets both where opts.reps does not). Each run:
--   * forgets this rank's reports (rl.races.clear) and creates fresh windows
--     of the flavour picked by the run number, in turn: allocate, create,
--     allocate_shared, dynamic (allocate_shared is left out when the ranks
--     are not on one node: RMALAB_TEST_NODES or MPIR_CVAR_NOLOCAL=1). The
--     windows ask for the checker with the hint rmalab_check =
--     $RMALAB_CHECK or "races:quiet", so it is on without the variable;
--   * at(rank, i): the displacement of element i on `rank`, to pass to the
--     RMA calls and to win:read/win:write. It is i for the first three
--     flavours (the windows have shape.disp_unit). A dynamic window has one
--     region of shape.bytes attached per rank and its displacements are
--     addresses (disp_unit 1): at(rank, i) is the address `rank` attached
--     plus i * shape.disp_unit. The addresses are exchanged through a small
--     unchecked window and two fences before the body;
--   * random delays of up to `delay` seconds (0.002 by default) before
--     every call on a checked window and every barrier, from a generator
--     seeded by the run number and the rank (rl.races.jitter): seed
--     100 * run + rank. Jitter is off again once the body returns;
--   * a world barrier after the body, the windows' free (dynamic: detach
--     first), which is the checker's last, collective check, then
--     rl.races.total() (collective): the races found on all ranks.
-- Checks T.eq(found, expect == "yes") per run, naming the run, the
-- flavour and the seed, where found is total > 0, or for a case whose race
-- is on the origin's own buffer (T.racy below) a refusal at the racy access;
-- on a mismatch rank 0's failure also carries rl.races.text(), what the
-- checker found or "no races found". An error raised by the body ends the
-- case on that rank (its peers then wait: the runner diagnoses it), so a
-- buffer refused anywhere else (ERR_RMA_SYNC) fails the case.
-- opts.needs = "rput": a window method the case needs; without it (a build
-- before request-based RMA) the case is skipped (T.skip) with that reason.
--
-- T.racy(fn), inside the body: fn is the racy access of a case whose race is
-- on the origin's own buffer (RMARaceBench's local cases, class C in
-- tests/races/README.md), such as a store to a put's origin buffer while the
-- put is in flight. The buffer rule must refuse it: fn() raises
-- ERR_RMA_SYNC (docs/lua.md, Buffers), and that refusal is the race found.
-- A run in which any rank called T.racy is found when every such call was
-- refused, and then the checker must have reported nothing (the window's
-- memory does not race); fn() returning is a miss, and any other error
-- ends the case. A "no" case must not call it.
local race_flavours = { "allocate", "create", "allocate_shared", "dynamic" }
local race_ctors = { allocate = "win_allocate", create = "win_create",
                     allocate_shared = "win_allocate_shared" }

local function ranks_apart()
  local nodes = os.getenv("RMALAB_TEST_NODES")
  return (nodes ~= nil and nodes ~= "") or os.getenv("MPIR_CVAR_NOLOCAL") == "1"
end

-- Every rank's attached address of each window: addrs[w][rank].
local function exchange_addresses(mine)
  local n = #mine
  local x = rl.win_allocate(8 * n, { disp_unit = 8, name = "T.races addresses",
                                     info = { rmalab_check = "off" } })
  x:write(0, "int64", mine)
  x:fence()
  local got = {}
  for r = 0, T.size - 1 do
    if r ~= T.rank then got[r] = x:get(r, 0, "int64", n) end
  end
  x:fence()
  local addrs = {}
  for w = 1, n do addrs[w] = {} end
  for r = 0, T.size - 1 do
    local v = r == T.rank and mine or got[r]:values()
    for w = 1, n do addrs[w][r] = v[w] end
  end
  x:free()
  return addrs
end

-- The run of T.races under way: how many T.racy calls it made and how many
-- were refused, and the first refusal's message.
local racy

function T.racy(fn)
  if not racy then error("T.racy is for use inside a T.races body", 2) end
  if racy.expect ~= "yes" then error('T.racy marks the racy access of a "yes" case', 2) end
  racy.tried = racy.tried + 1
  local ok, err = pcall(fn)
  if ok then return nil end
  if not (is_error_object(err) and err.class == "ERR_RMA_SYNC") then error(err, 0) end
  racy.refused = racy.refused + 1
  racy.text = racy.text or tostring(err.message)
  return err
end

-- The windows of one run of T.races, or the reason to skip the case.
local function race_windows(nwin, flavour, bytes, unit, mode, what, needs)
  local wins, attached, ats = {}, {}, {}
  for w = 1, nwin do
    local name = w == 1 and "win" or "win" .. w
    local info = { rmalab_check = mode }
    local win, diags
    if flavour == "dynamic" then
      win, diags = rl.win_create_dynamic({ name = name, info = info })
      attached[w] = win:attach(bytes)
    else
      win, diags = rl[race_ctors[flavour]](bytes, { disp_unit = unit, name = name, info = info })
    end
    wins[w] = win
    for _, d in ipairs(diags or {}) do
      fail(string.format("%s: window %s: hint %s: %s", what, name, tostring(d.key),
        tostring(d.message)), 3)
    end
  end
  if needs and wins[1][needs] == nil then
    for w = 1, nwin do
      if attached[w] then wins[w]:detach(attached[w]) end
      wins[w]:free()
    end
    return nil, "needs win:" .. needs .. ", which this build does not have yet"
  end
  if flavour == "dynamic" then
    local addrs = exchange_addresses(attached)
    for w = 1, nwin do
      local base = addrs[w]
      ats[w] = function(rank, i) return base[rank] + i * unit end
    end
  else
    for w = 1, nwin do ats[w] = function(_, i) return i end end
  end
  return wins, attached, ats
end

-- After a run: found, and what failed besides (or nil). Collective.
local function race_verdict(total)
  local n = rl.world:allreduce({ racy.tried, racy.refused }, "sum")
  if n[1] == 0 then return total > 0 end
  local why
  if n[2] < n[1] then
    why = string.format("%d of %d racy accesses (T.racy) were not refused", n[1] - n[2], n[1])
  elseif total > 0 then
    why = "the racy accesses were refused, but the checker also reported a race on the window"
  end
  return n[2] == n[1] and total == 0, why
end

-- The runs of a case without opts.reps: RMALAB_RACES_REPS "y,n", else 20
-- and 5. A value that is not two counts of at least 1 is an error, not a
-- silent 20 and 5.
local function default_reps(expect)
  local env = os.getenv("RMALAB_RACES_REPS")
  if env == nil then return expect == "yes" and 20 or 5 end
  local y, n = env:match("^(%d+),(%d+)$")
  y, n = tonumber(y), tonumber(n)
  if not y or y < 1 or n < 1 then
    error(("RMALAB_RACES_REPS is %q: it must be two counts of at least 1, "
      .. "for racy and race-free cases, as in \"8,4\""):format(env), 0)
  end
  return expect == "yes" and y or n
end

local function keep_error(e)
  if is_error_object(e) then return e end
  return debug.traceback(tostring(e), 2)
end

function T.races(expect, shape, body, opts)
  if expect ~= "yes" and expect ~= "no" then
    error('T.races: expect must be "yes" or "no"', 2)
  end
  if type(shape) ~= "table" or type(body) ~= "function" then
    error("T.races(expect, shape, body [, opts]): a table and a function expected", 2)
  end
  if not current then error("T.races is for use inside T.case", 2) end
  opts = opts or {}
  local bytes = shape.bytes or 40
  local unit = shape.disp_unit or 1
  local nwin = shape.windows or 1
  if nwin ~= 1 and nwin ~= 2 then error("T.races: shape.windows must be 1 or 2", 2) end
  local reps = opts.reps or default_reps(expect)
  local delay = opts.delay or 0.002
  local env = os.getenv("RMALAB_CHECK")
  local mode = (env ~= nil and env ~= "") and env or "races:quiet"
  local flavours = {}
  for _, f in ipairs(opts.flavours or race_flavours) do
    if not (f == "allocate_shared" and ranks_apart()) then flavours[#flavours + 1] = f end
  end
  local want = expect == "yes"

  for run = 1, reps do
    local flavour = flavours[(run - 1) % #flavours + 1]
    local seed = 100 * run + T.rank
    -- The same text on every rank, so that the runner folds their failures.
    local what = string.format("run %d of %d (%s windows, jitter seed %d + rank): race found",
      run, reps, flavour, 100 * run)
    rl.races.clear()
    local wins, attached, ats = race_windows(nwin, flavour, bytes, unit, mode, what, opts.needs)
    if not wins then T.skip(attached) end

    racy = { expect = expect, tried = 0, refused = 0 }
    rl.races.jitter(delay, seed)
    local ok, err = xpcall(body, keep_error, wins[1], ats[1], wins[2], ats[2])
    rl.races.jitter(0)
    if not ok then racy = nil; error(err, 0) end

    rl.world:barrier()
    for w = 1, nwin do
      if attached[w] then wins[w]:detach(attached[w]) end
      wins[w]:free()
    end
    local total = rl.races.total()
    local found, why = race_verdict(total)
    local refusal = racy.text
    racy = nil
    if found ~= want or why then
      local text = rl.races.text() -- collective: total is the same on every rank
      local m = string.format("%s: expected %s, got %s (%d races)", what, tostring(want),
        tostring(found), total)
      if why then m = m .. "; " .. why end
      if refusal then m = m .. "; refused: " .. refusal end
      if text then m = m .. "; the checker says:\n" .. text end
      fail(m, 2)
    end
  end
end

-- The end of a scenario. Under the runner it returns the counts (the
-- runner checks for leaks itself, once the file has returned). By itself,
-- it checks that nothing leaked, prints this rank's counts and ends the
-- process: status 0 when nothing failed, so that mpiexec fails otherwise.
function T.done()
  if sink then return counts.passed, counts.failed, counts.skipped end
  collectgarbage(); collectgarbage()
  local s = rl.debug.stats()
  T.case("nothing leaked", function()
    for _, k in ipairs { "wins", "infos", "comms", "keyvals", "refs" } do
      T.eq(s[k], 0, "live " .. k)
    end
  end)
  io.stdout:write(string.format("rank %d: %d passed, %d failed, %d skipped\n", T.rank,
    counts.passed, counts.failed, counts.skipped))
  io.stdout:flush()
  os.exit(counts.failed == 0, true)
end

T.show, T.same = show, same
return T
