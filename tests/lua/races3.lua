-- ranks: 3
-- engines: native rma
-- timeout: 120
-- The race checker on 3 ranks: what a PSCW target's wait() prunes from its
-- log (docs/races.md, "Cost and memory") still meets a passive-target
-- access that nothing orders, and PSCW epochs that follow stay silent.
local T = require "rmalab.test"
local rl = require "rmalab"

local function checked()
  return rl.win_allocate(64, { disp_unit = 4, name = "p3", info = { rmalab_check = "races:quiet" } })
end

T.case("a pruned PSCW access still races with a later passive-target one", function()
  rl.races.clear()
  local win = checked()
  if T.rank == 0 then
    for _ = 1, 3 do win:post({ 1 }); win:wait() end -- each wait prunes
  elseif T.rank == 1 then
    win:start({ 0 }); win:put(0, 0, "int32", 1); win:complete()
    for _ = 1, 2 do win:start({ 0 }); win:put(0, 4, "int32", 1); win:complete() end
  else -- rank 2 never synchronises with ranks 0 and 1 before its put
    win:lock(0, "shared"); win:put(0, 0, "int32", 2); win:unlock(0)
  end
  rl.world:barrier()
  win:free()
  T.eq(rl.races.total(), 1, "the put of rank 1's first epoch and rank 2's")
end)

T.case("many PSCW epochs, ordered: nothing found", function()
  rl.races.clear()
  local win = checked()
  for i = 1, 200 do
    local t, o = i % 3, (i + 1) % 3
    if T.rank == t then
      win:post({ o }); win:wait(); win:read(0, "int32")
    elseif T.rank == o then
      win:start({ t }); win:put(t, 0, "int32", i); win:complete()
    end
  end
  rl.world:barrier()
  win:free()
  T.eq(rl.races.total(), 0)
end)
