#!/bin/sh
# Build and run the NVSHMEM equivalents of bench/gpu with mpirun -np 2 (one GPU
# per process). NVSHMEM_HOME: an NVSHMEM install (include/, lib/); default:
# the nvidia-nvshmem pip wheel of python3. Extra arguments go to the program
# (-b -e -f -n -r -B -T). Output: CSV (bench,size,metric,value,unit).
# usage: bench/gpu/nvshmem/run.sh [args...]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
if [ -z "${NVSHMEM_HOME:-}" ]; then
    NVSHMEM_HOME=$(python3 -c 'import nvidia.nvshmem; print(list(nvidia.nvshmem.__path__)[0])' 2>/dev/null) || {
        echo "run.sh: set NVSHMEM_HOME (no nvidia.nvshmem python package found)" >&2
        exit 2
    }
fi
[ -f "$NVSHMEM_HOME/include/nvshmem.h" ] || { echo "run.sh: no nvshmem.h under $NVSHMEM_HOME/include" >&2; exit 2; }
NVCC=${NVCC:-nvcc}
command -v "$NVCC" >/dev/null 2>&1 || NVCC=/usr/local/cuda/bin/nvcc
MPICXX=${MPICXX:-mpicxx}
ARCH=${CUDA_ARCH:-sm_90}
out=${OUT_DIR:-$here/build}
mkdir -p "$out"
mpi_inc=$($MPICXX --showme:incdirs 2>/dev/null | sed 's/^/-I/; s/ / -I/g')
mpi_lib=$($MPICXX --showme:libdirs 2>/dev/null | sed 's/^/-L/; s/ / -L/g')
libdir=$NVSHMEM_HOME/lib
# The wheel ships versioned names only (libnvshmem_host.so.3): give the linker plain names.
mkdir -p "$out/lib"
for l in "$libdir"/libnvshmem_host.so*; do ln -sf "$l" "$out/lib/libnvshmem_host.so"; break; done
"$NVCC" -arch="$ARCH" -rdc=true -O2 -std=c++17 -I"$NVSHMEM_HOME/include" $mpi_inc \
    "$here/nvshmem_bench.cu" -o "$out/nvshmem_bench" \
    -L"$out/lib" -L"$libdir" $mpi_lib -lnvshmem_host "$libdir/libnvshmem_device.a" -lmpi -lcuda \
    -Xlinker -rpath -Xlinker "$libdir"
export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME=${NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME:-lo}
exec mpirun --allow-run-as-root -np 2 -x LD_LIBRARY_PATH -x NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME \
    "$out/nvshmem_bench" "$@"
