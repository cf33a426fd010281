#!/bin/sh
# stuck.sh RMALAB SCRIPT: script mode names a rank's call once it has been
# blocked RMALAB_STUCK seconds, once per call (script-stuck.lua).
out=$(RMALAB_STUCK=1 "$1" -n 2 "$2" 2>&1)
st=$?
printf '%s\n' "$out"
fail=0
once() {
    n=$(printf '%s\n' "$out" | grep -oE -- "$1" | wc -l) # mpiexec may join lines
    [ "$n" -eq 1 ] || { echo "stuck.sh: FAIL: $n lines, expected one: $1"; fail=1; }
}
once 'rmalab: rank 1: blocked [0-9]+ s in recv\(\) with rank 0; a deadlock\? Ctrl-C ends the job, and "rmalab test [^"]*script-stuck\.lua" names the calls that hold it'
once 'rmalab: rank 1: window "w": blocked [0-9.]+ s in wait\(\); no access epoch; exposure epoch to \{0\}.*; a deadlock\?'
once 'script-stuck: rank 0 done'
once 'script-stuck: rank 1 done'
[ $st -eq 0 ] || { echo "stuck.sh: FAIL: exit status $st"; fail=1; }
[ $fail -eq 0 ] && echo "stuck.sh: ok"
exit $fail
