#!/bin/sh
# Builds the standard functional programs with another OpenSHMEM's compiler
# wrapper and runs them with its launcher, for side-by-side comparison.
#   run_with_oshmem.sh [np...]        (default: 1 2 4)
# OSHCC / OSHRUN / OSHRUN_FLAGS override the tools; Open MPI needs e.g.
#   OSHRUN_FLAGS="--allow-run-as-root --oversubscribe"
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=${TMPDIR:-/tmp}/shmem-func-oshmem
mkdir -p "$out"
OSHCC=${OSHCC:-oshcc}
OSHRUN=${OSHRUN:-oshrun}
OSHRUN_FLAGS=${OSHRUN_FLAGS:-}
nps=${*:-1 2 4}
for prog in init_query static_data heap_rma amo wait_test signals fence_order barrier_sync \
    alloc threads deprecated; do
    if ! $OSHCC -std=c11 -D_GNU_SOURCE -Wno-deprecated-declarations -o "$out/$prog" \
        "$here/$prog.c" -lpthread >"$out/$prog.build.log" 2>&1; then
        echo "$prog: does not build (see $out/$prog.build.log)"
        continue
    fi
    for np in $nps; do
        # shellcheck disable=SC2086
        if timeout 120 $OSHRUN $OSHRUN_FLAGS -np "$np" "$out/$prog" >"$out/$prog.np$np.log" 2>&1 ||
            grep -q "^$prog: PASS" "$out/$prog.np$np.log"; then
            if grep -q "^$prog: PASS" "$out/$prog.np$np.log"; then
                echo "$prog np$np: pass"
            else
                echo "$prog np$np: FAIL (see $out/$prog.np$np.log)"
            fi
        else
            echo "$prog np$np: FAIL (see $out/$prog.np$np.log)"
        fi
    done
done
