-- A fixture of tests/runner/meson.build: passes on every count and engine.
-- ranks: 2 3
-- engines: native rma
local T = require "rmalab.test"
local rl = require "rmalab"
T.case("the engine is the one asked for", function()
  local win <close> = rl.win_allocate(16, { disp_unit = 8 })
  local engine = win:get_info():get("rmalab_pscw")
  T.eq(engine, os.getenv("RMALAB_PSCW"), "rmalab_pscw in effect")
  T.eq(T.size, #win:group(), "group size")
end)
