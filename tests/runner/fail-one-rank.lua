-- A fixture of tests/runner/meson.build: a check fails on rank 1 only.
local T = require "rmalab.test"
T.case("agrees", function() T.eq({ T.size, { k = "v" } }, { 2, { k = "v" } }, "deep") end)
T.case("fails on one rank", function()
  T.eq(T.rank * 10, 0, "rank times ten")
  T.ok(true)
end)
