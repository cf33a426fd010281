#!/usr/bin/env bash
# The installed rmalab, and nothing from the build tree:
#   install.sh BUILD SOURCE VERSION (meson's project version)
#
# meson install into a staging DESTDIR, then check what landed there (the
# shared library with its soname, the headers, rmalab.pc, the module, the
# executable and its man page, no RUNPATH into the build or source tree),
# and, in an environment whose PATH, LUA_CPATH and PKG_CONFIG_PATH name only
# installed paths (and the system's), run from a scratch directory:
#   - a Lua script with the installed module, under mpiexec on 2 ranks;
#   - a piped REPL session with the installed executable;
#   - examples/pscw.c, examples/column.c and examples/requests.c, built with
#     cc $(pkg-config --cflags --libs rmalab);
#   - tests/cprog/cc/hello.c built by the installed rmalab cc, which finds
#     the installed access runtime.
# The .pc file says prefix=/usr/local; --define-variable=prefix points
# pkg-config at the staged copy instead.
set -euo pipefail
build=$(realpath "$1") src=$(realpath "$2") version=$3 major=${3%%.*}
stage=$(mktemp -d) work=$(mktemp -d)
trap 'rm -rf "$stage" "$work"' EXIT
fail() { echo "install: $*" >&2; exit 1; }

