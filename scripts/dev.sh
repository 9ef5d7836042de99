#!/usr/bin/env bash
# One entry point for a fresh Debian 12 machine:
#   scripts/dev.sh demo      install what is missing, build, install to ./install,
#                            compile examples/hello_ring.c with the installed oshcc
#                            and run it on 4 PEs with the installed oshrun
#   scripts/dev.sh test      install what is missing, build, run every test (ctest)
#   scripts/dev.sh sanitize  the functional and unit suites under ASan + UBSan, and the
#                            standard programs through the fabric (tcp) under them too
#   scripts/dev.sh fuzz      a short libFuzzer run of the soft engine's decoder (clang, ASan)
#   scripts/dev.sh kfd-model build against the KFD model (sdma/kfd_model) in $BUILD_DIR-kfd,
#                            run its tests, the hardware checks of scripts/amd-check.sh
#                            and the functional suite at 2 and 4 PEs on modelled GPUs
#                            (SHMEM_COPY_ENGINE=hsakmt SHMEM_NBI_THRESHOLD=0)
#   scripts/dev.sh fabric    the functional suite with every PE reached through libfabric
#                            (SHMEM_FORCE_FABRIC=1), at 1, 2 and 4 PEs: launched by mpirun
#                            over tcp (FI_PROVIDER=tcp on lo), then the tests of how a job
#                            ends under oshrun and mpirun, then a few programs over shm
#   scripts/dev.sh readme    rewrite README.md's configuration table from shmem_info
#   scripts/dev.sh build-types
#                            compile every CMake build type (Debug, Release, RelWithDebInfo,
#                            MinSizeRel) in $BUILD_DIR-<type>, and RelWithDebInfo with clang in
#                            $BUILD_DIR-clang; Debug also runs the unit tests
#   scripts/dev.sh gpu-build cuda|hip
#                            configure and compile a GPU build in $BUILD_DIR-<kind>
#                            (compile only; skipped with a message when nvcc is absent),
#                            then build programs against its installation (ctest -L install)
#   scripts/dev.sh format    apply .clang-format to the tree's C, CUDA and HIP sources
#   scripts/dev.sh format-check
#                            list the sources .clang-format would change (fails if any)
#   scripts/dev.sh deps      only install the Debian packages
# Environment: BUILD_DIR (default build), PREFIX (default ./install), JOBS.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD_DIR=${BUILD_DIR:-build}
PREFIX=${PREFIX:-$ROOT/install}
JOBS=${JOBS:-$(nproc)}

PKGS=(cmake make gcc g++ pkg-config check universal-ctags libpmix-dev openmpi-bin libopenmpi-dev
      libhsakmt-dev clang libclang-rt-14-dev clang-format hipcc libamdhip64-dev
      libfabric-dev libfabric-bin iproute2)

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

# The tree's C, CUDA and HIP sources, as git knows them (tracked, and new files it does not
# ignore); links (include/shmem/) are left out: they point at sources already listed.
sources() {
    local pats=('*.c' '*.h' '*.cu' '*.cuh' '*.hip')
    {
        git ls-files -s -- "${pats[@]}" |
            awk -F '\t' '{ split($1, m, " "); if (m[1] != "120000") print $2 }'
        git ls-files -o --exclude-standard -- "${pats[@]}" |
            while IFS= read -r f; do [ -L "$f" ] || printf '%s\n' "$f"; done
    } | sort -u
}

