#!/bin/sh
# Two "hosts" on one machine: network namespaces joined by veth pairs and a bridge, and
# Open MPI's mpirun placing PEs on both (its remote-launch agent enters the other
# namespace with `ip netns exec`). Root only; touches nothing but what it creates: the
# namespaces TAG-1, TAG-2 (the hosts, 10.77.0.1 and 10.77.0.2 on their interface fab0)
# and TAG-hub (the bridge), and a host file in $TMPDIR.
#
#   netns.sh check              0 when namespaces can be made here (root, `ip netns`)
#   netns.sh up TAG             make them
#   netns.sh down TAG           remove them (and everything in them)
#   netns.sh mpirun TAG ARGS... mpirun ARGS, started on TAG-1 with both hosts in its host
#                               file and PEs placed round-robin over them (PEs 0, 2, 4 ...
#                               on TAG-1, PEs 1, 3, 5 ... on TAG-2)
# With SHMEMI_NETNS=TAG set, `netns.sh ARGS...` is `netns.sh mpirun TAG ARGS...`: that is
# what SHMEM_MPIRUN names when oshrun hands jobs to it (SHMEM_LAUNCHER=mpirun).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
hosts() { echo "${TMPDIR:-/tmp}/shmem-netns-$1.hosts"; }

tag_ok() {
    case ${1:-} in
    "" | *[!a-z0-9]*) echo "netns.sh: TAG must be a non-empty [a-z0-9] word" >&2; exit 2 ;;
    esac
    [ ${#1} -le 8 ] || { echo "netns.sh: TAG longer than 8 characters" >&2; exit 2; }
}

cmd=${1:-}
if [ -n "${SHMEMI_NETNS:-}" ] && [ "$cmd" != check ] && [ "$cmd" != up ] &&
    [ "$cmd" != down ] && [ "$cmd" != mpirun ]; then
    set -- mpirun "$SHMEMI_NETNS" "$@"
    cmd=mpirun
fi
case $cmd in
check)
    [ "$(id -u)" = 0 ] || { echo "not root"; exit 1; }
    command -v ip >/dev/null || { echo "no ip command (iproute2)"; exit 1; }
    probe=shmprobe$$
    if ! ip netns add "$probe" 2>/dev/null; then
        echo "ip netns add is not permitted here"
        exit 1
    fi
    ip netns del "$probe"
    ;;
up)
    tag_ok "${2:-}"
    t=$2
    ip netns add "$t-hub"
    ip netns add "$t-1"
    ip netns add "$t-2"
    ip -n "$t-hub" link add br0 type bridge
    ip -n "$t-hub" link set br0 up
    ip -n "$t-hub" link set lo up
    for i in 1 2; do
        # Made here, moved into the namespaces at once: the host keeps nothing.
        ip link add "$t-v$i" type veth peer name "$t-p$i"
        ip link set "$t-v$i" netns "$t-$i"
        ip link set "$t-p$i" netns "$t-hub"
        ip -n "$t-$i" link set "$t-v$i" name fab0
        ip -n "$t-$i" addr add "10.77.0.$i/24" dev fab0
        ip -n "$t-$i" link set fab0 up
        ip -n "$t-$i" link set lo up
        ip -n "$t-hub" link set "$t-p$i" master br0
        ip -n "$t-hub" link set "$t-p$i" up
    done
    printf '10.77.0.1 slots=64\n10.77.0.2 slots=64\n' >"$(hosts "$t")"
    ;;
down)
    tag_ok "${2:-}"
    for n in "$2-1" "$2-2" "$2-hub"; do
        ip netns del "$n" 2>/dev/null || true
    done
    rm -f "$(hosts "$2")"
    ;;
mpirun)
    tag_ok "${2:-}"
    t=$2
    shift 2
    mpirun=$(command -v mpirun)
    # The agent finds the namespace of a host from SHMEMI_NETNS (mpirun's environment).
    SHMEMI_NETNS=$t
    export SHMEMI_NETNS
    exec ip netns exec "$t-1" "$mpirun" --hostfile "$(hosts "$t")" --map-by node \
        --mca plm_rsh_agent "$here/netns_agent.sh" --mca oob_tcp_if_include 10.77.0.0/24 \
        --mca btl_tcp_if_include 10.77.0.0/24 "$@"
    ;;
*)
    sed -n '2,16p' "$0" >&2
    exit 2
    ;;
esac
