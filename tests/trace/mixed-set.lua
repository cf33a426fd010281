-- Three kinds of epoch on 2 ranks and the rma engine, as rl.trace.events()
-- gave them in one real run (window "mixed", barriers between the epochs):
--   fence(); put to the other rank; fence("nosucceed")
--   rank 1: post({0}); wait()   rank 0: start({1}); put(1, 1); get(1, 0); complete()
--   rank 0: lock(1); accumulate(1, 2, "sum"); unlock(1)
-- The engine recorded the arrivals of the post and the complete. The golden
-- mixed-order.svg is drawn from it (svg-golden.lua).
return {
  ranks = 2, uncertainty = 0.000000000, shared_clock = true,
  windows = { { key = "r0.1", name = "mixed", engine = "rma", size = 2, freed = true } },
  dropped = { 0, 0 },
  events = {
    { t0 = 0.000000000, t1 = 0.008659992, rank = 0, win = 1, kind = "fence",
      peer = -1, flag = 0, count = 0, calls = 1, disp = 0, bytes = 0, seq = 0 },
    { t0 = 0.008680373, t1 = 0.008739240, rank = 0, win = 1, kind = "put",
      peer = 1, flag = 0, count = 1, calls = 1, disp = 0, bytes = 8, seq = 0 },
    { t0 = 0.008739931, t1 = 0.016341161, rank = 0, win = 1, kind = "fence",
      peer = -1, flag = 16, count = 0, calls = 1, disp = 0, bytes = 0, seq = 0 },
    { t0 = 0.020105583, t1 = 0.020107796, rank = 0, win = 1, kind = "start",
      peer = -1, flag = 0, count = 1, calls = 1, disp = 0, bytes = 0, seq = 0, group = { 1 } },
    { t0 = 0.020116158, t1 = 0.020116158, rank = 0, win = 1, kind = "post_arrived",
      peer = 1, flag = 0, count = 0, calls = 1, disp = 0, bytes = 0, seq = 1 },
    { t0 = 0.020113264, t1 = 0.020124230, rank = 0, win = 1, kind = "put",
      peer = 1, flag = 0, count = 1, calls = 1, disp = 1, bytes = 8, seq = 0 },
    { t0 = 0.020132923, t1 = 0.020140234, rank = 0, win = 1, kind = "get",
      peer = 1, flag = 0, count = 1, calls = 1, disp = 0, bytes = 8, seq = 0 },
    { t0 = 0.020141586, t1 = 0.020144941, rank = 0, win = 1, kind = "complete",
      peer = -1, flag = 0, count = 1, calls = 1, disp = 0, bytes = 0, seq = 0, group = { 1 } },
    { t0 = 0.021915160, t1 = 0.028068420, rank = 0, win = 1, kind = "lock",
      peer = 1, flag = 1, count = 0, calls = 1, disp = 0, bytes = 0, seq = 0 },
    { t0 = 0.028085816, t1 = 0.028254256, rank = 0, win = 1, kind = "accumulate",
      peer = 1, flag = 0, count = 1, calls = 1, disp = 2, bytes = 8, seq = 0 },
    { t0 = 0.028255488, t1 = 0.035589601, rank = 0, win = 1, kind = "unlock",
      peer = 1, flag = 0, count = 0, calls = 1, disp = 0, bytes = 0, seq = 0 },
    { t0 = 0.006007583, t1 = 0.010383883, rank = 1, win = 1, kind = "fence",
      peer = -1, flag = 0, count = 0, calls = 1, disp = 0, bytes = 0, seq = 0 },
    { t0 = 0.010401068, t1 = 0.010451233, rank = 1, win = 1, kind = "put",
      peer = 0, flag = 0, count = 1, calls = 1, disp = 0, bytes = 8, seq = 0 },
    { t0 = 0.010452345, t1 = 0.017916601, rank = 1, win = 1, kind = "fence",
      peer = -1, flag = 16, count = 0, calls = 1, disp = 0, bytes = 0, seq = 0 },
    { t0 = 0.017957682, t1 = 0.017970942, rank = 1, win = 1, kind = "post",
      peer = -1, flag = 0, count = 1, calls = 1, disp = 0, bytes = 0, seq = 0, group = { 0 } },
    { t0 = 0.020496643, t1 = 0.020496643, rank = 1, win = 1, kind = "complete_arrived",
      peer = 0, flag = 0, count = 0, calls = 1, disp = 0, bytes = 0, seq = 1 },
    { t0 = 0.017972084, t1 = 0.020497284, rank = 1, win = 1, kind = "wait",
      peer = -1, flag = 0, count = 1, calls = 1, disp = 0, bytes = 0, seq = 0, group = { 0 } },
  },
  flows = {
    { kind = "post", from = 15, to = 5 },
    { kind = "complete", from = 8, to = 16 },
  },
}
