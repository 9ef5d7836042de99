#!/bin/sh
# Runs a command beside a process outside the job that never sleeps nor
# yields (a busy loop, as another user's computation on a shared node), and
# returns the command's status. The loop ends with the command, however the
# command ends.
#
#   beside_busy.sh <command> [args...]
set -u
sh -c 'while :; do :; done' &
busy=$!
trap 'kill $busy 2>/dev/null' EXIT INT TERM
"$@"
status=$?
kill $busy 2>/dev/null
wait $busy 2>/dev/null
exit $status
