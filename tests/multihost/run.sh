#!/bin/sh
# The multi-host test (ctest multihost.netns): two hosts made of network namespaces
# (tests/multihost/netns.sh), mpirun placing PEs on both, and with no SHMEM_FORCE_FABRIC
# the PEs of one host map each other while those of the other are reached through
# libfabric (tcp over the veth pair). Runs:
#   - standard programs at 2 PEs (one per host) and 4 PEs (two per host): static data,
#     heap RMA, AMOs, wait/test, signals, ordering by fence, barriers, contexts, a context
#     on a split team, collectives, locks, a triggered plan, copy-engine puts
#     (scripts/dev.sh fabric runs the whole functional suite this way);
#   - a PE killed mid-job on the host mpirun started on (PE 0) and on the other one
#     (PE 1): the job ends non-zero within 20 s, naming it;
#   - PEs that leave without shmem_finalize while the others wait (the liveness record,
#     read over the fabric): the job ends non-zero with the library's message;
#   - an interface that reaches within a node only (SHMEM_OFI_DOMAIN=lo, shm): refused at
#     init.
# Skipped (exit 77) where namespaces cannot be made (not root, `ip netns` refused).
#   run.sh <build-dir>
set -u
here=$(cd "$(dirname "$0")" && pwd)
b=${1:?usage: run.sh <build-dir>}
netns="$here/netns.sh"
if ! why=$(sh "$netns" check); then
    echo "SKIP: the multi-host test needs network namespaces: $why"
    exit 77
fi
command -v mpirun >/dev/null || { echo "SKIP: no mpirun"; exit 77; }
tag=m$(($$ % 10000000))
trap 'sh "$netns" down $tag' EXIT
trap 'exit 130' INT TERM
sh "$netns" up $tag || { echo "FAIL: cannot make the namespaces"; exit 1; }
failed=0
mpi() { # mpi SECONDS NP PROG ARGS...: the job's output in $out, its status in $rc (124: it
         # ran past SECONDS)
    s=$1 np=$2
    shift 2
    out=$(timeout -k 10 "$s" sh "$netns" mpirun $tag --allow-run-as-root --oversubscribe \
        -np "$np" "$@" 2>&1)
    rc=$?
}
verdict() { # verdict OK NAME: print a line, count a failure
    if [ "$1" = 0 ]; then
        echo "multihost: PASS $2"
    else
        echo "multihost: FAIL $2 (status $rc)"
        echo "$out" | tail -15 | sed 's/^/    /'
        failed=$((failed + 1))
    fi
}

for np in 2 4; do
    for p in static_data heap_rma amo wait_test signals fence_order barrier_sync team_ctx \
        team_split coll_team lock plan_run sdma_put; do
        mpi 120 $np "$b/tests/func/$p"
        ok=1
        [ $rc = 0 ] && echo "$out" | grep -q "PASS" && ok=0
        verdict $ok "$p at $np PEs"
    done
done

# A PE killed mid-job, on either host.
for victim in 0 1; do
    start=$(date +%s)
    mpi 60 4 "$b/tests/func/kill_pe" $victim
    took=$(($(date +%s) - start))
    ok=1
    [ $rc != 0 ] && [ $rc != 124 ] && [ $took -le 20 ] &&
        echo "$out" | grep -Eq "rank $victim .*signal 9|PE $victim" && ok=0
    verdict $ok "PE $victim killed mid-job: status $rc after ${took} s"
done

# PEs that leave without shmem_finalize (tests/func/leave.c).
mpi 60 2 "$b/tests/func/leave_exit0" exit 0
ok=1
[ $rc != 0 ] && [ $rc != 124 ] && echo "$out" | grep -q "PE 1 left the program" && ok=0
verdict $ok "PE 1 leaves (exit 0) while PE 0 waits in a barrier"
mpi 60 2 "$b/tests/func/leave_exit0" wait
ok=1
[ $rc != 0 ] && [ $rc != 124 ] && echo "$out" | grep -q "PE 1 waits in shmem_long_wait_until" &&
    ok=0
verdict $ok "PE 0 leaves while PE 1 waits for a word only PE 0 would write"
mpi 60 4 "$b/tests/func/leave_exit0" implicit
ok=1
[ $rc = 0 ] && ok=0
verdict $ok "every PE leaves main without shmem_finalize"

# An interface that reaches within a node only (the loopback, shm) refuses the job at
# init, naming it, rather than leaving its transfers to time out.
for v in SHMEM_OFI_DOMAIN=lo SHMEM_OFI_PROVIDER=shm; do
    mpi 60 2 -x $v "$b/tests/func/heap_rma"
    ok=1
    [ $rc != 0 ] && [ $rc != 124 ] && echo "$out" | grep -q "reaches within a node only" && ok=0
    verdict $ok "$v with PEs on two hosts: refused at init"
done
[ $failed = 0 ] && echo "multihost: every check passed" && exit 0
echo "multihost: $failed checks failed"
exit 1
