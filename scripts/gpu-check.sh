#!/bin/sh
# Everything this project runs on a GPU node, in one go: the GPU tests, the
# stream-ordered plan example (both modes), examples/device_ring built against an
# installation of the build with the README's command, the GPU benchmarks, and with
# --nvshmem the NVSHMEM equivalents (bench/gpu/nvshmem) for comparison.
# Two PEs, one GPU each. The build directory comes from
#   cmake -S . -B <dir> -DSHMEM_GPU=cuda (or hip) && cmake --build <dir>
#
# --placements runs the GPU tests instead in each placement of two PEs and prints a
# pass/fail line for each:
#   (a) both PEs on one GPU, without MPS (their contexts take turns on the GPU);
#   (b) both PEs on one GPU through CUDA MPS, started (and stopped) by this command in a
#       directory of its own (NVIDIA only: nvidia-cuda-mps-control);
#   (c) one GPU each, when two are visible.
# --fabric: the device heap over libfabric instead, every PE reached through it
# (SHMEM_FORCE_FABRIC=1): the host API on the device heap (tests/gpu/host_api.cu) over
# tcp;ofi_rxm and over net where libfabric has it (no FI_HMEM in either: staged through
# pinned host buffers), then over shm (FI_HMEM where libfabric was built with CUDA/ROCm:
# RMA on GPU memory), and the same with staging forced; then the host-heap functional
# programs over both tcp providers. Each line says
# "passed" or "FAILED", and "device heap registered" or "staged" says which way ran.
# usage: scripts/gpu-check.sh <build-dir> [--nvshmem | --placements | --fabric]
set -u
b=${1:?usage: scripts/gpu-check.sh <build-dir> [--nvshmem | --placements | --fabric]}
osh="$b/bin/oshrun"
[ -x "$osh" ] || { echo "gpu-check: no $osh" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
gpukind=$(sed -n 's/^SHMEM_GPU:STRING=//p' "$b/CMakeCache.txt")

# ----------------------------------------------------------------- placements
# One placement: the whole GPU suite, then the two tests that raced on a shared GPU
# (host_api, dev_amo) three more times with and without the barriers' GPU sync, and
# the device latencies. $1: letter; $2: what shmem_init must say about the shared GPU
# (warn: that the PEs share it without MPS; mps: not "without CUDA MPS"; none: nothing);
# then VAR=value settings. Sets $verdict.
placement() {
    p=$1
    expect=$2
    shift 2
    log=$tmp/$p.log
    echo "== ($p) $*"
    env "$@" sh "$here/../tests/gpu/run_all.sh" "$b" >"$log" 2>&1
    rc1=$?
    more=
    for _ in 1 2 3; do
        more="$more host_api dev_amo host_api:SHMEM_BARRIER_GPU_SYNC=0 dev_amo:SHMEM_BARRIER_GPU_SYNC=0"
    done
    # shellcheck disable=SC2086
    env "$@" sh "$here/../tests/gpu/run_all.sh" "$b" $more >"$log.more" 2>&1
    rc2=$?
    env "$@" timeout 120 "$osh" -np 2 "$b/bench/gpu_lat" -n 200 -r 3 >"$log.lat" 2>&1
    grep -hE '^gpu\.|^[0-9]+ passed' "$log" "$log.more"
    grep -h 'barrier_all' "$log.lat" | grep -v '^bench'
    said=$(grep -h -m 1 'share GPU' "$log")
    echo "   shmem_init said: ${said:-nothing about a shared GPU}"
    rc3=0
    case $expect in
    warn) [ -n "$said" ] || rc3=1 ;;
    mps) case $said in *"without CUDA MPS"*) rc3=1 ;; esac ;;
    none) [ -z "$said" ] || rc3=1 ;;
    esac
    shared=no
    [ -n "$said" ] && shared=yes
    verdict="$(tail -n 1 "$log"); repeats: $(tail -n 1 "$log.more"); shared-GPU warning: $shared"
    [ $rc3 -eq 0 ] || verdict="$verdict, expected $expect"
    if [ $rc1 -eq 0 ] && [ $rc2 -eq 0 ] && [ $rc3 -eq 0 ]; then
        verdict="PASSED ($verdict)"
    else
        verdict="FAILED ($verdict; logs in $tmp)"
        keep=1
    fi
}

