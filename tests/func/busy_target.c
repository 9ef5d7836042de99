/* A PE that computes outside the library still serves its peers: PE 0 runs
 * a loop of its own (no library call) until PE 1 stores a flag into its
 * memory, and meanwhile PE 1 reads, writes and updates PE 0's memory. Across
 * a fabric whose provider moves data only inside libfabric calls (tcp, net),
 * the progress thread carries these for PE 0, asleep when idle and woken by
 * the sockets; with none, PE 0 never sees the flag (the loop gives up after
 * 30 s: a hang guard, not a speed check). Every PE past 1 does the same as
 * PE 1. */
#include "check.h"

#include <time.h>

#define ROUNDS 50

static long data[ROUNDS];
static long counter;
static int flag;

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    for (int i = 0; i < ROUNDS; i++)
        data[i] = 1000 * me + i;
    shmem_barrier_all();
    if (me == 0) {
        double end = func_now() + 30;
        unsigned long spins = 0;
        while (__atomic_load_n(&flag, __ATOMIC_ACQUIRE) < n - 1 && func_now() < end)
            spins++;
        CHECK(__atomic_load_n(&flag, __ATOMIC_ACQUIRE) == n - 1,
              "PE 0 computed outside the library for 30 s and saw %d of %d peers' flags: their "
              "transfers did not progress meanwhile",
              __atomic_load_n(&flag, __ATOMIC_ACQUIRE), n - 1);
        (void)spins;
    } else {
        /* Let PE 0's progress thread go idle first (it sleeps after a few ms). */
        struct timespec ts = {0, 100 * 1000 * 1000};
        nanosleep(&ts, NULL);
        for (int i = 0; i < ROUNDS; i++) {
            long v = shmem_long_g(&data[i], 0);
            CHECK(v == i || v == -i, "get %d from PE 0: %ld", i, v);
            shmem_long_p(&data[i], -i, 0);
            shmem_long_atomic_add(&counter, 1, 0);
            if (i % 10 == 9) {
                ts.tv_nsec = 20 * 1000 * 1000; /* idle again between bursts */
                nanosleep(&ts, NULL);
            }
        }
        shmem_quiet();
        shmem_int_atomic_add(&flag, 1, 0);
        shmem_quiet();
    }
    shmem_barrier_all();
    if (me == 0) {
        CHECK(counter == (long)ROUNDS * (n - 1), "counter %ld, expected %ld", counter,
              (long)ROUNDS * (n - 1));
        for (int i = 0; i < ROUNDS; i++)
            CHECK(data[i] == -i, "data[%d] = %ld", i, data[i]);
    }
    func_pass("busy_target");
    shmem_finalize();
    return 0;
}
