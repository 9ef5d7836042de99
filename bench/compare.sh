#!/usr/bin/env bash
# compare.sh - run the benchmark suite against this library and against a
# peer OpenSHMEM (Open MPI's OSHMEM by default) in one go, and print a table
# of ratios.
#
#   bench/compare.sh [--build DIR] [--np N] [--quick] [--svg out.svg] [--png out.png]
#                    [--repeat R] [--timeout S] [--keep DIR] [--only ours|theirs]
#                    [--fabric tcp|shm] [--table DIR]
#
# Every program is compiled twice from the same source: with DIR/bin/oshcc
# (ours) and with the peer's oshcc (theirs), then each program is run with
# its own launcher, ours and theirs alternating which goes first, so that
# drift on a noisy machine hits both sides alike; --repeat R runs the whole
# suite R times (the order flipping each time) and keeps, per row and side,
# the median of the R figures.  Each run has a timeout.  The programs are the
# micro-benchmarks of bench/ (put/get bandwidth from 1 to 64 MiB included) and
# the application kernels of bench/apps/ (each validates its result).
# With --fabric, the provider's own round trips follow the table
# (bench/fabric_floor: libfabric alone, no OpenSHMEM).
# --svg draws our figures against the peer's (bandwidth and latency over
# message sizes, the applications and headline rows as ratios) with
# bench/plot_svg.py (python3, standard library only).
# The peer's figures are kept even when it crashes after printing them
# (Open MPI 4.1's OSHMEM often does, in shmem_finalize).
# --fabric PROV compares the two over a fabric on this machine instead: ours
# with every PE reached through libfabric's PROV provider (SHMEM_FORCE_FABRIC=1;
# tcp on the loopback interface), the peer through UCX's matching transport
# (tcp on lo, with its MPI layer's collectives on tcp too; or sm): the
# micro-benchmarks (latency, bandwidth, AMOs, barrier, message rate,
# collectives) and the application kernels. Set SHMEM_LAUNCHER, SHMEM_MPIRUN
# and THEIRS_OSHRUN to run across hosts (tests/multihost/netns.sh).
#
# --table DIR prints the table (and --svg/--png) again from the figures a
# --keep DIR run left there, running nothing.
#
# Environment (defaults in brackets):
#   THEIRS_OSHCC   [/usr/bin/oshcc]
#   THEIRS_OSHRUN  [/usr/bin/oshrun]
#   THEIRS_FLAGS   [--allow-run-as-root --oversubscribe]  launcher flags
#   THEIRS_MCA     []  extra launcher flags, e.g. "--mca spml ucx"
#   OURS_FLAGS     []  extra flags for our launcher
#   BENCH_CFLAGS   [-O2 -std=gnu11]
#
# Exit status: 0 when our side built and ran every program, 1 when it did
# not (the table is still printed), 2 on a usage or toolchain problem.
set -u

here=$(cd "$(dirname "$0")" && pwd)
build=./build
np=2
quick=0
png=
svg=
limit=300
repeat=1
keep=
only=
table=
fabric=

usage() { sed -n '2,/^set -u/p' "$0" | sed 's/^# \{0,1\}//; /^set -u/d'; }

while [ $# -gt 0 ]; do
    case "$1" in
    --build) build=${2:?--build needs a directory}; shift 2 ;;
    --np) np=${2:?--np needs a number}; shift 2 ;;
    --quick) quick=1; shift ;;
    --png) png=${2:?--png needs a file name}; shift 2 ;;
    --svg) svg=${2:?--svg needs a file name}; shift 2 ;;
    --repeat) repeat=${2:?--repeat needs a count}; shift 2 ;;
    --timeout) limit=${2:?--timeout needs seconds}; shift 2 ;;
    --keep) keep=${2:?--keep needs a directory}; shift 2 ;;
    --only) only=${2:?--only needs ours or theirs}; shift 2 ;;
    --fabric) fabric=${2:?--fabric needs tcp or shm}; shift 2 ;;
    --table) table=${2:?--table needs a directory}; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "compare.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
    esac
done
case "$only" in ""|ours|theirs) ;; *) echo "compare.sh: --only ours|theirs" >&2; exit 2 ;; esac
case "$fabric" in ""|tcp|shm) ;; *) echo "compare.sh: --fabric tcp|shm" >&2; exit 2 ;; esac

if [ "$only" != theirs ] && [ -z "$table" ]; then
    build=$(cd "$build" 2>/dev/null && pwd) || { echo "compare.sh: no build directory $build" >&2; exit 2; }
