/* SHMEM_THREAD_MULTIPLE: 4 threads per PE (or argv[1], up to MAX_THREADS)
 * issue puts, gets and AMOs to all PEs at the same time; after a barrier
 * every PE checks what it received, and that every thread's fetch-add got
 * its own value: the values fetched from a ticket counter are 0..n-1, in
 * some order (their sum and sum of squares reach its PE). Many threads on
 * few CPUs wait for each other's transfers (a fabric's waiters sleep while
 * one thread reads the completions): no completion may reach the wrong
 * thread or none. */
#include "check.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define MAX_THREADS 32
#define NOPS 64 /* operations per thread and target */
#define CHUNK 512

static int me, npes, nthreads = 4;
static long *counter;        /* one word per PE, AMO target of every thread */
static long *fetch_sum;      /* on PE 0: sum of values fetched from every counter */
static long *ticket;         /* one word per PE: fetch-adds only */
static long *moments;        /* [2]: sum and sum of squares of the tickets fetched here */
static unsigned char *inbox; /* [npes][nthreads][CHUNK] */

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
            long v = shmem_long_atomic_fetch_add(ticket, 1, pe);
            shmem_long_atomic_add(&moments[0], v, pe);
            shmem_long_atomic_add(&moments[1], v * v, pe);
            if (i == NOPS - 1) {
                for (size_t b = 0; b < CHUNK; b++)
                    chunk[b] = func_byte(me, b, (unsigned)t);
                unsigned char *slot = inbox + ((size_t)me * nthreads + (size_t)t) * CHUNK;
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

int main(int argc, char **argv) {
    if (argc > 1)
        nthreads = atoi(argv[1]);
    CHECK(nthreads > 0 && nthreads <= MAX_THREADS, "%d threads", nthreads);
    int provided = -1;
    int rc = shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    CHECK(rc == 0, "shmem_init_thread returned %d", rc);
    CHECK(provided == SHMEM_THREAD_MULTIPLE, "provided thread level %d, not MULTIPLE", provided);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    counter = shmem_calloc(1, sizeof(long));
    fetch_sum = shmem_calloc(1, sizeof(long));
    ticket = shmem_calloc(1, sizeof(long));
    moments = shmem_calloc(2, sizeof(long));
    inbox = shmem_calloc((size_t)npes * (size_t)nthreads, CHUNK);
    CHECK(counter && fetch_sum && ticket && moments && inbox, "shmem_calloc failed");
    shmem_barrier_all();

    pthread_t th[MAX_THREADS];
    for (long t = 0; t < nthreads; t++)
        CHECK(pthread_create(&th[t], NULL, worker, (void *)t) == 0, "pthread_create");
    for (int t = 0; t < nthreads; t++)
        pthread_join(th[t], NULL);
    shmem_barrier_all();

    /* each PE receives NOPS fetch_adds and NOPS incs from every thread of every PE */
    const long per_pe = (long)npes * nthreads * NOPS * 2;
    CHECK(*counter == per_pe, "counter = %ld, expected %ld", *counter, per_pe);
    const long n = per_pe / 2; /* tickets taken here */
    CHECK(*ticket == n, "ticket = %ld, expected %ld", *ticket, n);
    CHECK(moments[0] == n * (n - 1) / 2 && moments[1] == (n - 1) * n * (2 * n - 1) / 6,
          "the tickets fetched from this PE sum to %ld (squares %ld), expected %ld (%ld): a "
          "fetch-add's value reached the wrong thread or was lost",
          moments[0], moments[1], n * (n - 1) / 2, (n - 1) * n * (2 * n - 1) / 6);
    for (int pe = 0; pe < npes; pe++)
        for (int t = 0; t < nthreads; t++)
            for (size_t b = 0; b < CHUNK; b++) {
                unsigned char v = inbox[((size_t)pe * nthreads + (size_t)t) * CHUNK + b];
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
    shmem_free(moments);
    shmem_free(ticket);
    shmem_free(fetch_sum);
    shmem_free(counter);
    func_pass("threads");
    shmem_finalize();
    return 0;
}
