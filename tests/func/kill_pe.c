/* A PE killed mid-job (SIGKILL: no handler, no exit path of its own) while
 * the others put, add and synchronize with it: the job must end, non-zero,
 * with a message naming the PE, never hang. The PE to kill is argv[1]. */
#include "check.h"

#include <signal.h>
#include <stdlib.h>

static long cells[64];
static long counter;

int main(int argc, char **argv) {
    shmem_init();
    const int me = shmem_my_pe(), npes = shmem_n_pes();
    const int victim = argc > 1 ? atoi(argv[1]) % npes : 1 % npes;
    for (int round = 0;; round++) {
        for (int pe = 0; pe < npes; pe++) {
            shmem_long_p(&cells[me % 64], round, pe);
            shmem_long_atomic_add(&counter, 1, pe);
        }
        shmem_barrier_all();
        if (me == victim && round == 20)
            raise(SIGKILL);
        if (round > 1000000)
            break;
    }
    fprintf(stderr, "[PE %d] FAIL: the job went on without PE %d\n", me, victim);
    return 1;
}
