#!/bin/sh
# Everything this project runs on a GPU node, in one go: the GPU tests, the
# stream-ordered plan example (both modes), examples/device_ring built against an
# installation of the build with the README's command, the GPU benchmarks, and with
# --nvshmem the NVSHMEM equivalents (bench/gpu/nvshmem) for comparison.
# Two PEs, one GPU each. The build directory comes from
#   cmake -S . -B <dir> -DSHMEM_GPU=cuda (or hip) && cmake --build <dir>
# usage: scripts/gpu-check.sh <build-dir> [--nvshmem]
#        scripts/gpu-check.sh <build-dir> --fabric
# --fabric: the device heap over libfabric instead, every PE reached through it
# (SHMEM_FORCE_FABRIC=1): the host API on the device heap (tests/gpu/host_api.cu) over
# tcp (no FI_HMEM in its provider: staged through pinned host buffers), then over shm
# (FI_HMEM where libfabric was built with CUDA/ROCm: RMA on GPU memory), and the same
# with staging forced; then the host-heap functional programs over tcp. Each line says
# "passed" or "FAILED", and "device heap registered" or "staged" says which way ran.
set -u
b=${1:?usage: scripts/gpu-check.sh <build-dir> [--nvshmem | --fabric]}
osh="$b/bin/oshrun"
[ -x "$osh" ] || { echo "gpu-check: no $osh" >&2; exit 2; }
status=0
if [ "${2:-}" = "--fabric" ]; then
    if [ ! -f "$b/shmem/CMakeFiles/shmem_core.dir/path_fabric.c.o" ]; then
        echo "gpu-check: fabric: this build has no fabric path (libfabric's headers were not"
        echo "gpu-check: found: install libfabric-dev or libfabric's headers and rebuild)"
        exit 1
    fi
    prog=$(find "$b" -name gpu_host_api -type f -perm -u+x | head -n 1)
    run() { # run LABEL SETTINGS...: host_api over the fabric
        label=$1
        shift
        out=$(env SHMEM_FORCE_FABRIC=1 SHMEM_DEBUG=1 "$@" timeout 300 "$osh" -np 2 "$prog" 2>&1)
        rc=$?
        how=$(echo "$out" | grep -m1 -o "device heap is [a-z]*" | sed 's/is //')
        prov=$(echo "$out" | grep -m1 -o "fabric: [^,]*" | sed 's/fabric: //')
        if [ $rc = 0 ]; then
            echo "gpu-check: fabric host_api $label ($prov, ${how:-?}): passed"
        else
            echo "gpu-check: fabric host_api $label ($prov, ${how:-?}): FAILED (exit $rc)"
            echo "$out" | grep -v "debug:" | tail -20
            status=1
        fi
    }
    run "over tcp" FI_PROVIDER=tcp SHMEM_OFI_DOMAIN=lo
    run "over shm" SHMEM_OFI_PROVIDER=shm
    run "over shm, staged" SHMEM_OFI_PROVIDER=shm SHMEM_OFI_HMEM=staged
    for t in static_data heap_rma amo signals coll_team lock plan_run; do
        p=$(find "$b" -path "*tests/func/$t" -type f -perm -u+x | head -n 1)
        [ -n "$p" ] || continue
        if env SHMEM_HEAP=host SHMEM_FORCE_FABRIC=1 FI_PROVIDER=tcp SHMEM_OFI_DOMAIN=lo \
            timeout 300 "$osh" -np 2 "$p" >/dev/null 2>&1; then
            echo "gpu-check: fabric $t (host heap, tcp): passed"
        else
            echo "gpu-check: fabric $t (host heap, tcp): FAILED"
            status=1
        fi
    done
    exit $status
fi
echo "== tests"
sh "$(dirname "$0")/../tests/gpu/run_all.sh" "$b" | grep -E '^(gpu\.|[0-9]+ passed)' || status=1
echo "== examples/plan_stream (64 KiB and 1 MiB chunks, stream-ordered and blocking)"
for args in "-r 200 -v" "-r 200 -k 1024" "-r 100 -B" "-r 100 -k 1024 -B"; do
    # shellcheck disable=SC2086
    timeout 120 "$osh" -np 2 "$b/examples/plan_stream" $args || status=1
done
echo "== examples/device_ring, built against an installation with the README's command"
src=$(cd "$(dirname "$0")/.." && pwd)
case $(sed -n 's/^SHMEM_GPU:STRING=//p' "$b/CMakeCache.txt") in
cuda) gpucc=${NVCC:-nvcc}
    command -v "$gpucc" >/dev/null || gpucc=/usr/local/cuda/bin/nvcc
    arch=-arch=sm_$(sed -n 's/^SHMEM_CUDA_ARCHS:STRING=\([0-9]*\).*/\1/p' "$b/CMakeCache.txt") ;;
hip) gpucc=${HIPCC:-hipcc}
    arch=--offload-arch=$(sed -n 's/^SHMEM_HIP_ARCHS:STRING=\([^;]*\).*/\1/p' "$b/CMakeCache.txt") ;;
*) gpucc= ;;
esac
if [ -n "$gpucc" ]; then
    inst=$(mktemp -d)
    if cmake --install "$b" --prefix "$inst" >/dev/null &&
        SHMEM_CC=$gpucc "$inst/bin/oshcc" "$arch" -o "$inst/device_ring" "$src/examples/device_ring.cu"; then
        timeout 60 "$inst/bin/oshrun" -np 2 "$inst/device_ring" || status=1
    else
        echo "device_ring: the installation or the build with oshcc failed" >&2
        status=1
    fi
    rm -rf "$inst"
fi
echo "== benchmarks (CSV: bench,size,metric,value,unit)"
SHMEM_SYMMETRIC_SIZE=1g timeout 200 "$osh" -np 2 "$b/bench/gpu_put_bw" -b 1M -e 256M -f 4 -n 10 -r 5
for blocks in 132 32; do
    echo "# gpu_put_bw with $blocks workgroups"
    SHMEM_SYMMETRIC_SIZE=1g timeout 100 "$osh" -np 2 "$b/bench/gpu_put_bw" -b 256M -e 256M -n 10 \
        -r 5 -B "$blocks" | grep -v '^bench'
done
timeout 100 "$osh" -np 2 "$b/bench/gpu_lat" | grep -v '^bench'
SHMEM_SYMMETRIC_SIZE=600M timeout 200 "$osh" -np 2 "$b/bench/stream_bw" -b 64M -e 256M -f 4 -n 20 \
    -r 5 -N 200 | grep -v '^bench'
if [ "${2:-}" = "--nvshmem" ]; then
    echo "== NVSHMEM"
    timeout 300 sh "$(dirname "$0")/../bench/gpu/nvshmem/run.sh" -b 256M -e 256M -n 10 -r 5 || status=1
fi
exit $status
