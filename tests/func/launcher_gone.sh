#!/bin/sh
# launcher_gone.sh <launch command...>: runs the job (launcher_gone.c, whose PE 1
# kills its launcher with SIGKILL) with a tag of its own as the program's last
# argument; passes when, 5 s after the launcher died, no process of the job is left.
set -u
tag="launcher_gone_$$"
"$@" "$tag" &
wait $!
echo "launcher_gone.sh: the launcher ended with status $?"
left=
for _ in $(seq 50); do
    left=$(pgrep -f -- "$tag" | tr '\n' ' ')
    [ -z "$left" ] && break
    sleep 0.1
done
if [ -n "$left" ]; then
    echo "launcher_gone.sh: FAIL: processes of the job still running 5 s after the launcher died: $left"
    pkill -9 -f -- "$tag"
    exit 1
fi
echo "launcher_gone.sh: every PE ended on its own"
