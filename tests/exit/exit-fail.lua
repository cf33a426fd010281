-- os.exit(1) on one rank while the others wait for it in an allreduce
-- (tests/lua/meson.build): under stock lua5.4, without rl.main, the module
-- wraps os.exit, so a status other than success counts as that rank's
-- failure and the job ends with status 1 within a few seconds, as after an
-- error in rl.main. Before, rank 1 waited in MPI_Finalize for ranks that
-- waited for it: the job hung.
local rl = require "rmalab"
local c = rl.world
if c:rank() == 1 then
  print("exit-fail: rank 1 exits with status 1")
  os.exit(1)
end
print("allreduce returned", c:allreduce(1, "sum"))
