-- The Lua module through luarocks: `luarocks make` in a checkout builds
-- rmalab.so (the core embedded) with lua/rock.mk, finding MPICH with
-- pkg-config. The version follows meson.build's; tests/packaging checks.
rockspec_format = "3.0"
package = "rmalab"
version = "0.1.0-1"
-- No published source archive yet: the rock is built from a checkout with
-- `luarocks make`, which uses the files at hand and never fetches this.
source = {
   url = "git+file://.",
}
description = {
   summary = "A lab bench for MPI one-sided communication (MPI-3 RMA over MPICH)",
   detailed = [[
Info objects, hints, window attribute caching, fence, lock and PSCW epochs
(two engines) with an epoch checker and a race checker that name the rule
a program breaks, for learning, teaching and prototyping MPI RMA. Load it
with require "rmalab" in lua5.4 under mpiexec.]],
   license = "MIT",
   labels = { "mpi", "hpc", "rma" },
}
dependencies = {
   "lua >= 5.4, < 5.5",
}
build = {
   type = "make",
   makefile = "lua/rock.mk",
   build_variables = {
      CC = "$(CC)",
      CFLAGS = "$(CFLAGS)",
      LIBFLAG = "$(LIBFLAG)",
      LUA = "$(LUA)",
      LUA_INCDIR = "$(LUA_INCDIR)",
   },
   install_pass = false,
   install = {
      lib = { rmalab = "rmalab.so" },
   },
}
