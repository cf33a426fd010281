-- Draws the saved trace of the standard's example (pscw-example-set.lua)
-- in both scales, and that of three kinds of epoch (mixed-set.lua), into
-- the directory given, for check_svg.py to compare with the golden copies
-- (pscw-example-order.svg, pscw-example-time.svg, mixed-order.svg)
-- and to check: the legend, the data arrows, the groups' separators, and
-- that no arrow crosses a box. rl.trace.svg_text is local: one rank.
local rl = require "rmalab"
local here, out = arg[1], arg[2]
local set = dofile(here .. "/pscw-example-set.lua")
local titles = { "run 1: the figure's order",
                 "run 2: rank 3 works 0.2 s before its complete" }
for _, scale in ipairs{ "order", "time" } do
  local f = assert(io.open(("%s/pscw-example-%s.svg"):format(out, scale), "w"))
  f:write(rl.trace.svg_text(set, { scale = scale, titles = titles }))
  f:close()
end
-- fence, PSCW with arrivals, lock: three groups
local mixed = dofile(here .. "/mixed-set.lua")
local f = assert(io.open(out .. "/mixed-order.svg", "w"))
f:write(rl.trace.svg_text(mixed))
f:close()
-- a bad scale is an argument error
local ok, err = pcall(rl.trace.svg_text, set, { scale = "log" })
assert(not ok and err.class == "ERR_ARG", tostring(err))
print("drew", out)
