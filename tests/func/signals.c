/* Put-with-signal: shmem_putmem_signal(_nbi), typed shmem_<T>_put_signal(_nbi),
 * sized shmem_put<N>_signal(_nbi), with SHMEM_SIGNAL_SET and SHMEM_SIGNAL_ADD;
 * shmem_signal_fetch and shmem_signal_wait_until. The data must be complete
 * when the signal is observed. signal_add and signal_set alone (1.6): adds
 * from every PE at once all count; a set after a fenced put comes with it. */
#include "check.h"
#include "../../include/shmem_typelists.h" /* the spec's type tables */

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if FUNC_SPEC_15

#define BIG ((size_t)1 << 20)
#define NTYPED 33
#define SLOT ((size_t)64 << 10)

static int me, npes, right, left;

static int val(int pe, int i, int round) { return 1 + (pe * 17 + i * 5 + round * 3) % 100; }

/* 1 MiB payload + SET signal to the right neighbour, several rounds, blocking
 * and _nbi; the receiver checks every byte as soon as it sees the signal. */
static void test_big(uint64_t *sig) {
    unsigned char *src = shmem_malloc(BIG), *dst = shmem_malloc(BIG);
    CHECK(src && dst, "shmem_malloc failed");
    *sig = 0;
    CHECK(shmem_signal_fetch(sig) == 0, "signal_fetch before any signal: %llu",
          (unsigned long long)shmem_signal_fetch(sig));
    shmem_barrier_all(); /* no PE signals before every PE has reset its word */
    for (unsigned round = 1; round <= 6; round++) {
        for (size_t i = 0; i < BIG; i++)
            src[i] = func_byte(me, i, round);
        if (round & 1)
            shmem_putmem_signal(dst, src, BIG, sig, round, SHMEM_SIGNAL_SET, right);
        else
            shmem_putmem_signal_nbi(dst, src, BIG, sig, round, SHMEM_SIGNAL_SET, right);
        uint64_t v = shmem_signal_wait_until(sig, SHMEM_CMP_EQ, round);
        CHECK(v == round, "signal_wait_until returned %llu, expected %u", (unsigned long long)v,
              round);
        CHECK(shmem_signal_fetch(sig) == round, "signal_fetch after the signal");
        for (size_t i = 0; i < BIG; i++)
            if (dst[i] != func_byte(left, i, round))
                CHECK(0,
                      "round %u (%s): byte %zu of 1 MiB = %u, expected %u when the signal was seen",
                      round, round & 1 ? "blocking" : "nbi", i, dst[i], func_byte(left, i, round));
        shmem_quiet();       /* my _nbi source buffer is reusable */
        shmem_barrier_all(); /* everyone has checked before the next round */
    }
    shmem_free(dst);
    shmem_free(src);
}

/* Every PE writes its own slot on PE 0 and adds 1 to one signal word. */
static void test_add(uint64_t *sig) {
    unsigned char *slots = shmem_malloc(SLOT * (size_t)npes);
    unsigned char *src = malloc(SLOT);
    CHECK(slots && src, "allocation failed");
    *sig = 0;
    for (size_t i = 0; i < SLOT; i++)
        src[i] = func_byte(me, i, 77);
    shmem_barrier_all();
    if (me & 1)
        shmem_putmem_signal_nbi(slots + SLOT * (size_t)me, src, SLOT, sig, 1, SHMEM_SIGNAL_ADD, 0);
    else
        shmem_putmem_signal(slots + SLOT * (size_t)me, src, SLOT, sig, 1, SHMEM_SIGNAL_ADD, 0);
    if (me == 0) {
        uint64_t v = shmem_signal_wait_until(sig, SHMEM_CMP_GE, (uint64_t)npes);
        CHECK(v == (uint64_t)npes, "SIGNAL_ADD total %llu, expected %d", (unsigned long long)v,
              npes);
        for (int pe = 0; pe < npes; pe++)
            for (size_t i = 0; i < SLOT; i++)
                if (slots[SLOT * (size_t)pe + i] != func_byte(pe, i, 77))
                    CHECK(0, "slot of PE %d byte %zu wrong when the signal count was reached", pe,
                          i);
    }
    shmem_quiet();
    shmem_barrier_all();
    free(src);
    shmem_free(slots);
}

