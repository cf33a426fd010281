-- Script mode: rank 1 fails while the others wait for it in a collective.
-- Rank 1 must not wait in MPI_Finalize for them, which wait for rank
-- 1: once RMALAB_EXIT_TIMEOUT has passed, it ends the job (MPI_Abort),
-- with exit status 1, instead of hanging. Run on 2, 3 and 4 ranks.
local c = rmalab.world
if c:rank() == 1 then error("failing on purpose, before the allreduce") end
print("never", c:allreduce(1, "sum"), c:bcast(1))
