#!/usr/bin/env bash
# The exe_wrapper of the valgrind test setup (`meson test --setup valgrind`):
# runs a test's program under valgrind's memcheck. A test whose program is
# mpiexec gets valgrind between mpiexec and the rank program, so that each
# rank runs under valgrind and mpiexec and its proxies do not; the rank
# program is the first argument that is an executable of the build tree.
# Programs from outside the build tree (python3, shell scripts) run as they
# are. Any error valgrind reports, definite and indirect leaks included,
# makes the program exit with status 100 (not 77 or 99, which meson reads
# as "skipped" and "hard error"). VALGRIND_OPTS adds options, for instance
# --track-origins=yes or --gen-suppressions=all.
#
# --fair-sched=yes: valgrind runs one thread at a time, and its default lock
# lets a thread that busy-polls, as MPICH does inside fence or wait, keep
# the CPU; the sync suite's sampler thread, which must see the owner
# blocked, then never runs (test_visible_while_blocked failed 5 runs of 5
# without it, passed 5 of 5 with it).
#
#   valgrind.sh BUILD_ROOT PROGRAM [ARGS...]
set -euo pipefail

build=$(realpath "$1")
shift
if ! command -v valgrind >/dev/null; then
    echo "valgrind.sh: valgrind is not installed (./do valgrind installs it)" >&2
    exit 1
fi
# shellcheck disable=SC2054 # definite,indirect is one argument
vg=(valgrind --error-exitcode=100 --fair-sched=yes --leak-check=full
    --errors-for-leak-kinds=definite,indirect --num-callers=30
    --suppressions="$(dirname "$(realpath "$0")")/valgrind.supp")

built() { # built FILE: an executable of the build tree
    [[ -f $1 && -x $1 && $(realpath "$1") == "$build"/* ]]
}

case $(basename "$1") in
mpiexec | mpiexec.* | mpirun)
    args=("$@")
    for i in "${!args[@]}"; do
        if ((i > 0)) && built "${args[i]}"; then
            exec "${args[@]:0:i}" "${vg[@]}" "${args[@]:i}"
        fi
    done
    echo "valgrind.sh: no program of $build among the arguments of $1;" \
         "the setup is for the C test programs (meson test --setup valgrind --suite c)" >&2
    exit 1
    ;;
*)
    built "$1" && exec "${vg[@]}" "$@"
    exec "$@"
    ;;
esac
