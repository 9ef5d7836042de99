/* SHMEM_THREAD_MULTIPLE: every thread of every PE takes one lock in turns,
 * by shmem_set_lock or by a loop on shmem_test_lock (the two alternate per
 * round, and by PE), and inside it increments a counter on each PE in turn
 * with a get and a put; an `inside` word on PE 0 counts the holders, who must
 * never be two. The counters end exact. Through a fabric, the looping threads
 * pace their looks, and the job must still end in its time. */
#include "check.h"

#include <pthread.h>

#define NTHREADS 8
#define ROUNDS 16

static long lock;
static long counter;
static int inside;
static int me, npes;

static void *worker(void *arg) {
    (void)arg;
    for (int pe = 0; pe < npes; pe++)
        for (int r = 0; r < ROUNDS; r++) {
            if ((me + r) % 2 == 0)
                shmem_set_lock(&lock);
            else
                while (shmem_test_lock(&lock))
                    ;
            CHECK(shmem_int_atomic_fetch_inc(&inside, 0) == 0, "two holders of the lock");
            long v = shmem_long_g(&counter, pe);
            shmem_long_p(&counter, v + 1, pe);
            shmem_int_atomic_add(&inside, -1, 0);
            shmem_clear_lock(&lock);
        }
    return NULL;
}

int main(void) {
    int provided;
    CHECK(shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) == 0, "shmem_init_thread");
    CHECK(provided == SHMEM_THREAD_MULTIPLE, "thread level %d", provided);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    shmem_barrier_all();
    pthread_t th[NTHREADS];
    for (long t = 0; t < NTHREADS; t++)
        CHECK(pthread_create(&th[t], NULL, worker, (void *)t) == 0, "pthread_create");
    for (int t = 0; t < NTHREADS; t++)
        pthread_join(th[t], NULL);
    shmem_barrier_all();
    CHECK(counter == (long)NTHREADS * ROUNDS * npes, "counter %ld, want %ld", counter,
          (long)NTHREADS * ROUNDS * npes);
    func_pass("lock_threads");
    shmem_finalize();
    return 0;
}
