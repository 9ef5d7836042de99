/* A launcher that dies without ending its PEs (mpirun killed with SIGKILL
 * cannot end them): PE 1 kills its launcher, then every PE waits for a word
 * that nobody will set. Each must see its launcher gone and end on its own;
 * launcher_gone.sh checks that none is left. */
#include "check.h"

#include <signal.h>
#include <unistd.h>

static long never;

int main(void) {
    shmem_init();
    shmem_barrier_all();
    if (shmem_my_pe() == 1)
        kill(getppid(), SIGKILL);
    shmem_long_wait_until(&never, SHMEM_CMP_NE, 0);
    shmem_finalize();
    return 0;
}
