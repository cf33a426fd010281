#!/bin/bash
# A Slurm cluster of three hosts on this machine, for as long as a command
# runs:  tests/hosts/slurm-bed.sh COMMAND [ARGS...]
#
# Each host is a network namespace with its own address on a private
# bridge and its own hostname (a UTS namespace); `ip netns exec` gives it
# its own /etc/hosts (/etc/netns/NS/hosts):
#   rlslurm0  10.251.0.1  front end: slurmctld, and where COMMAND runs
#   rlslurm1  10.251.0.2  slurmd, 2 CPUs
#   rlslurm2  10.251.0.3  slurmd, 2 CPUs
# The bridge and every veth live inside the namespaces: the root namespace
# gets no interface and no route, so nothing is routed off the machine.
# One munged (its own key and socket) serves the three hosts; Slurm runs
# without cgroups or accounting, as root, from a config in a temporary
# directory. COMMAND runs on rlslurm0 as root with SLURM_CONF set, so that
# `salloc -N 2 ...` works there; its exit status is the script's.
# Everything (daemons, namespaces, files) is removed on exit, even on
# failure or a signal. RLSLURM_KEEP=1 keeps the directory (logs) and says
# where it is.
#
# Exit 77 (skip, with the reason on stderr) when not root, when slurmctld,
# slurmd, salloc or munged are missing (Debian: apt-get install slurm-wlm
# munge), or when this machine cannot make network namespaces.
set -u

