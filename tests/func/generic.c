/* The type-generic names, for every type of each routine's table, with no
 * context, with a created context and with SHMEM_CTX_DEFAULT: RMA (with the
 * 1.6 ibput and ibget), put-with-signal, signal_add and signal_set, AMOs and
 * their _nbi forms, the wait/test families, the team collectives, reductions
 * and scans, shmem_sync by team and by active set, and the deprecated
 * generics on every type of their replacements' tables. The same source is built as C11 (_Generic
 * selections) and as C++ (generic.cpp: overloads). The types come from the
 * library's lists, so a type missing from a generic fails to build.
 *
 * Each PE works on its right neighbour's memory and checks what its left
 * neighbour did to its own, so the wrong routine (a wrong element size)
 * shows as wrong data; at 1 PE both neighbours are the PE itself. */
#include "check.h"

#include "../../include/shmem_typelists.h" /* the spec's type tables */

#include <stdint.h>
#include <string.h>

#define NE 8
#define V(T, i) ((T)(((i) % 50) + 1))

static int me, npes, peer, left;
static shmem_ctx_t ctx;

/* f selects the form: 0 without a context, 1 on a created context, 2 on
 * SHMEM_CTX_DEFAULT. */
#define CALL(f, name, ...)                                                                         \
    ((f) == 0   ? name(__VA_ARGS__)                                                                \
     : (f) == 1 ? name(ctx, __VA_ARGS__)                                                           \
                : name(SHMEM_CTX_DEFAULT, __VA_ARGS__))
#define QUIET(f) ((f) == 1 ? shmem_ctx_quiet(ctx) : shmem_quiet())
#define FORMS 3

#define EACH(i, n) for (int i = 0; i < (n); i++)

