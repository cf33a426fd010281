-- What every lab in scripts/ shares: the rank-count check, rank 0's
-- narration, and every rank's lines printed by rank 0 in rank order. A lab
-- loads it from beside itself:
--   local lab = dofile(debug.getinfo(1, "S").source:match("^@(.-)[^/]*$") .. "lib/lab.lua")
-- (its own path, not arg[0]: a lab may be run by dofile, as tests/trace does)
local rl = require "rmalab"
local me, size = rl.world:rank(), rl.world:size()
local lab = {}

-- The command that runs this lab on `n` ranks: rmalab, which embeds the
-- module (plain lua5.4 under mpiexec finds it only once it is installed),
-- from the top of a tree built in build/ (scripts/README.md).
function lab.command(n)
  local script = arg and arg[0] or "scripts/<lab>.lua"
  local top = script:match("^(.-)scripts/[^/]*$")
  return ("%s -n %d %s"):format(top and top .. "build/repl/rmalab" or "rmalab", n, script)
end

-- Is the function `level` calls up the script that rmalab runs (arg[0]),
-- not a file run by dofile, or a chunk of the REPL (no arg there)?
local function main_script(level)
  local info = debug.getinfo(level + 1, "S")
  return arg ~= nil and arg[0] ~= nil and info ~= nil and info.source == "@" .. arg[0]
end

-- true when the job has `n` ranks (or one of the counts in `also`);
-- otherwise rank 0 says which count the lab is written for and the command
-- that runs it. Run as the script itself, the job then ends with exit
-- status 1 on every rank (the state closed first, so MPI ends cleanly);
-- run by dofile or in the REPL, the lab should return.
function lab.ranks(n, also)
  if size == n then return true end
  local others = {}
  for _, m in ipairs(also or {}) do
    if size == m then return true end
    others[#others + 1] = tostring(m)
  end
  if me == 0 then
    local alt = #others > 0 and (" (%s also work)"):format(table.concat(others, " and ")) or ""
    print(("this lab is written for %d ranks%s, not %d: %s"):format(n, alt, size, lab.command(n)))
  end
  if main_script(2) then
    io.stdout:flush()
    os.exit(1, true)
  end
  return false
end

-- Rank 0 narrates.
function lab.say(...) if me == 0 then print(...) end end

-- Every rank's text printed by rank 0 in rank order, empty ones skipped:
-- ranks' own prints would interleave, in another order on every run
-- (mpiexec forwards each rank's output as it comes, even across barriers).
-- Collective.
function lab.report(text)
  for _, line in ipairs(rl.world:gather(text or "") or {}) do
    if line ~= "" then print(line) end
  end
end

return lab
