#!/bin/bash
# rmalab inside a Slurm allocation of two hosts (slurm-bed.sh):
#   slurm.sh RMALAB SOURCE_ROOT
# In `salloc -N 2`, on the front end: plain `mpiexec -n 4 hostname` (Hydra
# must choose Slurm's launcher by itself), the runner (scripts/ring.lua on 4
# ranks), `rmalab test` on a scenario, a piped REPL session (a PSCW epoch
# from one host to the other, :status, :quit) compared exactly with
# slurm-repl-4.out, and one that ends on a deadlock (its hint, exit 1);
# in a batch job (sbatch -N 2), the runner and `rmalab test`; and, in
# `salloc -N 2 -n 4`, the runner under `srun --mpi=pmi2` without Hydra. After each job nothing but slurmd may be left on the nodes.
# Skips (77) as slurm-bed.sh does.
set -u
here=$(cd "$(dirname "$0")" && pwd)
if [ "${1:-}" != --inside ]; then
    [ $# -eq 2 ] || { echo "usage: $0 RMALAB SOURCE_ROOT" >&2; exit 2; }
    exec "$here/slurm-bed.sh" /bin/bash "$here/slurm.sh" --inside "$@"
fi
rmalab=$2
cd "$3" || exit 1
# No RMALAB_LISTEN: the front end finds the allocation and listens where
# the nodes reach it (issue 29).
unset RMALAB_LISTEN

failed=0
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
fail() {
    echo "FAIL: $*"
    echo "--- stdout"; cat "$out"; echo "--- stderr"; cat "$err"
    failed=1
}

# Nothing but slurmd on either node once a job has ended (the step's
# processes go within a few seconds).
leftovers() { # leftovers WHAT
    local left=""
    for _ in $(seq 50); do
        left=""
        for n in $RLSLURM_NODES; do
            for p in $(ip netns pids "$n"); do
                c=$(cat "/proc/$p/comm" 2>/dev/null) || continue
                [ "$c" = slurmd ] || left+=" $n:$p:$c"
            done
        done
        [ -z "$left" ] && return 0
        sleep 0.1
    done
    echo "FAIL: $1: left on the nodes:$left"
    failed=1
}

# check WHAT STATUS PATTERN...: the last command's status and output.
check() {
    local what=$1 st=$2; shift 2
    if [ "$st" -ne 0 ]; then fail "$what: exit status $st"; return; fi
    for pat in "$@"; do
        grep -Eq -- "$pat" "$out" "$err" || { fail "$what: no \"$pat\""; return; }
    done
    echo "ok: $what ($((SECONDS - t0)) s)"
    leftovers "$what"
    t0=$SECONDS
}
t0=$SECONDS

timeout 60 salloc -N 2 mpiexec -verbose -n 4 hostname >"$out" 2>"$err"
check "mpiexec -n 4 hostname in salloc -N 2" $? \
    '--launcher slurm' 'Launch arguments: [^ ]*srun -N 2 -n 2 ' '^rlslurm1$' '^rlslurm2$'
[ "$(grep -c '^rlslurm[12]$' "$out")" -eq 4 ] || fail "mpiexec: not 4 lines of hostname"

ring=('rank 0 got 400 from rank 3' 'rank 1 got 100 from rank 0' 'rank 2 got 200 from rank 1'
      'rank 3 got 300 from rank 2' 'rank 3 saw 12, 22, 32, 42, 52')
timeout 90 salloc -N 2 "$rmalab" -n 4 scripts/ring.lua >"$out" 2>"$err"
check "rmalab -n 4 scripts/ring.lua in salloc -N 2" $? "${ring[@]}"

timeout 90 salloc -N 2 "$rmalab" test tests/lua/comm.lua >"$out" 2>"$err"
check "rmalab test tests/lua/comm.lua in salloc -N 2" $? '^[1-9][0-9]* passed, 0 failed$'

# repl RANKS IN OUT STATUS: a piped session, its output exactly OUT.
repl() {
    local what="the REPL on $1 ranks in salloc -N 2 < ${2#"$PWD"/}"
    timeout 90 salloc -N 2 "$rmalab" -n "$1" <"$2" >"$out" 2>"$err"
    local st=$?
    if ! diff -u "$3" "$out"; then
        fail "$what: the output differs from ${3#"$PWD"/}"
    elif [ $st -ne "$4" ]; then
        fail "$what: exit status $st, expected $4"
    else
        check "$what" 0
    fi
}
repl 4 "$here/slurm-repl-4.in" "$here/slurm-repl-4.out" 0
# Ending on a deadlock: the hint, then the front end ends the job (exit 1),
# through Hydra's srun, on both nodes.
repl 3 tests/repl/deadlock-3.in tests/repl/deadlock-3.out 1

# A batch job: its script runs on the first node, and so does the front end
# of `rmalab test` there.
batch=$RLSLURM_DIR/batch.sh
cat >"$batch" <<EOF
#!/bin/sh
cd "$PWD" || exit 1
echo "batch on \$(hostname)"
"$rmalab" -n 4 scripts/ring.lua || exit 1
"$rmalab" test tests/lua/comm.lua
EOF
# (sbatch --wait polls every 2 to 10 s; scontrol, every 0.2 s: 8 s less.)
batch_wait() { # batch_wait SCRIPT: its job's exit status, or 1
    local id state
    id=$(cd /tmp && sbatch --parsable -N 2 -o "$out" "$1") || return 1
    for _ in $(seq 450); do
        state=$(scontrol show job "$id" 2>/dev/null)
        case $state in
        *JobState=COMPLETED*) return 0 ;;
        *JobState=PENDING* | *JobState=RUNNING* | *JobState=CONFIGURING* | *JobState=COMPLETING*) ;;
        *) echo "$state" | grep -E 'JobState|ExitCode' >&2; return 1 ;;
        esac
        sleep 0.2
    done
    scancel "$id"
    echo "batch job $id still running after 90 s" >&2
    return 1
}
batch_wait "$batch" 2>"$err"
check "sbatch -N 2: rmalab -n 4 scripts/ring.lua, rmalab test" $? '^batch on rlslurm1$' \
    "${ring[@]}" '^[1-9][0-9]* passed, 0 failed$'

timeout 90 salloc -N 2 -n 4 srun --mpi=pmi2 "$rmalab" scripts/ring.lua >"$out" 2>"$err"
check "srun --mpi=pmi2 rmalab scripts/ring.lua in salloc -N 2 -n 4" $? "${ring[@]}"

exit $failed
