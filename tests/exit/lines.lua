-- Every rank prints many long lines at once (lines-whole.py checks the
-- output): with print and several arguments, and with io.write in pieces.
-- Each line names its rank and number, and is that rank's letter repeated:
-- a line cut by another rank's, or out of its rank's order, shows.
-- Lines from 1 to about 4000 bytes: a pipe keeps a write whole up to
-- PIPE_BUF, 4096 bytes (lua/lruntime.c, stdout_lines_whole).
local rl = require "rmalab"
local r = rl.world:rank()
local n = tonumber(arg and arg[1]) or 1500
local ch = string.char(65 + r % 26)
for i = 1, n do
    local len = (i * 997 + r * 131) % 4000
    local body = ch:rep(len)
    if i % 3 == 0 then
        io.write(("R%d line %d "):format(r, i), body:sub(1, len // 2))
        io.write(body:sub(len // 2 + 1), " end\n")
    else
        print(("R%d line %d"):format(r, i), body, "end")
    end
end
