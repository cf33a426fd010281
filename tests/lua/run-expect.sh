#!/usr/bin/env bash
# Run a command and judge it by its exit status and its output (stdout and
# stderr together), for scenarios that cannot judge themselves, such as a
# script that exits with windows it never freed.
#
#   run-expect.sh [--status N] [--expect TEXT]... [--reject TEXT]... -- command [args...]
#
# Passes when the command exits N (0 unless --status says otherwise;
# "nonzero" for any failure), every --expect TEXT occurs in the output
# and no --reject TEXT does (plain text, not patterns). The output is shown
# either way, for the test log.
set -uo pipefail
expect=() reject=() want=0
while [ $# -gt 0 ]; do
    case $1 in
    --status) want=$2; shift 2 ;;
    --expect) expect+=("$2"); shift 2 ;;
    --reject) reject+=("$2"); shift 2 ;;
    --) shift; break ;;
    *) echo "run-expect.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
[ $# -gt 0 ] || { echo "run-expect.sh: no command given" >&2; exit 2; }
out=$("$@" 2>&1)
status=$?
printf '%s\n' "$out"
fail=0
if { [ "$want" = nonzero ] && [ $status -eq 0 ]; } ||
   { [ "$want" != nonzero ] && [ $status -ne "$want" ]; }; then
    echo "run-expect.sh: FAIL: exit status $status, expected $want"
    fail=1
fi
for t in ${expect[@]+"${expect[@]}"}; do
    if ! grep -qF -- "$t" <<<"$out"; then
        echo "run-expect.sh: FAIL: expected in the output: $t"
        fail=1
    fi
done
for t in ${reject[@]+"${reject[@]}"}; do
    if grep -qF -- "$t" <<<"$out"; then
        echo "run-expect.sh: FAIL: not expected in the output: $t"
        fail=1
    fi
done
[ $fail -eq 0 ] && echo "run-expect.sh: ok"
exit $fail
