#!/bin/sh
# Runs a command alone, then again beside a process outside the job that
# never sleeps nor yields (a busy loop, as another user's computation on a
# shared node), and fails unless both runs pass and the second took at most
# BESIDE_BUSY_RATIO (default 4) times as long as the first, give or take a
# second. A ratio, not a time, so that the machine's speed and the sanitizers
# cancel out.
#
#   beside_busy.sh <command> [args...]
#
# The loop ends with the command; should this script be killed outright (a
# test's time limit), the loop sees it gone within a fraction of a second and
# ends too: a loop left behind would slow every test after it.
set -u
ratio=${BESIDE_BUSY_RATIO:-4}
now_ms() { echo $(($(date +%s%N) / 1000000)); }

t0=$(now_ms)
"$@" || { echo "beside_busy.sh: the command failed when run alone" >&2; exit 1; }
t1=$(now_ms)

sh -c 'while kill -0 "$1" 2>/dev/null; do
           i=0
           while [ $i -lt 20000 ]; do i=$((i + 1)); done
       done' busy $$ &
busy=$!
trap 'kill $busy 2>/dev/null' EXIT INT TERM
"$@"
status=$?
t2=$(now_ms)
kill $busy 2>/dev/null
wait $busy 2>/dev/null

alone=$((t1 - t0))
beside=$((t2 - t1))
echo "beside_busy.sh: $alone ms alone, $beside ms beside a busy loop (at most ${ratio}x allowed)"
[ $status -eq 0 ] || { echo "beside_busy.sh: the command failed beside the busy loop" >&2; exit 1; }
if [ $beside -gt $((ratio * alone + 1000)) ]; then
    echo "beside_busy.sh: FAIL: beside the busy loop it took more than ${ratio}x its time alone" >&2
    exit 1
fi
exit 0