case "${1:-}" in
deps) deps ;;
format | format-check)
    if ! command -v clang-format >/dev/null; then
        echo "== $1: clang-format not found (Debian: apt-get install clang-format)" >&2
        exit 2
    fi
    if [ "$1" = format ]; then
        sources | xargs clang-format -i
        echo "== formatted $(sources | wc -l) files with $(clang-format --version)"
    else
        changed=0
        while IFS= read -r f; do
            if ! clang-format --dry-run --Werror "$f" >/dev/null 2>&1; then
                echo "$f"
                changed=$((changed + 1))
            fi
        done < <(sources)
        if [ "$changed" -ne 0 ]; then
            echo "== format-check: $changed files differ from .clang-format (scripts/dev.sh format)"
            exit 1
        fi
        echo "== format-check: every source matches .clang-format"
    fi
    ;;
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
    # The fabric path too (every PE through tcp;ofi_rxm, then through what FI_PROVIDER=tcp
    # gives, net in libfabric 1.17, on the loopback interface; oshrun's own launcher, so no
    # PMIx library and its leaks in the report). net 1.17 leaks copies of its fi_info inside
    # libfabric, one per endpoint and connection: leaks are looked for through rxm.
    for v in "SHMEM_OFI_PROVIDER=tcp;ofi_rxm detect_leaks=1" "FI_PROVIDER=tcp detect_leaks=0"; do
        read -r prov leaks <<<"$v"
        env ASAN_OPTIONS="$leaks" UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
            SHMEM_FORCE_FABRIC=1 "$prov" SHMEM_OFI_DOMAIN=lo \
            ctest --test-dir "$BUILD_DIR-asan" --output-on-failure -j "$JOBS" -L func \
            -R 'func\.(static_data|heap_rma|amo|amo_stream|signals|fence_order|busy_target|unwaited_puts|lock|coll_small|coll_team|coll_active|scan|team_split|team_ctx|many_ctx|plan_run|threads|threads_16|quiet_threads|quiet_others)\.np(2|4)'
    done
    ;;
