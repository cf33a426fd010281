-- ranks: 4
-- engines: native rma
-- timeout: 120
-- The standard's PSCW example (MPI 2.2, section 11.4.2) on 4 ranks: rank 0
-- puts into the windows of ranks 1 and 2, rank 3 into the window of rank 2;
-- ranks 1 and 2 post to the ranks that access them and wait. Several epochs,
-- each with its own values, once with the roles' calls only and once in the
-- general form where every rank posts and starts (empty groups included).
-- Kept short: 4 ranks share 2 cores here. Runs unchanged on both PSCW
-- engines (RMALAB_PSCW in the environment picks it: lua-pscw4 and
-- lua-pscw4-rma).
local rl = require "rmalab"
local T = require "rmalab.test"
local checkerr = T.checkerr

local rank = T.rank
assert(T.size == 4, "pscw4.lua runs on 4 ranks")
local ENGINE = os.getenv("RMALAB_PSCW") == "native" and "native" or "rma"

local OUT = { [0] = { 1, 2 }, [1] = {}, [2] = {}, [3] = { 2 } } -- start groups
local IN = { [0] = {}, [1] = { 0 }, [2] = { 0, 3 }, [3] = {} }  -- post groups

-- What each rank's window holds after epoch e (slots 0 and 1, int64).
local function expected(e)
  return ({ [0] = { 0, 0 }, [1] = { 1000 * e + 10, 0 }, [2] = { 1000 * e + 20, 1000 * e + 32 },
    [3] = { 0, 0 } })[rank]
end

local function puts(w, e)
  if rank == 0 then
    w:put(1, 0, "int64", 1000 * e + 10)
    w:put(2, 0, "int64", 1000 * e + 20)
  elseif rank == 3 then
    w:put(2, 1, "int64", 1000 * e + 32)
  end
end

T.case("the standard's example, roles only", function()
  local w <close> = rl.win_allocate(16, { disp_unit = 8, name = "example" })
  T.eq(w:epochs().engine, ENGINE, "engine")
  for e = 1, 4 do
    if rank == 0 or rank == 3 then
      w:start(OUT[rank])
      T.eq(w:epochs().access_group, OUT[rank], "access group")
      puts(w, e)
      if rank == 0 then
        checkerr("ERR_RMA_SYNC", "win:put to rank 3: RMA calls in an access epoch may only "
          .. "target processes in its group; start() was given {1, 2}", w.put, w, 3, 0,
          "int64", 1)
      else
        checkerr("ERR_RMA_SYNC", "start() was given {2}", w.put, w, 1, 0, "int64", 1)
      end
      w:complete()
    else
      w:post(IN[rank])
      T.eq(w:epochs().exposure_group, IN[rank], "exposure group")
      T.eq(w:epochs().text:find("exposure epoch to {" .. table.concat(IN[rank], ", ") .. "}", 1,
        true) ~= nil, true, "text names the exposure group")
      if e % 2 == 0 then
        local deadline = rl.wtime() + 20
        repeat until w:test() or rl.wtime() > deadline
        T.eq(w:epochs().exposure, "none", "test ended the epoch")
      else
        w:wait()
      end
    end
    T.eq(w:read(0, "int64", 2), expected(e), "window after epoch " .. e)
  end
  T.eq(w:epochs().epochs, (rank == 0 or rank == 3) and 4 or 0, "access epochs closed")
  w:free()
end)

T.case("the general form: every rank posts and starts", function()
  local w <close> = rl.win_create(16, { disp_unit = 8 }) -- data through MPI on the rma engine
  T.eq(w:get_info():get("rmalab_pscw"), ENGINE, "engine")
  for e = 1, 3 do
    w:post(IN[rank])
    w:start(OUT[rank])
    puts(w, e)
    w:complete()
    w:wait()
    T.eq(w:read(0, "int64", 2), expected(e), "window after epoch " .. e)
  end
  T.eq(w:epochs().epochs, 3, "every rank closed three access epochs")
  w:free()
end)

T.done()
