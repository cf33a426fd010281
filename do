#!/usr/bin/env bash
# rmalab's one entry point for people and CI. Each command installs what is
# missing (Debian 12, as root or with sudo), configures and builds first.
#
#   ./do start        build, then open the REPL on 2 ranks (rmalab -n 2)
#   ./do test         build, then run every test; ends with "N passed, N failed"
#   ./do asan         build with ASan+UBSan and run the core's unit tests, every
#                     Lua scenario (through rmalab test, and under lua5.4 with
#                     the sanitizer runtime preloaded), the runner and the REPL
#   ./do valgrind     build, then run the C test programs under valgrind
#   ./do bench        build, then run the benchmarks
#   ./do deps         only install the packages
set -euo pipefail
cd "$(dirname "$0")"

PACKAGES=(mpich libmpich-dev lua5.4 liblua5.4-dev check meson ninja-build pkg-config
          libedit-dev gcc python3-pexpect tmux)

deps() { # deps [more packages...]: PACKAGES and those
    local missing=()
    for p in "${PACKAGES[@]}" "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
            missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    echo "installing: ${missing[*]}" >&2
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
        "${missing[@]}" >/dev/null
}

build() { # build DIR [meson options...]
    local dir=$1; shift
    deps
    if [ ! -f "$dir/build.ninja" ]; then
        meson setup "$dir" "$@" >/dev/null
    fi
    ninja -C "$dir" >/dev/null
}

# Run meson test in DIR under test setup SETUP ("" for none) and print
# its counts as "N passed, N failed".
run_tests() { # run_tests DIR SETUP [meson test args...]
    local dir=$1 setup=$2; shift 2
    local status=0
    meson test -C "$dir" --print-errorlogs ${setup:+--setup "$setup"} "$@" || status=$?
    summarize "$dir/meson-logs/testlog${setup:+-$setup}.txt"
    return $status
}

summarize() {
    awk '/^Ok:/{ok+=$2} /^Expected Fail:/{ok+=$3} /^Fail:/{bad+=$2} /^Unexpected Pass:/{bad+=$3}
         /^Timeout:/{bad+=$2} END{printf "%d passed, %d failed\n", ok, bad}' "$1"
}

cmd=${1:-start}
case "$cmd" in
deps) deps ;;
start)
    build build
    exec build/repl/rmalab -n 2
    ;;
test)
    build build
    run_tests build ""
    ;;
asan)
    build build-asan -Db_sanitize=address,undefined -Db_lundef=false
    # The ranks inherit these through mpiexec; a rank that a sanitizer
    # stops, even after its file ended, fails its test.
    ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp \
    UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
        run_tests build-asan "" --suite core --suite scenarios --suite standalone \
            --suite runner --suite repl --no-suite nodes
    ;;
valgrind)
    deps valgrind
    build build
    run_tests build valgrind --suite c
    ;;
bench)
    build build
    meson test -C build --benchmark --verbose
    ;;
*)
    echo "usage: ./do [start|test|asan|valgrind|bench|deps]" >&2
    exit 2
    ;;
esac
