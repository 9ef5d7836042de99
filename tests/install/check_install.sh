#!/usr/bin/env bash
# The installed surface, used the way a user would use it (ctest: install.*).
#   check_install.sh prefix <build> <prefix>     install the build into a fresh <prefix>
#   check_install.sh oshcc <prefix> <src> <gpu>  oshcc + oshrun from <prefix>: hello_ring
#                                                (run on 2 PEs in a CPU build)
#   check_install.sh pkgconfig <prefix> <src> <gpu>  cc with pkg-config's line for shmem, and
#                                                (CPU builds) a static link with --static's
#   check_install.sh cmake <prefix> <src> <dir>  find_package(shmem) in tests/install/consumer
#                                                (also a kernel program in GPU builds)
#   check_install.sh nvcc <prefix> <src> <arch>  examples/device_ring.cu built with the README's
#                                                command (SHMEM_CC=nvcc oshcc), and with the
#                                                pkg-config line of shmem-cuda where installed
#   check_install.sh hipcc <prefix> <src> <arch> the same with hipcc, compile-only
# A compiler that is not installed skips its check (exit 77, with a message).
set -euo pipefail
what=$1
shift
skip() {
    echo "SKIPPED: $*"
    exit 77
}

case $what in
prefix)
    build=$1 prefix=$2
    rm -rf "$prefix"
    cmake --install "$build" --prefix "$prefix" >/dev/null
    for f in include/shmem.h include/mpp/shmem.h include/shmem_device.h include/shmem/device/arch.h \
        include/shmem/sdma/ring.h bin/oshcc bin/oshrun lib/pkgconfig/shmem.pc; do
        [ -e "$prefix/$f" ] || { echo "missing from the installation: $f"; exit 1; }
    done
    # The installed headers are files, never links into a source tree.
    links=$(find "$prefix/include" -type l)
    [ -z "$links" ] || { echo "links in the installation: $links"; exit 1; }
    echo "installed into $prefix"
    ;;
oshcc)
    prefix=$1 src=$2 gpu=$3
    out=$(mktemp -d)
    trap 'rm -rf "$out"' EXIT
    "$prefix/bin/oshcc" -O2 -o "$out/hello_ring" "$src/examples/hello_ring.c"
    # A program of the SGI/Cray era: the headers at <mpp/...>, start_pes and _my_pe.
    cat >"$out/legacy.c" <<'EOF_C'
#include <mpp/shmem.h>
#include <mpp/shmemx.h>
#include <stdio.h>
static long word;
int main(void) {
    start_pes(0);
    int me = _my_pe(), n = _num_pes();
    shmem_long_p(&word, me + 1, (me + 1) % n);
    shmem_barrier_all();
    if (word != (me + n - 1) % n + 1) {
        printf("legacy: PE %d read %ld\n", me, word);
        return 1;
    }
    return 0;
}
EOF_C
    "$prefix/bin/oshcc" -O2 -Wno-deprecated-declarations -o "$out/legacy" "$out/legacy.c"
    if [ "$gpu" = none ]; then
        "$prefix/bin/oshrun" --timeout 60 -np 2 "$out/hello_ring"
        "$prefix/bin/oshrun" --timeout 60 -np 2 "$out/legacy"
        echo "legacy program (<mpp/shmem.h>, start_pes) passed"
    else
        echo "built hello_ring with $prefix/bin/oshcc (a GPU build: not run here)"
    fi
    ;;
pkgconfig)
    prefix=$1 src=$2 gpu=${3:-none}
    command -v pkg-config >/dev/null || skip "pkg-config not found"
    out=$(mktemp -d)
    trap 'rm -rf "$out"' EXIT
    flags=$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags --libs shmem)
    # shellcheck disable=SC2086
    cc -O2 -o "$out/hello_ring" "$src/examples/hello_ring.c" $flags
    echo "cc ... $flags: ok"
    # A static link: libshmem.a, then what --static lists besides the library itself (CPU
    # builds: a GPU build's archive holds device code that its compiler links).
    [ "$gpu" = none ] || exit 0
    cflags=$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags shmem)
    private=$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --static --libs shmem |
        sed 's/ -lshmem / /')
    # shellcheck disable=SC2086
    cc -O2 -o "$out/hello_static" "$src/examples/hello_ring.c" $cflags "$prefix/lib/libshmem.a" \
        $private
    if nm -D "$out/hello_static" | grep -q ' T shmem_init$' ||
        ldd "$out/hello_static" | grep -q libshmem; then
        echo "hello_static still links libshmem.so"
        exit 1
    fi
    echo "cc ... libshmem.a $private: ok"
    "$prefix/bin/oshrun" --timeout 60 -np 2 "$out/hello_static"
    ;;
cmake)
    prefix=$1 src=$2 dir=$3
    rm -rf "$dir"
    cmake -S "$src/tests/install/consumer" -B "$dir" -DCMAKE_PREFIX_PATH="$prefix" \
        -DEXAMPLES="$src/examples" >/dev/null
    cmake --build "$dir" -j 2
    ;;
nvcc)
    prefix=$1 src=$2 arch=$3
    nvcc=$(command -v nvcc || true)
    [ -n "$nvcc" ] || [ ! -x /usr/local/cuda/bin/nvcc ] || nvcc=/usr/local/cuda/bin/nvcc
    [ -n "$nvcc" ] || skip "nvcc not found: the CUDA kernel program was not compiled"
    out=$(mktemp -d)
    trap 'rm -rf "$out"' EXIT
    # The README's command; a program linked and ready for oshrun where a GPU is.
    (set -x; SHMEM_CC=$nvcc "$prefix/bin/oshcc" -arch="$arch" -o "$out/device_ring" \
        "$src/examples/device_ring.cu")
    if [ -e "$prefix/lib/pkgconfig/shmem-cuda.pc" ]; then
        flags=$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags --libs shmem-cuda)
        # shellcheck disable=SC2086
        (set -x; "$nvcc" -arch="$arch" -o "$out/device_ring_pc" "$src/examples/device_ring.cu" $flags)
    fi
    ;;
hipcc)
    prefix=$1 src=$2 arch=$3
    hipcc=$(command -v hipcc || true)
    [ -n "$hipcc" ] || skip "hipcc not found: the HIP kernel program was not compiled"
    out=$(mktemp -d)
    trap 'rm -rf "$out"' EXIT
    # TMPDIR: clang's HIP driver leaves an empty directory there per compile.
    (set -x; TMPDIR=$out SHMEM_CC=$hipcc "$prefix/bin/oshcc" --offload-arch="$arch" -c -o "$out/device_ring.o" \
        "$src/examples/device_ring.cu")
    ;;
*)
    echo "usage: check_install.sh prefix|oshcc|pkgconfig|cmake|nvcc|hipcc ..." >&2
    exit 2
    ;;
esac