fabric)
    deps
    build "$BUILD_DIR"
    # Every PE through libfabric over TCP on the loopback interface as users ask for it
    # (FI_PROVIDER=tcp: net, the provider that carries RDM over TCP itself, in libfabric
    # 1.17), the jobs handed to mpirun by oshrun (which passes SHMEM_* and FI_* on): the
    # standard programs, the plans and the bad-input tests; then the same through tcp under
    # ofi_rxm. 8-PE runs are left out (2 cores: minutes each). (Tests that name their
    # provider keep it: they have rxm forms of their own.)
    fab=(SHMEM_FORCE_FABRIC=1 FI_PROVIDER=tcp SHMEM_OFI_DOMAIN=lo)
    env "${fab[@]}" SHMEM_LAUNCHER=mpirun ctest --test-dir "$BUILD_DIR" --output-on-failure \
        -j "$JOBS" -L func -E 'np8|mpirun|leave|crash|kill'
    env SHMEM_FORCE_FABRIC=1 "SHMEM_OFI_PROVIDER=tcp;ofi_rxm" SHMEM_OFI_DOMAIN=lo \
        SHMEM_LAUNCHER=mpirun ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$JOBS" \
        -L func -E 'np8|mpirun|leave|crash|kill|finalize_late|tcp_filter|progress_|quiet_others_'
    # How a job ends (a PE that crashes, is killed, leaves or exits non-zero): under oshrun, and under
    # mpirun where the test has an mpirun form (the messages are the launcher's).
    env "${fab[@]}" ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$JOBS" -R 'leave|crash|kill' \
        -E np8
    # The shm provider's endpoints are files in /dev/shm: none is left by a job that ends
    # early, and a file left by a killed process whose id a PE now has (what the
    # provider names its files by: "pid:uid:n") refuses no endpoint.
    before=$(ls /dev/shm)
    env SHMEM_FORCE_FABRIC=1 SHMEM_OFI_PROVIDER=shm ctest --test-dir "$BUILD_DIR" \
        --output-on-failure -j "$JOBS" -R 'leave|crash|kill' -E 'np8'
    if [ "$(ls /dev/shm)" != "$before" ]; then
        echo "== fabric: jobs through shm left files in /dev/shm:"
        comm -13 <(echo "$before") <(ls /dev/shm)
        exit 1
    fi
    last=$(cat /proc/sys/kernel/ns_last_pid)
    stale=()
    for i in $(seq 1 300); do
        f="/dev/shm/$((last + i)):$(id -u):0"
        [ -e "$f" ] || { echo stale >"$f" && stale+=("$f"); }
    done
    trap 'rm -f "${stale[@]}"' EXIT
    # The shm provider (readback quiet, polling progress), and over TCP with registered-only
    # local buffers and every AMO as a compare-and-swap loop (rxm), a message (net), or the
    # provider's atomic (rxm; no non-fetching ones as messages).
    for v in "SHMEM_OFI_PROVIDER=shm" \
             "SHMEM_OFI_MR_LOCAL=1 SHMEM_OFI_ATOMICS=cas SHMEM_OFI_PROVIDER=tcp;ofi_rxm SHMEM_OFI_DOMAIN=lo" \
             "SHMEM_OFI_ATOMICS=am FI_PROVIDER=tcp SHMEM_OFI_DOMAIN=lo" \
             "SHMEM_OFI_ATOMICS=native SHMEM_OFI_PROVIDER=tcp;ofi_rxm SHMEM_OFI_DOMAIN=lo"; do
        # shellcheck disable=SC2086
        env SHMEM_FORCE_FABRIC=1 $v ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$JOBS" \
            -R 'func\.(static_data|heap_rma|amo|amo_stream|signals|fence_order|lock|coll_team|team_split|plan_run)\.np4'
        rm -f "${stale[@]}"
        stale=()
    done
    # Two hosts made of network namespaces (root only): the same suite with PEs on both,
    # those of one host mapping each other, the others reached through tcp over a veth.
    ns=tests/multihost/netns.sh
    if why=$(sh $ns check); then
        tag=d$(($$ % 10000000))
        trap 'sh $ns down $tag' EXIT
        sh $ns up $tag
        # (finalize_late, tcp_filter, progress_* and quiet_others_* pin their PEs to the
        # loopback interface: one host only.)
        env SHMEMI_NETNS=$tag SHMEM_LAUNCHER=mpirun SHMEM_MPIRUN="$ROOT/$ns" \
            ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$JOBS" -L func \
            -E 'np1$|np8|mpirun|leave|crash|kill|finalize_late|tcp_filter|progress_|quiet_others_'
    else
        echo "== fabric: no run across network namespaces here: $why"
    fi
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
    # set of warnings (-Werror): build them all, and one with clang.
    deps
    for type in Debug Release RelWithDebInfo MinSizeRel; do
        echo "== $type"
        build "$BUILD_DIR-$(echo "$type" | tr '[:upper:]' '[:lower:]')" -DCMAKE_BUILD_TYPE="$type"
    done
    # Another compiler warns elsewhere (GCC 13 and clang find what GCC 12 does not).
    echo "== RelWithDebInfo with clang"
    build "$BUILD_DIR-clang" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang \
        -DCMAKE_CXX_COMPILER=clang++
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
    # The installed surface of this build: its kernel programs built against an
    # installation only (oshcc, pkg-config, find_package); nothing here needs a GPU.
    ctest --test-dir "$BUILD_DIR-$kind" --output-on-failure -L install
    echo "== $kind build compiled in $BUILD_DIR-$kind (it runs where that GPU is)"
    ;;
fuzz)
    deps
    CC=clang build "$BUILD_DIR-fuzz" -DSHMEM_FUZZ=ON -DSHMEM_SANITIZE=address \
        -DSHMEM_BUILD_BENCH=OFF
    ctest --test-dir "$BUILD_DIR-fuzz" --output-on-failure -L fuzz
    ;;
kfd-model)
    deps
    build "$BUILD_DIR-kfd" -DSHMEM_HSAKMT_MODEL=ON -DSHMEM_BUILD_BENCH=OFF
    ctest --test-dir "$BUILD_DIR-kfd" --output-on-failure -j "$JOBS" -L kfd
    # amd-check.sh's host-queue checks and its functional suite at 2 and 4 PEs
    # (SHMEM_COPY_ENGINE=hsakmt SHMEM_NBI_THRESHOLD=0), on the model's GPUs.
    if ! AMD_CHECK_MODEL=1 BUILD_DIR="$BUILD_DIR-kfd" JOBS="$JOBS" scripts/amd-check.sh; then
        cat "$BUILD_DIR-kfd/amd-check.log"
        exit 1
    fi
    ;;
*)
    sed -n '2,29p' "$0"
    exit 2
    ;;
esac
