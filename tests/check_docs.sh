#!/usr/bin/env bash
# docs/ARCHITECTURE.md is the map of the sources: fail when a source file (*.c, *.h, *.cu,
# *.cuh under shmem/, sdma/, bootstrap/, device/, include/) is in no file table, or when a
# table names a file that does not exist.
#
# A file table is the table under a heading "## <folder>/ in files"; a file is listed when its
# path relative to that folder appears in backticks in the first cell of a row (`plan.c`,
# `tools/sdma_bw.c`).
# The table of the deepest folder that has one holds a file (shmem/plan/x.c goes in
# "## shmem/plan/ in files" when that heading exists, else in "## shmem/ in files" as
# `plan/x.c`). Links (include/shmem/...) are not sources: the files they point at are.
#   tests/check_docs.sh [top]
set -euo pipefail
top=$(cd "${1:-$(dirname "$0")/..}" && pwd -P)
doc=$top/docs/ARCHITECTURE.md
cd "$top"

# "<folder> <name>" for every backticked name in the first cell of a row of a file table.
listed=$(awk '
    /^## / { folder = ""; if (match($0, /^## [^ ]+\/ in files/)) { f = $2; sub(/\/$/, "", f); folder = f } next }
    folder != "" && /^\|/ {
        split($0, cell, "|")
        line = cell[2]
        while (match(line, /`[^`]+`/)) {
            print folder " " substr(line, RSTART + 1, RLENGTH - 2)
            line = substr(line, RSTART + RLENGTH)
        }
    }' "$doc" | sort -u)
# Folders with a table, deepest first.
tables=$(awk '/^## [^ ]+\/ in files/ { f = $2; sub(/\/$/, "", f); print length(f), f }' "$doc" |
    sort -rn | cut -d' ' -f2)

bad=0
count=0
while IFS= read -r -d '' f; do
    f=${f#./}
    count=$((count + 1))
    table=
    for t in $tables; do
        case $f in "$t"/*) table=$t; break ;; esac
    done
    if [ -z "$table" ]; then
        echo "$f: docs/ARCHITECTURE.md has no \"## ${f%%/*}/ in files\" table"
        bad=1
    elif ! grep -qxF "$table ${f#"$table"/}" <<<"$listed"; then
        echo "$f: not in docs/ARCHITECTURE.md's \"## $table/ in files\" table (as \`${f#"$table"/}\`)"
        bad=1
    fi
done < <(find shmem sdma bootstrap device include -type f \
             \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \) -print0 | sort -z)

# The other way: every source-like name in a table exists.
while read -r folder name; do
    case $name in *.c | *.h | *.cu | *.cuh | *.def | *.in | *.sh | *.map) ;; *) continue ;; esac
    # A pattern (shmem/device/*.h) stands for the files it matches.
    if ! compgen -G "$folder/$name" >/dev/null; then
        echo "docs/ARCHITECTURE.md lists \`$name\` in \"## $folder/ in files\", but $folder/$name does not exist"
        bad=1
    fi
done <<<"$listed"

if [ "$bad" -ne 0 ]; then
    echo "docs/ARCHITECTURE.md's file tables are out of date"
    exit 1
fi
echo "docs/ARCHITECTURE.md: all $count sources of shmem/, sdma/, bootstrap/, device/ and include/ in its file tables"
