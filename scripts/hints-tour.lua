-- A tour of info objects and hints, on every rank.
--   mpiexec -n 2 lua5.4 scripts/hints-tour.lua      (or: ./do start)
-- Rank 0 narrates; the agreement check at the end needs every rank.
-- ranks: 2
local rl = require "rmalab"
local rank, size = rl.world:rank(), rl.world:size()
local function say(...) if rank == 0 then print(...) end end

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

say("\n5. The hints report: requested, in effect, default, status.")
say(("     %-30s %-10s %-10s %-10s %s"):format("key", "requested", "effective", "default",
  "status"))
for _, r in ipairs(c:hints()) do
  say(("     %-30s %-10s %-10s %-10s %s"):format(r.key:sub(1, 30), r.requested or "-",
    r.effective or "-", r.default or "-", r.status))
end

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

say("\n7. The window hint catalogue (rmalab_pscw picks the PSCW engine):")
for _, h in ipairs(rl.hints.catalog("win")) do
  say(("     %-28s %-5s default %-14s %s"):format(h.key, h.type,
    (h.default or "-"):sub(1, 14), h.after_create and "" or "(creation only)"))
end