fi
ours_cc="$build/bin/oshcc"
ours_run="$build/bin/oshrun"
theirs_cc=${THEIRS_OSHCC:-/usr/bin/oshcc}
theirs_run=${THEIRS_OSHRUN:-/usr/bin/oshrun}
theirs_flags=${THEIRS_FLAGS:---allow-run-as-root --oversubscribe}
theirs_mca=${THEIRS_MCA:-}
# The benchmarks are host programs: they touch their symmetric buffers, which a GPU
# build would put in GPU memory by default.
ours_flags="-x SHMEM_HEAP=host ${OURS_FLAGS:-}"
cflags=${BENCH_CFLAGS:--O2 -std=gnu11}
case "$fabric" in
tcp)
    ours_flags="$ours_flags -x SHMEM_FORCE_FABRIC=1 -x SHMEM_OFI_PROVIDER=tcp -x SHMEM_OFI_DOMAIN=lo"
    # The MPI layer under OSHMEM too (its collectives): tcp on lo, not shared memory.
    theirs_mca="$theirs_mca -x UCX_TLS=tcp,self -x UCX_NET_DEVICES=lo --mca btl self,tcp"
    theirs_mca="$theirs_mca --mca btl_tcp_if_include lo" ;;
shm)
    ours_flags="$ours_flags -x SHMEM_FORCE_FABRIC=1 -x SHMEM_OFI_PROVIDER=shm"
    theirs_mca="$theirs_mca -x UCX_TLS=sm,self" ;;
esac

do_ours=1; do_theirs=1
[ "$only" = ours ] && do_theirs=0
[ "$only" = theirs ] && do_ours=0
say() { printf '%s\n' "$*" >&2; }
ours_failed=0
if [ -n "$table" ]; then
    # The kept figures: as many rounds as the first row has figures.
    work=$table
    if [ ! -s "$work/ours.csv" ] && [ ! -s "$work/theirs.csv" ]; then
        echo "compare.sh: no figures in $work (ours.csv, theirs.csv of a --keep run)" >&2
        exit 2
    fi
    touch "$work/ours.csv" "$work/theirs.csv"
    repeat=$(cat "$work/ours.csv" "$work/theirs.csv" | head -1 | cut -d, -f1-3 |
        { read -r k; grep -c "^$k," "$work/ours.csv"; })
    ours_id="(kept in $work)"; theirs_id="(kept in $work)"
    do_ours=0 # no provider floor to measure
else
if [ $do_ours = 1 ] && { [ ! -x "$ours_cc" ] || [ ! -x "$ours_run" ]; }; then
    echo "compare.sh: $ours_cc or $ours_run missing (build the library first)" >&2
    exit 2
fi
if [ $do_theirs = 1 ] && { [ ! -x "$theirs_cc" ] || [ ! -x "$theirs_run" ]; }; then
    echo "compare.sh: peer $theirs_cc / $theirs_run missing; comparing nothing" >&2
    exit 2
fi
command -v timeout >/dev/null || { echo "compare.sh: needs timeout(1)" >&2; exit 2; }

if [ -n "$keep" ]; then
    work=$keep; mkdir -p "$work"
else
    work=$(mktemp -d "${TMPDIR:-/tmp}/shmem-bench.XXXXXX")
    trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$work/ours/apps" "$work/theirs/apps" "$work/log"
: >"$work/ours.csv"
: >"$work/theirs.csv"

# ---------------------------------------------------------------- build
core="put_lat get_lat pingpong_lat put_bw get_bw bibw amo_lat barrier_lat msg_rate"
optional="coll_lat"
apps="apps/stencil apps/transpose apps/wavefront apps/bucket_sort"
for side in ours theirs; do
    [ $side = ours ] && [ $do_ours = 0 ] && continue
    [ $side = theirs ] && [ $do_theirs = 0 ] && continue
    cc=$ours_cc; [ $side = theirs ] && cc=$theirs_cc
    for p in $core $optional $apps; do
        # shellcheck disable=SC2086
        blog="$work/log/$side-$(echo "$p" | tr / _).build"
        if ! "$cc" $cflags -o "$work/$side/$p" "$here/$p.c" >"$blog" 2>&1; then
            case " $optional " in
            *" $p "*) say "note: $side: $p did not build (optional; see --keep logs)" ;;
            *)
                say "error: $side: $p did not build:"; sed 's/^/  /' "$blog" | head -20 >&2
                [ $side = ours ] && ours_failed=1 ;;
            esac
            rm -f "$work/$side/$p"
        fi
    done
