/* Error check: a put to PE n_pes must end the job with "[PE n] ... invalid PE". */
#include "check.h"

int main(void) {
    shmem_init();
    long *x = shmem_malloc(sizeof *x);
    shmem_barrier_all();
    if (shmem_my_pe() == 0)
        shmem_long_p(x, 1, shmem_n_pes());
    shmem_barrier_all();
    fprintf(stderr, "[PE %d] FAIL: a put to PE %d was accepted\n", shmem_my_pe(), shmem_n_pes());
    shmem_finalize();
    return 1;
}
