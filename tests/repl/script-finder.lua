-- script mode on 3 ranks: a race's report that every rank raises is
-- printed once, by the error's field err.finder and not its words (an
-- error made by hand, with none of the core's)
local rank = rmalab.world:rank()
error(setmetatable({class = "ERR_RMA_CONFLICT", finder = 1,
  message = rank == 1 and "my own words:\nthe report in full" or "seen elsewhere:\nthe report in full"},
  {__tostring = function(e) return e.class .. ": " .. e.message end}))
