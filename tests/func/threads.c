/* SHMEM_THREAD_MULTIPLE: 4 threads per PE issue puts, gets and AMOs to all
 * PEs at the same time; after a barrier every PE checks what it received. */
#include "check.h"

#include <pthread.h>
#include <string.h>

#define NTHREADS 4
#define NOPS 64 /* operations per thread and target */
#define CHUNK 512

static int me, npes;
static long *counter;        /* one word per PE, AMO target of every thread */
static long *fetch_sum;      /* on PE 0: sum of values fetched from every counter */
static unsigned char *inbox; /* [npes][NTHREADS][CHUNK] */

static void *worker(void *arg) {
    const int t = (int)(long)arg;
    unsigned char chunk[CHUNK];
    unsigned char back[CHUNK];
    long fsum = 0;
    for (int i = 0; i < NOPS; i++) {
        for (int k = 0; k < npes; k++) {
            const int pe = (me + k + t) % npes;
            fsum += shmem_long_atomic_fetch_add(counter, 1, pe);
            shmem_long_atomic_inc(counter, pe);
            if (i == NOPS - 1) {
                for (size_t b = 0; b < CHUNK; b++)
                    chunk[b] = func_byte(me, b, (unsigned)t);
                unsigned char *slot = inbox + ((size_t)me * NTHREADS + (size_t)t) * CHUNK;
                shmem_putmem(slot, chunk, CHUNK, pe);
                shmem_quiet();
                shmem_getmem(back, slot, CHUNK, pe);
                CHECK(memcmp(back, chunk, CHUNK) == 0, "thread %d: get after put+quiet from PE %d",
                      t, pe);
            }
        }
    }
    shmem_long_atomic_add(fetch_sum, fsum, 0);
    return NULL;
}

int main(void) {
    int provided = -1;
    int rc = shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    CHECK(rc == 0, "shmem_init_thread returned %d", rc);
    CHECK(provided == SHMEM_THREAD_MULTIPLE, "provided thread level %d, not MULTIPLE", provided);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    counter = shmem_calloc(1, sizeof(long));
    fetch_sum = shmem_calloc(1, sizeof(long));
    inbox = shmem_calloc((size_t)npes * NTHREADS, CHUNK);
    CHECK(counter && fetch_sum && inbox, "shmem_calloc failed");
    shmem_barrier_all();

    pthread_t th[NTHREADS];
    for (long t = 0; t < NTHREADS; t++)
        CHECK(pthread_create(&th[t], NULL, worker, (void *)t) == 0, "pthread_create");
    for (int t = 0; t < NTHREADS; t++)
        pthread_join(th[t], NULL);
    shmem_barrier_all();

    /* each PE receives NOPS fetch_adds and NOPS incs from every thread of every PE */
    const long per_pe = (long)npes * NTHREADS * NOPS * 2;
    CHECK(*counter == per_pe, "counter = %ld, expected %ld", *counter, per_pe);
    for (int pe = 0; pe < npes; pe++)
        for (int t = 0; t < NTHREADS; t++)
            for (size_t b = 0; b < CHUNK; b++) {
                unsigned char v = inbox[((size_t)pe * NTHREADS + (size_t)t) * CHUNK + b];
                CHECK(v == func_byte(pe, b, (unsigned)t), "inbox of PE %d thread %d byte %zu = %u",
                      pe, t, b, v);
            }
    /* The fetched values from one counter are distinct and, with the incs
     * interleaved, lie in [0, per_pe); their total is only bounded. */
    if (me == 0)
        CHECK(*fetch_sum >= 0 && *fetch_sum < per_pe * per_pe * npes, "fetched sum %ld",
              *fetch_sum);
    shmem_barrier_all();
    shmem_free(inbox);
    shmem_free(fetch_sum);
    shmem_free(counter);
    func_pass("threads");
    shmem_finalize();
    return 0;
}
