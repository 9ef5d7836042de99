/* SHMEM_THREAD_MULTIPLE: several threads of a PE put large non-blocking
 * blocks and quiet the same (default) context at the same time. A quiet must
 * complete every transfer its thread issued before it, whoever else is
 * quieting meanwhile: after each quiet, the thread raises a flag at the peer,
 * and the peer's thread of the same number checks the block there at once.
 * Run with SHMEM_NBI_THRESHOLD=0, so that every put goes to the copy engine.
 *
 * Round r of thread t on PE me: put block (me, t, r) into slot t of PE
 * me + 1; wait until every thread of the PE has issued its put (so that the
 * quiets overlap, and each must also complete the others' puts, issued
 * before it); quiet; read the block's tail back from PE me + 1 at once (the
 * copy lands front to back); flag[t] = r at PE me + 1; wait for flag[t] = r
 * here (from PE me - 1), check slot t; ack[t] = r at PE me - 1; wait for
 * ack[t] = r here before the next round reuses the slot at PE me + 1. */
#include "check.h"

#include <pthread.h>
#include <string.h>

#define NTHREADS 4
#define ROUNDS 100
#define BLOCK ((size_t)1 << 20)
#define TAIL 4096

static int me, npes;
static char *slots; /* [NTHREADS][BLOCK] */
static long *flag;  /* [NTHREADS]: last round delivered into my slot t */
static long *ack;   /* [NTHREADS]: last round my right neighbour checked */
static int early;   /* checks that found an incomplete block */
static pthread_mutex_t early_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t issued;

static unsigned char pattern(int pe, int t, int r, size_t i) {
    return func_byte(pe * NTHREADS + t, i, (unsigned)r);
}

static void count_early(int t, int r, int pe, size_t byte, const char *how) {
    pthread_mutex_lock(&early_lock);
    early++;
    pthread_mutex_unlock(&early_lock);
    fprintf(stderr,
            "[PE %d] thread %d round %d: byte %zu of the block at PE %d not there "
            "after the quiet (%s)\n",
            me, t, r, byte, pe, how);
}

static void *worker(void *arg) {
    const int t = (int)(long)arg;
    const int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    unsigned char *src = malloc(BLOCK), tail[TAIL];
    CHECK(src, "malloc");
    char *mine = slots + (size_t)t * BLOCK;
    for (int r = 1; r <= ROUNDS; r++) {
        for (size_t i = 0; i < BLOCK; i++)
            src[i] = pattern(me, t, r, i);
        shmem_putmem_nbi(mine, src, BLOCK, right);
        pthread_barrier_wait(&issued);
        shmem_quiet();
        shmem_getmem(tail, mine + BLOCK - TAIL, TAIL, right);
        for (size_t i = 0; i < TAIL; i++)
            if (tail[i] != src[BLOCK - TAIL + i]) {
                count_early(t, r, right, BLOCK - TAIL + i, "read back by the writer");
                break;
            }
        shmem_long_atomic_set(&flag[t], r, right);

        shmem_long_wait_until(&flag[t], SHMEM_CMP_GE, r);
        for (size_t i = 0; i < BLOCK; i++)
            if ((unsigned char)mine[i] != pattern(left, t, r, i)) {
                count_early(t, r, me, i, "checked by the target");
                break;
            }
        shmem_long_atomic_set(&ack[t], r, left);
        shmem_long_wait_until(&ack[t], SHMEM_CMP_GE, r);
    }
    free(src);
    return NULL;
}

int main(void) {
    int provided;
    CHECK(shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) == 0 &&
              provided == SHMEM_THREAD_MULTIPLE,
          "SHMEM_THREAD_MULTIPLE");
    me = shmem_my_pe();
    npes = shmem_n_pes();
    slots = shmem_calloc(NTHREADS, BLOCK);
    flag = shmem_calloc(NTHREADS, sizeof(long));
    ack = shmem_calloc(NTHREADS, sizeof(long));
    CHECK(slots && flag && ack, "shmem_calloc");

    CHECK(pthread_barrier_init(&issued, NULL, NTHREADS) == 0, "pthread_barrier_init");
    pthread_t th[NTHREADS];
    for (long t = 0; t < NTHREADS; t++)
        CHECK(pthread_create(&th[t], NULL, worker, (void *)t) == 0, "pthread_create");
    for (int t = 0; t < NTHREADS; t++)
        pthread_join(th[t], NULL);
    pthread_barrier_destroy(&issued);
    CHECK(early == 0,
          "%d checks of %d rounds x %d threads found a quiet that returned before "
          "its thread's put had landed",
          early, ROUNDS, NTHREADS);

    shmem_barrier_all();
    shmem_free(ack);
    shmem_free(flag);
    shmem_free(slots);
    func_pass("quiet_threads");
    shmem_finalize();
    return 0;
}
