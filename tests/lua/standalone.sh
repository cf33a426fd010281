#!/usr/bin/env bash
# Run a scenario by itself under stock lua5.4, as people run scripts, on
# every rank count and engine its header names (docs/testing.md): each
# rank checks its own cases and T.done() ends it with the verdict, so
# mpiexec fails when any case or the leak check failed on any rank.
#
#   standalone.sh LUA SCENARIO [mpiexec options...]
#
# The build that runs it sets LUA_CPATH to its module (and, built with
# sanitizers, LD_PRELOAD to their runtime: lua5.4 itself is not built
# with them).
set -uo pipefail
lua=$1 file=$2
shift 2
header=$(head -n 10 "$file")
counts=$(sed -n 's/^-- ranks: *//p' <<<"$header")
engines=$(sed -n 's/^-- engines: *//p' <<<"$header")
status=0
for n in ${counts:-2}; do
    for e in ${engines:-default}; do
        if [ "$e" = default ]; then
            env=()
        else
            env=(env RMALAB_PSCW="$e")
        fi
        echo "== $file on $n ranks, engine $e"
        "${env[@]}" mpiexec -n "$n" "$@" "$lua" "$file" || {
            echo "standalone.sh: FAIL: $file on $n ranks, engine $e"
            status=1
        }
    done
done
exit $status
