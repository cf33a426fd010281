-- Window hints: what you ask for against what is in effect. hints-tour.lua
-- covers info objects and communicator hints; this lab takes windows: the
-- report (requested, effective, default, status), hints the implementation
-- ignores, rmalab's own rmalab_* keys, a hint as a promise that is then
-- enforced, set_info after creation, and invalid values.
--   build/repl/rmalab -n 2 scripts/hints-lab.lua
-- ranks: 2
-- timeout: 30
-- Rank 0 narrates; every rank makes the same (collective) window calls.
local rl = require "rmalab"
local lab = dofile(debug.getinfo(1, "S").source:match("^@(.-)[^/]*$") .. "lib/lab.lua")
if not lab.ranks(2) then return end
local me = rl.world:rank()
local say = lab.say
-- `text` in lines of at most 76 characters: the first after `indent`, the
-- others two spaces further in.
local function wrap(indent, text)
  local lines, line, start = {}, indent, indent
  for word in text:gmatch("%S+") do
    if #line + #word > 76 and line ~= start then
      lines[#lines + 1] = line
      start = indent .. "  "
      line = start
    end
    line = line .. (line == start and "" or " ") .. word
  end
  lines[#lines + 1] = line
  return table.concat(lines, "\n")
end
-- The hints report's rows for `keys`. A value wider than its column is
-- shown in full below the row.
local function table_of(win, keys)
  local widths = { 10, 10, 15 }
  say(("     %-27s %-10s %-10s %-15s %s"):format("key", "requested", "effective", "default",
    "status"))
  local want = {}
  for _, k in ipairs(keys) do want[k] = true end
  for _, h in ipairs(win:hints()) do
    if want[h.key] then
      local cells, below = { h.requested or "-", h.effective or "-", h.default or "-" }, {}
      for i, name in ipairs{ "requested", "effective", "default" } do
        if #cells[i] > widths[i] then
          below[#below + 1] = wrap("       ", name .. ": " .. cells[i])
          cells[i] = "(below)"
        end
      end
      say(("     %-27s %-10s %-10s %-15s %s"):format(h.key, cells[1], cells[2], cells[3], h.status))
      for _, b in ipairs(below) do say(b) end
      if h.note then say(wrap("       ", "note: " .. h.note)) end
    end
  end
end

-- Windows are freed explicitly. (A <close> would do too: an error that
-- leaves its scope lets the window go without the collective free, which
-- the other ranks might never reach, docs/lua.md.)
say("1. A window asks for six hints at creation, one of them misspelt. The")
say("   constructor returns the window and its diagnostics:")
local win, diags = rl.win_allocate(64, { disp_unit = 8, name = "hinted", info = {
  accumulate_ops = "same_op", perf_preference = "lat", mpi_accumulate_granularity = 8,
  no_lock = true, rmalab_pscw = "native", accumulate_max_bytes = 64 } })
for _, d in ipairs(diags) do say("     ! " .. d.message) end

say("\n2. The report: \"applied\" took effect, \"ignored\" did not (the note says")
say("   why), \"default\" was not asked for, \"implementation\" was not asked for")
say("   but the implementation says something about it:")
table_of(win, { "accumulate_ops", "perf_preference", "mpi_accumulate_granularity", "no_lock",
  "rmalab_pscw", "accumulate_max_bytes", "no_locks", "alloc_shm", "rmalab_pscw_defect" })
say("   The misspelt no_lock reached MPICH, which keeps no unknown keys.")

say("\n3. get_info() is what the window reports back: every key, asked for or")
say(("   not (%d here). rmalab adds its own rmalab_* keys, which describe rather"):format(
  win:get_info():nkeys()))
say("   than request: the engine, and on native the known defect:")
for k, v in pairs(win:get_info()) do
  if k:find("^rmalab_") then say(wrap("     ", ("%s = %s"):format(k, v))) end
end
local rma = rl.win_allocate(8, { disp_unit = 8 })
say("   and on a window of the default rma engine, the paths it chose:")
for k, v in pairs(rma:get_info()) do
  if k:find("^rmalab_") then say(("     %s = %s"):format(k, v)) end
end
rma:free()

say("\n4. A hint is a promise. With no_locks = true a rank promises that no")
say("   passive-target lock targets its window, and rmalab holds you to it:")
local nl = rl.win_allocate(8, { disp_unit = 8, info = { no_locks = true } })
local _, err = pcall(nl.lock, nl, 1 - me)
say("     win:lock -> " .. tostring(err))
rl.world:barrier()
nl:free()

say("\n5. set_info after creation: hints MPICH reads again take effect; hints")
say("   read only at creation are refused with a diagnostic and keep their value:")
local d2 = win:set_info{ accumulate_ordering = "none", mpi_accumulate_granularity = 16,
  rmalab_pscw = "rma" }
for _, d in ipairs(d2) do say("     ! " .. d.message) end
table_of(win, { "accumulate_ordering", "mpi_accumulate_granularity", "rmalab_pscw" })

say("\n6. Invalid values never reach MPICH (MPICH 4.0.2 aborts or crashes on")
say("   some): each is a diagnostic, and the window gets the default instead.")
say("   rl.hints.check validates without creating anything:")
for _, h in ipairs{ { rmalab_pscw = "fast" }, { no_locks = "maybe" },
  { accumulate_ordering = "rar,zap" }, { accumulate_max_bytes = -3 } } do
  for _, d in ipairs(rl.hints.check("win", h)) do say("     ! " .. d.message) end
end
local w3, d3 = rl.win_allocate(8, { disp_unit = 8, info = { rmalab_pscw = "fast" } })
say(("   A window asked for rmalab_pscw = \"fast\": %d diagnostic, engine %s."):format(#d3,
  w3:get_info():get("rmalab_pscw")))
w3:free()
say("   What is not a value at all is an error, with its MPI error class:")
for _, info in ipairs{ { [string.rep("k", 300)] = "1" }, { no_locks = 0.5 } } do
  local ok3, e = pcall(rl.win_allocate, 8, { info = info })
  if ok3 then e:free() end
  say("     " .. tostring(e))
end
win:free()
