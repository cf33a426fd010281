-- The Lua side of bench-pscw: PSCW epochs through the rmalab module.
--
-- bench-pscw (bench-pscw.c) embeds Lua: it opens the module with
-- luaL_requiref after MPI_Init_thread, runs this chunk on both ranks and
-- calls B.open once per Lua variant (collective: it creates a window), then
-- the methods of what B.open returns. The loops are those of the C
-- variants: rank 0 is the origin,
--     win:start({1}); win:put(1, 0, "int64", i); win:complete()
-- and rank 1 the target,
--     win:post({0}); win:wait()
-- on a window of 16 bytes with disp_unit 8. As a user writes it, the group
-- tables are built anew every epoch; a hoisted variant builds them once,
-- which shows what building them costs. Both ways (`both`), each rank
-- exposes to and accesses its peer every epoch, as bench/mpi4py-rows.py does:
--     win:post({peer}); win:start({peer}); win:put(peer, 0, "int64", i)
--     win:complete(); win:wait()
-- The caller times run() from C with the same clock as the C variants.
local rl = require "rmalab"

local B = {}

-- One variant: engine "native" or "rma", flavor "create" or "allocate".
-- Engine "floor": bench/pscw-floor.c's binding, the least one costs.
function B.open(engine, flavor, hoisted, both)
  local make = flavor == "create" and rl.win_create or rl.win_allocate
  local win = engine == "floor" and require("pscw_floor").window() or make(16, {
    disp_unit = 8,
    name = ("bench-pscw %s %s"):format(engine, flavor),
    info = { rmalab_pscw = engine },
  })
  local rank = rl.world:rank()
  local V = {}

  if both then
    local peer = 1 - rank
    function V.run(n, first)
      for i = first, first + n - 1 do
        win:post({ peer })
        win:start({ peer })
        win:put(peer, 0, "int64", i)
        win:complete()
        win:wait()
      end
    end
  elseif hoisted then
    local to_target, to_origin = { 1 }, { 0 }
    -- n epochs; the origin puts first, first + 1, ..., first + n - 1.
    function V.run(n, first)
      if rank == 0 then
        for i = first, first + n - 1 do
          win:start(to_target)
          win:put(1, 0, "int64", i)
          win:complete()
        end
      else
        for _ = 1, n do
          win:post(to_origin)
          win:wait()
        end
      end
    end
  else
    function V.run(n, first)
      if rank == 0 then
        for i = first, first + n - 1 do
          win:start({ 1 })
          win:put(1, 0, "int64", i)
          win:complete()
        end
      else
        for _ = 1, n do
          win:post({ 0 })
          win:wait()
        end
      end
    end
  end

  -- The value the last put left in the target's window (rank 1).
  function V.last()
    return engine == "floor" and win:read() or win:read(0, "int64")
  end

  function V.free()
    win:free()
  end

  return V
end

return B