done

# ---------------------------------------------------------------- runs
# One run = program + arguments.  --quick: fewer iterations, sizes up to 1 MiB.
runs=(
    "put_lat" "put_lat --nbi" "get_lat" "get_lat --nbi" "pingpong_lat"
    "put_bw" "put_bw --nbi" "get_bw" "bibw"
    "put_bw -b 1M -e 64M -W 2 -n 20 -w 2" "get_bw -b 1M -e 64M -W 2 -n 20 -w 2"
    "put_bw --nbi -b 1M -e 64M -W 2 -n 20 -w 2"
    "amo_lat" "barrier_lat" "msg_rate" "coll_lat"
    "apps/stencil -n 500" "apps/transpose" "apps/wavefront" "apps/bucket_sort"
)
if [ -n "$fabric" ]; then
    runs=("put_lat" "put_lat --nbi" "get_lat" "pingpong_lat" "put_bw" "put_bw --nbi" "get_bw"
          "bibw" "amo_lat" "barrier_lat" "msg_rate" "coll_lat"
          "apps/stencil -n 500" "apps/transpose" "apps/wavefront" "apps/bucket_sort")
fi
quick_args() {
    case "$1" in
    put_lat|get_lat) echo "-e 1M -n 300 -w 30" ;;
    put_bw|get_bw|bibw) echo "-e 1M -n 30 -w 5" ;;
    coll_lat) echo "-e 64K -f 8 -n 200 -w 20" ;;
    apps/stencil) echo "-N 1024 -n 5 -w 1" ;;
    apps/transpose) echo "-N 1024 -n 3 -w 1" ;;
    apps/wavefront) echo "-N 1000 -n 5 -w 1" ;;
    apps/bucket_sort) echo "-N 4M -n 2 -w 1" ;;
    *) echo "-n 2000 -w 200" ;;
    esac
}

ours_id="(not run)"; theirs_id="(not run)"
[ $do_ours = 1 ] && ours_id=$("$ours_run" --version 2>&1 | head -1)
[ $do_theirs = 1 ] && theirs_id=$("$theirs_run" --version 2>&1 | head -1)

csv_re='^[A-Za-z0-9_]+,[0-9]+,[A-Za-z0-9_]+,[-+0-9.eE]+,[^,]+$'

# run_side SIDE NAME PROG ARGS...
run_side() {
    local side=$1 name=$2 prog=$3; shift 3
    local exe="$work/$side/$prog" log="$work/log/$side-$name.out" rc
    [ -x "$exe" ] || return 0
    if [ "$side" = ours ]; then
        # shellcheck disable=SC2086
        timeout -k 10 "$limit" "$ours_run" $ours_flags -np "$np" "$exe" "$@" --csv >"$log" 2>&1 </dev/null
    else
        # shellcheck disable=SC2086
        timeout -k 10 "$limit" "$theirs_run" $theirs_flags $theirs_mca -np "$np" "$exe" "$@" --csv \
            >"$log" 2>&1 </dev/null
    fi
    rc=$?
    local lines
    lines=$(grep -E "$csv_re" "$log")
    [ -n "$lines" ] && printf '%s\n' "$lines" >>"$work/$side.csv"
    local n
    n=$(printf '%s' "$lines" | grep -c . || true)
    if [ $rc -ne 0 ] || [ -z "$lines" ]; then
        local why="exit $rc"
        [ $rc -eq 124 ] || [ $rc -eq 137 ] && why="timed out after ${limit}s"
        if [ "$side" = ours ]; then
            ours_failed=1
            say "error: ours: $name: $why, $n figures; last lines:"
            tail -5 "$log" | sed 's/^/  /' >&2
        else
            say "note: theirs: $name: $why after $n figures (kept)"
        fi
    fi
}

