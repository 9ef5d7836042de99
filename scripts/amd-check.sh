#!/usr/bin/env bash
# Prove the AMD copy-engine path on an MI200/MI300 node, one line per check:
#
#   scripts/amd-check.sh
#
#   1. build       a CPU build with the hsakmt engine (libhsakmt found), in $BUILD_DIR
#   2. host queue  one SDMA queue driven from the host (sdma/tools/hsakmt_check): copy +
#                  fence, ring wrap, a full ring, an 8 MiB fill, a 2D sub-window, and a
#                  deliberate bad address that must come back as a fault with its address
#   3. suite       the functional suite at 2 and 4 PEs with SHMEM_COPY_ENGINE=hsakmt
#                  SHMEM_NBI_THRESHOLD=0 (every host-driven copy-engine path on hardware)
#   4. HIP build   a HIP build for the GPUs found (needs hipcc), in $HIP_BUILD_DIR
#   5. kernels     many waves ringing a hardware queue from a kernel (tests/gpu/ring_hsakmt)
#
# Where there is no AMD GPU it says so and skips every check (exit 0). Otherwise the exit
# status is the number of failed checks, and the log ($BUILD_DIR/amd-check.log) has the
# detail. Environment: BUILD_DIR (default build-amd), HIP_BUILD_DIR (build-amd-hip), JOBS.
# AMD_CHECK_MODEL=1 runs checks 1-3 on the KFD model's GPUs instead (a build configured with
# -DSHMEM_HSAKMT_MODEL=ON; scripts/dev.sh kfd-model does that), to test this script.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD=${BUILD_DIR:-build-amd}
HIPBUILD=${HIP_BUILD_DIR:-build-amd-hip}
JOBS=${JOBS:-$(nproc)}
CHECKS=("build" "host queue: copy + fence" "host queue: ring wrap" "host queue: full ring"
        "host queue: 8 MiB fill" "host queue: 2D sub-window" "host queue: bad address reported"
        "suite with SHMEM_COPY_ENGINE=hsakmt" "HIP build" "kernels ring a hardware queue")
FAILED=0

line() { # line STATUS CHECK DETAIL
    printf 'amd-check: %-4s %-40s %s\n' "$1" "$2" "$3"
    [ "$1" = FAIL ] && FAILED=$((FAILED + 1))
    return 0
}

