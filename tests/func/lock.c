/* Distributed locks: a counter on PE 0 incremented non-atomically (get, add,
 * put) under the lock by every PE many times ends exact; test_lock takes a
 * free lock and reports a held one. */
#include "check.h"

static long lock, lock2;
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
