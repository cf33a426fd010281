-- Script mode: an error on rank 1 only; the job must end non-zero and say
-- which rank failed, with a traceback.
local function inner() error("failing on purpose") end
rmalab.world:barrier()
if rmalab.world:rank() == 1 then inner() end
