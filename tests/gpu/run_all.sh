#!/bin/sh
# Run every GPU test program at 2 PEs (one GPU each) and print a summary.
# usage: tests/gpu/run_all.sh <build-dir>
set -u
build=${1:?usage: run_all.sh <build-dir>}
oshrun=$(find "$build" -name oshrun -type f -perm -u+x 2>/dev/null | head -n 1)
if [ -z "$oshrun" ]; then
    echo "run_all.sh: no oshrun under $build" >&2
    exit 2
fi
pass=0
fail=0
failed=""
# name[:SETTING=value]: the program run with that setting (dev_ce:... runs the
# doorbell protocol of hardware queues against the engine's proxy).
for spec in dev_rma dev_amo dev_signal dev_barrier dev_coll ring_soft stream_api host_api \
         engine_cuda dev_ce dev_ce:SHMEM_DEVICE_QUEUES=doorbell plan_stream; do
    t=${spec%%:*}
    setting=
    [ "$spec" = "$t" ] || setting=${spec#*:}
    prog=$(find "$build" -name "gpu_$t" -type f -perm -u+x 2>/dev/null | head -n 1)
    [ -z "$setting" ] || t="$t($setting)"
    if [ -z "$prog" ]; then
        echo "gpu.$t: not built"
        fail=$((fail + 1))
        failed="$failed $t"
        continue
    fi
    if env $setting timeout 300 "$oshrun" -np 2 "$prog"; then
        echo "gpu.$t: passed"
        pass=$((pass + 1))
    else
        echo "gpu.$t: FAILED (exit $?)"
        fail=$((fail + 1))
        failed="$failed $t"
    fi
done
echo "$pass passed, $fail failed${failed:+ (failed:$failed)}"
[ "$fail" -eq 0 ]
