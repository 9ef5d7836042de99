/* The _any routines do not starve an index: with every entry of an array
 * satisfying the comparison, calling shmem_test_any (and its vector form,
 * shmem_wait_until_any and its vector form) again and again returns every
 * index in turn, also when calls on two arrays are interleaved and when
 * several threads test the same array. Without a starting point that moves,
 * index 0 would be returned forever and the loops below would run out. */
#include "check.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>

#define N 7
#define ROUNDS (4 * N) /* calls allowed to see every index once */

static int me, npes;

/* Calls `next` until each of the N indices but `skip` (-1: none) has been
 * returned; fails after ROUNDS calls, or when `skip` is returned. */
static void every_index_but(const char *what, size_t (*next)(void *), void *arg, int skip) {
    int seen[N] = {0}, left = skip < 0 ? N : N - 1;
    for (int call = 0; call < ROUNDS && left; call++) {
        size_t i = next(arg);
        CHECK(i < N && (int)i != skip, "%s returned %zu", what, i);
        if (!seen[i]++)
            left--;
    }
    CHECK(left == 0, "%s: %d of %d indices never returned in %d calls", what, left, N, ROUNDS);
}
#define every_index(what, next, arg) every_index_but(what, next, arg, -1)

static long *ivars, *other;
static long cmp_values[N];
static const shmem_cmp_t eq = SHMEM_CMP_EQ; /* the type other implementations name */

static size_t test_any(void *a) { return shmem_long_test_any(a, N, NULL, eq, 1); }
static size_t test_any_vector(void *a) {
    return shmem_long_test_any_vector(a, N, NULL, SHMEM_CMP_EQ, cmp_values);
}
static size_t wait_any(void *a) { return shmem_long_wait_until_any(a, N, NULL, SHMEM_CMP_GE, 1); }
static size_t wait_any_vector(void *a) {
    return shmem_long_wait_until_any_vector(a, N, NULL, SHMEM_CMP_EQ, cmp_values);
}
/* Two arrays interleaved: each keeps its own order. */
static size_t interleaved(void *a) {
    size_t j = shmem_long_test_any(other, N, NULL, SHMEM_CMP_EQ, 1);
    CHECK(j < N, "test_any on the second array returned %zu", j);
    return shmem_long_test_any(a, N, NULL, SHMEM_CMP_EQ, 1);
}
/* With a status array excluding index 2, the others still come in turn. */
static size_t excluded(void *a) {
    static const int status[N] = {0, 0, 1, 0, 0, 0, 0};
    return shmem_long_test_any(a, N, status, SHMEM_CMP_EQ, 1);
}

static void *thread_main(void *arg) {
    (void)arg;
    every_index("shmem_long_test_any from a thread", test_any, ivars);
    return NULL;
}

int main(void) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    ivars = shmem_calloc(N, sizeof(long));
    other = shmem_calloc(N, sizeof(long));
    CHECK(ivars && other, "shmem_calloc failed");
    /* Every PE sets entry k of its right neighbour (and the neighbour's
     * neighbour...) with atomics: all N entries become 1 everywhere. */
    for (int k = 0; k < N; k++) {
        shmem_long_atomic_set(&ivars[k], 1, (me + 1) % npes);
        shmem_long_atomic_set(&other[k], 1, (me + 1) % npes);
        cmp_values[k] = 1;
    }
    shmem_long_wait_until_all(ivars, N, NULL, SHMEM_CMP_EQ, 1);
    shmem_long_wait_until_all(other, N, NULL, SHMEM_CMP_EQ, 1);

    every_index("shmem_long_test_any", test_any, ivars);
    every_index("shmem_long_test_any_vector", test_any_vector, ivars);
    every_index("shmem_long_wait_until_any", wait_any, ivars);
    every_index("shmem_long_wait_until_any_vector", wait_any_vector, ivars);
    every_index("shmem_long_test_any on interleaved arrays", interleaved, ivars);
    every_index_but("shmem_long_test_any with a status array", excluded, ivars, 2);
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
    size_t seen = 0;
    for (int call = 0; call < ROUNDS; call++)
        seen |= (size_t)1 << shmem_test_any(ivars, N, NULL, SHMEM_CMP_EQ, 1L);
    CHECK(seen == ((size_t)1 << N) - 1, "the generic shmem_test_any missed indices: %#zx", seen);
#endif

    /* An empty test set (1.6): test_all gives 1, test_any SIZE_MAX, test_some 0. */
    static const int none[N] = {1, 1, 1, 1, 1, 1, 1};
    size_t idx[N];
    CHECK(shmem_long_test_all(ivars, N, none, eq, 0) == 1, "test_all on an empty set");
    CHECK(shmem_long_test_all(ivars, 0, NULL, eq, 0) == 1, "test_all on no elements");
    CHECK(shmem_long_test_all_vector(ivars, N, none, eq, cmp_values) == 1, "test_all_vector");
    CHECK(shmem_long_test_any(ivars, N, none, eq, 1) == SIZE_MAX, "test_any on an empty set");
    CHECK(shmem_long_test_some(ivars, N, idx, none, eq, 1) == 0, "test_some on an empty set");

    /* Threads testing one array: each one sees every index. */
    pthread_t t[2];
    for (int k = 0; k < 2; k++)
        CHECK(pthread_create(&t[k], NULL, thread_main, NULL) == 0, "pthread_create");
    for (int k = 0; k < 2; k++)
        pthread_join(t[k], NULL);

    shmem_barrier_all();
    shmem_free(other);
    shmem_free(ivars);
    func_pass("any_fair");
    shmem_finalize();
    return 0;
}
