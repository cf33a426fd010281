-- script mode on 3 ranks, races mode: every rank raises at the fence, and
-- the report is printed once, by rank 1 that found it (issue 42)
local racy = rmalab.win_allocate(16, {disp_unit = 8, name = "racy", info = {rmalab_check = "races"}})
racy:fence()
if rmalab.world:rank() == 0 then racy:put(1, 0, "int64", 1) end
if rmalab.world:rank() == 1 then racy:write(0, "int64", 2) end
racy:fence()
racy:free()