skip() { echo "slurm-bed: skipped: $*" >&2; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "needs root (network namespaces, slurmd)"
for p in slurmctld slurmd salloc srun sbatch sinfo scontrol munged ip unshare; do
    command -v "$p" >/dev/null 2>&1 ||
        skip "$p is not installed (Debian: apt-get install slurm-wlm munge)"
done
[ $# -ge 1 ] || { echo "usage: $0 COMMAND [ARGS...]" >&2; exit 2; }

tag=rlslurm$$
ns=("$tag-0" "$tag-1" "$tag-2")
host=(rlslurm0 rlslurm1 rlslurm2)
addr=(10.251.0.1 10.251.0.2 10.251.0.3)
# munged refuses a socket whose directories not everyone can enter.
dir=$(mktemp -d /tmp/rlslurm.XXXXXX) && chmod 0755 "$dir" || exit 1
pids=()

down() {
    local rc=$?
    trap - EXIT INT TERM HUP
    # The daemons first (slurmd ends its steps' processes with it), then
    # anything still in a namespace, then the namespaces and files.
    [ -n "${cmd:-}" ] && kill -TERM "$cmd" 2>/dev/null
    for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
    for _ in $(seq 50); do
        local alive=0
        for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
        [ $alive -eq 0 ] && break
        sleep 0.1
    done
    for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
    for n in "${ns[@]}"; do
        [ -e "/run/netns/$n" ] || continue
        local left
        left=$(ip netns pids "$n" 2>/dev/null)
        # shellcheck disable=SC2086 # one pid a word
        [ -n "$left" ] && kill -KILL $left 2>/dev/null
        ip netns del "$n" 2>/dev/null
        rm -rf "/etc/netns/$n"
    done
    if [ "${RLSLURM_KEEP:-0}" = 1 ]; then
        echo "slurm-bed: kept $dir" >&2
    else
        rm -rf "$dir"
    fi
    exit $rc
}
trap down EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

fail() { echo "slurm-bed: $*" >&2; exit 1; }

t0=$(date +%s%N)
# The network: a bridge in rlslurm0, a veth from each host onto it.
for i in 0 1 2; do
    ip netns add "${ns[$i]}" 2>"$dir/ip.err" ||
        skip "cannot make a network namespace: $(cat "$dir/ip.err")"
    ip -n "${ns[$i]}" link set lo up
    mkdir -p "/etc/netns/${ns[$i]}"
    { # as Debian writes it: a host's own name is 127.0.1.1
        echo "127.0.0.1 localhost"
        echo "127.0.1.1 ${host[$i]}"
        for j in 0 1 2; do [ "$j" -eq "$i" ] || echo "${addr[$j]} ${host[$j]}"; done
    } >"/etc/netns/${ns[$i]}/hosts"
    echo "${host[$i]}" >"/etc/netns/${ns[$i]}/hostname"
done
ip -n "${ns[0]}" link add br0 type bridge || fail "cannot make a bridge"
ip -n "${ns[0]}" link set br0 up
ip -n "${ns[0]}" addr add "${addr[0]}/24" dev br0
for i in 1 2; do
    ip link add "h$i" netns "${ns[0]}" type veth peer name eth0 netns "${ns[$i]}" ||
        fail "cannot make a veth pair"
    ip -n "${ns[0]}" link set "h$i" master br0 up
    ip -n "${ns[$i]}" addr add "${addr[$i]}/24" dev eth0
    ip -n "${ns[$i]}" link set eth0 up
done

# run_on I CMD...: CMD on host I (its network, hostname and /etc/hosts),
# in place of the (sub)shell, so that `run_on ... &` leaves CMD's pid in $!.
run_on() {
    local i=$1; shift
    # shellcheck disable=SC2016 # the inner shell expands $0 and $@
    exec ip netns exec "${ns[$i]}" unshare --uts -- /bin/sh -c 'hostname "$0" && exec "$@"' \
        "${host[$i]}" "$@"
}
on() { (run_on "$@"); }

# Munge: a key of its own, one daemon, one socket for the three hosts.
dd if=/dev/urandom of="$dir/munge.key" bs=1024 count=1 status=none
chmod 0400 "$dir/munge.key"
munged --key-file="$dir/munge.key" --socket="$dir/munge.sock" \
    --pid-file="$dir/munged.pid" --log-file="$dir/munged.log" \
    --seed-file="$dir/munged.seed" --foreground >"$dir/munged.out" 2>&1 &
pids+=($!)

mkdir -p "$dir/state" "$dir/spool/${host[1]}" "$dir/spool/${host[2]}"
cat >"$dir/slurm.conf" <<EOF
ClusterName=rlslurm
SlurmctldHost=${host[0]}(${addr[0]})
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge.sock
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd-%n.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
PlugStackConfig=$dir/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
MailProg=/bin/true
SlurmdParameters=config_overrides
NodeName=${host[1]} NodeAddr=${addr[1]} CPUs=2 State=UNKNOWN
NodeName=${host[2]} NodeAddr=${addr[2]} CPUs=2 State=UNKNOWN
PartitionName=rl Nodes=${host[1]},${host[2]} Default=YES MaxTime=INFINITE State=UP
EOF
: >"$dir/plugstack.conf"
export SLURM_CONF=$dir/slurm.conf

for _ in $(seq 50); do [ -S "$dir/munge.sock" ] && break; sleep 0.1; done
[ -S "$dir/munge.sock" ] || fail "munged did not start: $(cat "$dir/munged.out" 2>/dev/null)"

run_on 0 slurmctld -D -i -f "$dir/slurm.conf" >"$dir/slurmctld.out" 2>&1 &
pids+=($!)
# slurmd 22.05 loads a cgroup plugin whatever ProctrackType and TaskPlugin
# say, and `ip netns exec` mounts a fresh /sys without the machine's cgroup
# mounts: "error: No filesystem mounted on /sys/fs/cgroup", "Unable to
# initialize cgroup plugin", "slurmd initialization failed" (cgroup.conf in
# 22.05 has no CgroupPlugin=disabled). A tmpfs there makes it choose
# cgroup/v1, which wants only the named hierarchy "systemd" ("can't stat
# /sys/fs/cgroup/systemd/"; a plain directory: "Unexpected fs type"); it
# takes no controller (so it should also work on a cgroup v2 host; this was
# tried only on the hybrid v1 layout of the machine it was written on).
cgroups='mount -t tmpfs rlslurm /sys/fs/cgroup || exit 1
mkdir -p /sys/fs/cgroup/systemd &&
    mount -t cgroup -o none,name=systemd cgroup /sys/fs/cgroup/systemd || exit 1
exec "$@"'
on 1 /bin/sh -c "$cgroups" sh true 2>"$dir/mount.err" ||
    skip "cannot mount a cgroup hierarchy for slurmd: $(cat "$dir/mount.err")"
for i in 1 2; do
    run_on "$i" /bin/sh -c "$cgroups" sh slurmd -D -f "$dir/slurm.conf" \
        >"$dir/slurmd-${host[$i]}.out" 2>&1 &
    pids+=($!)
done

# Ready when both nodes are idle.
ready=0
for _ in $(seq 300); do
    for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null || break 2; done
    if [ "$(on 0 sinfo -h -N -t idle -o %N 2>/dev/null | sort -u | wc -l)" -eq 2 ]; then
        ready=1
        break
    fi
    sleep 0.1
done
if [ $ready -eq 0 ]; then
    echo "slurm-bed: the nodes did not come up (a daemon ended, or 30 s passed):" >&2
    on 0 sinfo -N -l >&2
    tail -n 5 "$dir"/*.log "$dir"/*.out >&2
    exit 1
fi

echo "slurm-bed: up in $(( ($(date +%s%N) - t0) / 1000000 )) ms" >&2

# For COMMAND: the front end's address, the first node's (where a batch
# script runs), the nodes' namespaces (to look for processes left behind:
# `ip netns pids`), and the bed's directory (removed with it).
export RLSLURM_FRONT=${addr[0]} RLSLURM_FIRST=${addr[1]} RLSLURM_NODES="${ns[1]} ${ns[2]}"
export RLSLURM_DIR=$dir
# In the background, so that a signal to this script is handled at once
# (bash runs a trap only once its foreground child has ended); stdin stays
# the script's for an interactive COMMAND.
run_on 0 "$@" <&0 &
cmd=$!
wait $cmd
