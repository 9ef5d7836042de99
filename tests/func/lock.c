/* Distributed locks: a counter on PE 0 incremented non-atomically (get, add,
 * put) under the lock by every PE many times ends exact; test_lock takes a
 * free lock and reports a held one; the release of the ticket before the
 * ticket counters wrap around serves the next one, on every PE. */
#include "check.h"

static long lock, lock2, lock3;
static long counter;
static int inside;

#define ROUNDS 2000

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();

    for (int r = 0; r < ROUNDS; r++) {
        shmem_set_lock(&lock);
        /* Nobody else is inside: the flag on PE 0 is ours alone. */
        CHECK(shmem_int_atomic_fetch_inc(&inside, 0) == 0, "two PEs inside the lock");
        long v = shmem_long_g(&counter, 0);
        shmem_long_p(&counter, v + 1, 0);
        shmem_int_atomic_add(&inside, -1, 0);
        shmem_clear_lock(&lock);
    }
    shmem_barrier_all();
    CHECK(shmem_long_g(&counter, 0) == (long)ROUNDS * npes, "counter %ld, want %ld",
          shmem_long_g(&counter, 0), (long)ROUNDS * npes);

    /* test_lock: spin on it as the only way in. */
    shmem_barrier_all();
    for (int r = 0; r < ROUNDS / 4; r++) {
        while (shmem_test_lock(&lock2))
            ;
        long v = shmem_long_g(&counter, 0);
        shmem_long_p(&counter, v + 1, 0);
        shmem_clear_lock(&lock2);
    }
    shmem_barrier_all();
    CHECK(shmem_long_g(&counter, 0) == (long)ROUNDS * npes + (long)(ROUNDS / 4) * npes,
          "counter after test_lock %ld", shmem_long_g(&counter, 0));

    /* Across the wrap, on each PE in turn and by either way in: a free lock
     * whose next ticket is 0xffffffff (the library's word, set by hand). The
     * release of that ticket serves 0 and must leave the tickets alone. */
    for (int p = 0; p < npes; p++)
        for (int how = 0; how < 2; how++) {
            if (me == 0)
                lock3 = -1L;
            shmem_barrier_all();
            if (me == p) {
                if (how)
                    while (shmem_test_lock(&lock3))
                        ;
                else
                    shmem_set_lock(&lock3);
                shmem_clear_lock(&lock3);
                shmem_quiet();
                long w = shmem_long_atomic_fetch(&lock3, 0);
                CHECK(w == 0, "PE %d, %s: the lock word after the wrap is %#lx, want 0", p,
                      how ? "test_lock" : "set_lock", (unsigned long)w);
                shmem_set_lock(&lock3); /* ticket 0, served at once */
                shmem_clear_lock(&lock3);
            }
            shmem_barrier_all();
        }

    /* A held lock is reported as held. */
    if (me == 0)
        shmem_set_lock(&lock);
    shmem_barrier_all();
    CHECK(shmem_test_lock(&lock) == 1, "test_lock took a held lock");
    shmem_barrier_all();
    if (me == 0)
        shmem_clear_lock(&lock);
    shmem_barrier_all();
    if (me == npes - 1) {
        CHECK(shmem_test_lock(&lock) == 0, "test_lock failed on a free lock");
        shmem_clear_lock(&lock);
    }
    shmem_barrier_all();
    func_pass("lock");
    shmem_finalize();
    return 0;
}
