/* Launcher check: PE 1 dies of SIGSEGV after init while the others wait in a
 * barrier; oshrun must report "PE 1 (pid N) was killed by signal 11", end the
 * other PEs and exit non-zero. */
#include "check.h"

#include <signal.h>
#include <unistd.h>

int main(void) {
    shmem_init();
    shmem_barrier_all();
    if (shmem_my_pe() == 1) {
        usleep(100 * 1000);
        raise(SIGSEGV);
    }
    shmem_barrier_all(); /* never completes */
    fprintf(stderr, "[PE %d] FAIL: barrier completed without PE 1\n", shmem_my_pe());
    return 1;
}
