#!/bin/sh
# Runs a command that is expected to fail and checks how it failed.
#
#   expect.sh [--within S] <status|nonzero> <regex>... -- <command> [args...]
#
# Passes when the command's exit status is <status> (or any non-zero status
# for "nonzero"), every extended regular expression matches somewhere in
# its combined stdout and stderr, and (with --within) it ended within S
# seconds. The output is always echoed.
set -u
within=
if [ "${1:-}" = "--within" ]; then
    within=$2
    shift 2
fi
if [ $# -lt 3 ]; then
    echo "usage: expect.sh [--within S] <status|nonzero> <regex>... -- <command> [args...]" >&2
    exit 2
fi
want=$1
shift
nre=0
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    nre=$((nre + 1))
    eval "re_$nre=\$1"
    shift
done
if [ $# -lt 2 ]; then
    echo "expect.sh: missing '-- command'" >&2
    exit 2
fi
shift

out=$(mktemp "${TMPDIR:-/tmp}/expect.XXXXXX") || exit 2
trap 'rm -f "$out"' EXIT
t0=$(date +%s%N)
"$@" >"$out" 2>&1
status=$?
ms=$((($(date +%s%N) - t0) / 1000000))
cat "$out"

fail=0
case $want in
nonzero)
    if [ "$status" -eq 0 ]; then
        echo "expect.sh: FAIL: exit status 0, expected non-zero"
        fail=1
    fi
    ;;
*)
    if [ "$status" -ne "$want" ]; then
        echo "expect.sh: FAIL: exit status $status, expected $want"
        fail=1
    fi
    ;;
esac
if [ -n "$within" ] && [ "$ms" -gt $((within * 1000)) ]; then
    echo "expect.sh: FAIL: it took $ms ms, more than $within s"
    fail=1
fi
i=1
while [ $i -le $nre ]; do
    eval "re=\$re_$i"
    if ! grep -Eq -- "$re" "$out"; then
        echo "expect.sh: FAIL: output does not match /$re/"
        fail=1
    fi
    i=$((i + 1))
done
if [ $fail -eq 0 ]; then
    echo "expect.sh: ok (exit status $status, $ms ms)"
fi
exit $fail
