#!/usr/bin/env bash
# One entry point for a fresh Debian 12 machine:
#   scripts/dev.sh demo      install what is missing, build, install to ./install,
#                            compile examples/hello_ring.c with the installed oshcc
#                            and run it on 4 PEs with the installed oshrun
#   scripts/dev.sh test      install what is missing, build, run every test (ctest)
#   scripts/dev.sh sanitize  the functional and unit suites under ASan + UBSan
#   scripts/dev.sh fuzz      a short libFuzzer run of the soft engine's decoder (clang, ASan)
#   scripts/dev.sh readme    rewrite README.md's configuration table from shmem_info
#   scripts/dev.sh build-types
#                            compile every CMake build type (Debug, Release, RelWithDebInfo,
#                            MinSizeRel) in $BUILD_DIR-<type>; Debug also runs the unit tests
#   scripts/dev.sh gpu-build cuda|hip
#                            configure and compile a GPU build in $BUILD_DIR-<kind>
#                            (compile only; skipped with a message when nvcc is absent)
#   scripts/dev.sh deps      only install the Debian packages
# Environment: BUILD_DIR (default build), PREFIX (default ./install), JOBS.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD_DIR=${BUILD_DIR:-build}
PREFIX=${PREFIX:-$ROOT/install}
JOBS=${JOBS:-$(nproc)}

PKGS=(cmake make gcc g++ pkg-config check libpmix-dev openmpi-bin libopenmpi-dev
      libhsakmt-dev clang libclang-rt-14-dev hipcc libamdhip64-dev)

deps() {
    local missing=()
    for p in "${PKGS[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "== installing: ${missing[*]}"
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
}

build() { # build <dir> [cmake args...]
    local dir=$1
    shift
    cmake -S "$ROOT" -B "$dir" -DCMAKE_INSTALL_PREFIX="$PREFIX" "$@" >/dev/null
    cmake --build "$dir" -j "$JOBS"
}

case "${1:-}" in
deps) deps ;;
demo)
    deps
    build "$BUILD_DIR"
    cmake --install "$BUILD_DIR" >/dev/null
    echo "== installed to $PREFIX (put $PREFIX/bin first in PATH: Open MPI also ships an oshrun)"
    "$PREFIX/bin/oshrun" --version
    "$PREFIX/bin/oshcc" -O2 -o "$BUILD_DIR/hello_ring" examples/hello_ring.c
    "$PREFIX/bin/oshrun" -np 4 "$BUILD_DIR/hello_ring"
    ;;
test)
    deps
    build "$BUILD_DIR"
    ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$JOBS"
    ;;
sanitize)
    deps
    build "$BUILD_DIR-asan" -DSHMEM_SANITIZE=address,undefined -DSHMEM_BUILD_BENCH=OFF
    ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
        ctest --test-dir "$BUILD_DIR-asan" --output-on-failure -j "$JOBS" -L 'unit|func'
    ;;
readme)
    build "$BUILD_DIR" >/dev/null
    table=$("$BUILD_DIR/bin/shmem_info" --markdown)
    awk -v table="$table" '
        /<!-- config-table -->/ { print; print table; skip = 1; next }
        /<!-- \/config-table -->/ { skip = 0 }
        !skip' README.md >README.md.new && mv README.md.new README.md
    ;;
build-types)
    # Each type compiles with its own optimizer settings, and so with its own
    # set of warnings (-Werror): build them all.
    deps
    for type in Debug Release RelWithDebInfo MinSizeRel; do
        echo "== $type"
        build "$BUILD_DIR-$(echo "$type" | tr '[:upper:]' '[:lower:]')" -DCMAKE_BUILD_TYPE="$type"
    done
    ctest --test-dir "$BUILD_DIR-debug" --output-on-failure -j "$JOBS" -L 'unit|boot'
    ;;
gpu-build)
    kind=${2:-}
    case "$kind" in
    cuda | hip) ;;
    *)
        echo "usage: scripts/dev.sh gpu-build cuda|hip" >&2
        exit 2
        ;;
    esac
    deps
    if [ "$kind" = cuda ] && [ -z "${CUDACXX:-}" ] && ! command -v nvcc >/dev/null &&
        [ ! -x /usr/local/cuda/bin/nvcc ]; then
        echo "== gpu-build cuda: skipped: nvcc not found (install the CUDA toolkit or set CUDACXX)"
        exit 0
    fi
    build "$BUILD_DIR-$kind" -DSHMEM_GPU="$kind"
    echo "== $kind build compiled in $BUILD_DIR-$kind (it runs where that GPU is)"
    ;;
fuzz)
    deps
    CC=clang build "$BUILD_DIR-fuzz" -DSHMEM_FUZZ=ON -DSHMEM_SANITIZE=address \
        -DSHMEM_BUILD_BENCH=OFF
    ctest --test-dir "$BUILD_DIR-fuzz" --output-on-failure -L fuzz
    ;;
*)
    sed -n '2,17p' "$0"
    exit 2
    ;;
esac
