-- Script mode: rank 1 fails while rank 0 waits for it in a collective.
-- Rank 1 must not wait in MPI_Finalize for rank 0, which waits for rank
-- 1: it leaves without it once RMALAB_EXIT_TIMEOUT has passed, and
-- mpiexec ends the job (exit status nonzero) instead of hanging.
local c = rmalab.world
if c:rank() == 1 then error("failing on purpose, before the bcast") end
print("never", c:bcast(1))
