#!/bin/sh
# A piped REPL session compared exactly with the text it must print, and
# its exit status: run-pipe.sh RMALAB RANKS IN OUT [options for rmalab...]
# Also fails on signs of an MPI abort in what the job wrote to stderr.
set -u
rmalab=$1 ranks=$2 in=$3 out=$4
shift 4
got=$(mktemp) err=$(mktemp)
trap 'rm -f "$got" "$err"' EXIT
"$rmalab" -n "$ranks" "$@" < "$in" > "$got" 2> "$err"
status=$?
cat "$err" >&2
if ! diff -u "$out" "$got"; then
    echo "run-pipe: the output differs from $out" >&2
    exit 1
fi
if grep -E 'Abort|BAD TERMINATION|Caught signal|without MPI_Finalize' "$err" >/dev/null; then
    echo "run-pipe: the job did not end cleanly" >&2
    exit 1
fi
[ "$status" -eq 0 ] || { echo "run-pipe: exit status $status" >&2; exit 1; }