/* --------------------------------------------------------------------- RMA */
#define TEST_RMA(T, N)                                                                             \
    static void rma_##N(int f) {                                                                   \
        T *a = (T *)shmem_malloc(4 * NE * sizeof(T)), *src = a + NE, *str = a + 2 * NE;            \
        uint64_t *sig = (uint64_t *)shmem_calloc(1, sizeof(uint64_t));                             \
        T loc[2 * NE];                                                                             \
        CHECK(a &&sig, #N ": allocation failed");                                                  \
        EACH(i, NE) src[i] = V(T, me * 10 + i), a[i] = (T)0;                                       \
        EACH(i, 2 * NE) str[i] = (T)0;                                                             \
        shmem_barrier_all();                                                                       \
        CALL(f, shmem_put, a, src, NE, peer);                                                      \
        QUIET(f); /* a barrier completes the default context only */                               \
        shmem_barrier_all();                                                                       \
        EACH(i, NE) CHECK(a[i] == V(T, left * 10 + i), "shmem_put " #N " form %d [%d]", f, i);     \
        CALL(f, shmem_get, loc, src, NE, peer);                                                    \
        EACH(i, NE) CHECK(loc[i] == V(T, peer * 10 + i), "shmem_get " #N " form %d [%d]", f, i);   \
        shmem_barrier_all();                                                                       \
        EACH(i, NE) a[i] = (T)0;                                                                   \
        shmem_barrier_all();                                                                       \
        CALL(f, shmem_put_nbi, a, src, NE, peer);                                                  \
        QUIET(f);                                                                                  \
        shmem_barrier_all();                                                                       \
        EACH(i, NE) CHECK(a[i] == V(T, left * 10 + i), "shmem_put_nbi " #N " form %d", f);         \
        EACH(i, NE) loc[i] = (T)0;                                                                 \
        CALL(f, shmem_get_nbi, loc, src, NE, peer);                                                \
        QUIET(f);                                                                                  \
        EACH(i, NE) CHECK(loc[i] == V(T, peer * 10 + i), "shmem_get_nbi " #N " form %d", f);       \
        shmem_barrier_all();                                                                       \
        CALL(f, shmem_p, &a[0], V(T, me + 33), peer);                                              \
        QUIET(f); /* a barrier completes the default context only */                               \
        shmem_barrier_all();                                                                       \
        CHECK(a[0] == V(T, left + 33), "shmem_p " #N " form %d", f);                               \
        CHECK(CALL(f, shmem_g, &src[1], peer) == V(T, peer * 10 + 1), "shmem_g " #N " form %d",    \
              f);                                                                                  \
        CALL(f, shmem_iput, str, src, 2, 1, NE / 2, peer);                                         \
        QUIET(f); /* a barrier completes the default context only */                               \
        shmem_barrier_all();                                                                       \
        EACH(i, NE / 2)                                                                            \
        CHECK(str[2 * i] == V(T, left * 10 + i) && str[2 * i + 1] == (T)0,                         \
              "shmem_iput " #N " form %d [%d]", f, i);                                             \
        CALL(f, shmem_iget, loc, str, 1, 2, NE / 2, peer);                                         \
        EACH(i, NE / 2) CHECK(loc[i] == V(T, me * 10 + i), "shmem_iget " #N " form %d", f);        \
        /* ibput: blocks of 2, 3 apart at the target, 2 apart at the source (1.6) */               \
        shmem_barrier_all();                                                                       \
        EACH(i, 2 * NE) str[i] = (T)0;                                                             \
        shmem_barrier_all();                                                                       \
        CALL(f, shmem_ibput, str, src, 3, 2, 2, NE / 2, peer);                                     \
        QUIET(f); /* a barrier completes the default context only */                               \
        shmem_barrier_all();                                                                       \
        EACH(i, NE / 2)                                                                            \
        CHECK(str[3 * i] == V(T, left * 10 + 2 * i) &&                                             \
                  str[3 * i + 1] == V(T, left * 10 + 2 * i + 1) && str[3 * i + 2] == (T)0,         \
              "shmem_ibput " #N " form %d [%d]", f, i);                                            \
        CALL(f, shmem_ibget, loc, str, 2, 3, 2, NE / 2, peer);                                     \
        EACH(i, NE) CHECK(loc[i] == V(T, me * 10 + i), "shmem_ibget " #N " form %d [%d]", f, i);   \
        shmem_barrier_all();                                                                       \
        EACH(i, NE) a[i] = (T)0;                                                                   \
        shmem_barrier_all();                                                                       \
        CALL(f, shmem_put_signal, a, src, NE, sig, 1, SHMEM_SIGNAL_ADD, peer);                     \
        shmem_signal_wait_until(sig, SHMEM_CMP_GE, 1); /* the _nbi one below may be there too */   \
        EACH(i, NE) CHECK(a[i] == V(T, left * 10 + i), "shmem_put_signal " #N " form %d", f);      \
        CALL(f, shmem_put_signal_nbi, a, src, NE, sig, 2, SHMEM_SIGNAL_SET, peer);                 \
        QUIET(f);                                                                                  \
        shmem_signal_wait_until(sig, SHMEM_CMP_EQ, 2);                                             \
        shmem_barrier_all();                                                                       \
        shmem_free(sig);                                                                           \
        shmem_free(a);                                                                             \
    }
SHMEMI_RMA_TYPES(TEST_RMA)

/* -------------------------------------------------------------------- AMOs */
/* Each PE updates its right neighbour's word; the left one's updates of its
 * own word are checked after a barrier. */
#define AMO_WORD(T, N, init)                                                                       \
    T *w = (T *)shmem_malloc(sizeof(T)), fe;                                                       \
    CHECK(w, #N ": allocation failed");                                                            \
    *w = (T)(init);                                                                                \
    shmem_barrier_all()
/* A non-fetching AMO, completed by a quiet. */
#define POST(f, name, ...)                                                                         \
    do {                                                                                           \
        CALL(f, name, __VA_ARGS__);                                                                \
        QUIET(f);                                                                                  \
    } while (0)
/* A fetching _nbi AMO, completed by a quiet: the old value is `want`. */
#define NBI(f, T, N, name, want, ...)                                                              \
    do {                                                                                           \
        POST(f, name, &fe, __VA_ARGS__);                                                           \
        CHECK(fe == (T)(want), #name " " #N " form %d", f);                                        \
    } while (0)
#define AMO_DONE(T, N, want, what)                                                                 \
    QUIET(f);                                                                                      \
    shmem_barrier_all();                                                                           \
    CHECK(*w == (T)(want), what " " #N " form %d: final value", f);                                \
    shmem_barrier_all();                                                                           \
    shmem_free(w)

#define TEST_AMO_EXT(T, N)                                                                         \
    static void amo_ext_##N(int f) {                                                               \
        AMO_WORD(T, N, 0);                                                                         \
        CALL(f, shmem_atomic_set, w, (T)5, peer);                                                  \
        QUIET(f);                                                                                  \
        shmem_barrier_all();                                                                       \
        CHECK(*w == (T)5, "shmem_atomic_set " #N " form %d", f);                                   \
        shmem_barrier_all();                                                                       \
        CHECK(CALL(f, shmem_atomic_fetch, w, peer) == (T)5, "shmem_atomic_fetch " #N " form %d",   \
              f);                                                                                  \
        CHECK(CALL(f, shmem_atomic_swap, w, (T)6, peer) == (T)5, "shmem_atomic_swap " #N);         \
        NBI(f, T, N, shmem_atomic_fetch_nbi, 6, w, peer);                                          \
        NBI(f, T, N, shmem_atomic_swap_nbi, 6, w, (T)7, peer);                                     \
        AMO_DONE(T, N, 7, "extended AMOs");                                                        \
    }
SHMEMI_AMO_EXT_TYPES(TEST_AMO_EXT)

#define TEST_AMO_STD(T, N)                                                                         \
    static void amo_std_##N(int f) {                                                               \
        AMO_WORD(T, N, 1);                                                                         \
        CHECK(CALL(f, shmem_atomic_compare_swap, w, (T)1, (T)2, peer) == (T)1, "cswap " #N);       \
        CHECK(CALL(f, shmem_atomic_compare_swap, w, (T)9, (T)3, peer) == (T)2, "cswap " #N);       \
        CHECK(CALL(f, shmem_atomic_fetch_inc, w, peer) == (T)2, "fetch_inc " #N " form %d", f);    \
        POST(f, shmem_atomic_inc, w, peer);                                                        \
        CHECK(CALL(f, shmem_atomic_fetch_add, w, (T)3, peer) == (T)4, "fetch_add " #N);            \
        POST(f, shmem_atomic_add, w, (T)2, peer);                                                  \
        NBI(f, T, N, shmem_atomic_compare_swap_nbi, 9, w, (T)9, (T)10, peer);                      \
        NBI(f, T, N, shmem_atomic_fetch_inc_nbi, 10, w, peer);                                     \
        NBI(f, T, N, shmem_atomic_fetch_add_nbi, 11, w, (T)5, peer);                               \
        AMO_DONE(T, N, 16, "standard AMOs");                                                       \
    }
SHMEMI_AMO_STD_TYPES(TEST_AMO_STD)

#define TEST_AMO_BIT(T, N)                                                                         \
    static void amo_bit_##N(int f) {                                                               \
        AMO_WORD(T, N, 0x0F);                                                                      \
        CHECK(CALL(f, shmem_atomic_fetch_and, w, (T)0x3C, peer) == (T)0x0F, "fetch_and " #N);      \
        POST(f, shmem_atomic_and, w, (T)0x08, peer);                                               \
        CHECK(CALL(f, shmem_atomic_fetch_or, w, (T)0x03, peer) == (T)0x08, "fetch_or " #N);        \
        POST(f, shmem_atomic_or, w, (T)0x10, peer);                                                \
        CHECK(CALL(f, shmem_atomic_fetch_xor, w, (T)0x01, peer) == (T)0x1B, "fetch_xor " #N);      \
        POST(f, shmem_atomic_xor, w, (T)0x0A, peer);                                               \
        NBI(f, T, N, shmem_atomic_fetch_and_nbi, 0x10, w, (T)0x30, peer);                          \
        NBI(f, T, N, shmem_atomic_fetch_or_nbi, 0x10, w, (T)0x01, peer);                           \
        NBI(f, T, N, shmem_atomic_fetch_xor_nbi, 0x11, w, (T)0x11, peer);                          \
        AMO_DONE(T, N, 0, "bitwise AMOs");                                                         \
    }
SHMEMI_AMO_BIT_TYPES(TEST_AMO_BIT)

/* ----------------------------------------------- point-to-point synchronization */
#define TEST_P2P(T, N)                                                                             \
    static void p2p_##N(void) {                                                                    \
        T *iv = (T *)shmem_calloc(4, sizeof(T)), cv[4] = {(T)0, (T)1, (T)2, (T)3};                 \
        int st[4] = {1, 0, 0, 0};                                                                  \
        size_t idx[4];                                                                             \
        CHECK(iv, #N ": allocation failed");                                                       \
        shmem_barrier_all();                                                                       \
        shmem_p(&iv[0], (T)7, peer);                                                               \
        shmem_wait_until(&iv[0], SHMEM_CMP_EQ, (T)7);                                              \
        CHECK(shmem_test(&iv[0], SHMEM_CMP_GE, (T)7) && !shmem_test(&iv[0], SHMEM_CMP_LT, (T)7),   \
              "shmem_test " #N);                                                                   \
        EACH(i, 4) if (i) iv[i] = (T)i;                                                            \
        shmem_wait_until_all(iv, 4, st, SHMEM_CMP_GE, (T)1);                                       \
        CHECK(shmem_wait_until_any(iv, 4, st, SHMEM_CMP_EQ, (T)2) == 2, "wait_until_any " #N);     \
        CHECK(shmem_wait_until_some(iv, 4, idx, st, SHMEM_CMP_GE, (T)2) == 2 && idx[0] == 2 &&     \
                  idx[1] == 3,                                                                     \
              "shmem_wait_until_some " #N);                                                        \
        shmem_wait_until_all_vector(iv, 4, st, SHMEM_CMP_EQ, cv);                                  \
        /* 1, 2 and 3 all match: the scan starts after the last index returned */                  \
        CHECK(shmem_wait_until_any_vector(iv, 4, st, SHMEM_CMP_EQ, cv) == 3, "any_vector " #N);    \
        CHECK(shmem_wait_until_some_vector(iv, 4, idx, st, SHMEM_CMP_EQ, cv) == 3,                 \
              "shmem_wait_until_some_vector " #N);                                                 \
        CHECK(shmem_test_all(iv, 4, st, SHMEM_CMP_GE, (T)1) == 1 &&                                \
                  shmem_test_all(iv, 4, st, SHMEM_CMP_GE, (T)2) == 0,                              \
              "shmem_test_all " #N);                                                               \
        CHECK(shmem_test_any(iv, 4, st, SHMEM_CMP_EQ, (T)3) == 3 &&                                \
                  shmem_test_any(iv, 4, st, SHMEM_CMP_EQ, (T)9) == SIZE_MAX,                       \
              "shmem_test_any " #N);                                                               \
        CHECK(shmem_test_some(iv, 4, idx, st, SHMEM_CMP_LE, (T)2) == 2 && idx[1] == 2,             \
              "shmem_test_some " #N);                                                              \
        CHECK(shmem_test_all_vector(iv, 4, st, SHMEM_CMP_EQ, cv) == 1, "test_all_vector " #N);     \
        CHECK(shmem_test_any_vector(iv, 4, st, SHMEM_CMP_NE, cv) == SIZE_MAX,                      \
              "shmem_test_any_vector " #N);                                                        \
        CHECK(shmem_test_some_vector(iv, 4, idx, NULL, SHMEM_CMP_GE, cv) == 4,                     \
              "shmem_test_some_vector " #N);                                                       \
        shmem_barrier_all();                                                                       \
        shmem_free(iv);                                                                            \
    }
SHMEMI_P2P_ALL_TYPES(TEST_P2P)

/* ------------------------------------------------------------ collectives */
#define TEST_COLL(T, N)                                                                            \
    static void coll_##N(void) {                                                                   \
        size_t n = (size_t)npes * 2;                                                               \
        T *src = (T *)shmem_malloc(2 * n * sizeof(T)), *dst = src + n;                             \
        CHECK(src, #N ": allocation failed");                                                      \
        EACH(i, (int)n) src[i] = V(T, me * 10 + i);                                                \
        shmem_barrier_all();                                                                       \
        CHECK(shmem_broadcast(SHMEM_TEAM_WORLD, dst, src, 2, 0) == 0, "broadcast " #N);            \
        EACH(i, 2) CHECK(dst[i] == V(T, i), "shmem_broadcast " #N " [%d]", i);                     \
        CHECK(shmem_collect(SHMEM_TEAM_WORLD, dst, src, 1) == 0, "collect " #N);                   \
        EACH(j, npes) CHECK(dst[j] == V(T, j * 10), "shmem_collect " #N " [%d]", j);               \
        CHECK(shmem_fcollect(SHMEM_TEAM_WORLD, dst, src, 2) == 0, "fcollect " #N);                 \
        EACH(j, (int)n) CHECK(dst[j] == V(T, j / 2 * 10 + j % 2), "shmem_fcollect " #N);           \
        CHECK(shmem_alltoall(SHMEM_TEAM_WORLD, dst, src, 2) == 0, "alltoall " #N);                 \
        EACH(j, (int)n) CHECK(dst[j] == V(T, j / 2 * 10 + me * 2 + j % 2), "alltoall " #N);        \
        CHECK(shmem_alltoalls(SHMEM_TEAM_WORLD, dst, src, 1, 2, 1) == 0, "alltoalls " #N);         \
        EACH(j, npes) CHECK(dst[j] == V(T, j * 10 + me * 2), "shmem_alltoalls " #N " [%d]", j);    \
        shmem_barrier_all();                                                                       \
        shmem_free(src);                                                                           \
    }
SHMEMI_RMA_TYPES(TEST_COLL)

/* Reductions over WORLD of one element. */
#define REDUCE(T, op, mine)                                                                        \
    ({                                                                                             \
        T *s_ = (T *)shmem_malloc(2 * sizeof(T));                                                  \
        CHECK(s_, "allocation failed");                                                            \
        s_[0] = (T)(mine);                                                                         \
        CHECK(shmem_##op##_reduce(SHMEM_TEAM_WORLD, &s_[1], &s_[0], 1) == 0, #op "_reduce");       \
        T r_ = s_[1];                                                                              \
        shmem_free(s_);                                                                            \
        r_;                                                                                        \
    })
#define BITS(n) ((n) >= 8 ? 0xFF : (1 << (n)) - 1)
#define TEST_REDUCE_BIT(T, N)                                                                      \
    static void reduce_bit_##N(void) {                                                             \
        CHECK(REDUCE(T, or, 1 << (me % 8)) == (T)BITS(npes), "shmem_or_reduce " #N);               \
        CHECK(REDUCE(T, and, 0xFF ^ (1 << (me % 8))) == (T)(0xFF ^ BITS(npes)), "and " #N);        \
        CHECK(REDUCE(T, xor, 1 << (me % 8)) == (T)(npes <= 8 ? BITS(npes) : 0) || npes > 8,        \
              "shmem_xor_reduce " #N);                                                             \
    }
#define TEST_REDUCE_MINMAX(T, N)                                                                   \
    static void reduce_minmax_##N(void) {                                                          \
        CHECK(REDUCE(T, max, me + 1) == (T)npes, "shmem_max_reduce " #N);                          \
        CHECK(REDUCE(T, min, me + 1) == (T)1, "shmem_min_reduce " #N);                             \
    }
#define TEST_REDUCE_ARITH(T, N)                                                                    \
    static void reduce_arith_##N(void) {                                                           \
        CHECK(REDUCE(T, sum, me + 1) == (T)(npes * (npes + 1) / 2), "shmem_sum_reduce " #N);       \
        CHECK(REDUCE(T, prod, (me & 1) + 1) == (T)(1 << (npes / 2)), "shmem_prod_reduce " #N);     \
    }
SHMEMI_REDUCE_BIT_TYPES(TEST_REDUCE_BIT)
SHMEMI_REDUCE_BIT_EXT_TYPES(TEST_REDUCE_BIT)
SHMEMI_REDUCE_MINMAX_TYPES(TEST_REDUCE_MINMAX)
SHMEMI_REDUCE_MINMAX_TYPES(TEST_REDUCE_ARITH)
#ifndef __cplusplus /* complex types are C only */
TEST_REDUCE_ARITH(double _Complex, complexd)
TEST_REDUCE_ARITH(float _Complex, complexf)
#endif

/* Scans (1.6) of two elements over WORLD: member i gets the sums of
 * 1..i+1 and of i+1 ones (inclusive), or of 1..i and of i ones (exclusive). */
#define TEST_SCAN(T, N)                                                                            \
    static void scan_##N(void) {                                                                   \
        T *s = (T *)shmem_malloc(4 * sizeof(T));                                                   \
        CHECK(s, #N ": allocation failed");                                                        \
        s[0] = (T)(me + 1);                                                                        \
        s[1] = (T)1;                                                                               \
        CHECK(shmem_sum_inscan(SHMEM_TEAM_WORLD, &s[2], &s[0], 2) == 0, "inscan " #N);             \
        CHECK(s[2] == (T)((me + 1) * (me + 2) / 2) && s[3] == (T)(me + 1),                         \
              "shmem_sum_inscan " #N);                                                             \
        CHECK(shmem_sum_exscan(SHMEM_TEAM_WORLD, &s[2], &s[0], 2) == 0, "exscan " #N);             \
        CHECK(s[2] == (T)(me * (me + 1) / 2) && s[3] == (T)me, "shmem_sum_exscan " #N);            \
        shmem_barrier_all();                                                                       \
        shmem_free(s);                                                                             \
    }
SHMEMI_REDUCE_MINMAX_TYPES(TEST_SCAN)
#ifndef __cplusplus /* complex types are C only */
TEST_SCAN(double _Complex, complexd)
TEST_SCAN(float _Complex, complexf)
#endif

/* signal_add and signal_set (1.6): by argument count, with a context or not. */
static void signal_ops(int f) {
    uint64_t *sg = (uint64_t *)shmem_calloc(1, sizeof(uint64_t));
    CHECK(sg, "allocation failed");
    shmem_barrier_all();
    CALL(f, shmem_signal_add, sg, 2, peer);
    CALL(f, shmem_signal_add, sg, 3, peer);
    QUIET(f);
    shmem_barrier_all();
    CHECK(*sg == 5, "shmem_signal_add form %d: %llu", f, (unsigned long long)*sg);
    shmem_barrier_all();
    CALL(f, shmem_signal_set, sg, 9, peer);
    QUIET(f);
    shmem_barrier_all();
    CHECK(*sg == 9, "shmem_signal_set form %d: %llu", f, (unsigned long long)*sg);
    shmem_barrier_all();
    shmem_free(sg);
}

/* ---------------------------------------------------- deprecated generics */
/* Each takes every type of its replacement's table (1.4). */
#define TEST_DEPR_STD(T, N)                                                                        \
    static void depr_std_##N(void) {                                                               \
        AMO_WORD(T, N, 1);                                                                         \
        const int f = 0;                                                                           \
        CHECK(shmem_cswap(w, (T)1, (T)2, peer) == (T)1, "shmem_cswap " #N);                        \
        CHECK(shmem_finc(w, peer) == (T)2, "shmem_finc " #N);                                      \
        shmem_inc(w, peer);                                                                        \
        shmem_quiet();                                                                             \
        CHECK(shmem_fadd(w, (T)3, peer) == (T)4, "shmem_fadd " #N);                                \
        shmem_add(w, (T)2, peer);                                                                  \
        (void)fe;                                                                                  \
        AMO_DONE(T, N, 9, "deprecated AMOs");                                                      \
    }
#define TEST_DEPR_EXT(T, N)                                                                        \
    static void depr_ext_##N(void) {                                                               \
        AMO_WORD(T, N, 0);                                                                         \
        const int f = 0;                                                                           \
        shmem_set(w, (T)5, peer);                                                                  \
        shmem_barrier_all();                                                                       \
        CHECK(shmem_fetch(w, peer) == (T)5 && shmem_swap(w, (T)6, peer) == (T)5, "set " #N);       \
        (void)fe;                                                                                  \
        AMO_DONE(T, N, 6, "deprecated fetch/set/swap");                                            \
    }
#define TEST_DEPR_WAIT(T, N)                                                                       \
    static void depr_wait_##N(void) {                                                              \
        T *iv = (T *)shmem_calloc(1, sizeof(T));                                                   \
        CHECK(iv, #N ": allocation failed");                                                       \
        shmem_barrier_all();                                                                       \
        shmem_p(iv, (T)3, peer);                                                                   \
        shmem_wait(iv, (T)0);                                                                      \
        CHECK(*iv == (T)3, "shmem_wait " #N);                                                      \
        shmem_barrier_all();                                                                       \
        shmem_free(iv);                                                                            \
    }
SHMEMI_AMO_STD_TYPES(TEST_DEPR_STD)
SHMEMI_AMO_EXT_TYPES(TEST_DEPR_EXT)
SHMEMI_WAIT_DEPR_TYPES(TEST_DEPR_WAIT)

static long psync[SHMEM_SYNC_SIZE];

int main(void) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    peer = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    EACH(i, SHMEM_SYNC_SIZE) psync[i] = SHMEM_SYNC_VALUE;
    CHECK(shmem_ctx_create(0, &ctx) == 0, "shmem_ctx_create failed");

    for (int f = 0; f < FORMS; f++) {
#define RUN_F(T, N) rma_##N(f);
        SHMEMI_RMA_TYPES(RUN_F)
#undef RUN_F
#define RUN_F(T, N) amo_ext_##N(f);
        SHMEMI_AMO_EXT_TYPES(RUN_F)
#undef RUN_F
#define RUN_F(T, N) amo_std_##N(f);
        SHMEMI_AMO_STD_TYPES(RUN_F)
#undef RUN_F
#define RUN_F(T, N) amo_bit_##N(f);
        SHMEMI_AMO_BIT_TYPES(RUN_F)
#undef RUN_F
    }
#define RUN(P, L) L(RUN_##P)
#define RUN_p2p(T, N) p2p_##N();
#define RUN_coll(T, N) coll_##N();
#define RUN_reduce_bit(T, N) reduce_bit_##N();
#define RUN_reduce_minmax(T, N) reduce_minmax_##N();
#define RUN_reduce_arith(T, N) reduce_arith_##N();
#define RUN_depr_std(T, N) depr_std_##N();
#define RUN_depr_ext(T, N) depr_ext_##N();
#define RUN_depr_wait(T, N) depr_wait_##N();
    RUN(p2p, SHMEMI_P2P_ALL_TYPES);
    RUN(coll, SHMEMI_RMA_TYPES);
    RUN(reduce_bit, SHMEMI_REDUCE_BIT_TYPES);
    RUN(reduce_bit, SHMEMI_REDUCE_BIT_EXT_TYPES);
#define RUN_scan(T, N) scan_##N();
    RUN(scan, SHMEMI_REDUCE_MINMAX_TYPES);
#ifndef __cplusplus
    scan_complexd();
    scan_complexf();
#endif
    EACH(f, FORMS) signal_ops(f);
    RUN(reduce_minmax, SHMEMI_REDUCE_MINMAX_TYPES);
    RUN(reduce_arith, SHMEMI_REDUCE_MINMAX_TYPES);
#ifndef __cplusplus
    reduce_arith_complexd();
    reduce_arith_complexf();
#endif
    RUN(depr_std, SHMEMI_AMO_STD_TYPES);
    RUN(depr_ext, SHMEMI_AMO_EXT_TYPES);
    RUN(depr_wait, SHMEMI_WAIT_DEPR_TYPES);

    /* shmem_sync: by team, and by active set (deprecated), by argument count */
    CHECK(shmem_sync(SHMEM_TEAM_WORLD) == 0, "shmem_sync(SHMEM_TEAM_WORLD)");
    shmem_sync(0, 0, npes, psync);

    shmem_ctx_destroy(ctx);
    shmem_barrier_all();
#ifdef __cplusplus
    func_pass("generic_cxx");
#else
    func_pass("generic");
#endif
    shmem_finalize();
    return 0;
}
