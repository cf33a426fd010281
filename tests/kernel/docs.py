"""Every name Shift-Tab documents (kernel/rmalab_kernel/docs.py) is a
function of the module, or a method of a window, a communicator or an info
object:  docs.py RMALAB KERNEL_DIR"""
import subprocess
import sys

sys.path.insert(0, sys.argv[2])
from rmalab_kernel.docs import DOCS  # noqa: E402

from harness import check  # noqa: E402

LIST = r'''
local out = {}
local function walk(t, path, depth, seen)
  if seen[t] or depth > 2 then return end
  seen[t] = true
  for k, v in pairs(t) do
    if type(k) == "string" then
      if type(v) == "function" then out[#out + 1] = path .. "." .. k
      elseif type(v) == "table" then walk(v, path .. "." .. k, depth + 1, seen) end
    end
  end
end
walk(rmalab, "rmalab", 0, {})
local w, c, i = rmalab.win_allocate(16), rmalab.world:dup(), rmalab.info()
for name, obj in pairs{win = w, comm = c, info = i} do
  for k, v in pairs(getmetatable(obj).__index) do
    if type(v) == "function" then out[#out + 1] = name .. ":" .. k end
  end
end
w:free() c:free() i:free()
print(table.concat(out, " "))
'''

out = subprocess.run([sys.argv[1], "-n", "1", "-e", LIST], capture_output=True, text=True,
                     timeout=60).stdout
have = set(out.replace("[0]", " ").split())
missing = sorted(k for k in DOCS if k not in have)
check(len(have) > 50, "the module lists its functions (%d)" % len(have))
check(not missing, "every documented name exists: %r" % missing)
