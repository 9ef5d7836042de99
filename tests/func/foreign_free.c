/* Error check: shmem_free of memory from malloc() must end the job with
 * "[PE n] ... not a symmetric ...". */
#include "check.h"

int main(void) {
    shmem_init();
    void *p = malloc(64);
    CHECK(p != NULL, "malloc failed");
    shmem_barrier_all();
    shmem_free(p);
    fprintf(stderr, "[PE %d] FAIL: shmem_free of a malloc() pointer was accepted\n", shmem_my_pe());
    shmem_finalize();
    return 1;
}
