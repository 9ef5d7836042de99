/* Point-to-point synchronization: wait_until/test and the _all/_any/_some and
 * _vector forms, for every point-to-point type and every comparison, with
 * status arrays that exclude entries; producers and consumers on different PEs. */
#include "check.h"
#include "../../include/shmem_typelists.h" /* the spec's type tables */

#include <stddef.h>
#include <stdint.h>

#define NV 8

static int me, npes;

/* One comparison per step: the consumer waits for (ivar cmp value); the
 * producer then writes `write`, which satisfies it, while the value before
 * the write does not. */
static const struct {
    int cmp;
    int value;
    int write;
    const char *name;
} steps[] = {
    {SHMEM_CMP_EQ, 10, 10, "EQ"}, {SHMEM_CMP_NE, 10, 11, "NE"}, {SHMEM_CMP_GT, 11, 12, "GT"},
    {SHMEM_CMP_GE, 13, 13, "GE"}, {SHMEM_CMP_LT, 13, 3, "LT"},  {SHMEM_CMP_LE, 2, 2, "LE"},
};
#define NSTEPS ((int)(sizeof steps / sizeof steps[0]))

#if FUNC_SPEC_15
/* Slots 3 and 6 are excluded by the status array. */
static const int status[NV] = {0, 0, 0, 1, 0, 0, 1, 0};
static const int none[NV] = {1, 1, 1, 1, 1, 1, 1, 1};

