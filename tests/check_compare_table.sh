#!/bin/sh
# bench/compare.sh --table over figures made up for it: the ratios, the
# medians of three rounds, and the overlap mark (~) exactly where the two
# sides' rounds overlap -- for a latency (lower is better) and a bandwidth.
#   check_compare_table.sh <source dir>
set -eu
src=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# put_lat 8: ours 1.0-1.2 us, theirs 2.0-2.4: apart, ratio 2.00.
# get_lat 8: ours 1.0-3.0, theirs 1.5-2.5: overlapping, ratio 2.0 / 2.0 = 1.00~.
# put_bw 1024: ours 90-110 MB/s, theirs 100-130: overlapping, 100 / 120 = 0.83~.
# put_bw 2048: ours 200-220, theirs 100-110: apart, 210 / 105 = 2.00.
for r in 1 2 3; do
    case $r in
    1) o="1.0 1.0 90 200"; t="2.0 1.5 100 100" ;;
    2) o="1.1 2.0 100 210"; t="2.2 2.0 120 105" ;;
    3) o="1.2 3.0 110 220"; t="2.4 2.5 130 110" ;;
    esac
    set -- $o
    printf 'put_lat,8,lat_median,%s,us\nget_lat,8,lat_median,%s,us\n' "$1" "$2" >>"$tmp/ours.csv"
    printf 'put_bw,1024,bw_median,%s,MB/s\nput_bw,2048,bw_median,%s,MB/s\n' "$3" "$4" >>"$tmp/ours.csv"
    set -- $t
    printf 'put_lat,8,lat_median,%s,us\nget_lat,8,lat_median,%s,us\n' "$1" "$2" >>"$tmp/theirs.csv"
    printf 'put_bw,1024,bw_median,%s,MB/s\nput_bw,2048,bw_median,%s,MB/s\n' "$3" "$4" >>"$tmp/theirs.csv"
done
fail=0
# From a directory without a build: --table needs none.
out=$(cd "$tmp" && bash "$src/bench/compare.sh" --table "$tmp" 2>&1) || {
    echo "FAIL: compare.sh --table exited $?"
    fail=1
}
expect() {
    if ! printf '%s\n' "$out" | grep -Eq "$1"; then
        echo "FAIL: no line matching: $1"
        fail=1
    fi
}
expect '^\* put_lat +8 +1\.100 +2\.200 +us +2\.00$'
expect '^\* get_lat +8 +2\.000 +2\.000 +us +1\.00~$'
expect '^  put_bw +1024 +100\.000 +120\.000 +MB/s +0\.83~$'
expect '^  put_bw +2048 +210\.000 +105\.000 +MB/s +2\.00$'
expect 'over 3 rounds'
expect '^~ \(2 rows\)'
if [ $fail = 1 ]; then
    printf '%s\n' "$out"
    exit 1
fi
echo "compare.sh --table: 4 rows, 2 marked as overlapping, as made up"
