#!/usr/bin/env bash
# Check every #include of the tree against the arrows of cmake/layers.txt: a file may include
# files of its own folder and of the folders its line lists. An include is resolved as the
# compilers do (the including file's folder for "x.h", then include/, then the top of the
# tree for "sdma/x.h"-style names) and judged by the folder of the file it reaches (links
# followed: include/shmem/device/arch.h is device/arch.h). Names found nowhere in the tree
# (<stdio.h>, <cuda.h>, <check.h>) are system headers and pass.
#   scripts/check-layers.sh [top]      exit 0 when every include is allowed, 1 otherwise
set -euo pipefail
top=$(cd "${1:-$(dirname "$0")/..}" && pwd -P)
table=$top/cmake/layers.txt

declare -A allowed
folders=()
while IFS= read -r line; do
    case $line in '' | '#'*) continue ;; esac
    from=${line%%:*}
    to=${line#*:}
    allowed[$from]=$(echo $to) # the folders, single-spaced
    folders+=("$from")
done <"$table"

# The folder (a key of the table) that holds a path relative to the top, longest first
# ("tests/unit" before "tests"); empty when none does.
folder_of() {
    local best='' f
    for f in "${folders[@]}"; do
        case $1 in "$f"/*) [ ${#f} -gt ${#best} ] && best=$f ;; esac
    done
    printf '%s' "$best"
}

# Path relative to the top of what an include of $2 (quoted: $3 = q) from file $1 reaches.
resolve() {
    local dir=$top/${1%/*} cand
    for cand in ${3:+"$dir/$2"} "$top/include/$2" "$top/$2"; do
        if [ -f "$cand" ]; then
            case $cand in */../* | */./*) cand=$(realpath "$cand") ;; esac
            [ -L "$cand" ] && cand=$(realpath "$cand")
            case $cand in "$top"/*) printf '%s' "${cand#"$top"/}" ;; esac
            return 0
        fi
    done
    return 0
}

bad=0
checked=0
cd "$top"
while IFS= read -r -d '' file; do
    file=${file#./}
    from=$(folder_of "$file")
    [ -n "$from" ] || continue
    while IFS=: read -r lineno text; do
        [[ $text =~ ^[[:space:]]*#[[:space:]]*include[[:space:]]*([\<\"])([^\>\"]+) ]] || continue
        quoted=
        [ "${BASH_REMATCH[1]}" = '"' ] && quoted=q
        name=${BASH_REMATCH[2]}
        target=$(resolve "$file" "$name" "$quoted")
        [ -n "$target" ] || continue # a system header
        to=$(folder_of "$target")
        checked=$((checked + 1))
        if [ -z "$to" ]; then
            echo "$file:$lineno: includes $name ($target), which is in no folder of cmake/layers.txt"
            bad=1
        elif [ "$to" != "$from" ] && [[ " ${allowed[$from]} " != *" $to "* ]]; then
            echo "$file:$lineno: $from/ may not include $to/ ($name); $from/ may include" \
                "${allowed[$from]:-nothing but itself}"
            bad=1
        fi
    done < <(grep -n -E '^[[:space:]]*#[[:space:]]*include' "$file" || true)
done < <(find "${folders[@]}" -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' \
             -o -name '*.cuh' -o -name '*.hip' -o -name '*.cpp' -o -name '*.def' \) -print0 2>/dev/null)

if [ "$bad" -ne 0 ]; then
    echo "check-layers: forbidden includes (the arrows: cmake/layers.txt)"
    exit 1
fi
echo "check-layers: $checked includes between files of the tree, all along the arrows of cmake/layers.txt"
