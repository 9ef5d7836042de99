/* Error check: a putmem that starts inside a heap object but runs past the end
 * of the symmetric heap (registered with SHMEM_SYMMETRIC_SIZE=8m) must end the
 * job with "[PE n] ... symmetric heap / past the end". */
#include "check.h"

#include <string.h>

#define LEN ((size_t)16 << 20)

int main(void) {
    shmem_init();
    const int me = shmem_my_pe();
    char *obj = shmem_malloc(64);
    char *src = malloc(LEN); /* a valid source, so only the target is wrong */
    CHECK(obj && src, "allocation failed");
    memset(src, 1, LEN);
    shmem_barrier_all();
    if (me == 0)
        shmem_putmem(obj, src, LEN, (me + 1) % shmem_n_pes());
    shmem_barrier_all();
    fprintf(stderr, "[PE %d] FAIL: a %zu B put into a 64 B heap object was accepted\n", me, LEN);
    shmem_finalize();
    return 1;
}