for ((rep = 0; rep < repeat; rep++)); do
    [ "$repeat" -gt 1 ] && say "== round $((rep + 1)) of $repeat"
    i=$rep
    for r in "${runs[@]}"; do
        # shellcheck disable=SC2086
        set -- $r
        prog=$1; shift
        name=$(echo "$r" | tr ' /' '__' | tr -d '-')
        [ "$repeat" -gt 1 ] && name="$name.r$((rep + 1))"
        extra=""
        [ $quick = 1 ] && extra=$(quick_args "$prog")
        say "running $r ..."
        # ours first on even steps, theirs first on odd ones
        # shellcheck disable=SC2086
        if [ $((i % 2)) -eq 0 ]; then
            [ $do_ours = 1 ] && run_side ours "$name" "$prog" "$@" $extra
            [ $do_theirs = 1 ] && run_side theirs "$name" "$prog" "$@" $extra
        else
            [ $do_theirs = 1 ] && run_side theirs "$name" "$prog" "$@" $extra
            [ $do_ours = 1 ] && run_side ours "$name" "$prog" "$@" $extra
        fi
        i=$((i + 1))
    done
done
fi

# ---------------------------------------------------------------- table
headline="put_lat,8 get_lat,8 put_bw,1048576 amo_long_fetch_add,8 msg_rate_amo,8 barrier_all,$np app_sort_exchange,16777216"
# Collectives by size (coll_lat; the scans are ours only: 1.6)
headline="$headline bcast_set_lat,8 bcast_set_lat,65536 fcollect_lat,8 alltoall_lat,8 reduce_long_sum_lat,8"
headline="$headline reduce_long_sum_lat,65536 inscan_long_lat,8 exscan_long_lat,8"

awk -F, -v headline="$headline" -v ours_id="$ours_id" -v theirs_id="$theirs_id" \
    -v np="$np" -v rounds="$repeat" -v tsv="$work/table.tsv" '
function better(u) { return (u == "us" || u == "ms" || u == "ns" || u == "s" || u == "1/s") ? -1 : 1 }
function fmt(v) {
    if (v == "") return "-"
    return v >= 1000 ? sprintf("%.0f", v) : v >= 1 ? sprintf("%.3f", v) : sprintf("%.4f", v)
}
function row(k,   o, t, r, s) {
    o = ours[k]; t = theirs[k]; r = "-"
    if (o != "" && t != "" && o > 0 && t > 0) {
        r = better(unit[k]) < 0 ? t / o : o / t
        nr++; lsum += log(r)
        if (better(unit[k]) < 0 && (o < 0.1 || t < 0.1)) flag = 1
        printf "%s\t%s\t%s\t%s\t%g\n", bench[k], size[k], unit[k], (k in head) ? "head" : "all", r > tsv
        r = sprintf("%.2f", r)
        if (overlap(k)) { r = r "~"; nover++ }
    }
    s = (k in head) ? "*" : " "
    printf "%s %-26s %9s %12s %12s  %-7s %7s\n", s, bench[k], size[k], fmt(o), fmt(t), unit[k], r
}
{
    side = (FILENAME == ARGV[1]) ? 1 : 2
    k = $1 "," $2 "," $3
    if (!(k in seen)) { seen[k] = 1; order[++n] = k; bench[k] = $1; size[k] = $2; unit[k] = $5 }
    if (side == 1) ov[k] = ov[k] " " $4; else tv[k] = tv[k] " " $4
}
# The figures of a list (the rounds of one side of a row) into a[1..m], in
# ascending order; m.
function sorted(list, a,   m, i, j, x) {
    m = split(list, a, " ")
    for (i = 2; i <= m; i++) { x = a[i] + 0; for (j = i - 1; j >= 1 && a[j] + 0 > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
    return m
}
# Whether the rounds of the two sides of row k overlap: the best round of one side
# beats the worst of the other either way, so which is ahead depends on the round.
function overlap(k,   o, t, mo, mt) {
    if (rounds < 2) return 0
    mo = sorted(ov[k], o); mt = sorted(tv[k], t)
    return o[1] + 0 <= t[mt] + 0 && t[1] + 0 <= o[mo] + 0
}
function median(list,   a, m) {
    m = sorted(list, a)
    if (m == 0) return ""
    return (m % 2) ? a[(m + 1) / 2] + 0 : (a[m / 2] + a[m / 2 + 1]) / 2
}
END {
    for (j = 1; j <= n; j++) { k = order[j]; ours[k] = median(ov[k]); theirs[k] = median(tv[k]) }
    split(headline, h, " ")
    printf "ours:   %s\ntheirs: %s\n%d PEs; statistic: median over iterations", ours_id, theirs_id, np
    printf (rounds > 1 ? " (then over " rounds " rounds); " : "; ")
    printf "ratio > 1 means OURS IS BETTER\n(latency: theirs/ours, bandwidth and rate: ours/theirs)\n\n"
    hdr = sprintf("  %-26s %9s %12s %12s  %-7s %7s", "benchmark", "size", "ours", "theirs", "unit", "ratio")
    print "== headline =="; print hdr
    for (i = 1; i in h; i++) {
        for (j = 1; j <= n; j++) {
            k = order[j]
            if (bench[k] "," size[k] == h[i] && !(k in head)) { head[k] = 1; row(k) }
        }
        found = 0
        for (k in head) if (bench[k] "," size[k] == h[i]) found = 1
        if (!found) { split(h[i], hp, ","); printf "* %-26s %9s %12s %12s  %-7s %7s\n", hp[1], hp[2], "-", "-", "", "-" }
    }
    print ""; print "== all =="; print hdr
    for (j = 1; j <= n; j++) { k = order[j]; if (!(k in head)) row(k) }
    if (nr) printf "\ngeometric mean of %d ratios: %.2f\n", nr, exp(lsum / nr)
    if (nover)
        printf "~ (%d rows): the rounds of the two sides overlap (the best of one side beats the worst of the other either way): which is ahead depends on the round\n", nover
    if (flag) print "note: some latencies are below 0.1 us: such a put/get is a load/store into a mapped heap (see bench/README.md)"
}' "$work/ours.csv" "$work/theirs.csv"

# ---------------------------------------------------------------- the provider's floor
# Over a fabric, the provider's own round trips on this host, libfabric alone
# (bench/fabric_floor.c): what an AMO by messages and a get cost before any
# OpenSHMEM runs, beside the amo_lat and get_lat rows above: in processes of one
# thread, and of two as a PE with a progress thread is.
floor_exe="$build/bench/fabric_floor"
if [ -n "$fabric" ] && [ $do_ours = 1 ] && [ -x "$floor_exe" ]; then
    case "$fabric" in
    tcp) floor_runs=("-p net -d lo" "-p tcp -d lo") ;;
    shm) floor_runs=("-p shm -d shm") ;;
    esac
    for f in "${floor_runs[@]}"; do
        # shellcheck disable=SC2086
        if out=$(timeout -k 10 "$limit" "$floor_exe" $f 2>&1); then
            printf '\nprovider floor (libfabric alone, %s; median round trip):\n%s\n' "$f" "$out"
            break
        fi
    done
