-- The Lua side of bench-pscw: PSCW epochs through the rmalab module.
--
-- bench-pscw (bench-pscw.c) embeds Lua: it opens the module with
-- luaL_requiref after MPI_Init_thread, runs this chunk on both ranks (it
-- creates a window, so it is collective) and calls the functions it returns.
-- The loops are those of the C variants: rank 0 is the origin,
--     win:start({1}); win:put(1, 0, "int64", i); win:complete()
-- and rank 1 the target,
--     win:post({0}); win:wait()
-- on a window of 16 bytes with disp_unit 8. The group tables are built once,
-- as the C variants build their groups once. The caller times run() from C
-- with the same clock as the C variants.
local rl = require "rmalab"

local win = rl.win_allocate(16, { disp_unit = 8, name = "bench-pscw" })
local rank = win:rank()
local to_target, to_origin = { 1 }, { 0 }

local B = {}

-- n epochs; the origin puts first, first + 1, ..., first + n - 1.
function B.run(n, first)
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

-- The value the last put left in the target's window (rank 1).
function B.last()
  return win:read(0, "int64")
end

function B.free()
  win:free()
end

return B
