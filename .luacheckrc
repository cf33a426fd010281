-- luacheck (Debian lua-check) over the Lua that ships inside the module
-- (lua/*.lua), the labs (scripts/), the tests and the benchmarks. `luacheck
-- .` at the root checks exactly these; the packaging suite's luacheck test
-- runs it and wants no warnings.
std = "lua54"
include_files = { "lua/*.lua", "scripts/*.lua", "scripts/lib/*.lua", "tests/**/*.lua", "bench/*.lua" }
exclude_files = { "build*/**", "rockbuild/**" }

-- A leading underscore says "unused on purpose": a to-be-closed variable
-- held only for its __close (local _w <close> = ...), or an argument that a
-- callback's signature requires. luacheck already skips such arguments.
ignore = { "211/_.*" }

-- Script mode of the rmalab executable preloads the module as the global
-- `rmalab` (docs/repl.md); these fixtures use it as a script would.
files["tests/repl/script-*.lua"] = { read_globals = { "rmalab" } }

-- The attributes lab spells out every callback's whole argument list, as
-- MPI passes it, for the student to see, used or not.
files["scripts/attributes.lua"] = { unused_args = false }
