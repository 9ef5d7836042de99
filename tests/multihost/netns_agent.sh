#!/bin/sh
# mpirun's remote-launch agent for tests/multihost/netns.sh (in place of ssh): mpirun
# runs `netns_agent.sh HOST COMMAND...`, and the command runs in the network namespace
# that holds HOST (SHMEMI_NETNS-1 for 10.77.0.1, SHMEMI_NETNS-2 for 10.77.0.2).
set -eu
host=$1
shift
case $host in
10.77.0.1) ns=$SHMEMI_NETNS-1 ;;
10.77.0.2) ns=$SHMEMI_NETNS-2 ;;
*)
    echo "netns_agent.sh: no namespace holds host $host" >&2
    exit 1
    ;;
esac
exec ip netns exec "$ns" sh -c "$*"
