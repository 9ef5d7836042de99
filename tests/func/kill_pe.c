/* A PE killed mid-job (SIGKILL: no handler, no exit path of its own) while
 * the others put, add and synchronize with it: the job must end, non-zero,
 * with a message naming the PE, never hang. The PE to kill is argv[1].
 *
 *   kill_pe V           the launcher sees PE V die (and names it)
 *   kill_pe V hidden    PE V's process is a child of the one the launcher
 *                       started, which outlives it (a wrapper, a launcher
 *                       that ignores its processes' ends): the other PEs
 *                       must see the death themselves
 *   kill_pe V late      hidden, and the others compute for a second
 *                       without calling the library before they put to
 *                       PE V again (a fabric connection to a dead peer)
 */
#include "check.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static long cells[64];
static long counter;

/* The process the launcher started waits for its child, the PE; it mirrors
 * the child's exit, but outlives a child killed by a signal by 30 s. */
static void hide_deaths(void) {
    pid_t child = fork();
    if (child < 0) {
        perror("fork");
        exit(2);
    }
    if (child == 0)
        return;
    int st;
    while (waitpid(child, &st, 0) < 0)
        ;
    if (WIFSIGNALED(st))
        sleep(30);
    _exit(WIFEXITED(st) ? WEXITSTATUS(st) : 0);
}

int main(int argc, char **argv) {
    const char *how = argc > 2 ? argv[2] : "";
    const int hidden = !strcmp(how, "hidden") || !strcmp(how, "late");
    if (hidden)
        hide_deaths();
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
        if (round == 20 && !strcmp(how, "late"))
            sleep(1);
        if (round > 1000000)
            break;
    }
    fprintf(stderr, "[PE %d] FAIL: the job went on without PE %d\n", me, victim);
    return 1;
}
