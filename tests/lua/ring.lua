-- ranks: 2 3
-- Ring regression for window placement, on any number of ranks (run on 2
-- and 3). MPICH 4.0.2 with UCX rounds window bases down to 16 bytes, so an
-- unaligned base or a per-rank size that is not a multiple of 16 would put
-- data into the wrong bytes or the wrong rank without an error; rmalab must
-- never let that happen. For every flavour, for sizes of 8, 24 and 40 bytes
-- (the same on all ranks, and mixed across ranks) and disp_unit 1 and 8:
--   1. every rank puts a pattern of its own into its right neighbour's
--      whole window, and every byte is checked on the target;
--   2. one origin at a time puts into the inside of its neighbour's window
--      while every rank checks that nothing else changed: not the edges of
--      the target, not the windows of the other ranks.
-- Then the same ring with PSCW, lock and lock_all epochs. Checks are soft
-- (rmalab.test), so every rank makes the same synchronisation calls.
local rl = require "rmalab"
local T = require "rmalab.test"

local rank, size = T.rank, T.size
local right, left = (rank + 1) % size, (rank - 1) % size

-- The bytes origin `o` puts: differ per origin at every position.
local function pattern(o, n)
  local t = {}
  for i = 1, n do t[i] = string.char((o * 64 + i * 7 + 1) % 256) end
  return table.concat(t)
end

-- What a window holds before anyone puts: differs per owner.
local function sentinel(r, n) return string.rep(string.char(0xE0 + r), n) end

-- Per-rank sizes of a configuration.
local function sizes_of(config)
  if config == "mixed" then
    local s = {}
    for r = 0, size - 1 do s[r] = ({ 8, 24, 40 })[r % 3 + 1] end
    return s
  end
  local s = {}
  for r = 0, size - 1 do s[r] = config end
  return s
end

-- A window under test: w, the displacement (in units) of byte 0 of each
-- rank's memory, and a close function. Dynamic windows attach their memory
-- and learn their neighbours' addresses through a small allocate window.
local function open(flavour, mysize, du)
  if flavour ~= "dynamic" then
    local w = rl["win_" .. flavour](mysize, { disp_unit = du })
    return w, function() return 0 end, function() w:free() end
  end
  local w = rl.win_create_dynamic()
  local addr = w:attach(mysize)
  local aw <close> = rl.win_allocate(8, { disp_unit = 8 })
  aw:write(0, "int64", addr)
  aw:fence()
  local got = {}
  for r = 0, size - 1 do got[r] = aw:get(r, 0, "int64") end
  aw:fence("nosucceed")
  local base = {}
  for r = 0, size - 1 do base[r] = got[r]:value() end
  T.eq(base[rank], addr, "own address exchanged")
  aw:free()
  return w, function(r) return base[r] end, function() w:detach(addr); w:free() end
end

-- Put `bytes` into rank t at byte offset `off` (a multiple of du), as
-- "byte" for du == 1 and as int64 values for du == 8.
local function put_bytes(w, t, base, du, off, bytes, dynamic)
  local disp = dynamic and base + off or off // du
  if du == 1 then
    w:put(t, disp, "byte", bytes)
  else
    local vals = {}
    for k = 1, #bytes, 8 do vals[#vals + 1] = string.unpack("=i8", bytes, k) end
    w:put(t, disp, "int64", vals)
  end
end

local function mine(w, base, n, dynamic)
  return w:read(dynamic and base or 0, "byte", n)
end

local function describe(flavour, config, du)
  local how = flavour == "dynamic" and (du == 1 and "byte puts" or "int64 puts")
    or "disp_unit " .. du
  return string.format("%s, %s bytes, %s, %d ranks", flavour, tostring(config), how, size)
end

