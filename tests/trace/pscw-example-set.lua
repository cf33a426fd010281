-- The native engine's run of scripts/pscw-example.lua, as rl.trace.events()
-- gave it (window fig-native), saved to draw the golden SVGs from
-- (tests/trace/svg-golden.lua): the times of one real run on 4 ranks.
-- ev(t0, t1, rank, kind, peer, disp, bytes [, group]): an event of the set
local function ev(t0, t1, rank, kind, peer, disp, bytes, group)
  return { t0 = t0, t1 = t1, rank = rank, win = 1, kind = kind, peer = peer, flag = 0,
           count = group and #group or 1, calls = 1, disp = disp, bytes = bytes, seq = 0,
           group = group }
end
return {
  ranks = 4, uncertainty = 0.004001564,
  windows = { { key = "r0.1", name = "fig-native", engine = "native", size = 4, freed = true } },
  dropped = { 0, 0, 0, 0 },
  events = {
    ev(0.021899467, 0.021920669, 0, "start", -1, 0, 0, { 1, 2 }),
    ev(0.061864067, 0.061911778, 0, "put", 1, 0, 8),
    ev(0.061912549, 0.061918057, 0, "put", 2, 0, 8),
    ev(0.061919389, 0.075869539, 0, "complete", -1, 0, 0, { 1, 2 }),
    ev(0.165798441, 0.165803980, 0, "start", -1, 0, 0, { 1, 2 }),
    ev(0.165813253, 0.165831711, 0, "put", 1, 0, 8),
    ev(0.165832272, 0.165834034, 0, "put", 2, 0, 8),
    ev(0.165835126, 0.173759386, 0, "complete", -1, 0, 0, { 1, 2 }),
    ev(0.000000000, 0.000019058, 1, "post", -1, 0, 0, { 0 }),
    ev(0.032021442, 0.075855989, 1, "wait", -1, 0, 0, { 0 }),
    ev(0.134811807, 0.134819759, 1, "post", -1, 0, 0, { 0 }),
    ev(0.155845168, 0.175861008, 1, "wait", -1, 0, 0, { 0 }),
    ev(0.013808770, 0.013837102, 2, "post", -1, 0, 0, { 0, 3 }),
    ev(0.044712882, 0.089756946, 2, "wait", -1, 0, 0, { 0, 3 }),
    ev(0.125781624, 0.125789266, 2, "post", -1, 0, 0, { 0, 3 }),
    ev(0.154001549, 0.361760085, 2, "wait", -1, 0, 0, { 0, 3 }),
    ev(0.026991085, 0.027008530, 3, "start", -1, 0, 0, { 2 }),
    ev(0.047944096, 0.048014611, 3, "put", 2, 3, 8),
    ev(0.048023785, 0.059051114, 3, "complete", -1, 0, 0, { 2 }),
    ev(0.154964384, 0.154969272, 3, "start", -1, 0, 0, { 2 }),
    ev(0.154979797, 0.155004654, 3, "put", 2, 3, 8),
    ev(0.358886111, 0.358914683, 3, "complete", -1, 0, 0, { 2 }),
  },
  flows = {
    { kind = "post", from = 9, to = 1 },
    { kind = "post", from = 11, to = 5 },
    { kind = "post", from = 13, to = 1 },
    { kind = "post", from = 15, to = 5 },
    { kind = "post", from = 13, to = 17 },
    { kind = "post", from = 15, to = 20 },
    { kind = "complete", from = 4, to = 10 },
    { kind = "complete", from = 8, to = 12 },
    { kind = "complete", from = 4, to = 14 },
    { kind = "complete", from = 8, to = 16 },
    { kind = "complete", from = 19, to = 14 },
    { kind = "complete", from = 22, to = 16 },
  },
}
