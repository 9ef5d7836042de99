/* shmem_global_exit(7) on PE 0 while the other PEs wait in a barrier that
 * can never complete: the whole job must end with exit status 7. */
#include "check.h"

#include <unistd.h>

int main(void) {
    shmem_init();
    const int me = shmem_my_pe();
    shmem_barrier_all();
    if (me == 0) {
        usleep(100 * 1000); /* let the others block in the barrier */
        printf("global_exit: PE 0 calls shmem_global_exit(7)\n");
        fflush(stdout);
        shmem_global_exit(7);
        fprintf(stderr, "[PE 0] FAIL: shmem_global_exit returned\n");
        return 1;
    }
    shmem_barrier_all(); /* never completes: PE 0 does not enter it */
    fprintf(stderr, "[PE %d] FAIL: barrier completed without PE 0\n", me);
    return 1;
}
