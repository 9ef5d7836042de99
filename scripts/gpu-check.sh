#!/bin/sh
# Everything this project runs on a GPU node, in one go: the GPU tests, the
# stream-ordered plan example (both modes), examples/device_ring built against an
# installation of the build with the README's command, the GPU benchmarks, and with
# --nvshmem the NVSHMEM equivalents (bench/gpu/nvshmem) for comparison.
# Two PEs, one GPU each. The build directory comes from
#   cmake -S . -B <dir> -DSHMEM_GPU=cuda (or hip) && cmake --build <dir>
# usage: scripts/gpu-check.sh <build-dir> [--nvshmem]
set -u
b=${1:?usage: scripts/gpu-check.sh <build-dir> [--nvshmem]}
osh="$b/bin/oshrun"
[ -x "$osh" ] || { echo "gpu-check: no $osh" >&2; exit 2; }
status=0
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