#define MULTI_TESTS(T, N)                                                                          \
    {                                                                                              \
        T *iv = shmem_calloc(NV, sizeof(T));                                                       \
        CHECK(iv, "shmem_calloc failed");                                                          \
        size_t idx[NV];                                                                            \
        T cv[NV];                                                                                  \
        shmem_barrier_all();                                                                       \
        /* nothing written yet */                                                                  \
        CHECK(shmem_##N##_test_all(iv, NV, status, SHMEM_CMP_NE, 0) == 0, #N " test_all early");   \
        CHECK(shmem_##N##_test_any(iv, NV, status, SHMEM_CMP_NE, 0) == SIZE_MAX,                   \
              #N " test_any early");                                                               \
        CHECK(shmem_##N##_test_some(iv, NV, idx, status, SHMEM_CMP_NE, 0) == 0,                    \
              #N " test_some early");                                                              \
        CHECK(shmem_##N##_wait_until_any(iv, NV, none, SHMEM_CMP_EQ, 0) == SIZE_MAX,               \
              #N " wait_until_any with every entry excluded");                                     \
        CHECK(shmem_##N##_wait_until_some(iv, NV, idx, none, SHMEM_CMP_EQ, 0) == 0,                \
              #N " wait_until_some with every entry excluded");                                    \
        shmem_##N##_wait_until_all(iv, NV, none, SHMEM_CMP_NE, 0);                                 \
        shmem_barrier_all();                                                                       \
        /* round 1: slot k gets k+1 (excluded slots too) from PE k % npes */                       \
        for (int k = me; k < NV; k += npes)                                                        \
            for (int pe = 0; pe < npes; pe++)                                                      \
                shmem_##N##_p(&iv[k], (T)(k + 1), pe);                                             \
        shmem_##N##_wait_until_all(iv, NV, NULL, SHMEM_CMP_NE, 0);                                 \
        for (int k = 0; k < NV; k++)                                                               \
            CHECK(iv[k] == (T)(k + 1), #N " round 1 slot %d = %lld", k, (long long)iv[k]);         \
        /* values now 1..8; slot 3 holds 4, slot 6 holds 7, both excluded */                       \
        CHECK(shmem_##N##_test_all(iv, NV, status, SHMEM_CMP_GT, 0) == 1, #N " test_all GT 0");    \
        CHECK(shmem_##N##_test_all(iv, NV, status, SHMEM_CMP_GT, 1) == 0, #N " test_all GT 1");    \
        CHECK(shmem_##N##_test_all(iv, NV, status, SHMEM_CMP_GE, 1) == 1, #N " test_all GE 1");    \
        CHECK(shmem_##N##_test_all(iv, NV, status, SHMEM_CMP_LE, 8) == 1, #N " test_all LE 8");    \
        CHECK(shmem_##N##_test_all(iv, NV, status, SHMEM_CMP_LT, 8) == 0, #N " test_all LT 8");    \
        CHECK(shmem_##N##_test_all(iv, NV, status, SHMEM_CMP_NE, 4) == 1, #N " test_all NE 4");    \
        CHECK(shmem_##N##_test_all(iv, NV, status, SHMEM_CMP_NE, 5) == 0, #N " test_all NE 5");    \
        CHECK(shmem_##N##_test_all(iv, NV, status, SHMEM_CMP_EQ, 1) == 0, #N " test_all EQ 1");    \
        CHECK(shmem_##N##_test_any(iv, NV, status, SHMEM_CMP_EQ, 4) == SIZE_MAX,                   \
              #N " test_any EQ 4 (excluded slot)");                                                \
        CHECK(shmem_##N##_test_any(iv, NV, status, SHMEM_CMP_EQ, 5) == 4, #N " test_any EQ 5");    \
        CHECK(shmem_##N##_test_any(iv, NV, status, SHMEM_CMP_GE, 8) == 7, #N " test_any GE 8");    \
        CHECK(shmem_##N##_test_any(iv, NV, status, SHMEM_CMP_LT, 2) == 0, #N " test_any LT 2");    \
        CHECK(shmem_##N##_test_any(iv, NV, status, SHMEM_CMP_GT, 8) == SIZE_MAX,                   \
              #N " test_any GT 8");                                                                \
        size_t got = shmem_##N##_test_some(iv, NV, idx, status, SHMEM_CMP_GE, 5);                  \
        CHECK(got == 3, #N " test_some GE 5 found %zu", got);                                      \
        for (size_t j = 0; j < got; j++)                                                           \
            CHECK(idx[j] == 4 || idx[j] == 5 || idx[j] == 7, #N " test_some index %zu", idx[j]);   \
        CHECK(shmem_##N##_test_some(iv, NV, idx, status, SHMEM_CMP_LE, 3) == 3,                    \
              #N " test_some LE 3");                                                               \
        CHECK(shmem_##N##_test_some(iv, NV, idx, status, SHMEM_CMP_EQ, 7) == 0,                    \
              #N " test_some EQ 7 (excluded slot)");                                               \
        for (int k = 0; k < NV; k++)                                                               \
            cv[k] = (T)(k + 1);                                                                    \
        CHECK(shmem_##N##_test_all_vector(iv, NV, status, SHMEM_CMP_EQ, cv) == 1,                  \
              #N " test_all_vector EQ");                                                           \
        cv[6] = (T)50; /* excluded: no effect */                                                   \
        CHECK(shmem_##N##_test_all_vector(iv, NV, status, SHMEM_CMP_EQ, cv) == 1,                  \
              #N " test_all_vector EQ with an excluded mismatch");                                 \
        cv[2] = (T)50;                                                                             \
        CHECK(shmem_##N##_test_all_vector(iv, NV, status, SHMEM_CMP_EQ, cv) == 0,                  \
              #N " test_all_vector EQ with a mismatch");                                           \
        CHECK(shmem_##N##_test_any_vector(iv, NV, status, SHMEM_CMP_GT, cv) == SIZE_MAX,           \
              #N " test_any_vector GT");                                                           \
        CHECK(shmem_##N##_test_any_vector(iv, NV, status, SHMEM_CMP_LT, cv) == 2,                  \
              #N " test_any_vector LT");                                                           \
        CHECK(shmem_##N##_test_some_vector(iv, NV, idx, status, SHMEM_CMP_NE, cv) == 1 &&          \
                  idx[0] == 2,                                                                     \
              #N " test_some_vector NE");                                                          \
        shmem_barrier_all();                                                                       \
        /* round 2: non-excluded slots get 101+k; wait for any, then collect the rest */           \
        for (int k = me; k < NV; k += npes)                                                        \
            if (!status[k])                                                                        \
                for (int pe = 0; pe < npes; pe++)                                                  \
                    shmem_##N##_p(&iv[k], (T)(101 + k), pe);                                       \
        size_t first = shmem_##N##_wait_until_any(iv, NV, status, SHMEM_CMP_GT, 100);              \
        CHECK(first < NV && !status[first] && iv[first] == (T)(101 + first),                       \
              #N " wait_until_any returned %zu", first);                                           \
        int st[NV], found = 0;                                                                     \
        for (int k = 0; k < NV; k++)                                                               \
            st[k] = status[k];                                                                     \
        while (found < 6) {                                                                        \
            size_t n = shmem_##N##_wait_until_some(iv, NV, idx, st, SHMEM_CMP_GE, 101);            \
            CHECK(n >= 1 && n <= (size_t)(6 - found), #N " wait_until_some returned %zu", n);      \
            for (size_t j = 0; j < n; j++) {                                                       \
                CHECK(idx[j] < NV && !st[idx[j]], #N " wait_until_some index %zu", idx[j]);        \
                CHECK(iv[idx[j]] == (T)(101 + idx[j]), #N " slot %zu = %lld", idx[j],              \
                      (long long)iv[idx[j]]);                                                      \
                st[idx[j]] = 1;                                                                    \
                found++;                                                                           \
            }                                                                                      \
        }                                                                                          \
        CHECK(iv[3] == 4 && iv[6] == 7, #N " excluded slots changed");                             \
        for (int k = 0; k < NV; k++)                                                               \
            cv[k] = (T)(101 + k);                                                                  \
        shmem_##N##_wait_until_all_vector(iv, NV, status, SHMEM_CMP_EQ, cv);                       \
        size_t a = shmem_##N##_wait_until_any_vector(iv, NV, status, SHMEM_CMP_GE, cv);            \
        CHECK(a < NV && !status[a], #N " wait_until_any_vector returned %zu", a);                  \
        CHECK(shmem_##N##_wait_until_some_vector(iv, NV, idx, status, SHMEM_CMP_LE, cv) == 6,      \
              #N " wait_until_some_vector LE");                                                    \
        shmem_barrier_all();                                                                       \
        /* round 3: per-slot targets, really waited for */                                         \
        for (int k = me; k < NV; k += npes)                                                        \
            if (!status[k])                                                                        \
                for (int pe = 0; pe < npes; pe++)                                                  \
                    shmem_##N##_p(&iv[k], (T)(201 + 2 * k), pe);                                   \
        for (int k = 0; k < NV; k++)                                                               \
            cv[k] = (T)(201 + 2 * k);                                                              \
        shmem_##N##_wait_until_all_vector(iv, NV, status, SHMEM_CMP_EQ, cv);                       \
        for (int k = 0; k < NV; k++)                                                               \
            CHECK(iv[k] == (status[k] ? (T)(k + 1) : cv[k]), #N " round 3 slot %d = %lld", k,      \
                  (long long)iv[k]);                                                               \
        CHECK(shmem_##N##_test_all(iv, NV, NULL, SHMEM_CMP_GT, 100) == 0,                          \
              #N " test_all with a NULL status includes every slot");                              \
        shmem_barrier_all();                                                                       \
        shmem_free(iv);                                                                            \
    }
#else
#define MULTI_TESTS(T, N)
#endif

#define DEFINE_TEST(T, N)                                                                          \
    static void test_##N(void) {                                                                   \
        T *iv = shmem_calloc(1, sizeof(T));                                                        \
        long *go = shmem_calloc(1, sizeof(long));                                                  \
        CHECK(iv &&go, "shmem_calloc failed");                                                     \
        shmem_barrier_all();                                                                       \
        const int consumer = npes > 1 ? 1 : 0;                                                     \
        if (me == consumer) {                                                                      \
            for (int s = 0; s < NSTEPS; s++) {                                                     \
                CHECK(shmem_##N##_test(iv, steps[s].cmp, (T)steps[s].value) == 0,                  \
                      #N " test %s %d true before the write (value %lld)", steps[s].name,          \
                      steps[s].value, (long long)*iv);                                             \
                if (npes == 1)                                                                     \
                    shmem_##N##_p(iv, (T)steps[s].write, me);                                      \
                else                                                                               \
                    shmem_long_p(go, s + 1, 0);                                                    \
                shmem_##N##_wait_until(iv, steps[s].cmp, (T)steps[s].value);                       \
                CHECK(*iv == (T)steps[s].write, #N " wait_until %s returned with %lld",            \
                      steps[s].name, (long long)*iv);                                              \
                CHECK(shmem_##N##_test(iv, steps[s].cmp, (T)steps[s].value) == 1,                  \
                      #N " test %s false after the write", steps[s].name);                         \
            }                                                                                      \
        } else if (me == 0) {                                                                      \
            for (int s = 0; s < NSTEPS; s++) {                                                     \
                shmem_long_wait_until(go, SHMEM_CMP_GE, s + 1);                                    \
                shmem_##N##_p(iv, (T)steps[s].write, consumer);                                    \
            }                                                                                      \
        }                                                                                          \
        shmem_barrier_all();                                                                       \
        shmem_free(go);                                                                            \
        shmem_free(iv);                                                                            \
        MULTI_TESTS(T, N)                                                                          \
    }
SHMEMI_P2P_ALL_TYPES(DEFINE_TEST)

int main(void) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
#define RUN(T, N) test_##N();
    SHMEMI_P2P_ALL_TYPES(RUN)
    func_pass("wait_test");
    shmem_finalize();
    return 0;
}
