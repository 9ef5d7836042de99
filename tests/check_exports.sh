#!/bin/sh
# The shared library exports only the public prefixes (shmem_, shmemx_,
# SHMEM_ objects), the deprecated setup and allocation names, and their
# profiling twins (pshmem_..., p<name>).
set -eu
lib=$1
bad=$(nm -D --defined-only "$lib" | awk '{print $3}' |
      grep -v -E '^p?(shmem_|shmemx_|start_pes$|_my_pe$|_num_pes$|shmalloc$|shfree$|shrealloc$|shmemalign$)|^SHMEM_' ||
      true)
if [ -n "$bad" ]; then
    echo "libshmem exports non-public symbols:"
    echo "$bad"
    exit 1
fi
echo "libshmem exports $(nm -D --defined-only "$lib" | wc -l) symbols, all public"
