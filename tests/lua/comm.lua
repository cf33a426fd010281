-- ranks: 2
-- Communicators and their hints: dup with hints, set_info, get_info, the
-- report, the catalogue and the cross-rank agreement check.
local rl = require "rmalab"
local T = require "rmalab.test"
local checkerr = T.checkerr
local S = dofile(debug.getinfo(1, "S").source:match("^@(.-)[^/]*$") .. "../lib/scenario.lua")
local row = S.row

T.case("world", function()
  T.eq(rl.world:size(), 2, "size")
  T.ok(rl.world:rank() == 0 or rl.world:rank() == 1, "rank")
  rl.world:barrier()
  checkerr("ERR_COMM", "cannot be freed", rl.world.free, rl.world)
  T.eq(type(rl.wtime()), "number", "wtime")
  T.ok(rl.version:match("^%d+%.%d+%.%d+$"), "version is x.y.z")
end)

T.case("gather: every rank's text on the root, in rank order", function()
  local me, n = rl.world:rank(), rl.world:size()
  local t = rl.world:gather(("rank %d\0of %d"):format(me, n))
  if me == 0 then
    T.eq(t, { "rank 0\0of 2", "rank 1\0of 2" }, "texts, NUL bytes kept")
  else
    T.eq(t, nil, "nil off the root")
  end
  local at1 = rl.world:gather(me == 0 and "" or "x", 1)
  T.eq(at1, me == 1 and { "", "x" } or nil, "root 1, an empty text")
  checkerr("ERR_RANK", "root 2 is not a rank of this communicator (0 to 1)",
    rl.world.gather, rl.world, "x", 2)
  T.eq(rl.world:gather(42), me == 0 and { 42, 42 } or nil, "any value, not only text")
end)

T.case("sleep: waits without the CPU", function()
  local w, c = rl.wtime(), os.clock()
  rl.sleep(0.2)
  local waited, cpu = rl.wtime() - w, os.clock() - c
  T.ok(waited >= 0.2 and waited < 1, "slept " .. waited .. " s")
  T.ok(cpu < 0.05, "used " .. cpu .. " s of CPU")
  rl.sleep(0)
  checkerr("ERR_ARG", "seconds from 0 to 1e6 expected", rl.sleep, -1)
  checkerr("ERR_ARG", "seconds from 0 to 1e6 expected", rl.sleep, 0 / 0)
  checkerr("ERR_ARG", "(number expected, got string)", rl.sleep, "x")
end)

T.case("abort refuses a bad code before it ends anything", function()
  local w = rl.world
  checkerr("ERR_ARG", "an exit code from 0 to 255 expected", w.abort, w, 256)
  checkerr("ERR_ARG", "an exit code from 0 to 255 expected", w.abort, w, -1)
  checkerr("ERR_ARG", "code (an integer) expected, got string", w.abort, w, "x")
  checkerr("ERR_ARG", "code (an integer) expected", w.abort, w, 2.5)
  w:barrier() -- every rank is still here
end)

