#!/bin/sh
# Run the GPU test programs at 2 PEs and print a summary. The PEs take one GPU each
# where the job sees two (the PE's local rank modulo the GPUs it sees); with one GPU
# visible they share it.
# usage: tests/gpu/run_all.sh <build-dir> [spec...]
#   spec: name[:SETTING=value] -- the program gpu_<name>, run with that setting; without
#   specs, every test once (and the settings' variants below).
set -u
build=${1:?usage: run_all.sh <build-dir> [spec...]}
shift
oshrun=$(find "$build" -name oshrun -type f -perm -u+x 2>/dev/null | head -n 1)
if [ -z "$oshrun" ]; then
    echo "run_all.sh: no oshrun under $build" >&2
    exit 2
fi
# dev_ce:... runs the doorbell protocol of hardware queues against the engine's proxy;
# the :SHMEM_BARRIER_GPU_SYNC=0 runs show that the tests complete their own GPU work
# before each barrier (barrier_gpu: that the setting turns the barriers' GPU sync off);
# host_heap:SHMEM_HEAP=host, that device code hears the heap is out of its kernels' reach.
specs=${*:-"dev_rma dev_amo dev_signal dev_barrier dev_coll ring_soft stream_api host_api
    engine_cuda dev_ce dev_ce:SHMEM_DEVICE_QUEUES=doorbell plan_stream barrier_gpu
    barrier_gpu:SHMEM_BARRIER_GPU_SYNC=0 host_api:SHMEM_BARRIER_GPU_SYNC=0
    dev_amo:SHMEM_BARRIER_GPU_SYNC=0 late host_heap host_heap:SHMEM_HEAP=host"}
pass=0
fail=0
failed=""
for spec in $specs; do
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
    # shellcheck disable=SC2086 # no setting: no word
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
