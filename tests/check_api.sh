#!/bin/sh
# The library's exported API against the op table and the specification:
#   check_api.sh <build dir> <names> <libshmem.so> <cc> [<c++>]
# <names> is the list the build generated from the op table (shmem_api.txt:
# "name version" per routine). It installs the build into a scratch prefix and
#   1. counts the names of each version against the sizes of the
#      specification's tables (below), so a row or a type missing from the
#      op table fails here;
#   2. finds every name, and its profiling twin (pshmem_<name>, or p<name> for
#      the deprecated names without shmem_), among the library's defined
#      dynamic symbols (nm -D --defined-only), the names weak and the twins
#      strong, and every exported routine among the names;
#   3. finds every name as a prototype in the installed shmem.h, and every
#      twin in the installed pshmem.h, with ctags;
#   4. compiles a program against the installed headers with
#      -std=c11 -Wall -Wextra -Werror -pedantic (and as C++).
set -eu
build=$1 names=$2 lib=$3 cc=$4 cxx=${5:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() {
    echo "FAIL: $*"
    fail=1
}

# ---- 1. the specification's counts --------------------------------------
# Table sizes (OpenSHMEM 1.5): standard RMA types 24, sizes 5 (8..128),
# standard AMO types 12, extended 14, bitwise 7, point-to-point 14, bitwise
# reductions 14, min/max 24, sum/prod 26; deprecated AMO names on 3 types
# (cswap, finc, inc, fadd, add) and 5 (fetch, set, swap), shmem_<T>_wait on
# 4, to_all on 4 (and, or, xor), 7 (max, min) and 9 (sum, prod).
untyped15=$((12 + 6 + 7 + 4 + 1 + 3 + 1 + 4 + 3 + 1)) # setup, memory, teams,
# contexts, signal_fetch, barrier_all/sync_all/team_sync, signal_wait_until,
# fence/quiet with ctx forms, locks, pcontrol
rma=$((10 * 24 * 2 + 8 * 5 * 2 + 6 * 2))   # typed, sized, mem (ctx forms)
coll=$((5 * 24 + 5 + 3 * 14 + 2 * 24 + 2 * 26))
amo=$((5 * 14 * 2 + 8 * 12 * 2 + 9 * 7 * 2))
p2p=$((14 * 14))
want_v15=$((untyped15 + rma + coll + amo + p2p))
want_dep=$((7 + 6 + 5 + 5 * 3 + 3 * 5 + 4 + 5 * 2 + 3 * 4 + 2 * 7 + 2 * 9)) # bare setup
# and allocation names, cache routines, swap/wait/wait_until/barrier/sync on
# long or active sets, AMO names, <T>_wait, sized collectives, to_all
# New in 1.6 (a row of the op table each, marked v16): query_initialized,
# team_ptr, pe_quiet and ctx_pe_quiet so far; add each new family's count here.
want_v16=4
for v in v15 dep v16; do
    eval want=\$want_$v
    got=$(awk -v v=$v '$2 == v' "$names" | wc -l)
    [ "$got" -eq "$want" ] || bad "$got $v names in the op table, the specification's tables give $want"
done

# ---- 2. exported, with twins ---------------------------------------------
nm -D --defined-only "$lib" | awk '$2 ~ /^[TW]$/ {print $3}' | sort -u >"$tmp/exported"
awk '{print $1}' "$names" | sort -u >"$tmp/names"
sed -e 's/^shmem_/pshmem_/;t' -e 's/^/p/' "$tmp/names" | sort -u >"$tmp/twins"
missing=$(comm -23 "$tmp/names" "$tmp/exported")
[ -z "$missing" ] || bad "not exported by $lib:" $missing
missing=$(comm -23 "$tmp/twins" "$tmp/exported")
[ -z "$missing" ] || bad "profiling twins not exported by $lib:" $missing
# A tool's definition of a routine must win over the library's, also in a
# static link: the names are weak, the twins strong.
nm -D --defined-only "$lib" | awk '$2 == "W" {print $3}' | sort -u >"$tmp/weak"
strong=$(comm -23 "$tmp/names" "$tmp/weak")
[ -z "$strong" ] || bad "not weak in $lib (a tool could not replace them):" $strong
weak=$(comm -12 "$tmp/twins" "$tmp/weak")
[ -z "$weak" ] || bad "profiling twins that are weak in $lib:" $weak
extra=$(grep -v -E '^p?shmemx_' "$tmp/exported" | comm -23 - "$tmp/names" | comm -23 - "$tmp/twins")
[ -z "$extra" ] || bad "exported but not in the op table (shmem.h does not declare them):" $extra

# ---- 3. the installed headers, searchable --------------------------------
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
inc=$tmp/prefix/include
protos() {
    ctags -x --sort=no --kinds-C=+p --language-force=C "$1" | awk '$2 == "prototype" {print $1}' |
        sort -u
}
protos "$inc/shmem.h" >"$tmp/protos"
protos "$inc/pshmem.h" >"$tmp/pprotos"
missing=$(comm -23 "$tmp/names" "$tmp/protos")
[ -z "$missing" ] || bad "ctags finds no prototype in the installed shmem.h for:" $missing
missing=$(comm -23 "$tmp/twins" "$tmp/pprotos")
[ -z "$missing" ] || bad "ctags finds no prototype in the installed pshmem.h for:" $missing

# ---- 4. a strict user build ----------------------------------------------
cat >"$tmp/user.c" <<'EOF'
#include <pshmem.h>
#include <shmem.h>
#include <shmemx.h>
int main(void) {
    static long x[4];
    shmem_init();
    shmem_put(x, x, 4, 0);
    shmem_put(SHMEM_CTX_DEFAULT, x, x, 4, 0);
    x[0] = shmem_atomic_fetch_add(SHMEM_CTX_DEFAULT, &x[1], 1L, 0) + shmem_g(x, 0);
    shmem_wait_until(&x[0], SHMEM_CMP_GE, 0L);
    shmem_sync(SHMEM_TEAM_WORLD);
    pshmem_quiet();
    shmem_finalize();
    return 0;
}
EOF
"$cc" -std=c11 -Wall -Wextra -Werror -pedantic -I"$inc" -c "$tmp/user.c" -o "$tmp/user.o" ||
    bad "the installed headers do not compile with $cc -std=c11 -Wall -Wextra -Werror -pedantic"
if [ -n "$cxx" ] && command -v "$cxx" >/dev/null; then
    cp "$tmp/user.c" "$tmp/user.cpp"
    "$cxx" -std=c++11 -Wall -Wextra -Werror -I"$inc" -c "$tmp/user.cpp" -o "$tmp/userpp.o" ||
        bad "the installed headers do not compile with $cxx -std=c++11 -Wall -Wextra -Werror"
fi

[ "$fail" -eq 0 ] || exit 1
echo "API: $(wc -l <"$tmp/names") routines (OpenSHMEM 1.5: $want_v15, deprecated: $want_dep," \
    "1.6: $want_v16), each exported with its profiling twin; ctags finds" \
    "$(comm -12 "$tmp/names" "$tmp/protos" | wc -l) of them in the installed shmem.h"