T.case("catalogue", function()
  local win, comm = rl.hints.catalog("win"), rl.hints.catalog("comm")
  for _, key in ipairs{ "no_locks", "accumulate_ordering", "accumulate_ops", "same_size",
      "same_disp_unit", "alloc_shared_noncontig", "mpi_accumulate_granularity", "alloc_shm",
      "which_accumulate_ops", "accumulate_noncontig_dtype", "accumulate_max_bytes",
      "disable_shm_accumulate", "coll_attach", "perf_preference", "rmalab_pscw" } do
    local r = row(win, key)
    T.ok(r, "window hint " .. key)
    T.ok(type(r.doc) == "string" and #r.doc > 0, key .. " has a doc line")
  end
  for _, key in ipairs{ "mpi_assert_no_any_tag", "mpi_assert_no_any_source",
      "mpi_assert_exact_length", "mpi_assert_allow_overtaking",
      "mpi_assert_strict_persistent_collective_ordering", "mpi_assert_memory_alloc_kinds",
      "vci", "enable_multi_nic_striping" } do
    T.ok(row(comm, key), "communicator hint " .. key)
  end
  local nl = row(win, "no_locks")
  T.eq(nl.type, "bool", "no_locks type"); T.eq(nl.default, "false", "no_locks default")
  local p = row(win, "rmalab_pscw")
  T.eq(p.type, "enum", "rmalab_pscw type"); T.eq(p.default, "rma", "rmalab_pscw default")
  T.eq(p.values, { "native", "rma" }, "rmalab_pscw values")
  T.eq(row(win, "which_accumulate_ops").after_create, false, "creation-only key")
  T.eq(row(win, "no_locks").after_create, true, "key set_info changes")
  local n = 0
  for _, r in ipairs(win) do if not r.after_create and not r.rmalab
    and r.key ~= "mpi_accumulate_granularity" then n = n + 1 end end
  T.eq(n, 6, "six MPICH window keys are creation-only")
  checkerr("ERR_ARG", "invalid option 'file'", rl.hints.catalog, "file")
end)

T.case("hints.check diagnostics", function()
  local d = rl.hints.check("win", { no_lock = "true", which_accumulate_ops = "sum,foo",
    accumulate_ordering = "none,rar", mpi_assert_no_any_tag = "true" })
  local function msg(key) local r = row(d, key); return r and r.message or "" end
  T.ok(msg("no_lock"):find("did you mean no_locks?", 1, true), "typo suggestion")
  T.ok(msg("which_accumulate_ops"):find("\"foo\" is not one of", 1, true), "unknown op")
  T.ok(msg("accumulate_ordering"):find("must stand alone", 1, true), "none alone")
  T.ok(msg("mpi_assert_no_any_tag"):find("communicator hint", 1, true), "wrong scope")
  T.eq(#d, 4, "one diagnostic each")
  T.eq(#rl.hints.check("win", { no_locks = "true", ["vendor_key"] = "x" }), 0, "clean input")
end)

T.case("dup with hints and the report", function()
  local c <close>, diags = rl.world:dup{ mpi_assert_no_any_tag = " true ",
    mpi_assert_exact_length = "maybe", mpi_assert_no_any_tags = true, vendor_hint = "x" }
  T.eq(#diags, 2, "two diagnostics")
  T.ok(row(diags, "mpi_assert_exact_length").message:find("\"maybe\"", 1, true), "bad bool")
  T.ok(row(diags, "mpi_assert_no_any_tags").message:find("did you mean mpi_assert_no_any_tag?",
    1, true), "did you mean")
  T.eq(c:size(), 2, "dup size")
  local eff = c:get_info()
  T.eq(eff:get("mpi_assert_no_any_tag"), "true", "normalised and applied")
  T.eq(eff:get("mpi_assert_exact_length"), "false", "\"maybe\" was not passed on")
  local rep = c:hints()
  local r = row(rep, "mpi_assert_no_any_tag")
  T.eq(r.requested, " true ", "requested as given"); T.eq(r.effective, "true", "effective")
  T.eq(r.status, "applied", "status applied")
  r = row(rep, "mpi_assert_exact_length")
  T.eq(r.status, "ignored", "invalid value is ignored"); T.ok(r.note, "with a note")
  T.eq(row(rep, "mpi_assert_no_any_source").status, "default", "default")
  T.eq(row(rep, "mpi_assert_no_any_tags").status, "ignored", "unknown key ignored")
  T.eq(row(rep, "vendor_hint").status, "ignored", "vendor key not reported")
  T.eq(row(rep, "vci").status, "default", "MPICH key at its default")
end)

T.case("dup with hints wrong on one rank fails on every rank, and the next dup meets",
  function()
    local mine = rl.world:rank() == 1
    local long = string.rep("k", 300)
    for _, h in ipairs { { "x" }, { [long] = "1" } } do
      checkerr("ERR_INFO_KEY", mine and "" or "another rank failed", rl.world.dup, rl.world,
        mine and h or { mpi_assert_no_any_tag = "true" })
      local c <close> = rl.world:dup()
      T.eq(c:size(), 2, "the next dup meets")
    end
  end)

T.case("set_info updates only the keys it names", function()
  local c <close> = rl.world:dup{ mpi_assert_no_any_tag = true }
  local d = c:set_info{ mpi_assert_allow_overtaking = true }
  T.eq(#d, 0, "no diagnostics")
  local eff = c:get_info()
  T.eq(eff:get("mpi_assert_no_any_tag"), "true", "earlier key kept")
  T.eq(eff:get("mpi_assert_allow_overtaking"), "true", "new key applied")
  local info = rl.info{ mpi_assert_no_any_source = "true" }
  c:set_info(info)
  T.eq(c:get_info():get("mpi_assert_no_any_source"), "true", "from an info object")
  T.eq(info:get("mpi_assert_no_any_source"), "true", "caller's info unchanged")
  checkerr("ERR_ARG", "table of hints or info object expected", c.set_info, c, 5)
end)

T.case("agreement across ranks", function()
  local v = T.rank == 0 and "true" or "false"
  local c <close> = rl.world:dup{ mpi_assert_strict_persistent_collective_ordering = v }
  local dis = c:check_hints()
  T.eq(#dis, 1, "one disagreement")
  T.eq(dis[1].key, "mpi_assert_strict_persistent_collective_ordering", "key")
  T.eq(dis[1].values[0], "true", "rank 0's value"); T.eq(dis[1].values[1], "false", "rank 1's")
  T.eq(dis[1].ranks, { 1 }, "ranks that differ from rank 0")
  -- " true" on rank 0 and "true" elsewhere: the same value once canonical
  local spelled = T.rank == 0 and " true" or "true"
  local same <close> = rl.world:dup{ mpi_assert_strict_persistent_collective_ordering = spelled }
  T.eq(#same:check_hints(), 0, "canonical values agree")
end)

-- The standard: hints are not propagated from a communicator to its
-- duplicate unless they are passed again, and an info object changed after
-- a communicator or window was created from it changes nothing.
T.case("hints are not inherited, and the info given is not kept", function()
  local c <close> = rl.world:dup({ mpi_assert_no_any_tag = true })
  T.eq(c:get_info():get("mpi_assert_no_any_tag"), "true", "given")
  local d <close> = c:dup()
  T.eq(d:get_info():get("mpi_assert_no_any_tag"), "false", "not propagated to a dup")
  local again <close> = c:dup({ mpi_assert_no_any_tag = true })
  T.eq(again:get_info():get("mpi_assert_no_any_tag"), "true", "passed again")
  local info = rl.info{ mpi_assert_no_any_tag = "true" }
  local e <close> = rl.world:dup(info)
  info:set("mpi_assert_no_any_tag", "false")
  T.eq(e:get_info():get("mpi_assert_no_any_tag"), "true", "comm: the info changed after")
  local wi = rl.info{ no_locks = "true" }
  local w <close> = rl.win_allocate(16, { info = wi })
  wi:set("no_locks", "false"); wi:set("accumulate_ordering", "none")
  T.eq(w:get_info():get("no_locks"), "true", "window: the info changed after")
  T.eq(w:get_info():get("accumulate_ordering"), "rar,raw,war,waw", "window: a key added after")
  w:free(); again:free(); d:free(); c:free(); e:free()
end)

T.case("free and use after free", function()
  local c = rl.world:dup()
  c:free()
  checkerr("ERR_COMM", "freed", c.rank, c)
  c:free() -- idempotent, like <close>
  checkerr("ERR_COMM", "communicator expected", rl.world.rank, {})
end)

T.done()