placements() {
    tmp=$(mktemp -d)
    keep=0
    status=0
    case $gpukind in
    cuda) vis=CUDA_VISIBLE_DEVICES
        n=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ') ;;
    hip) vis=HIP_VISIBLE_DEVICES
        n=$(rocminfo 2>/dev/null | grep -c 'Device Type: *GPU') ;;
    *) echo "gpu-check: $b is not a GPU build" >&2; exit 2 ;;
    esac
    # Respect a list the caller set; its first two entries are the GPUs used.
    list=$(printenv $vis || true)
    if [ -n "$list" ]; then
        n=$(echo "$list" | tr ',' '\n' | grep -c .)
    else
        list=$(seq -s, 0 $((n > 0 ? n - 1 : 0)))
    fi
    first=${list%%,*}
    second=$(echo "$list" | cut -d, -f2 -s)
    echo "== placements of 2 PEs ($gpukind build, $n GPU(s) visible: $list)"
    # No MPS server may serve (a) or (c): their clients look in an empty directory.
    mkdir -p "$tmp/no-mps"
    nomps=CUDA_MPS_PIPE_DIRECTORY=$tmp/no-mps

    warn=warn
    [ "$gpukind" = cuda ] || warn=none # AMD: a debug line only
    placement a $warn "$vis=$first" "$nomps"
    ra=$verdict
    case $ra in PASSED*) ;; *) status=1 ;; esac

    if [ "$gpukind" != cuda ]; then
        rb="SKIPPED (MPS is NVIDIA's; several processes share an AMD GPU without a server)"
    elif ! command -v nvidia-cuda-mps-control >/dev/null; then
        rb="SKIPPED (nvidia-cuda-mps-control not found)"
        status=1
    else
        mkdir -p "$tmp/mps-pipe" "$tmp/mps-log"
        mps="CUDA_MPS_PIPE_DIRECTORY=$tmp/mps-pipe CUDA_MPS_LOG_DIRECTORY=$tmp/mps-log"
        # shellcheck disable=SC2086
        if env $mps nvidia-cuda-mps-control -d; then
            # shellcheck disable=SC2086
            placement b mps "$vis=$first" $mps
            rb=$verdict
            # shellcheck disable=SC2086
            echo quit | env $mps nvidia-cuda-mps-control
            case $rb in PASSED*) ;; *) status=1 ;; esac
        else
            rb="FAILED (nvidia-cuda-mps-control -d did not start; log in $tmp/mps-log)"
            status=1
            keep=1
        fi
    fi

    if [ -n "$second" ]; then
        placement c none "$vis=$first,$second" "$nomps"
        rc=$verdict
        case $rc in PASSED*) ;; *) status=1 ;; esac
    else
        rc="SKIPPED (one GPU visible)"
    fi

    echo "== placements summary"
    echo "(a) one GPU, 2 PEs, no MPS:   $ra"
    echo "(b) one GPU, 2 PEs, CUDA MPS: $rb"
    echo "(c) two GPUs, one PE each:    $rc"
    [ "$keep" -eq 1 ] || rm -rf "$tmp"
    exit $status
}
[ "${2:-}" = "--placements" ] && placements