fi

# ---------------------------------------------------------------- plots
if [ -n "$svg" ]; then
    if command -v python3 >/dev/null &&
        python3 "$here/plot_svg.py" "$work/ours.csv" "$work/theirs.csv" "$svg" \
            "ours: $ours_id -- peer: $theirs_id ($np PEs)"; then
        say "wrote $svg"
    else
        say "note: --svg: python3 missing or plotting failed; no picture"
    fi
fi
if [ -n "$png" ]; then
    if [ -s "$work/table.tsv" ] && python3 -c 'import matplotlib' 2>/dev/null; then
        python3 - "$work/table.tsv" "$png" "$ours_id" "$theirs_id" <<'PY' || say "note: --png: plotting failed"
import sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

tsv, out, ours, theirs = sys.argv[1:5]
rows = [l.rstrip("\n").split("\t") for l in open(tsv) if l.strip()]
rows.sort(key=lambda r: r[3] != "head")
labels = ["%s %s" % (r[0], r[1]) for r in rows]
ratios = [float(r[4]) for r in rows]
colors = ["tab:green" if v >= 1 else "tab:red" for v in ratios]
fig, ax = plt.subplots(figsize=(9, max(3, 0.22 * len(rows) + 1)))
ax.barh(range(len(rows)), ratios, color=colors)
ax.set_yticks(range(len(rows)))
ax.set_yticklabels(labels, fontsize=6)
ax.invert_yaxis()
ax.set_xscale("log")
ax.axvline(1.0, color="black", linewidth=0.8)
ax.set_xlabel("ratio (> 1: ours better)")
ax.set_title("ours: %s\nvs %s" % (ours, theirs), fontsize=8)
fig.tight_layout()
fig.savefig(out, dpi=120)
PY
        [ -f "$png" ] && say "wrote $png"
    else
        say "note: --png: python3 matplotlib not available (or nothing to compare); no plot"
    fi
fi

[ -n "$keep" ] && say "logs and CSV kept in $work"
if [ $do_ours = 1 ] && [ $ours_failed = 1 ]; then
    say "error: our side did not build or run every program"
    exit 1
fi
exit 0
