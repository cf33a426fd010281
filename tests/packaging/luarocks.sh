#!/usr/bin/env bash
# The rock: luarocks.sh SOURCE VERSION (meson's project version)
#
# The rockspec's version is meson.build's; `luarocks make --local` builds the
# module (lua/rock.mk, MPICH through pkg-config) from a copy of the sources,
# with HOME in a scratch directory so that --local's tree (~/.luarocks) is
# the test's own; then installed.lua runs on 2 ranks with the module from
# that tree, found through `luarocks path` alone.
set -euo pipefail
src=$(realpath "$1") version=$2
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
fail() { echo "luarocks: $*" >&2; exit 1; }

specs=("$src"/rmalab-*.rockspec)
[ ${#specs[@]} -eq 1 ] || fail "expected one rockspec in the source root, found: ${specs[*]}"
spec=$(basename "${specs[0]}")
[[ $spec == "rmalab-$version-"[0-9]*.rockspec ]] ||
    fail "$spec does not carry meson.build's version $version (rmalab-$version-N.rockspec)"
v=${spec#rmalab-}
grep -qx "version = \"${v%.rockspec}\"" "${specs[0]}" || fail "$spec: its version field differs from its file name"

mkdir "$home/src"
cp -r "$src/core" "$src/lua" "$src/meson.build" "${specs[0]}" "$home/src/"
(cd "$home/src" && HOME=$home luarocks --lua-version=5.4 make --local "$spec") >"$home/log" 2>&1 ||
    { cat "$home/log" >&2; fail "luarocks make --local failed"; }
grep "is now installed" "$home/log" || fail "luarocks did not say the rock is installed"
so=$home/.luarocks/lib/lua/5.4/rmalab.so
[ -f "$so" ] || fail "no rmalab.so in the --local tree"
nm -D --defined-only "$so" | awk 'NF == 3 {print $3}' | grep -vxE 'luaopen_rmalab(_test)?' &&
    fail "the rock's rmalab.so exports more than its luaopen_ functions"

cp "$src/tests/packaging/installed.lua" "$home/"
out=$(cd "$home" && env -i HOME="$home" PATH=/usr/bin:/bin sh -c \
    'eval "$(luarocks --lua-version=5.4 path --local)" && mpiexec -n 2 lua5.4 installed.lua "$1"' \
    sh "$so" 2>&1) || fail "installed.lua failed with the rock's module:"$'\n'"$out"
echo "$out"
grep -qx "installed module ok on 2 ranks (rmalab $version)" <<<"$out" || fail "installed.lua did not end on both ranks"
