/* Error check: a put whose target is a stack address (not symmetric) must
 * end the job with "[PE n] ... symmetric". */
#include "check.h"

int main(void) {
    shmem_init();
    const int me = shmem_my_pe();
    volatile long local[4] = {0, 0, 0, 0};
    long src[4] = {1, 2, 3, 4};
    shmem_barrier_all();
    if (me == 0)
        shmem_long_put((long *)local, src, 4, (me + 1) % shmem_n_pes());
    shmem_barrier_all();
    fprintf(stderr, "[PE %d] FAIL: a put to a stack address was accepted (%ld)\n", me, local[0]);
    shmem_finalize();
    return 1;
}
