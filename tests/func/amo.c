/* Atomic memory operations: every standard AMO for every standard AMO type,
 * the extended AMOs for float and double, the bitwise AMOs, the fetching
 * _nbi forms completed by quiet, and contention from every PE on one word
 * with exact totals. */
#include "check.h"
#include "../../include/shmem_typelists.h" /* the spec's type tables */

#include <stddef.h>
#include <stdint.h>

#define K 100 /* operations of each kind per PE in the contention test */
#define KN 16 /* fetching _nbi operations per PE */

static int me, npes, right, left;
static long *checksum; /* symmetric, on the heap */

#if FUNC_SPEC_15
static void reset_checksum(void) {
    shmem_barrier_all();
    *checksum = 0;
    shmem_barrier_all();
}

/* Fetching _nbi forms; results are valid after shmem_quiet. */
#define STD_NBI(T, N)                                                                              \
    {                                                                                              \
        T f[KN], v = (T)0;                                                                         \
        *x = (T)(10 + me);                                                                         \
        *ctr = (T)0;                                                                               \
        reset_checksum();                                                                          \
        shmem_##N##_atomic_fetch_nbi(&v, x, right);                                                \
        shmem_quiet();                                                                             \
        CHECK(v == (T)(10 + right), #N " fetch_nbi gave %lld", (long long)v);                      \
        shmem_##N##_atomic_swap_nbi(&v, x, (T)(20 + me), right);                                   \
        shmem_quiet();                                                                             \
        CHECK(v == (T)(10 + right), #N " swap_nbi fetched %lld", (long long)v);                    \
        shmem_##N##_atomic_compare_swap_nbi(&v, x, (T)(20 + me), (T)(30 + me), right);             \
        shmem_quiet();                                                                             \
        CHECK(v == (T)(20 + me), #N " compare_swap_nbi fetched %lld", (long long)v);               \
        for (int k = 0; k < KN; k++) {                                                             \
            if (k & 1)                                                                             \
                shmem_##N##_atomic_fetch_inc_nbi(&f[k], ctr, 0);                                   \
            else                                                                                   \
                shmem_##N##_atomic_fetch_add_nbi(&f[k], ctr, (T)1, 0);                             \
        }                                                                                          \
        shmem_quiet();                                                                             \
        long s = 0;                                                                                \
        for (int k = 0; k < KN; k++) {                                                             \
            CHECK(f[k] < (T)(npes * KN), #N " fetch_inc_nbi gave %lld", (long long)f[k]);          \
            for (int j = 0; j < k; j++)                                                            \
                CHECK(f[j] != f[k], #N " fetch_inc_nbi gave %lld twice", (long long)f[k]);         \
            s += (long)f[k];                                                                       \
        }                                                                                          \
        shmem_long_atomic_add(checksum, s, 0);                                                     \
        shmem_barrier_all();                                                                       \
        CHECK(*x == (T)(30 + left), #N " after compare_swap_nbi: %lld", (long long)*x);            \
        if (me == 0) {                                                                             \
            const long n = (long)npes * KN;                                                        \
            CHECK(*ctr == (T)n, #N " nbi counter %lld, expected %ld", (long long)*ctr, n);         \
            CHECK(*checksum == n * (n - 1) / 2, #N " nbi fetched sum %ld", *checksum);             \
        }                                                                                          \
    }
#else
#define STD_NBI(T, N)
#endif

#define DEFINE_STD_TEST(T, N)                                                                      \
    static void test_std_##N(void) {                                                               \
        T *x = shmem_malloc(sizeof(T)), *ctr = shmem_malloc(sizeof(T));                            \
        CHECK(x &&ctr, "shmem_malloc failed");                                                     \
        *x = (T)0;                                                                                 \
        *ctr = (T)0;                                                                               \
        shmem_barrier_all();                                                                       \
        /* set / fetch */                                                                          \
        shmem_##N##_atomic_set(x, (T)(100 + me), right);                                           \
        shmem_barrier_all();                                                                       \
        CHECK(*x == (T)(100 + left), #N " atomic_set: %lld", (long long)*x);                       \
        T v = shmem_##N##_atomic_fetch(x, right);                                                  \
        CHECK(v == (T)(100 + me), #N " atomic_fetch: %lld", (long long)v);                         \
        shmem_barrier_all();                                                                       \
        /* swap */                                                                                 \
        v = shmem_##N##_atomic_swap(x, (T)(200 + me), right);                                      \
        CHECK(v == (T)(100 + me), #N " atomic_swap returned %lld", (long long)v);                  \
        shmem_barrier_all();                                                                       \
        CHECK(*x == (T)(200 + left), #N " after swap: %lld", (long long)*x);                       \
        shmem_barrier_all();                                                                       \
        /* compare_swap: a failing compare leaves the value, a matching one swaps */               \
        v = shmem_##N##_atomic_compare_swap(x, (T)999, (T)(300 + me), right);                      \
        CHECK(v == (T)(200 + me), #N " failing compare_swap returned %lld", (long long)v);         \
        CHECK(shmem_##N##_atomic_fetch(x, right) == (T)(200 + me),                                 \
              #N " failing compare_swap changed the value");                                       \
        v = shmem_##N##_atomic_compare_swap(x, (T)(200 + me), (T)(300 + me), right);               \
        CHECK(v == (T)(200 + me), #N " compare_swap returned %lld", (long long)v);                 \
        shmem_barrier_all();                                                                       \
        CHECK(*x == (T)(300 + left), #N " after compare_swap: %lld", (long long)*x);               \
        /* contention on PE 0 */                                                                   \
        T last = (T)0;                                                                             \
        for (int k = 0; k < K; k++) {                                                              \
            T a = shmem_##N##_atomic_fetch_inc(ctr, 0);                                            \
            CHECK(k == 0 || a > last, #N " fetch_inc not increasing: %lld after %lld",             \
                  (long long)a, (long long)last);                                                  \
            shmem_##N##_atomic_inc(ctr, 0);                                                        \
            T b = shmem_##N##_atomic_fetch_add(ctr, (T)(me + 1), 0);                               \
            CHECK(b > a, #N " fetch_add not increasing: %lld after %lld", (long long)b,            \
                  (long long)a);                                                                   \
            shmem_##N##_atomic_add(ctr, (T)2, 0);                                                  \
            last = b;                                                                              \
        }                                                                                          \
        shmem_barrier_all();                                                                       \
        if (me == 0) {                                                                             \
            const long long want = (long long)K * npes * 4 + (long long)K * npes * (npes + 1) / 2; \
            CHECK(*ctr == (T)want, #N " counter %lld, expected %lld", (long long)*ctr, want);      \
        }                                                                                          \
        shmem_barrier_all();                                                                       \
        STD_NBI(T, N)                                                                              \
        shmem_barrier_all();                                                                       \
        shmem_free(ctr);                                                                           \
        shmem_free(x);                                                                             \
    }
SHMEMI_AMO_STD_TYPES(DEFINE_STD_TEST)

#if FUNC_SPEC_15
#define EXT_NBI(T, N)                                                                              \
    {                                                                                              \
        T v = (T)0;                                                                                \
        shmem_##N##_atomic_fetch_nbi(&v, x, right);                                                \
        shmem_quiet();                                                                             \
        CHECK(v == (T)(2.25 + me), #N " fetch_nbi: %g", (double)v);                                \
        shmem_barrier_all();                                                                       \
        shmem_##N##_atomic_swap_nbi(&v, x, (T)(3.75 + me), right);                                 \
        shmem_quiet();                                                                             \
        CHECK(v == (T)(2.25 + me), #N " swap_nbi fetched %g", (double)v);                          \
        shmem_barrier_all();                                                                       \
        CHECK(*x == (T)(3.75 + left), #N " after swap_nbi: %g", (double)*x);                       \
    }
#else
#define EXT_NBI(T, N)
#endif

#define DEFINE_EXT_TEST(T, N)                                                                      \
    static void test_ext_##N(void) {                                                               \
        T *x = shmem_malloc(sizeof(T));                                                            \
        CHECK(x, "shmem_malloc failed");                                                           \
        *x = (T)0;                                                                                 \
        shmem_barrier_all();                                                                       \
        shmem_##N##_atomic_set(x, (T)(0.5 + left), left); /* left's x = 0.5 + left */              \
        shmem_barrier_all();                                                                       \
        CHECK(*x == (T)(0.5 + me), #N " atomic_set: %g", (double)*x);                              \
        T v = shmem_##N##_atomic_fetch(x, right);                                                  \
        CHECK(v == (T)(0.5 + right), #N " atomic_fetch: %g", (double)v);                           \
        shmem_barrier_all();                                                                       \
        v = shmem_##N##_atomic_swap(x, (T)(1.25 + me), right);                                     \
        CHECK(v == (T)(0.5 + right), #N " atomic_swap returned %g", (double)v);                    \
        shmem_barrier_all();                                                                       \
        CHECK(*x == (T)(1.25 + left), #N " after swap: %g", (double)*x);                           \
        *x = (T)(2.25 + me);                                                                       \
        shmem_barrier_all();                                                                       \
        v = shmem_##N##_atomic_fetch(x, right);                                                    \
        CHECK(v == (T)(2.25 + right), #N " fetch of a stored value: %g", (double)v);               \
        shmem_barrier_all();                                                                       \
        *x = (T)(2.25 + left); /* what my left neighbour expects to fetch from me */               \
        shmem_barrier_all();                                                                       \
        EXT_NBI(T, N)                                                                              \
        shmem_barrier_all();                                                                       \
        shmem_free(x);                                                                             \
    }
SHMEMI_AMO_FLOAT_TYPES(DEFINE_EXT_TEST)

#if FUNC_SPEC_15
#define BIT_NBI(T, N)                                                                              \
    {                                                                                              \
        T f0 = (T)0, f1 = (T)0, f2 = (T)0;                                                         \
        shmem_##N##_atomic_fetch_or_nbi(&f0, &w[6], bit, 0);                                       \
        shmem_##N##_atomic_fetch_and_nbi(&f1, &w[7], (T)~bit, 0);                                  \
        shmem_##N##_atomic_fetch_xor_nbi(&f2, &w[8], bit, 0);                                      \
        shmem_quiet();                                                                             \
        CHECK(!(f0 & bit) && (f1 & bit) && !(f2 & bit), #N " fetch_{or,and,xor}_nbi bits");        \
    }
#else
#define BIT_NBI(T, N)
#endif

#define DEFINE_BIT_TEST(T, N)                                                                      \
    static void test_bit_##N(void) {                                                               \
        T *w = shmem_malloc(9 * sizeof(T));                                                        \
        CHECK(w, "shmem_malloc failed");                                                           \
        const T ones = (T) ~(T)0;                                                                  \
        w[0] = w[1] = w[4] = w[5] = w[6] = w[8] = (T)0;                                            \
        w[2] = w[3] = w[7] = ones;                                                                 \
        shmem_barrier_all();                                                                       \
        const T bit = (T)((T)1 << me);                                                             \
        T old = shmem_##N##_atomic_fetch_or(&w[0], bit, 0);                                        \
        CHECK(!(old & bit), #N " fetch_or: bit %d already set", me);                               \
        shmem_##N##_atomic_or(&w[1], bit, 0);                                                      \
        old = shmem_##N##_atomic_fetch_and(&w[2], (T)~bit, 0);                                     \
        CHECK(old &bit, #N " fetch_and: bit %d already clear", me);                                \
        shmem_##N##_atomic_and(&w[3], (T)~bit, 0);                                                 \
        old = shmem_##N##_atomic_fetch_xor(&w[4], bit, 0);                                         \
        CHECK(!(old & bit), #N " fetch_xor: bit %d already set", me);                              \
        old = shmem_##N##_atomic_fetch_xor(&w[4], (T)(bit << 8), 0);                               \
        CHECK(old &bit, #N " fetch_xor: own bit %d lost", me);                                     \
        shmem_##N##_atomic_xor(&w[5], bit, 0);                                                     \
        shmem_##N##_atomic_xor(&w[5], (T)(bit | (T)(bit << 16)), 0);                               \
        BIT_NBI(T, N)                                                                              \
        shmem_barrier_all();                                                                       \
        if (me == 0) {                                                                             \
            const T all = (T)(((T)1 << npes) - 1);                                                 \
            CHECK(w[0] == all && w[1] == all, #N " or: %llx %llx", (unsigned long long)w[0],       \
                  (unsigned long long)w[1]);                                                       \
            CHECK(w[2] == (T)~all && w[3] == (T)~all, #N " and: %llx %llx",                        \
                  (unsigned long long)w[2], (unsigned long long)w[3]);                             \
            CHECK(w[4] == (T)(all | (T)(all << 8)), #N " fetch_xor: %llx",                         \
                  (unsigned long long)w[4]);                                                       \
            CHECK(w[5] == (T)(all << 16), #N " xor: %llx", (unsigned long long)w[5]);              \
            if (FUNC_SPEC_15)                                                                      \
                CHECK(w[6] == all && w[7] == (T)~all && w[8] == all, #N " nbi bitwise");           \
        }                                                                                          \
        shmem_barrier_all();                                                                       \
        shmem_free(w);                                                                             \
    }
SHMEMI_AMO_BIT_TYPES(DEFINE_BIT_TEST)

int main(void) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    CHECK(npes <= 8, "this test uses one bit per PE in bytes of a word: at most 8 PEs");
    checksum = shmem_malloc(sizeof *checksum);
    CHECK(checksum, "shmem_malloc failed");
#define RUN_STD(T, N) test_std_##N();
#define RUN_EXT(T, N) test_ext_##N();
#define RUN_BIT(T, N) test_bit_##N();
    SHMEMI_AMO_STD_TYPES(RUN_STD)
    SHMEMI_AMO_FLOAT_TYPES(RUN_EXT)
    SHMEMI_AMO_BIT_TYPES(RUN_BIT)
    shmem_barrier_all();
    shmem_free(checksum);
    func_pass("amo");
    shmem_finalize();
    return 0;
}
