-- Attributes as window metadata: what MPI itself caches on a window (the
-- predefined WIN_BASE, WIN_SIZE, WIN_DISP_UNIT, WIN_CREATE_FLAVOR,
-- WIN_MODEL), and your own: a keyval with copy and delete callbacks,
-- set/get/delete, what the callbacks see, and what happens at free.
--   build/repl/rmalab -n 2 scripts/attributes.lua
-- ranks: 2
-- timeout: 30
-- Rank 0 narrates. Attributes are local to a rank: every rank makes the same
-- calls (windows are collective) and rank 0 shows its own.
local rl = require "rmalab"
local lab = dofile(debug.getinfo(1, "S").source:match("^@(.-)[^/]*$") .. "lib/lab.lua")
if not lab.ranks(2) then return end
local say = lab.say

-- Windows are freed explicitly. (A <close> would do too: an error that
-- leaves its scope lets the window go without the collective free, which
-- the other ranks might never reach, docs/lua.md.)
say("1. Every window carries predefined attributes. One window of each flavour")
say("   (100 bytes, disp_unit 4; a dynamic window has no memory of its own, and")
say("   its displacements are addresses, so its disp_unit is 1):")
say(("     %-16s %-6s %-10s %-11s %-8s %s"):format("flavour", "size", "disp_unit", "base", "model",
  "base aligned to 16"))
for _, make in ipairs{
  function() return rl.win_allocate(100, { disp_unit = 4 }) end,
  function() return rl.win_create(100, { disp_unit = 4 }) end,
  function() return rl.win_allocate_shared(100, { disp_unit = 4 }) end,
  function() return rl.win_create_dynamic() end,
} do
  local w = make()
  local base = w:get_attr(rl.WIN_BASE)
  say(("     %-16s %-6d %-10d %-11s %-8s %s"):format(w:get_attr(rl.WIN_CREATE_FLAVOR),
    w:get_attr(rl.WIN_SIZE), w:get_attr(rl.WIN_DISP_UNIT), base == 0 and "0" or "an address",
    w:get_attr(rl.WIN_MODEL), base == 0 and "-" or tostring(base % 16 == 0)))
  w:free()
end
say("   The base differs from run to run, so it is not printed. \"unified\" means")
say("   the public and private copies of the window are the same memory.")

say("\n2. Your own attribute: a keyval, then any Lua value set on a window.")
say("   Here a table describing the window's role, which code that is handed")
say("   only the window can find again:")
local events, copies = {}, 0
local function log(s) events[#events + 1] = s end
local kv = rl.keyval{
  extra = "role",
  copy = function(oldwin, k, extra, value) copies = copies + 1; return true, value end,
  delete = function(w, k, value, extra)
    log(("delete(%s %q, extra %q)"):format(type(value), type(value) == "table" and value.role
      or tostring(value), extra))
  end,
}
local function describe(w)          -- knows nothing but the window
  local meta, found = w:get_attr(kv)
  if not found then return "no role set" end
  return ("role %q, ghost width %d"):format(meta.role, meta.ghosts)
end
local win = rl.win_allocate(64, { disp_unit = 8, name = "halo" })
say("     before set_attr:   " .. describe(win) .. "   (get_attr returned nil, false)")
win:set_attr(kv, { role = "halo ghosts", ghosts = 1 })
say("     after set_attr:    " .. describe(win))

say("\n3. Setting it again replaces the value, and the delete callback runs on")
say("   the old one first; delete_attr runs it too:")
win:set_attr(kv, { role = "stencil", ghosts = 2 })
say("     after replacing:   " .. describe(win) .. "; callbacks: " .. table.concat(events, ", "))
events = {}
win:delete_attr(kv)
say("     after delete_attr: " .. describe(win) .. "; callbacks: " .. table.concat(events, ", "))

say("\n4. Freeing a window deletes every attribute it still holds, the last set")
say("   first. Three more keyvals, then the role again:")
events = {}
local kvs = {}
for i, name in ipairs{ "first", "second", "third" } do
  kvs[i] = rl.keyval{ extra = name, delete = function(w, k, value, extra) log(extra) end }
  win:set_attr(kvs[i], i)
end
win:set_attr(kv, { role = "again", ghosts = 0 })
kvs[2]:free()
say("     (keyval \"second\" is freed before the window: its attribute lives on)")
win:free()
say("     win:free() ran delete for: " .. table.concat(events, ", "))
local _, err = pcall(win.get_attr, win, kv)
say("     get_attr afterwards: " .. tostring(err))

say(("\n5. Calls to the copy callback so far: %d. MPI copies attributes when an"):format(copies))
say("   object is duplicated, and windows cannot be (there is no MPI_Win_dup): a")
say("   keyval for windows takes one for symmetry with communicators.")

say("\n6. An error inside a callback is reported by the call that ran it, and")
say("   the attribute is gone all the same:")
local bad = rl.keyval{ delete = function() error("the delete callback refuses") end }
local w2 = rl.win_allocate(8, { disp_unit = 8, name = "strict" })
w2:set_attr(bad, "x")
_, err = pcall(w2.delete_attr, w2, bad)
say("     delete_attr: " .. tostring(err):gsub("\n.*", ""))
say("     still set afterwards: " .. tostring(select(2, w2:get_attr(bad))))
w2:free()
for _, k in ipairs{ kv, kvs[1], kvs[3], bad } do k:free() end