meson install -C "$build" --destdir "$stage" --no-rebuild --quiet >/dev/null
read -r prefix bindir libdir mandir includedir < <(meson introspect "$build" --buildoptions |
    python3 -c 'import json, sys
o = {x["name"]: x["value"] for x in json.load(sys.stdin)}
print(*(o[k] for k in ("prefix", "bindir", "libdir", "mandir", "includedir")))')
root=$stage$prefix bin=$stage$prefix/$bindir lib=$stage$prefix/$libdir

# What landed, and where.
for f in "$bin/rmalab" "$lib/librmalab.so.$version" "$lib/pkgconfig/rmalab.pc" \
         "$root/lib/lua/5.4/rmalab.so" "$root/$mandir/man1/rmalab.1" "$root/share/doc/rmalab/LICENSE"; do
    [ -f "$f" ] || fail "${f#"$stage"} was not installed"
done
for h in "$src"/core/include/rmalab/*.h; do
    [ -f "$root/$includedir/rmalab/$(basename "$h")" ] || fail "header $(basename "$h") was not installed"
done
soname=$(readelf -d "$lib/librmalab.so.$version" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = "librmalab.so.$major" ] || fail "soname '$soname', expected librmalab.so.$major"
[ "$(readlink "$lib/librmalab.so.$major")" = "librmalab.so.$version" ] &&
    [ "$(readlink "$lib/librmalab.so")" = "librmalab.so.$major" ] ||
    fail "librmalab.so symlinks are not librmalab.so -> .so.$major -> .so.$version"
for f in "$bin/rmalab" "$lib/librmalab.so.$version" "$root/lib/lua/5.4/rmalab.so"; do
    if readelf -d "$f" | grep -E 'R(UN)?PATH' | grep -E "$build|$src" >/dev/null; then
        fail "${f#"$stage"} keeps a run path into the build tree: $(readelf -d "$f" | grep PATH)"
    fi
done
echo "installed under $prefix: bin/rmalab, $libdir/librmalab.so.$version ($soname), headers, rmalab.pc, lib/lua/5.4/rmalab.so, $mandir/man1/rmalab.1"

# Only installed paths on PATH, LUA_CPATH and PKG_CONFIG_PATH.
installed() {
    (cd "$work" && env -i HOME="$work" PATH="$bin:/usr/bin:/bin" LUA_CPATH="$root/lib/lua/5.4/?.so" \
        LUA_PATH="$work/?.lua" PKG_CONFIG_PATH="$lib/pkgconfig" "$@")
}
[ "$(installed sh -c 'command -v rmalab')" = "$bin/rmalab" ] || fail "PATH does not find the installed rmalab"

# 1. The module in stock lua5.4.
cp "$src/tests/packaging/installed.lua" "$work/"
out=$(installed mpiexec -n 2 lua5.4 installed.lua "$root/lib/lua/5.4/rmalab.so" 2>&1) ||
    fail "the Lua script failed with the installed module:"$'\n'"$out"
echo "$out"
grep -qx "installed module ok on 2 ranks (rmalab $version)" <<<"$out" || fail "the Lua script did not end on both ranks"

# 2. A piped REPL session with the installed executable.
out=$(installed rmalab -n 2 <"$src/tests/packaging/installed.in" 2>&1) ||
    fail "the piped REPL session failed:"$'\n'"$out"
echo "$out"
diff -u "$src/tests/packaging/installed.out" <(printf '%s\n' "$out") >&2 ||
    fail "the REPL session printed something else than tests/packaging/installed.out"

# 3. The C example against the installed library.
cp "$src/examples/pscw.c" "$work/"
pc() { installed pkg-config --define-variable=prefix="$root" "$@" rmalab; }
flags=$(pc --cflags --libs) libdir_pc=$(pc --variable=libdir)
[ "$libdir_pc" = "$lib" ] || fail "pkg-config's libdir is $libdir_pc, not $lib"
installed cc -Wall -Wextra -Werror pscw.c $flags -Wl,-rpath,"$libdir_pc" -o pscw ||
    fail "examples/pscw.c does not build with: cc pscw.c $flags"
loaded=$(installed ldd ./pscw | awk '$1 == "librmalab.so.'"$major"'" {print $3}')
[ "$loaded" = "$lib/librmalab.so.$major" ] || fail "the example loads librmalab from '$loaded'"
for engine in rma native; do
    out=$(installed mpiexec -n 2 ./pscw "$engine" 2>&1) || fail "examples/pscw ($engine) failed:"$'\n'"$out"
    echo "$out" | sed "s/^/[$engine] /"
    grep -q '^rank 0: rank 1 put 1 here' <<<"$out" && grep -q '^rank 1: rank 0 put 0 here' <<<"$out" ||
        fail "examples/pscw ($engine) did not move the data"
done
cp "$src/examples/column.c" "$work/"
installed cc -Wall -Wextra -Werror column.c $flags -Wl,-rpath,"$libdir_pc" -o column ||
    fail "examples/column.c does not build with: cc column.c $flags"
out=$(installed mpiexec -n 2 ./column 2>&1) || fail "examples/column failed:"$'\n'"$out"
echo "$out"
cp "$src/examples/requests.c" "$work/"
installed cc -Wall -Wextra -Werror requests.c $flags -Wl,-rpath,"$libdir_pc" -o requests ||
    fail "examples/requests.c does not build with: cc requests.c $flags"
out=$(installed mpiexec -n 2 ./requests 2>&1) || fail "examples/requests failed:"$'\n'"$out"
echo "$out"

# 4. rmalab cc with the installed runtime (beside the executable's prefix).
[ -f "$lib/librmalab-access.a" ] || fail "${lib#"$stage"}/librmalab-access.a was not installed"
cp "$src/tests/cprog/cc/hello.c" "$work/"
installed rmalab cc -O2 hello.c -o hello || fail "the installed rmalab cc does not build hello.c"
installed nm hello | grep ' [Tt] __tsan_read4$' >/dev/null || fail "rmalab cc did not link the access runtime"
[ "$(installed ./hello)" = "sum 10" ] || fail "hello built by the installed rmalab cc printed something else"
echo "installed rmalab cc: hello.c built with ${libdir}/librmalab-access.a and ran"
# Its gcc plugin, when the build made one: installed, and loaded from there (-v shows cc1's
# command line).
if [ -f "$build/cprog/rmalab-gcc.so" ]; then
    [ -f "$lib/rmalab-gcc.so" ] || fail "${lib#"$stage"}/rmalab-gcc.so was not installed"
    out=$(installed rmalab cc -O2 -v -c hello.c -o hello.o 2>&1) ||
        fail "the installed rmalab cc does not compile hello.c:"$'\n'"$out"
    grep -q -- "-fplugin=$stage[^ ]*/rmalab-gcc.so" <<<"$out" ||
        fail "the installed rmalab cc does not load ${libdir}/rmalab-gcc.so"
    echo "installed rmalab cc: loads ${libdir}/rmalab-gcc.so"
fi

# 5. rmalab run on a plain mpicc binary, with the installed interceptor
# (found beside the installed executable, the DESTDIR's).
[ -f "$lib/librmalab-run.so" ] || fail "librmalab-run.so was not installed"
cp "$src/tests/cprog/run/put-noepoch.c" "$work/"
installed mpicc -g put-noepoch.c -o put-noepoch || fail "put-noepoch.c does not build with mpicc"
out=$(installed rmalab run -n 2 ./put-noepoch 2>&1) && fail "rmalab run put-noepoch exited 0"
echo "$out"
grep -q '^put-noepoch.c:12: error: MPI_Put: ' <<<"$out" ||
    fail "the installed rmalab run did not report put-noepoch.c:12"
echo "installed copy: Lua module, REPL, C examples, rmalab cc and rmalab run all ran from $prefix in $stage"
