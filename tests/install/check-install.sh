#!/usr/bin/env bash
# The installed module loads in stock lua5.4 under mpiexec: install into a
# staging directory, check that lua5.4's default package.cpath covers the
# install location, and require the module from there on 2 ranks.
set -euo pipefail
build=$1
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
meson install -C "$build" --destdir "$stage" --quiet >/dev/null
so=$(find "$stage" -name rmalab.so | head -n 1)
[ -n "$so" ] || { echo "rmalab.so was not installed"; exit 1; }
installed=${so#"$stage"}
pattern="$(dirname "$installed")/?.so"
cpath=$(lua5.4 -e 'io.write(package.cpath)')
case ";$cpath;" in
*";$pattern;"*) ;;
*) echo "install location $pattern is not on lua5.4's default cpath: $cpath"; exit 1 ;;
esac
out=$(LUA_CPATH="$(dirname "$so")/?.so" mpiexec -n 2 lua5.4 -e '
  local rl = require "rmalab"
  assert(rl.world:size() == 2, "two ranks")
  local i = rl.info{ a = 1 }
  assert(i:get("a") == "1")
  print("loaded " .. rl.version .. " on rank " .. rl.world:rank())')
echo "$out"
[ "$(echo "$out" | grep -o 'loaded [0-9.]* on rank [01]' | sort -u | wc -l)" -eq 2 ] || { echo "not loaded on both ranks"; exit 1; }
echo "installed at $installed"
