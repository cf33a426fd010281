#!/bin/sh
# A piped REPL session compared exactly with the text it must print, and
# its exit status: run-pipe.sh RMALAB RANKS IN OUT [options for rmalab...]
# Also fails on signs of an MPI abort in what the job wrote to stderr.
# RUN_PIPE_STATUS=N expects exit status N instead of 0 (and then allows
# the job to end as it must: a session that ends deadlocked is killed).
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
want=${RUN_PIPE_STATUS:-0}
if [ "$want" -eq 0 ] &&
   grep -E 'Abort|BAD TERMINATION|Caught signal|without MPI_Finalize' "$err" >/dev/null; then
    echo "run-pipe: the job did not end cleanly" >&2
    exit 1
fi
[ "$status" -eq "$want" ] || { echo "run-pipe: exit status $status, expected $want" >&2; exit 1; }
