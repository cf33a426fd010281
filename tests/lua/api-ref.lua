-- ranks: 2
-- docs/api.md stays whole (issue 30): every name the module exports is
-- documented there or in the api-*.md pages it links (api-objects.md,
-- api-tools.md), and every name documented there exists. The names are
-- found at run time, not from a list: the module's table and its
-- sub-tables (rl.trace, rl.hints...), and the methods of one object of
-- each type (debug.getmetatable(obj).__index, or the method table a function
-- __index keeps as its upvalue): windows of the four flavours, rl.world and
-- a communicator made from it, an info object, a keyval, a get's result, a
-- request of each kind, a buffer and a view, a vector, an error object, and
-- the scenario module. Fields that cannot be listed (b.type, v.count) are
-- looked up on the object instead. The documented names are the code spans
-- that start the reference's `###` headings (`win:put(...)`, `rl.version`),
-- and every entry must carry an example ("e.g."); every error class of
-- core/include/rmalab/error.h has a row in its table. Names beginning with `_`
-- are the module's own (trace.lua's helpers) and are left out.
local rl = require "rmalab"
local T = require "rmalab.test"

local REF = "docs/api.md" -- rmalab test runs from the source tree

-- The reference's pages: docs/api.md and each docs/api-*.md it links.
local function pages()
  local f = assert(io.open(REF, "r"), REF .. " cannot be read")
  local text = f:read("a")
  f:close()
  local list, seen = { REF }, {}
  for name in text:gmatch("%]%((api%-[%w%-]+%.md)[)#]") do
    if not seen[name] then
      seen[name] = true
      list[#list + 1] = "docs/" .. name
    end
  end
  return list
end

-- The reference's names: { ["win:put"] = "page:line" }, and the entries
-- without an example, added to names and no_example.
local function documented(path, names, no_example)
  local f = assert(io.open(path, "r"), path .. " cannot be read")
  local entry, n = nil, 0
  local function close_entry()
    if entry and not entry.example then no_example[#no_example + 1] = entry.title end
  end
  for line in f:lines() do
    n = n + 1
    if line:match("^#") then
      close_entry()
      entry = nil
      if line:match("^### ") then
        entry = { title = line:sub(5) }
        for span in line:gmatch("`([^`]+)`") do
          local name = span:match("^[%w_][%w_%.:]*[%w_]")
          if name then names[name] = names[name] or (path .. ":" .. n) end
        end
      end
    elseif entry and line:find("e.g.", 1, true) then
      entry.example = true
    end
  end
  close_entry()
  f:close()
end

-- What the module exports: { ["win:put"] = true, ... }, and per prefix
-- the sample object (to look fields up on) with its methods' separator.
local exported, samples, types = {}, {}, {}

local function add_table(prefix, sep, t)
  for k in pairs(t) do
    if type(k) == "string" and not k:match("^_") then exported[prefix .. sep .. k] = true end
  end
end

-- The methods of obj, under prefix ("win"): a table __index, or the table
-- a function __index keeps as its first upvalue (buffers, whose
-- __metatable hides the metatable from getmetatable).
local function add_object(prefix, obj)
  samples[prefix] = samples[prefix] or {}
  table.insert(samples[prefix], obj)
  local mt = debug.getmetatable(obj)
  T.ok(type(mt) == "table", prefix .. ": an object with a metatable")
  types[prefix] = true
  local index = mt and mt.__index
  if type(index) == "function" then
    local _, up = debug.getupvalue(index, 1)
    index = up
  end
  if type(index) == "table" then add_table(prefix, ":", index) end
  if type(obj) == "table" then -- error objects: their fields
    for k in pairs(obj) do exported[prefix .. "." .. k] = true end
  end
end

-- Does `name`, documented but not found by the walk, exist all the same:
-- a field of a sample object (b.type, v.stride)?
local function exists(name)
  local prefix, field = name:match("^([%w_]+)%.([%w_]+)$")
  for _, obj in ipairs(prefix and samples[prefix] or {}) do -- any sample of its kind
    local ok, v = pcall(function() return obj[field] end)
    if ok and v ~= nil then return true end
  end
  return false
end

local function sorted(set)
  local t = {}
  for k in pairs(set) do t[#t + 1] = k end
  table.sort(t)
  return t
end

-- Every error class of the core (core/include/rmalab/error.h's X(NAME, ...)
-- list) has a row in the reference's table of classes.
T.case("every error class is in the table of classes", function()
  local f = assert(io.open("core/include/rmalab/error.h", "r"))
  local header = f:read("a")
  f:close()
  f = assert(io.open(REF, "r"))
  local ref = f:read("a")
  f:close()
  local missing, n = {}, 0
  for name in header:gmatch("X%(([%u_]+),") do
    n = n + 1
    if not ref:find("\n| `ERR_" .. name .. "`", 1, true)
      and not ref:find(", `ERR_" .. name .. "` |", 1, true) then
      missing[#missing + 1] = "ERR_" .. name
    end
  end
  T.ok(n > 15, "error.h lists the classes (" .. n .. ")")
  T.ok(#missing == 0, string.format("%d error classes without a row in %s's table: %s", #missing,
    REF, table.concat(missing, ", ")))
end)

T.case("every exported name is documented, every documented name exists", function()
  -- the module and its sub-tables
  for k, v in pairs(rl) do
    if type(v) == "table" then
      add_table("rl." .. k, ".", v) -- rl.trace.on..., not rl.trace itself
    elseif not k:match("^_") then -- names beginning with _ are the module's own
      exported["rl." .. k] = true
    end
  end
  add_table("T", ".", T)
  types.T = true
  -- one object of each type
  local me, n = rl.world:rank(), rl.world:size()
  add_object("c", rl.world)
  local c <close> = (rl.world:dup())
  add_object("c", c)
  local info <close> = rl.info { no_locks = true }
  add_object("info", info)
  local wins = {
    (rl.win_allocate(64)), (rl.win_create(64)), (rl.win_allocate_shared(64)),
    (rl.win_create_dynamic()),
  }
  for _, w in ipairs(wins) do add_object("win", w) end
  local w = wins[1]
  local kv = rl.keyval {}
  add_object("kv", kv)
  local b = rl.buffer("int64", 4)
  add_object("b", b)
  add_object("b", b:sub(1, 2))
  add_object("v", rl.vector("int64", 2, 1, 2))
  w:lock_all()
  add_object("r", w:get(me, 0, "int64"))
  local rget = w:rget(me, 0, "int64")
  add_object("rq", rget)
  rget:wait()
  w:unlock_all()
  local s, r = c:isend("x", (me + 1) % n), c:irecv((me - 1) % n)
  add_object("rq", s)
  add_object("rq", r)
  rl.waitall { s, r }
  local _, err = pcall(w.put, w, n + 5, 0, "int64", 1)
  add_object("err", err)
  -- a race's error has fields of its own (err.finder)
  local cw = rl.win_allocate(16, { disp_unit = 4, info = { rmalab_check = "races" } })
  cw:fence()
  if me == 0 then cw:put(n - 1, 0, "int32", 1) end
  if me == n - 1 then cw:write(0, "int32", 2) end
  local _, race = pcall(cw.fence, cw)
  add_object("err", race)
  cw:fence()
  cw:free()
  kv:free()
  for _, x in ipairs(wins) do x:free() end

  local names, no_example, refs = {}, {}, pages()
  for _, path in ipairs(refs) do documented(path, names, no_example) end
  local where = table.concat(refs, ", ")
  T.ok(#refs >= 3, "docs/api.md links its other pages (" .. where .. ")")
  local missing, extra = {}, {}
  for _, name in ipairs(sorted(exported)) do
    if not names[name] then missing[#missing + 1] = name end
  end
  for _, name in ipairs(sorted(names)) do
    if not exported[name] and not exists(name) then
      extra[#extra + 1] = string.format("%s (%s)", name, names[name])
    end
  end
  T.ok(#missing == 0, string.format("%d names exported but not documented in %s (add a "
    .. "### heading for each): %s", #missing, where, table.concat(missing, ", ")))
  T.ok(#extra == 0, string.format("%d names documented in %s that the module does not have: "
    .. "%s", #extra, where, table.concat(extra, ", ")))
  T.ok(#no_example == 0, string.format("entries of %s without an example (e.g.): %s", where,
    table.concat(no_example, "; ")))
  -- what the reference covers, for the record
  local counts = { module = 0, methods = 0, scenario = 0, fields = 0 }
  for name in pairs(exported) do
    local kind = name:find(":", 1, true) and "methods" or name:match("^rl%.") and "module"
      or name:match("^T%.") and "scenario" or "fields"
    counts[kind] = counts[kind] + 1
  end
  types.T = nil
  if me == 0 then
    print(string.format("api-ref: %d names on the module and its tables, %d methods of %d "
      .. "object types, %d fields of error objects, %d names of rmalab.test; %d documented",
      counts.module, counts.methods, #sorted(types), counts.fields, counts.scenario,
      #sorted(names)))
  end
  T.ok(counts.methods > 80, "the walk found the methods (" .. counts.methods .. ")")
end)
