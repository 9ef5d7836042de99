/* Error check: freeing a symmetric object twice must end the job with
 * "[PE n] ... double free / not allocated". */
#include "check.h"

int main(void) {
    shmem_init();
    void *p = shmem_malloc(64);
    CHECK(p != NULL, "shmem_malloc failed");
    shmem_free(p);
    shmem_free(p);
    fprintf(stderr, "[PE %d] FAIL: a double shmem_free was accepted\n", shmem_my_pe());
    shmem_finalize();
    return 1;
}
