-- A fixture of tests/runner/meson.build: a plain script, with no header
-- and no rmalab.test cases, as `rmalab -n N` runs it. `rmalab test
-- --ranks 3` runs it on 3 ranks, since its header names no rank count.
local c = require("rmalab").world
c:barrier()
c:send(c:rank(), (c:rank() + 1) % c:size())
assert(c:recv((c:rank() - 1) % c:size()) == (c:rank() - 1) % c:size())
