/* PEs that leave the program without shmem_finalize.
 *
 *   leave exit S   PE 1 calls exit(S) while the other PEs wait in
 *                  shmem_barrier_all: the job must end at once, non-zero,
 *                  naming PE 1 (with S = 0 the exit handler's finalize can
 *                  never meet the others' barrier)
 *   leave _exit    PE 1 calls _exit(0) (no exit handler runs) while the
 *                  others wait in shmem_barrier_all: the launcher must end
 *                  the job
 *   leave wait     PE 0 returns from main without shmem_finalize while the
 *                  others wait in shmem_long_wait_until for a word nobody
 *                  writes: the job must end at once, naming PE 0 and the wait
 *   leave implicit every PE returns from main without shmem_finalize, at
 *                  different times, with puts, waits and barriers among the
 *                  PEs still running meanwhile: the job must end with 0
 *   leave fork     a child that PE 0 forks, and that calls exit(0) while the
 *                  other PEs wait for PE 0 in a barrier, is not a PE: its exit
 *                  must not finalize anything (the job ends with 0)
 */
#include "check.h"

#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static long flag; /* implicit: set on PE 1 by the last PE */
static long psync[SHMEM_BARRIER_SYNC_SIZE];

static void ms_sleep(int ms) { usleep((useconds_t)ms * 1000); }

int main(int argc, char **argv) {
    const char *what = argc > 1 ? argv[1] : "implicit";
    for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; i++)
        psync[i] = SHMEM_SYNC_VALUE;
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    if (!strcmp(what, "fork") && me == 0) {
        /* While the others wait for PE 0 in the barrier below. */
        pid_t child = fork();
        CHECK(child >= 0, "fork");
        if (child == 0)
            exit(0);
        int ws = 0;
        CHECK(waitpid(child, &ws, 0) == child && WIFEXITED(ws) && WEXITSTATUS(ws) == 0,
              "the forked child did not exit with 0 (status %#x)", ws);
    }
    shmem_barrier_all();
    if (!strcmp(what, "fork")) {
        shmem_finalize();
        return 0;
    }

    if (!strcmp(what, "exit") || !strcmp(what, "_exit")) {
        if (me == 1 || npes == 1) {
            ms_sleep(100); /* the others are in the barrier by now */
            fprintf(stderr, "[PE %d] leave: leaving with %s(%d)\n", me, what,
                    argc > 2 ? atoi(argv[2]) : 0);
            if (!strcmp(what, "_exit"))
                _exit(0);
            exit(argc > 2 ? atoi(argv[2]) : 0);
        }
        shmem_barrier_all(); /* never completes: PE 1 is gone */
        fprintf(stderr, "[PE %d] FAIL: shmem_barrier_all completed without PE 1\n", me);
        return 0; /* a job that gets here and ends with 0 fails the test */
    }

    if (!strcmp(what, "wait")) {
        if (me == 0 || npes == 1)
            return 0; /* the finalize runs at exit */
        static long never;
        shmem_long_wait_until(&never, SHMEM_CMP_NE, 0);
        fprintf(stderr, "[PE %d] FAIL: a wait on a word nobody writes ended\n", me);
        return 0;
    }

    /* implicit: PE 0 leaves at once. PE 1 waits for the last PE's flag,
     * which comes after a second. The PEs still running meet in barriers of
     * their own active set, then leave half a second apart. */
    if (me == 0)
        return 0;
    if (npes > 2) {
        if (me == npes - 1) {
            ms_sleep(1000);
            shmem_long_p(&flag, 42, 1);
        }
        if (me == 1) {
            shmem_long_wait_until(&flag, SHMEM_CMP_EQ, 42);
            CHECK(flag == 42, "flag %ld", flag);
        }
        for (int round = 0; round < 3; round++) {
            if (me == 2)
                ms_sleep(200);
                /* A barrier among the PEs still running (the active-set form is
             * deprecated, and the only one that leaves PE 0 out). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
            shmem_barrier(1, 0, npes - 1, psync);
#pragma GCC diagnostic pop
        }
    }
    ms_sleep(500 * me);
    return 0;
}
