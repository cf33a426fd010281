-- rl.trace.svg_text(set [, opts]): the SVG picture of a trace set, in the
-- style of the MPI standard's PSCW figure (docs/trace.md). ltrace.c loads
-- this file after trace.lua, with its table T (T._label, T._category,
-- T._pick, T._ARRIVED).
--
-- Time runs down and each rank has a lane. A call is a box from the moment
-- it was called to the moment it returned; an arrival (rma engine) is a dot.
-- A dashed arrow runs from a post to the call it released, a dotted one from
-- a complete to the wait it released, and a solid one carries an
-- operation's data (put, accumulate: to the target's lane; get: back from
-- it). Events fall into epoch groups: stretches that start and end with no
-- epoch open on any rank, each under a separator and a title.
--
-- opts.scale: "order" (default) gives every moment its own row, so short
-- calls stay legible, and cuts out long gaps, marked with a break and the
-- time that passed; "time" draws time to scale (opts.height pixels for all
-- the groups), labels pushed down where they would overlap.
-- opts.titles: the groups' titles, in order (else their times).
-- opts.window, opts.last: as for the other writers.
--
-- No arrow crosses a box it does not start or end at: between two lanes an
-- arrow runs in the gap between them, and it crosses a lane only at a
-- height where that lane has no box (tests/trace/check-svg.py checks it).
local T = ...
local fmt, concat = string.format, table.concat
local label, category, pick = T._label, T._category, T._pick
local ARRIVED = T._ARRIVED

local LANE, LEFT, BOXW = 230, 96, 16    -- lane pitch, left margin, box width
local ROW, GAPROW, SEPROW = 22, 30, 46   -- order scale: a row, a cut, a separator
local MARGIN, CROSS = 5, 12             -- clearance around boxes; half a crossing
local COLOR = { pscw = "#dbe8f7", rma = "#e3f3df", fence = "#f4ecd8", passive = "#efe0f3",
                arrival = "#ffffff", ["local"] = "#f7f7d8", race = "#f5b7b1" }
local STROKE = { post = { "#1f5fbf", "7,4" }, complete = { "#c0392b", "2,3" },
                 race = { "#8e44ad", "none" }, data = { "#2e7d32", "none" } }
-- Which way an operation's data goes: to the target, from it, or both.
local DATA_DIR = { put = "to", accumulate = "to", get = "from", get_accumulate = "both",
                   fetch_and_op = "both", compare_and_swap = "both" }
-- Calls that open (+1) or close (-1) an epoch, for finding the groups.
local DEPTH = { post = 1, start = 1, lock = 1, lock_all = 1, wait = -1, complete = -1,
                unlock = -1, unlock_all = -1 }

local function xml(s)
  return (tostring(s):gsub("[<>&\"]", { ["<"] = "&lt;", [">"] = "&gt;", ["&"] = "&amp;",
                                          ['"'] = "&quot;" }))
end
local function num(v) return fmt("%.1f", v) end
local function ms(t) return t * 1e3 < 10 and fmt("%.2f ms", t * 1e3) or fmt("%.1f ms", t * 1e3) end

---------------------------------------------------------------------------
-- Epoch groups: split the events (in time order) once an epoch has closed
-- (a wait, complete, unlock..., or a fence after an operation), no epoch is
-- open on any rank, and the next event starts after every earlier one
-- returned.