# The GPUs KFD lists: nodes with SIMDs, and their gfx target version (e.g. 90010, 90402).
gpus() {
    local d
    for d in /sys/class/kfd/kfd/topology/nodes/*; do
        [ -r "$d/properties" ] || continue
        awk '$1 == "simd_count" { s = $2 } $1 == "gfx_target_version" { g = $2 }
             END { if (s > 0) print g }' "$d/properties"
    done
}

MODEL=${AMD_CHECK_MODEL:-0}
if [ "$MODEL" != 0 ]; then
    GFX="90010 90402 " # the KFD model's default GPUs
    MODEL_FLAGS=(-DSHMEM_HSAKMT_MODEL=ON)
else
    GFX=$(gpus 2>/dev/null | sort -u | tr '\n' ' ')
    MODEL_FLAGS=()
fi
if [ "$MODEL" = 0 ] && { [ ! -e /dev/kfd ] || [ -z "$GFX" ]; }; then
    echo "amd-check: no AMD GPU on this machine (/dev/kfd or a KFD GPU node is missing):" \
         "nothing can be checked on hardware here"
    for c in "${CHECKS[@]}"; do
        line SKIP "$c" "no AMD GPU"
    done
    exit 0
fi
mkdir -p "$BUILD"
LOG=$ROOT/$BUILD/amd-check.log
: >"$LOG"
echo "amd-check: GPUs with gfx target versions: $GFX(log: $LOG)"
[ "$MODEL" != 0 ] && echo "amd-check: on the KFD model (sdma/kfd_model), not on hardware"

# gfx target version (e.g. 90010) to an offload architecture name (gfx90a).
arch_name() {
    local v=$1 major minor step
    major=$((v / 10000)) minor=$(((v / 100) % 100)) step=$((v % 100))
    printf 'gfx%d%d%x' "$major" "$minor" "$step"
}

# 1. build
if cmake -S "$ROOT" -B "$BUILD" -DSHMEM_BUILD_BENCH=OFF "${MODEL_FLAGS[@]}" >>"$LOG" 2>&1 &&
    cmake --build "$BUILD" -j "$JOBS" >>"$LOG" 2>&1; then
    if [ -x "$BUILD/sdma/hsakmt_check" ]; then
        line PASS "build" "$BUILD, $(grep -m1 'hsakmt engine ON' "$LOG" | sed 's/.*sdma: //')"
    else
        line FAIL "build" "the hsakmt engine was left out (libhsakmt not found? see $LOG)"
    fi
else
    line FAIL "build" "configure or compile failed (see $LOG)"
fi

# 2. host queue
if [ -x "$BUILD/sdma/hsakmt_check" ]; then
    out=$("$BUILD/sdma/hsakmt_check" 2>&1)
    echo "$out" >>"$LOG"
    echo "$out" | sed -n 's/^INFO /amd-check: INFO /p'
    for c in "${CHECKS[@]:1:6}"; do
        name=${c#host queue: }
        l=$(echo "$out" | awk -v n="$name" 'index($0, "PASS " n ":") == 1 ||
                                              index($0, "FAIL " n ":") == 1 { print; exit }')
        if [ -n "$l" ]; then
            line "${l%% *}" "$c" "${l#*: }"
        else
            line FAIL "$c" "not run: $(echo "$out" | tail -1)"
        fi
    done
else
    for c in "${CHECKS[@]:1:6}"; do line SKIP "$c" "no build"; done
fi

# 3. the functional suite on the hardware engine
if [ -x "$BUILD/sdma/hsakmt_check" ]; then
    if SHMEM_COPY_ENGINE=hsakmt SHMEM_NBI_THRESHOLD=0 \
        ctest --test-dir "$BUILD" -L func -R '\.np[24]$' -j "$JOBS" --output-on-failure \
        >>"$LOG" 2>&1; then
        line PASS "${CHECKS[7]}" "$(grep -E 'tests passed' "$LOG" | tail -1)"
    else
        line FAIL "${CHECKS[7]}" "$(grep -E 'tests passed|tests failed' "$LOG" | tail -1)"
    fi
else
    line SKIP "${CHECKS[7]}" "no build"
fi

# 4-5. HIP: kernels ringing the queue from many waves
if [ "$MODEL" != 0 ]; then
    line SKIP "${CHECKS[8]}" "the KFD model runs no kernels"
    line SKIP "${CHECKS[9]}" "the KFD model runs no kernels"
elif command -v hipcc >/dev/null 2>&1 || [ -x /opt/rocm/bin/hipcc ]; then
    ARCHS=""
    for v in $GFX; do ARCHS="$ARCHS;$(arch_name "$v")"; done
    ARCHS=${ARCHS#;}
    if cmake -S "$ROOT" -B "$HIPBUILD" -DSHMEM_GPU=hip -DSHMEM_HIP_ARCHS="$ARCHS" \
        -DSHMEM_BUILD_BENCH=OFF >>"$LOG" 2>&1 && cmake --build "$HIPBUILD" -j "$JOBS" >>"$LOG" 2>&1 &&
        [ -x "$HIPBUILD/tests/gpu/gpu_ring_hsakmt" ]; then
        line PASS "${CHECKS[8]}" "$HIPBUILD for $ARCHS"
        out=$("$HIPBUILD/tests/gpu/gpu_ring_hsakmt" 0 2>&1)
        rc=$?
        echo "$out" >>"$LOG"
        if [ $rc -eq 0 ]; then
            line PASS "${CHECKS[9]}" "$(echo "$out" | tail -1 | sed 's/^ring_hsakmt: PASS: //')"
        else
            line FAIL "${CHECKS[9]}" "$(echo "$out" | tail -1)"
        fi
    else
        line FAIL "${CHECKS[8]}" "configure or compile for $ARCHS failed, or no hsakmt engine (see $LOG)"
        line SKIP "${CHECKS[9]}" "no HIP build"
    fi
else
    line SKIP "${CHECKS[8]}" "hipcc not found"
    line SKIP "${CHECKS[9]}" "hipcc not found"
fi

if [ "$FAILED" -gt 0 ]; then
    cat <<EOF
amd-check: $FAILED check(s) failed. Please send back:
  - this output and $LOG
  - the GPUs and stack: rocminfo | grep -E 'Marketing|gfx' ; cat /opt/rocm/.info/version ;
    uname -r ; dpkg -l | grep -E 'hsakmt|rocm-core|hip-runtime' (or rpm -qa)
  - the kernel's view of the failure: sudo dmesg | grep -iE 'amdgpu|kfd' | tail -50
  - for a queue that stopped: the "engine stands at byte ..." / "memory access fault at
    address ..." line above is the one that matters
EOF
else
    echo "amd-check: every check passed on $GFX"
fi
exit "$FAILED"
