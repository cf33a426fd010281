# luarocks' build of the Lua module (rmalab-*.rockspec, build type "make"):
# the core and the binding compiled into one rmalab.so, MPICH found with
# pkg-config. luarocks passes CC, CFLAGS, LIBFLAG, LUA and LUA_INCDIR; the
# defaults below let `make -f lua/rock.mk` run by hand too. The meson build
# (meson.build) is the project's own; this file takes every C file of
# core/src and lua, so a new file needs no change here.
CC ?= cc
CFLAGS ?= -O2 -fPIC
LIBFLAG ?= -shared
LUA ?= lua5.4
LUA_INCDIR ?= /usr/include/lua5.4
PKG_CONFIG ?= pkg-config

OUT := rockbuild
MPI_CFLAGS := $(shell $(PKG_CONFIG) --cflags mpich)
MPI_LIBS := $(shell $(PKG_CONFIG) --libs mpich)
VERSION := $(shell sed -n "s/^  version : '\(.*\)',$$/\1/p" meson.build)
ifeq ($(strip $(MPI_LIBS)),)
$(error rock.mk: pkg-config finds no mpich; install MPICH's development files (Debian: libmpich-dev))
endif
SOURCES := $(wildcard core/src/*.c lua/*.c)
OBJECTS := $(SOURCES:%.c=$(OUT)/%.o)
GENERATED := $(OUT)/rmalab-version.h $(OUT)/test-lua.h $(OUT)/trace-lua.h \
             $(OUT)/trace-svg-lua.h
FLAGS := -std=c11 -D_GNU_SOURCE -fPIC -fvisibility=hidden -Icore/include -Icore/src -Ilua \
         -I$(OUT) -I$(LUA_INCDIR) $(MPI_CFLAGS)

rmalab.so: $(OBJECTS) lua/rmalab.map
	$(CC) $(LIBFLAG) -o $@ $(OBJECTS) -Wl,-z,nodelete -Wl,--version-script=lua/rmalab.map \
	    $(MPI_LIBS) -pthread -lm

$(OUT)/%.o: %.c $(GENERATED)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(FLAGS) -c $< -o $@

$(OUT)/rmalab-version.h: meson.build
	@mkdir -p $(OUT)
	@test -n "$(VERSION)" || { echo "rock.mk: no version in meson.build" >&2; exit 1; }
	printf '#define RMALAB_VERSION "%s"\n' "$(VERSION)" > $@

$(OUT)/test-lua.h: lua/test.lua lua/embed.lua
	@mkdir -p $(OUT)
	$(LUA) lua/embed.lua rmalab_test_lua lua/test.lua $@

$(OUT)/trace-lua.h: lua/trace.lua lua/embed.lua
	@mkdir -p $(OUT)
	$(LUA) lua/embed.lua rmalab_trace_lua lua/trace.lua $@

$(OUT)/trace-svg-lua.h: lua/trace-svg.lua lua/embed.lua
	@mkdir -p $(OUT)
	$(LUA) lua/embed.lua rmalab_trace_svg_lua lua/trace-svg.lua $@

clean:
	rm -rf $(OUT) rmalab.so

.PHONY: clean