/* Typed put_signal (ADD, one signal word per type) and put_signal_nbi (SET). */
#define DEFINE_TYPED(T, N)                                                                         \
    static void test_##N(uint64_t *sig) {                                                          \
        T *dst = shmem_calloc(NTYPED, sizeof(T));                                                  \
        T src[NTYPED];                                                                             \
        CHECK(dst, "shmem_calloc failed");                                                         \
        *sig = 0;                                                                                  \
        shmem_barrier_all();                                                                       \
        for (int round = 1; round <= 2; round++) {                                                 \
            for (int i = 0; i < NTYPED; i++)                                                       \
                src[i] = (T)val(me, i, round);                                                     \
            if (round == 1)                                                                        \
                shmem_##N##_put_signal(dst, src, NTYPED, sig, 5, SHMEM_SIGNAL_ADD, right);         \
            else                                                                                   \
                shmem_##N##_put_signal_nbi(dst, src, NTYPED, sig, 100, SHMEM_SIGNAL_SET, right);   \
            uint64_t v = shmem_signal_wait_until(sig, SHMEM_CMP_EQ, round == 1 ? 5 : 100);         \
            CHECK(v == (round == 1 ? 5u : 100u), #N " signal %llu", (unsigned long long)v);        \
            for (int i = 0; i < NTYPED; i++)                                                       \
                CHECK(dst[i] == (T)val(left, i, round), #N "_put_signal%s: element %d = %d",       \
                      round == 1 ? "" : "_nbi", i, (int)dst[i]);                                   \
            shmem_quiet();                                                                         \
            shmem_barrier_all();                                                                   \
        }                                                                                          \
        shmem_free(dst);                                                                           \
    }
SHMEMI_RMA_TYPES(DEFINE_TYPED)

static void test_sized(uint64_t *sig) {
    const size_t bytes = 16 * 41;
    unsigned char *dst = shmem_calloc(bytes, 1);
    unsigned char src[16 * 41];
    CHECK(dst, "shmem_calloc failed");
    static const int bits[] = {8, 16, 32, 64, 128};
    *sig = 0;
    shmem_barrier_all();
    uint64_t expect = 0;
    for (int nbi = 0; nbi < 2; nbi++) {
        for (int b = 0; b < 5; b++) {
            const unsigned round = (unsigned)(nbi * 5 + b + 1);
            const size_t n = bytes / ((size_t)bits[b] / 8);
            for (size_t i = 0; i < bytes; i++)
                src[i] = func_byte(me, i, round);
#define SIZED(B)                                                                                   \
    case B:                                                                                        \
        if (nbi)                                                                                   \
            shmem_put##B##_signal_nbi(dst, src, n, sig, round, SHMEM_SIGNAL_ADD, right);           \
        else                                                                                       \
            shmem_put##B##_signal(dst, src, n, sig, round, SHMEM_SIGNAL_ADD, right);               \
        break;
            switch (bits[b]) {
                SIZED(8)
                SIZED(16)
                SIZED(32)
                SIZED(64)
                SIZED(128)
            }
#undef SIZED
            expect += round;
            uint64_t v = shmem_signal_wait_until(sig, SHMEM_CMP_GE, expect);
            CHECK(v == expect, "put%d_signal: signal %llu, expected %llu", bits[b],
                  (unsigned long long)v, (unsigned long long)expect);
            for (size_t i = 0; i < bytes; i++)
                CHECK(dst[i] == func_byte(left, i, round), "put%d_signal%s: byte %zu = %u", bits[b],
                      nbi ? "_nbi" : "", i, dst[i]);
            shmem_quiet();
            shmem_barrier_all();
        }
    }
    shmem_free(dst);
}

#if FUNC_SPEC_16
/* signal_add and signal_set alone (1.6): every PE adds to PE 0's signal at
 * once, each add counted; a set after the data, seen with the data. */
static void test_signal_ops(uint64_t *sig) {
    long *data = shmem_calloc(1, sizeof(long));
    CHECK(data, "shmem_calloc failed");
    *sig = 0;
    shmem_barrier_all();
    for (int k = 0; k < 100; k++)
        shmem_signal_add(sig, 1, 0);
    if (me == 0) {
        uint64_t v = shmem_signal_wait_until(sig, SHMEM_CMP_EQ, (uint64_t)(100 * npes));
        CHECK(v == (uint64_t)(100 * npes), "signal_add from every PE: %llu", (unsigned long long)v);
    }
    shmem_barrier_all();
    *sig = 0;
    shmem_barrier_all();
    shmem_long_p(data, 1000 + me, right);
    shmem_fence();
    shmem_ctx_signal_set(SHMEM_CTX_DEFAULT, sig, 7, right);
    shmem_signal_wait_until(sig, SHMEM_CMP_EQ, 7);
    CHECK(*data == 1000 + left, "data before signal_set: %ld", *data);
    shmem_barrier_all();
    shmem_free(data);
}
#endif

int main(void) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    uint64_t *sig = shmem_malloc_with_hints(sizeof *sig, SHMEM_MALLOC_SIGNAL_REMOTE);
    CHECK(sig, "shmem_malloc_with_hints(SIGNAL_REMOTE) failed");
    test_big(sig);
    test_add(sig);
#define RUN(T, N) test_##N(sig);
    SHMEMI_RMA_TYPES(RUN)
    test_sized(sig);
#if FUNC_SPEC_16
    test_signal_ops(sig);
#endif
    shmem_barrier_all();
    shmem_free(sig);
    func_pass("signals");
    shmem_finalize();
    return 0;
}

#else /* the library predates OpenSHMEM 1.5 */

int main(void) {
    shmem_init();
    CHECK(0, "put-with-signal needs an OpenSHMEM 1.5 library (header says %d.%d)",
          SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION);
    shmem_finalize();
    return 1;
}

#endif