local function groups_of(set)
  local depth, groups, cur, last_end = {}, {}, nil, -math.huge
  for i, e in ipairs(set.events) do
    if not cur then
      cur = { first = i, t0 = e.t0 }
      groups[#groups + 1] = cur
    end
    local d = DEPTH[e.kind] or (e.kind == "test" and e.flag ~= 0 and -1) or 0
    depth[e.rank] = math.max(0, (depth[e.rank] or 0) + d)
    last_end = math.max(last_end, e.t1)
    cur.last, cur.t1 = i, last_end
    cur.ops = cur.ops or DATA_DIR[e.kind] ~= nil
    cur.closed = cur.closed or d < 0 or (e.kind == "fence" and cur.ops)
    local open = false
    for _, v in pairs(depth) do open = open or v > 0 end
    local nxt = set.events[i + 1]
    if cur.closed and not open and nxt and nxt.t0 > last_end then cur = nil end
  end
  return groups
end

---------------------------------------------------------------------------
-- Vertical layout: y(t) for each group, the cuts (order) or ticks (time).

local function moments(set, g)
  local ts, uniq = {}, {}
  for i = g.first, g.last do
    local e = set.events[i]
    ts[#ts + 1] = e.t0
    ts[#ts + 1] = e.t1
  end
  table.sort(ts)
  for _, t in ipairs(ts) do
    if #uniq == 0 or t > uniq[#uniq] then uniq[#uniq + 1] = t end
  end
  return uniq
end

-- A step between rows is cut when it is long: a fifth of the whole trace,
-- ten times the typical step, and 10 ms.
local function cut_threshold(set, groups)
  local steps = {}
  for _, g in ipairs(groups) do
    local u = moments(set, g)
    for k = 2, #u do steps[#steps + 1] = u[k] - u[k - 1] end
  end
  table.sort(steps)
  local span = groups[#groups].t1 - groups[1].t0
  return math.max(span / 5, 10 * (steps[(#steps + 1) // 2] or 0), 0.01)
end

local function layout_order(set, groups, top)
  local at, cut = {}, cut_threshold(set, groups)
  local y, marks, cuts = top, {}, {}
  for gi, g in ipairs(groups) do
    y = y + SEPROW
    g.y = y - SEPROW + 14
    at[gi] = {}
    local u = moments(set, g)
    for k, t in ipairs(u) do
      if k > 1 and u[k] - u[k - 1] >= cut then
        cuts[#cuts + 1] = { y = y + (GAPROW + ROW) / 2, dt = u[k] - u[k - 1] }
        y = y + GAPROW
      end
      y = y + (k > 1 and ROW or 0)
      at[gi][t] = y
      marks[#marks + 1] = { y = y, t = t }
    end
    g.bottom = y + ROW
    y = g.bottom
  end
  local function yof(gi, t) return at[gi][t] end
  return yof, y, marks, cuts
end

local function nice_step(span, n)
  local raw = span / n
  local p = 10 ^ math.floor(math.log(raw, 10))
  for _, m in ipairs{ 1, 2, 5, 10 } do
    if m * p >= raw then return m * p end
  end
end

local function layout_time(groups, top, height)
  local total = 0
  for _, g in ipairs(groups) do total = total + math.max(g.t1 - g.t0, 1e-6) end
  local k = height / total
  local y, marks = top, {}
  for _, g in ipairs(groups) do
    y = y + SEPROW
    g.y, g.ytop = y - SEPROW + 14, y
    local step = nice_step(math.max(g.t1 - g.t0, 1e-6), 6)
    local first = math.ceil((g.t0 - groups[1].t0) / step - 1e-9) * step + groups[1].t0
    for t = first, g.t1 + 1e-12, step do
      marks[#marks + 1] = { y = y + (t - g.t0) * k, t = t, tick = true }
    end
    g.bottom = y + (g.t1 - g.t0) * k + ROW
    y = g.bottom
  end
  local function yof(gi, t) return groups[gi].ytop + (t - groups[gi].t0) * k end
  return yof, y, marks
end

---------------------------------------------------------------------------
-- Boxes and where arrows may cross lanes.

local function lane_x(r) return LEFT + LANE * r + 30 end

-- Each event's box (or dot) and its label's place. In time scale a label
-- that would overlap the one above on its lane is pushed down.
local function place(set, groups, yof, pad)
  local shapes, below = {}, {}
  for gi, g in ipairs(groups) do
    for i = g.first, g.last do
      local e = set.events[i]
      local x, y0, y1 = lane_x(e.rank), yof(gi, e.t0), yof(gi, e.t1)
      local s = { e = e, x = x, dot = ARRIVED[e.kind] ~= nil }
      if s.dot then
        s.top, s.bottom = y0 - 4, y0 + 4
      else
        s.top, s.bottom = y0 - pad, math.max(y1 + pad, y0 + pad)
      end
      s.ly = math.max(y0 + 4, (below[e.rank] or -math.huge) + 13)
      below[e.rank] = s.ly
      shapes[i] = s
    end
  end
  return shapes
end

-- The free heights of each lane: boxes (not dots) with their clearance.
local function lane_blocks(set, shapes)
  local blocks = {}
  for r = 0, set.ranks - 1 do blocks[r] = {} end
  for _, s in pairs(shapes) do
    if not s.dot then
      local b = blocks[s.e.rank]
      b[#b + 1] = { s.top - MARGIN, s.bottom + MARGIN }
    end
  end
  for r = 0, set.ranks - 1 do
    table.sort(blocks[r], function(a, b) return a[1] < b[1] end)
    local merged = {}
    for _, iv in ipairs(blocks[r]) do
      local m = merged[#merged]
      if m and iv[1] <= m[2] then m[2] = math.max(m[2], iv[2]) else merged[#merged + 1] = { iv[1], iv[2] } end
    end
    blocks[r] = merged
  end
  return blocks
end

-- The height near y at which lane r has no box, for an arrow heading from
-- height `from` to height `to`: past a box on the side it is heading to, so
-- that it never runs back in time, unless that side lies beyond `to`. Then
-- the side that strays less from the way (`strict`: the other side).
local function free_y(blocks, r, y, from, to, strict)
  for _, iv in ipairs(blocks[r]) do
    if y > iv[1] and y < iv[2] then
      local lo, hi = math.min(from, to), math.max(from, to)
      local ahead, behind = iv[2], iv[1]
      if to < from then ahead, behind = iv[1], iv[2] end
      local function stray(v) return math.max(lo - v, v - hi, 0) end
      if stray(ahead) == 0 then return ahead end
      if strict or stray(behind) < stray(ahead) then return behind end
      return ahead
    end
  end
  return y
end

-- The points of an arrow from (xa, ya) on lane ra to (xb, yb) on lane rb:
-- straight within a gap between lanes, level where it crosses a lane.
-- `reach`: the height it heads for (yb, or farther for data that may land
-- later but not past it).
local function route(blocks, ra, xa, ya, rb, xb, yb, reach)
  local pts = { { xa, ya } }
  if ra == rb then
    local side = xa + 26
    pts[#pts + 1] = { side, ya }
    pts[#pts + 1] = { side, yb }
  else
    local dir = rb > ra and 1 or -1
    for r = ra + dir, rb - dir, dir do
      local x, p = lane_x(r), pts[#pts]
      local y = p[2] + (yb - p[2]) * (x - dir * CROSS - p[1]) / (xb - p[1])
      y = free_y(blocks, r, y, ya, reach or yb, reach ~= nil)
      pts[#pts + 1] = { x - dir * CROSS, y }
      pts[#pts + 1] = { x + dir * CROSS, y }
    end
  end
  pts[#pts + 1] = { xb, yb }
  return pts
end

-- A point on the side of shape s that faces lane `toward`, at height y
-- (kept inside the box).
local function side_of(s, toward, y)
  y = math.min(math.max(y, s.top + 2), s.bottom - 2)
  if s.dot then return s.x + (toward >= s.e.rank and 4 or -4), y end
  return s.x + (toward >= s.e.rank and BOXW / 2 or -BOXW / 2), y
end

-- Where the data of an operation lands on the target's lane at height y:
-- the side of the target's box there, else the lane itself.
local function landing(shapes, target, from, y)
  for _, s in pairs(shapes) do
    if s.e.rank == target and not s.dot and y >= s.top and y <= s.bottom then
      return side_of(s, from, y)
    end
  end
  return lane_x(target), y
end

-- The latest height at which data put at y can land on lane `target`: the
-- end of the target's first call that ends after y.
local function deadline(shapes, target, y)
  local d = math.huge
  for _, s in pairs(shapes) do
    if s.e.rank == target and not s.dot and s.bottom >= y then d = math.min(d, s.bottom) end
  end
  return d
end

---------------------------------------------------------------------------
-- The arrows: synchronisation flows, then operations' data.

local function arrows(set, shapes, blocks)
  local out = {}
  for _, f in ipairs(set.flows) do
    local a, b = shapes[f.from], shapes[f.to]
    local ra, rb = a.e.rank, b.e.rank
    local ya = a.dot and a.top + 4 or a.top + 2
    local yb = b.dot and b.top + 4 or b.bottom - 2
    local xa, ya2 = side_of(a, rb == ra and ra + 1 or rb, ya)
    local xb, yb2 = side_of(b, rb == ra and rb + 1 or ra, yb)
    out[#out + 1] = { kind = f.kind, from = f.from, to = f.to,
                      pts = route(blocks, ra, xa, ya2, rb, xb, yb2) }
  end
  for i, s in pairs(shapes) do
    local e = s.e
    if DATA_DIR[e.kind] and e.peer >= 0 and e.peer < set.ranks then
      local y = (s.top + s.bottom) / 2
      local xa, ya = side_of(s, e.peer == e.rank and e.rank + 1 or e.peer, y)
      local xb, yb = landing(shapes, e.peer, e.rank, y)
      if e.peer == e.rank then xb = xa end
      local last = deadline(shapes, e.peer, yb)
      local pts = route(blocks, e.rank, xa, ya, e.peer, xb, yb, last)
      local passed = pts[#pts - 1][2]
      if #pts > 2 and passed > yb then -- it passed under a box: the data lands later
        pts[#pts] = { landing(shapes, e.peer, e.rank, passed) }
      end
      out[#out + 1] = { kind = "data", dir = DATA_DIR[e.kind], op = e.kind, from = i,
                        peer = e.peer, pts = pts }
    end
  end
  table.sort(out, function(p, q)
    if p.from ~= q.from then return p.from < q.from end
    return (p.to or -1) < (q.to or -1)
  end)
  return out
end

local function arrow_svg(a)
  local pts = {}
  for k, p in ipairs(a.pts) do pts[k] = num(p[1]) .. "," .. num(p[2]) end
  local st = STROKE[a.kind]
  local marks = a.dir == "from" and ' marker-start="url(#head-data)"'
    or a.dir == "both" and ' marker-start="url(#head-data)" marker-end="url(#head-data)"'
    or fmt(' marker-end="url(#head-%s)"', a.kind)
  return fmt('<polyline class="arrow %s" data-from="%d"%s points="%s" fill="none" '
    .. 'stroke="%s" stroke-width="1.6"%s%s/>', a.kind, a.from,
    a.to and fmt(' data-to="%d"', a.to) or fmt(' data-peer="%d" data-op="%s"', a.peer, a.op),
    concat(pts, " "),
    st[1], st[2] ~= "none" and fmt(' stroke-dasharray="%s"', st[2]) or "", marks)
end

---------------------------------------------------------------------------
-- The header and the legend.

local HALO = ' stroke="white" stroke-width="3" paint-order="stroke"'

local function header(o, set, opts)
  local names, used = {}, {}
  for _, e in ipairs(set.events) do used[e.win] = true end
  for i, w in ipairs(set.windows) do
    if used[i] then
      names[#names + 1] = fmt("%s (%s engine)", w.name ~= "" and w.name or w.key, w.engine)
    end
  end
  o[#o + 1] = fmt('<text x="12" y="24" font-size="15" font-weight="bold">%s</text>',
    xml(fmt("rmalab trace of %s: %d ranks", concat(names, ", "), set.ranks)))
  local scale = opts.scale == "time"
    and "time runs down, to scale"
    or "time runs down in order: a row per moment, long gaps cut (\u{2248}: the time cut out)"
  local clocks = set.shared_clock and "clocks: one host, one shared clock"
    or fmt("clocks: aligned to rank 0's to within %s", set.uncertainty < 1e-3
      and fmt("%.1f \u{b5}s", set.uncertainty * 1e6) or ms(set.uncertainty))
  if set.total and set.total > #set.events then
    clocks = clocks .. fmt("; the last %d of %d events", #set.events, set.total)
  end
  o[#o + 1] = fmt('<text x="12" y="43" fill="#444">%s</text>', xml(scale))
  o[#o + 1] = fmt('<text class="clocks" x="12" y="60" fill="#444">%s</text>', xml(clocks))
end

-- The legend: one row of samples under the header. Returns its bottom.
local function legend(o, has, width)
  local items = {
    { "box", "a call from its start to its return (blue: synchronisation, green: RMA)" },
    { "post", "post \u{2192} the call it released" },
    { "complete", "complete \u{2192} the wait it released" },
    { "data", "data: put \u{2192} target (get \u{2190})" },
  }
  if has.dot then items[#items + 1] = { "dot", "a post or complete seen arriving" } end
  if has.race then items[#items + 1] = { "race", "a race and its two accesses" } end
  if has.cut then items[#items + 1] = { "cut", "time cut out" } end
  if has.op then
    items[#items + 1] = { "note", fmt("%s: %d bytes into rank %d's window at displacement %d",
      label(has.op), has.op.bytes, has.op.peer, has.op.disp) }
  end
  local x, y, top = 14, 98, 82
  o[#o + 1] = fmt('<rect class="legend" x="6" y="%d" width="%d" height="%d" fill="#fafafa" '
    .. 'stroke="#ccc"/>', top, width - 12, 0) -- height patched below
  local rect = #o
  for _, it in ipairs(items) do
    local w = 36 + math.floor(6.4 * utf8.len(it[2]))
    if x + w > width - 10 then x, y = 14, y + 20 end
    local k = it[1]
    if k == "box" then
      o[#o + 1] = fmt('<rect x="%d" y="%d" width="10" height="16" rx="2" fill="%s" stroke="#333"/>'
        .. '<rect x="%d" y="%d" width="10" height="16" rx="2" fill="%s" stroke="#333"/>',
        x, y - 12, COLOR.pscw, x + 12, y - 12, COLOR.rma)
    elseif k == "dot" then
      o[#o + 1] = fmt('<circle cx="%d" cy="%d" r="4" fill="#333"/>', x + 12, y - 4)
    elseif k == "note" then
      x = x - 34
    elseif k == "cut" then
      o[#o + 1] = fmt('<path d="M%d,%d l8,-6 M%d,%d l8,-6" stroke="#666" stroke-width="1.5"/>',
        x + 6, y, x + 6, y - 4)
    else
      o[#o + 1] = arrow_svg{ kind = k, from = 0, to = 0, pts = { { x, y - 4 }, { x + 28, y - 4 } } }
        :gsub('class="arrow ', 'class="sample ')
    end
    o[#o + 1] = fmt('<text x="%d" y="%d">%s</text>', x + 34, y, xml(it[2]))
    x = x + w + 14
  end
  local bottom = y + 10
  o[rect] = o[rect]:gsub('height="0"', fmt('height="%d"', bottom - top))
  return bottom
end

---------------------------------------------------------------------------

local function defs(o)
  local m = {}
  for _, k in ipairs{ "post", "complete", "race", "data" } do
    m[#m + 1] = fmt('<marker id="head-%s" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
      .. 'markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="%s"/>'
      .. '</marker>', k, STROKE[k][1])
  end
  o[#o + 1] = "<defs>" .. concat(m) .. "</defs>"
end

local function shapes_svg(o, shapes, n)
  for i = 1, n do
    local s = shapes[i]
    if s and s.dot then
      o[#o + 1] = fmt('<circle class="arrival" data-event="%d" cx="%s" cy="%s" r="4" fill="#333"/>',
        i, num(s.x), num(s.top + 4))
    elseif s then
      o[#o + 1] = fmt('<rect class="call" data-event="%d" x="%s" y="%s" width="%d" height="%s" '
        .. 'rx="3" fill="%s" stroke="#333"/>', i, num(s.x - BOXW / 2), num(s.top), BOXW,
        num(s.bottom - s.top), COLOR[category(s.e.kind)])
    end
  end
end

local function labels_svg(o, shapes, n)
  for i = 1, n do
    local s = shapes[i]
    if s then
      local lx = s.x + (s.dot and 8 or BOXW / 2 + 5)
      if s.ly > s.top + 9 then -- pushed down: a leader to its box
        o[#o + 1] = fmt('<path d="M%s,%s L%s,%s" stroke="#999" stroke-width="0.8" fill="none"/>',
          num(s.x + BOXW / 2), num(s.top + 4), num(lx - 1), num(s.ly - 4))
      end
      o[#o + 1] = fmt('<text x="%s" y="%s"%s>%s</text>', num(lx), num(s.ly), HALO,
        xml(label(s.e)))
    end
  end
end

-- The lanes, and a separator and a title above each group.
local function frame_svg(o, set, groups, opts, width, lanes_top, height)
  for r = 0, set.ranks - 1 do
    o[#o + 1] = fmt('<text class="lane" x="%d" y="%d" font-weight="bold">rank %d</text>',
      lane_x(r) - 20, lanes_top - 6, r)
    o[#o + 1] = fmt('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#bbb"/>', lane_x(r),
      lanes_top, lane_x(r), height - 10)
  end
  local t_first = groups[1].t0
  for gi, g in ipairs(groups) do
    o[#o + 1] = fmt('<line class="separator" x1="6" y1="%s" x2="%d" y2="%s" stroke="#555" '
      .. 'stroke-width="1.2"/>', num(g.y - 10), width - 6, num(g.y - 10))
    local title = opts.titles and opts.titles[gi] or fmt("epoch group %d", gi)
    o[#o + 1] = fmt('<text class="group" x="12" y="%s" font-weight="bold" fill="#222"%s>%s</text>',
      num(g.y + 6), HALO, xml(fmt("%s (%s to %s)", title, ms(g.t0 - t_first), ms(g.t1 - t_first))))
  end
end

-- The times in the left margin, each only once.
local function margin_svg(o, groups, marks, width)
  local t_first = groups[1].t0
  local last_y, last_text = -math.huge, nil
  for _, m in ipairs(marks) do
    local text = ms(m.t - t_first)
    if m.y - last_y >= 12 and text ~= last_text then
      o[#o + 1] = fmt('<text x="8" y="%s" fill="#888" font-size="10">%s</text>', num(m.y + 4),
        text)
      if m.tick then
        o[#o + 1] = fmt('<line x1="%d" y1="%s" x2="%d" y2="%s" stroke="#eee"/>', LEFT - 8,
          num(m.y), width - 10, num(m.y))
      end
      last_y, last_text = m.y, text
    end
  end
end

-- The cuts: a break across every lane (over the boxes) and the time cut out.
local function cuts_svg(o, set, cuts, width)
  for _, c in ipairs(cuts) do
    o[#o + 1] = fmt('<g class="cut"><rect x="%d" y="%s" width="%d" height="8" fill="white" '
      .. 'opacity="0.85"/>', LEFT - 10, num(c.y - 4), width - LEFT)
    for r = 0, set.ranks - 1 do
      o[#o + 1] = fmt('<path d="M%d,%s l16,-6 M%d,%s l16,-6" stroke="#666" stroke-width="1.5"/>',
        lane_x(r) - 8, num(c.y + 1), lane_x(r) - 8, num(c.y + 7))
    end
    o[#o + 1] = fmt('<text x="8" y="%s" fill="#b03a2e" font-size="10" font-weight="bold">'
      .. '%s</text></g>', num(c.y + 4), xml("\u{2248} " .. ms(c.dt)))
  end
end

function T.svg_text(set, opts)
  opts = opts or {}
  if opts.scale ~= nil and opts.scale ~= "order" and opts.scale ~= "time" then
    T._raise("ERR_ARG", fmt("trace.svg: scale must be \"order\" or \"time\", not %q",
      tostring(opts.scale)))
  end
  set = pick(set, opts)
  local width = LEFT + LANE * set.ranks + 40
  local has = { cut = opts.scale ~= "time" }
  for _, e in ipairs(set.events) do
    has.dot = has.dot or ARRIVED[e.kind] ~= nil
    has.op = has.op or (DATA_DIR[e.kind] and e)
  end
  for _, f in ipairs(set.flows) do has.race = has.race or f.kind == "race" end
  local head = {}
  header(head, set, opts)
  local lanes_top = legend(head, has, width) + 26
  local groups = #set.events > 0 and groups_of(set) or {}
  local yof, bottom, marks, cuts = nil, lanes_top + ROW, {}, {}
  if #groups > 0 and opts.scale == "time" then
    yof, bottom, marks = layout_time(groups, lanes_top, opts.height or 700)
  elseif #groups > 0 then
    yof, bottom, marks, cuts = layout_order(set, groups, lanes_top)
  end
  local height = math.floor(bottom) + 16
  local o = { fmt('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
    .. 'viewBox="0 0 %d %d" font-family="DejaVu Sans, Arial, sans-serif" font-size="12">',
    width, height, width, height) }
  defs(o)
  o[#o + 1] = fmt('<rect width="%d" height="%d" fill="white"/>', width, height)
  for _, l in ipairs(head) do o[#o + 1] = l end
  if #groups > 0 then
    frame_svg(o, set, groups, opts, width, lanes_top, height)
    margin_svg(o, groups, marks, width)
    local shapes = place(set, groups, yof, opts.scale == "time" and 3 or 5)
    shapes_svg(o, shapes, #set.events)
    cuts_svg(o, set, cuts, width)
    for _, a in ipairs(arrows(set, shapes, lane_blocks(set, shapes))) do
      o[#o + 1] = arrow_svg(a)
    end
    labels_svg(o, shapes, #set.events)
  end
  o[#o + 1] = "</svg>\n"
  return concat(o, "\n")
end

return T
