/* Error check: run with SHMEM_SYMMETRIC_SIZE=12q, shmem_init must end the job
 * with "[PE n] ... SHMEM_SYMMETRIC_SIZE". */
#include "check.h"

int main(void) {
    shmem_init();
    /* no variable name in this message: the test looks for it in the library's */
    fprintf(stderr, "FAIL: shmem_init accepted an invalid heap size setting\n");
    shmem_finalize();
    return 1;
}
