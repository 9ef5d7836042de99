#!/bin/sh
# The shared library exports only the public prefixes (shmem_, shmemx_,
# pshmem_, SHMEM_ objects) and the deprecated setup and allocation names.
set -eu
lib=$1
bad=$(nm -D --defined-only "$lib" | awk '{print $3}' |
      grep -v -E '^(shmem_|shmemx_|pshmem_|pshmemx_|SHMEM_|start_pes$|_my_pe$|_num_pes$|shmalloc$|shfree$|shrealloc$|shmemalign$)' || true)
if [ -n "$bad" ]; then
    echo "libshmem exports non-public symbols:"
    echo "$bad"
    exit 1
fi
echo "libshmem exports $(nm -D --defined-only "$lib" | wc -l) symbols, all public"