-- Steps 1 and 2 for one configuration.
local function ring_fence(flavour, config, du)
  local sizes, what = sizes_of(config), describe(flavour, config, du)
  local n = sizes[rank]
  local dynamic = flavour == "dynamic"
  local w, base, close = open(flavour, n, du)
  local b = base(rank)
  T.eq(mine(w, b, n, dynamic), string.rep("\0", n), what .. ": zeroed")
  w:write(b // (dynamic and 1 or du), "byte", sentinel(rank, n))

  -- 1. the whole ring
  w:fence()
  put_bytes(w, right, base(right), du, 0, pattern(rank, sizes[right]), dynamic)
  w:fence()
  T.eq(mine(w, b, n, dynamic), pattern(left, n), what .. ": whole window from rank " .. left)

  -- 2. one origin at a time, into the inside of its neighbour's window
  for o = 0, size - 1 do
    local t = (o + 1) % size
    local tn = sizes[t]
    local off = tn >= 16 and du or 0            -- skip the first unit when there is room
    local len = tn - off - (tn >= 24 and du or 0) -- and the last
    w:write(b // (dynamic and 1 or du), "byte", sentinel(rank, n))
    w:fence()
    if rank == o then
      put_bytes(w, t, base(t), du, off, pattern(o, tn):sub(off + 1, off + len), dynamic)
    end
    w:fence()
    local want = sentinel(rank, n)
    if rank == t then
      want = want:sub(1, off) .. pattern(o, n):sub(off + 1, off + len) .. want:sub(off + len + 1)
    end
    T.eq(mine(w, b, n, dynamic), want, string.format("%s: after rank %d put into rank %d", what,
      o, t))
  end
  w:fence("nosucceed")
  close()
end

for _, flavour in ipairs{ "create", "allocate", "allocate_shared", "dynamic" } do
  T.case("fence ring: " .. flavour, function()
    for _, config in ipairs{ 8, 24, 40, "mixed" } do
      for _, du in ipairs{ 1, 8 } do
        ring_fence(flavour, config, du)
      end
    end
  end)
end

-- The ring with the other synchronisation modes, 24 bytes a rank.
local MODES = {
  pscw = function(w, f)
    w:post({ left }); w:start({ right }); f(); w:complete(); w:wait()
  end,
  lock = function(w, f)
    w:lock(right); f(); w:unlock(right); rl.world:barrier()
  end,
  lock_shared = function(w, f)
    w:lock(right, "shared"); f(); w:flush(right); w:unlock(right); rl.world:barrier()
  end,
  lock_all = function(w, f)
    w:lock_all(); f(); w:flush_all(); w:unlock_all(); rl.world:barrier()
  end,
}

for _, flavour in ipairs{ "create", "allocate", "allocate_shared" } do
  T.case("pscw and lock rings: " .. flavour, function()
    for _, du in ipairs{ 1, 8 } do
      for _, mode in ipairs{ "pscw", "lock", "lock_shared", "lock_all" } do
        local what = string.format("%s, %s, disp_unit %d, %d ranks", flavour, mode, du, size)
        local w <close> = rl["win_" .. flavour](24, { disp_unit = du })
        w:write(0, "byte", sentinel(rank, 24))
        rl.world:barrier()
        MODES[mode](w, function() put_bytes(w, right, 0, du, 0, pattern(rank, 24)) end)
        T.eq(w:read(0, "byte", 24), pattern(left, 24), what .. ": whole window")
        -- inside only, one origin at a time
        for o = 0, size - 1 do
          w:write(0, "byte", sentinel(rank, 24))
          rl.world:barrier()
          local t = (o + 1) % size
          local function put() put_bytes(w, t, 0, du, 8, pattern(o, 24):sub(9, 16)) end
          if mode == "pscw" then -- only the origin and its target take part
            if rank == t then w:post({ o }) end
            if rank == o then w:start({ t }); put(); w:complete() end
            if rank == t then w:wait() end
            rl.world:barrier()
          elseif rank == o then
            MODES[mode](w, put) -- ends with a barrier
          else
            rl.world:barrier()
          end
          local want = sentinel(rank, 24)
          if rank == t then want = want:sub(1, 8) .. pattern(o, 24):sub(9, 16) .. want:sub(17) end
          T.eq(w:read(0, "byte", 24), want, string.format("%s: rank %d into rank %d", what, o, t))
        end
        w:free()
      end
    end
  end)
end

T.done()
