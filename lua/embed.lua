-- Build step: turn a Lua source file into a C array, for modules written in
-- Lua that ship inside the C module (rmalab.test).
--   lua5.4 embed.lua NAME input.lua output.h
local name, input, output = ...
local src = assert(io.open(input, "rb")):read("a")
local out = assert(io.open(output, "wb"))
out:write("/* Generated from ", input:match("[^/]*$"), " by embed.lua: do not edit. */\n")
out:write("static const char ", name, "[] = {\n")
for i = 1, #src, 16 do
  local row = {}
  for k = i, math.min(i + 15, #src) do row[#row + 1] = string.format("%d,", src:byte(k)) end
  out:write("    ", table.concat(row, " "), "\n")
end
out:write("};\n")
out:close()
