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
#   ./do fuzz [target] [seconds]
#                     build the libFuzzer targets (clang) and run each, or one,
#                     for `seconds` (30) over its corpus; ends with "N passed,
#                     N failed", one count per target (docs/testing.md)
#   ./do bench        build, then run the benchmarks
#   ./do stress [N]   build, then the long run, in C and in Lua: N random-graph
#                     PSCW epochs per engine (default 1,000,000) on 2 ranks,
#                     every byte and the memory checked
#   ./do deps         only install the packages
set -euo pipefail
cd "$(dirname "$0")"

PACKAGES=(mpich libmpich-dev lua5.4 liblua5.4-dev check meson ninja-build pkg-config luarocks lua-check
          libedit-dev gcc make python3-pexpect tmux man-db
          # rmalab cc's tests build a project with CMake too (tests/cprog/cc)
          cmake
          # rmalab run: FILE:LINE from the debug information (cprog/where.c)
          libdw-dev
          # rmalab cc's gcc plugin (cprog/gcc-plugin.cc): gcc's plugin headers, and g++
          # for them; without them rmalab cc builds without it
          g++ gcc-12-plugin-dev
          # the hosts test bed (tests/hosts/bed.py): ip netns, veth, bridge
          iproute2
          # the Jupyter kernel (kernel/) and its tests: jupyter_client, nbclient,
          # the classic Notebook in headless Chromium (docs/jupyter.md)
          python3-ipykernel python3-jupyter-client python3-nbclient python3-nbformat
          jupyter-notebook chromium chromium-driver python3-selenium
          # the hosts suite: a test bed of network namespaces (iproute2), and a
          # Slurm cluster in them (docs/clusters.md, "Slurm")
          slurm-wlm munge)
# Only ./do fuzz needs these: clang and its runtime libraries (libFuzzer).
FUZZ_PACKAGES=(clang libclang-rt-14-dev)
FUZZ_TARGETS=(info hints cmdline transcript channel values)

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

# Build the fuzz targets in build-fuzz (clang, ASan+UBSan, -Dfuzz=true) and
# run them: each over a scratch corpus (build-fuzz/fuzz-corpus/T, where new
# inputs go) seeded from tests/fuzz/corpus/T (read only, so the repository's
# corpus grows only by hand). A crash, leak, UBSan error, timeout (5 s for one
# input) or single allocation over 64 MB fails the target; its input goes to
# build-fuzz/fuzz-artifacts/.
fuzz() { # fuzz [target] [seconds]
    local targets=("${FUZZ_TARGETS[@]}") secs=30
    if [ $# -gt 0 ] && ! [[ $1 =~ ^[0-9]+$ ]]; then
        [[ " ${FUZZ_TARGETS[*]} " == *" $1 "* ]] || {
            echo "./do fuzz: no target '$1'; the targets are ${FUZZ_TARGETS[*]}" >&2
            exit 2
        }
        targets=("$1")
        shift
    fi
    [ $# -gt 0 ] && secs=$1
    [[ $secs =~ ^[0-9]+$ ]] || { echo "./do fuzz: seconds must be a number" >&2; exit 2; }
    deps "${FUZZ_PACKAGES[@]}"
    local dir=build-fuzz
    if [ ! -f "$dir/build.ninja" ]; then
        CC=clang meson setup "$dir" -Dfuzz=true -Db_sanitize=address,undefined \
            -Db_lundef=false >/dev/null
    fi
    ninja -C "$dir" "${targets[@]/#/tests/fuzz/fuzz-}" >/dev/null
    mkdir -p "$dir/fuzz-artifacts" "$dir/fuzz-logs"
    local t ok=0 bad=0
    for t in "${targets[@]}"; do
        local log=$dir/fuzz-logs/$t.log status=0
        mkdir -p "$dir/fuzz-corpus/$t"
        UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
            "$dir/tests/fuzz/fuzz-$t" -max_total_time="$secs" -timeout=5 -malloc_limit_mb=64 \
            -print_final_stats=1 -artifact_prefix="$dir/fuzz-artifacts/$t-" \
            "$dir/fuzz-corpus/$t" "tests/fuzz/corpus/$t" >"$log" 2>&1 || status=$?
        local done_line execs rate
        done_line=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -n 1 |
                    sed -E 's/.*(cov: [0-9]+ ft: [0-9]+ corp: [^ ]+).*/\1/' || true)
        execs=$(awk '/^stat::number_of_executed_units:/{print $2}' "$log")
        rate=$(awk '/^stat::average_exec_per_sec:/{print $2}' "$log")
        if [ $status -eq 0 ] && [ -n "$done_line" ]; then
            ok=$((ok + 1))
            echo "fuzz-$t: ok, ${execs:-?} runs in ${secs} s, ${rate:-?} exec/s, $done_line"
        else
            bad=$((bad + 1))
            echo "fuzz-$t: FAILED (exit $status), ${execs:-?} runs, ${rate:-?} exec/s; log $log"
            grep -E 'check failed|ERROR:|SUMMARY:|Test unit written|^    #[0-9]+ ' "$log" |
                grep -vE 'fuzzer::|__sanitizer|/libc|in (_start|main) ' | head -n 20 |
                sed 's/^/    /' || true
            echo "    crash inputs: $dir/fuzz-artifacts/ (replay: $dir/tests/fuzz/fuzz-$t FILE)"
        fi
    done
    echo "$ok passed, $bad failed"
    [ $bad -eq 0 ]
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
fuzz)
    shift
    fuzz "$@"
    ;;
bench)
    deps valgrind
    build build
    meson test -C build --benchmark --no-suite stress --verbose
    ;;
stress)
    build build
    status=0
    mpiexec -n 2 -bind-to core build/bench/stress ${2:+"$2"} || status=1
    build/repl/rmalab -n 2 -bind-to core bench/stress.lua ${2:+"$2"} || status=1
    exit $status
    ;;
*)
    echo "usage: ./do [start|test|asan|valgrind|fuzz [target] [seconds]|bench|stress [epochs]|deps]" >&2
    exit 2
    ;;
esac
