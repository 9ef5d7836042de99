/* SHMEM_THREAD_MULTIPLE: a thread's quiet completes its own puts while another
 * thread of the PE puts to a third PE and quiets too, on the same (default)
 * context. Through a fabric the other thread's transfers complete ahead of
 * ours (its target waits in the library, ours computes), and its quiets take
 * the marks a quiet goes by: neither may let our quiet return early.
 *
 * Round r: PE 1 computes outside the library for a while (its transfers wait
 * for it); meanwhile PE 0's main thread puts BLOCK bytes into PE 1 in
 * non-blocking pieces and quiets, while PE 0's helper thread puts words into
 * PE 2 (and quiets after every 16 of them in odd rounds). After the quiet,
 * PE 0 raises a flag at PE 2, PE 2 one at PE 1 (another path than PE 0's
 * puts: it may arrive first), and PE 1 checks the block. Every third round
 * the main thread fences instead and raises PE 1's flag itself: a fence
 * orders its thread's puts before the flag whatever quiets the helper makes
 * meanwhile (a quiet under way has cleared the marks of the puts it waits
 * for, which are this thread's too). Other PEs only join the barriers.
 * Needs 3 PEs or more. */
#include "check.h"

#include <pthread.h>
#include <string.h>
#include <time.h>

#define ROUNDS 20
#define BLOCK ((size_t)4 << 20)
#define PIECE ((size_t)128 << 10)
#define COMPUTE_NS 20000000L

static char *block;
static long *words; /* [64] at PE 2 */
static long flag1, flag2;
static int stop, helper_quiets;

static int fencing(int r) { return r % 3 == 0; }

static unsigned char pattern(int r, size_t i) { return func_byte(1, i, (unsigned)r); }

static long now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

static void *helper(void *arg) {
    (void)arg;
    for (long i = 0; !__atomic_load_n(&stop, __ATOMIC_ACQUIRE); i++) {
        shmem_long_p(&words[i & 63], i, 2);
        if (helper_quiets && (i & 15) == 15)
            shmem_quiet();
    }
    return NULL;
}

int main(void) {
    int provided, me, npes;
    CHECK(shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) == 0 &&
              provided == SHMEM_THREAD_MULTIPLE,
          "SHMEM_THREAD_MULTIPLE");
    me = shmem_my_pe();
    npes = shmem_n_pes();
    CHECK(npes >= 3, "needs 3 PEs or more, has %d", npes);
    block = shmem_calloc(1, BLOCK);
    words = shmem_calloc(64, sizeof(long));
    unsigned char *src = malloc(BLOCK);
    CHECK(block && words && src, "allocation");
    int early = 0;
    shmem_barrier_all();

    for (int r = 1; r <= ROUNDS; r++) {
        if (me == 0) {
            for (size_t i = 0; i < BLOCK; i++)
                src[i] = pattern(r, i);
            pthread_t t;
            helper_quiets = r & 1;
            __atomic_store_n(&stop, 0, __ATOMIC_RELAXED);
            CHECK(pthread_create(&t, NULL, helper, NULL) == 0, "pthread_create");
            for (size_t off = 0; off < BLOCK; off += PIECE)
                shmem_putmem_nbi(block + off, src + off, PIECE, 1);
            if (fencing(r)) {
                shmem_fence();
                shmem_long_atomic_set(&flag1, r, 1);
            } else {
                shmem_quiet();
                shmem_long_atomic_set(&flag2, r, 2);
            }
            __atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
            pthread_join(t, NULL);
        } else if (me == 2 && !fencing(r)) {
            shmem_long_wait_until(&flag2, SHMEM_CMP_GE, r);
            shmem_long_atomic_set(&flag1, r, 1);
        } else if (me == 1) {
            for (long t0 = now_ns(); now_ns() - t0 < COMPUTE_NS;)
                ;
            shmem_long_wait_until(&flag1, SHMEM_CMP_GE, r);
            for (size_t i = 0; i < BLOCK; i++)
                if ((unsigned char)block[i] != pattern(r, i)) {
                    fprintf(stderr,
                            "[PE 1] round %d: byte %zu of PE 0's put not there after its "
                            "%s\n",
                            r, i, fencing(r) ? "fence and flag" : "quiet and two flags");
                    early++;
                    break;
                }
        }
        shmem_barrier_all();
    }
    CHECK(early == 0,
          "%d of %d rounds found a quiet or fence that let its thread's puts land after it", early,
          ROUNDS);

    free(src);
    shmem_free(words);
    shmem_free(block);
    func_pass("quiet_others");
    shmem_finalize();
    return 0;
}
