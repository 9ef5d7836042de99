/* Error check: run with a SHMEM_SYMMETRIC_SIZE so close to 2^64 that the heap
 * plus its control areas wraps around. shmem_init must end the job with
 * "[PE n] ... SHMEM_SYMMETRIC_SIZE" rather than map a tiny heap whose
 * allocator believes it is huge (a 1 GiB allocation would then succeed and
 * writing it would crash). */
#include "check.h"

#include <string.h>

int main(void) {
    shmem_init();
    char *p = shmem_malloc((size_t)1 << 30);
    if (p)
        memset(p, 1, (size_t)1 << 30);
    fprintf(stderr,
            "FAIL: shmem_init accepted a heap size that wraps around (1 GiB malloc: "
            "%s)\n",
            p ? "succeeded" : "NULL");
    shmem_finalize();
    return 1;
}
