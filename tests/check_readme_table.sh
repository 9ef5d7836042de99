#!/bin/sh
# The README's configuration table is the library's own table, printed by
# shmem_info --markdown: fail when they differ.
set -eu
info=$1
readme=$2
want=$(mktemp)
got=$(mktemp)
trap 'rm -f "$want" "$got"' EXIT
"$info" --markdown >"$want"
sed -n '/<!-- config-table -->/,/<!-- \/config-table -->/p' "$readme" | sed '1d;$d' >"$got"
if ! diff -u "$got" "$want"; then
    echo "README.md's configuration table is out of date: paste the output of shmem_info --markdown"
    exit 1
fi
echo "README configuration table matches shmem_info --markdown"
