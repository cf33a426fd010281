-- A tour of info objects and hints, on every rank.
--   build/repl/rmalab -n 2 scripts/hints-tour.lua
-- ranks: 2
-- timeout: 30
-- Rank 0 narrates; the agreement check at the end needs every rank.
local rl = require "rmalab"
local lab = dofile(debug.getinfo(1, "S").source:match("^@(.-)[^/]*$") .. "lib/lab.lua")
if not lab.ranks(2) then return end
local rank, size = rl.world:rank(), rl.world:size()
local say = lab.say

-- Keys only MPICH reads (its catalogue entry says "MPICH: ..."): MPICH's
-- own tuning, not part of the standard's lesson.
local function mpich_only(scope)
  local set = {}
  for _, h in ipairs(rl.hints.catalog(scope)) do
    if (h.doc or ""):find("^MPICH:") then set[h.key] = true end
  end
  return set
end
-- A key longer than its column goes on a line of its own, the row below it.
local function row(width, key, rest)
  if #key <= width then return ("     %-" .. width .. "s %s"):format(key, rest) end
  return ("     %s\n     %-" .. width .. "s %s"):format(key, "", rest)
end

say(("rmalab %s on %d ranks\n"):format(rl.version, size))

say("1. An info object keeps the order keys were set in, and overriding a")
say("   key keeps its place:")
local info = rl.info()
info:set("accumulate_ordering", "rar,raw")
info:set("no_locks", "true")
info:set("accumulate_ordering", "none")
for k, v in pairs(info) do say(("     %-22s = %s"):format(k, v)) end

say("\n2. The standard's limits are checked, with the MPI error class:")
for _, try in ipairs{
  function() info:set(string.rep("k", 256), "v") end,
  function() info:delete("no_such_key") end,
  function() info:set("x", "a\0b") end,
} do
  local _, err = pcall(try)
  say(("     %s"):format(tostring(err)))
end

say("\n3. Typed reading follows the standard's representations:")
local typed = rl.info{ flag = " true ", count = "+42", ops = "sum, max ,min", bad = "maybe" }
say(("     get_bool(\"flag\") = %s, get_int(\"count\") = %d, get_list(\"ops\") = {%s}"):format(
  tostring(typed:get_bool("flag")), typed:get_int("count"),
  table.concat(typed:get_list("ops"), ", ")))
local _, err = pcall(typed.get_bool, typed, "bad")
say("     " .. tostring(err))

say("\n4. Hints are validated before MPICH sees them. A communicator made with")
say("   a typo and a malformed boolean:")
local c <close>, diags = rl.world:dup{ mpi_assert_no_any_tag = true,
  mpi_assert_no_any_sorce = true, mpi_assert_exact_length = "maybe" }
for _, d in ipairs(diags) do say("     ! " .. d.message) end

say("\n5. The hints report: requested, in effect, default, status, for the")
say("   standard's keys and every key asked for:")
local mpich, left_out = mpich_only("comm"), {}
local function cols(a, b, c2, d) return ("%-10s %-10s %-10s %s"):format(a, b, c2, d) end
say(row(30, "key", cols("requested", "effective", "default", "status")))
for _, r in ipairs(c:hints()) do
  if mpich[r.key] and not r.requested then left_out[#left_out + 1] = r.key
  else
    say(row(30, r.key, cols(r.requested or "-", r.effective or "-", r.default or "-", r.status)))
  end
end
say(("   (c:hints() also lists %d keys MPICH reads for its own tuning, not the"):format(#left_out))
say("   standard's: the NICs and virtual communication interfaces it uses.)")

say("\n6. Keys that must agree across ranks are checked collectively. Here")
say("   rank 0 asks for strict persistent collective ordering and the others")
say("   do not:")
local odd <close> = rl.world:dup{
  mpi_assert_strict_persistent_collective_ordering = rank == 0 and "true" or "false" }
for _, d in ipairs(odd:check_hints()) do
  local parts = {}
  for r = 0, size - 1 do parts[#parts + 1] = ("rank %d: %s"):format(r, d.values[r]) end
  say(("     %s differs (%s)"):format(d.key, table.concat(parts, ", ")))
end

say("\n7. The window hint catalogue, the standard's keys and rmalab's own")
say("   (rmalab_pscw picks the PSCW engine):")
local mpich_win, theirs = mpich_only("win"), {}
for _, h in ipairs(rl.hints.catalog("win")) do
  if mpich_win[h.key] then theirs[#theirs + 1] = h.key
  else
    say((row(26, h.key, ("%-5s default %-15s %s"):format(h.type, h.default or "-",
      h.after_create and "" or "(creation only)")):gsub("%s+$", "")))
  end
end
say("   and MPICH's own, which other implementations ignore (hints-lab.lua")
say("   tries two): " .. table.concat(theirs, ", ", 1, 3) .. ",")
say("   " .. table.concat(theirs, ", ", 4) .. ".")