status=0
if [ "${2:-}" = "--fabric" ]; then
    # The fabric path opens libfabric at run time: a build that has it names it.
    if ! grep -q 'libfabric\.so' "$b/shmem/libshmem.so" 2>/dev/null; then
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
        prov=$(echo "$out" | grep -m1 -o "fabric: [^ ,]*, domain" | sed 's/fabric: //; s/, domain//')
        if [ $rc = 0 ]; then
            echo "gpu-check: fabric host_api $label ($prov, ${how:-?}): passed"
        else
            echo "gpu-check: fabric host_api $label ($prov, ${how:-?}): FAILED (exit $rc)"
            echo "$out" | grep -v "debug:" | tail -20
            status=1
        fi
    }
    run "over tcp;ofi_rxm" "SHMEM_OFI_PROVIDER=tcp;ofi_rxm" SHMEM_OFI_DOMAIN=lo
    run "over tcp (FI_PROVIDER=tcp: net where libfabric has it)" FI_PROVIDER=tcp SHMEM_OFI_DOMAIN=lo
    run "over shm" SHMEM_OFI_PROVIDER=shm
    run "over shm, staged" SHMEM_OFI_PROVIDER=shm SHMEM_OFI_HMEM=staged
    for t in static_data heap_rma amo signals coll_team coll_small lock plan_run; do
        p=$(find "$b" -path "*tests/func/$t" -type f -perm -u+x | head -n 1)
        [ -n "$p" ] || continue
        for v in "SHMEM_OFI_PROVIDER=tcp;ofi_rxm" FI_PROVIDER=tcp; do
            if env SHMEM_HEAP=host SHMEM_FORCE_FABRIC=1 "$v" SHMEM_OFI_DOMAIN=lo \
                timeout 300 "$osh" -np 2 "$p" >/dev/null 2>&1; then
                echo "gpu-check: fabric $t (host heap, $v): passed"
            else
                echo "gpu-check: fabric $t (host heap, $v): FAILED"
                status=1
            fi
        done
    done
    exit $status
fi
echo "== tests"
sh "$here/../tests/gpu/run_all.sh" "$b" | grep -E '^(gpu\.|[0-9]+ passed)' || status=1
echo "== examples/plan_stream (64 KiB and 1 MiB chunks, stream-ordered and blocking)"
for args in "-r 200 -v" "-r 200 -k 1024" "-r 100 -B" "-r 100 -k 1024 -B"; do
    # shellcheck disable=SC2086
    timeout 120 "$osh" -np 2 "$b/examples/plan_stream" $args || status=1
done
echo "== examples/device_ring, built against an installation with the README's command"
src=$(cd "$here/.." && pwd)
case $gpukind in
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
# bench PREFIX SECONDS "VAR=value ..." PROGRAM ARGS...: the benchmark at 2 PEs with those
# settings, its lines but its CSV header, each after PREFIX; one that fails fails the check.
bench() {
    pre=$1 s=$2 settings=$3
    shift 3
    # shellcheck disable=SC2086 # the settings: a word each
    if ! out=$(env $settings timeout "$s" "$osh" -np 2 "$@" 2>&1); then
        echo "${out:+$out
}gpu-check: FAILED: $settings $*"
        status=1
        return
    fi
    printf '%s\n' "$out" | grep -v '^bench' | sed "s/^/$pre/"
}
# What the host barrier's wait for the PE's GPU work costs on an idle GPU.
bench "" 60 "" "$b/bench/barrier_lat" -n 2000 -w 200
bench "# SHMEM_BARRIER_GPU_SYNC=0: " 60 SHMEM_BARRIER_GPU_SYNC=0 \
    "$b/bench/barrier_lat" -n 2000 -w 200
echo "bench,size,metric,value,unit"
bench "" 200 SHMEM_SYMMETRIC_SIZE=1g "$b/bench/gpu_put_bw" -b 1M -e 256M -f 4 -n 10 -r 5
for blocks in 132 32; do
    echo "# gpu_put_bw with $blocks workgroups"
    bench "" 100 SHMEM_SYMMETRIC_SIZE=1g "$b/bench/gpu_put_bw" -b 256M -e 256M -n 10 -r 5 \
        -B "$blocks"
done
bench "" 100 "" "$b/bench/gpu_lat"
bench "" 200 SHMEM_SYMMETRIC_SIZE=600M "$b/bench/stream_bw" -b 64M -e 256M -f 4 -n 20 -r 5 -N 200
if [ "${2:-}" = "--nvshmem" ]; then
    echo "== NVSHMEM"
    timeout 300 sh "$here/../bench/gpu/nvshmem/run.sh" -b 256M -e 256M -n 10 -r 5 || status=1
fi
exit $status
