/* Ordering, completion, barriers and point-to-point synchronization. */
#include "shmem/shmemi.h"

#include <sched.h>

#define SHMEMI_FILE sync
#include "shmem/api.h"

/* ------------------------------------------------------- fence and quiet */

/* Every row of the path table completes (or orders) what the context queued
 * on it. A quiet or fence on SHMEM_CTX_INVALID does nothing: the
 * specification's team-context example calls them on PEs outside the team. */
void shmemi_quiet(shmem_ctx_t ctx, const char *fn) {
    shmemi_check_init(fn);
    if (ctx == SHMEM_CTX_INVALID)
        return;
    shmemi_ctx_check(ctx, fn);
    shmemi_paths_quiet(ctx, -1, fn);
}

void shmemi_fence(shmem_ctx_t ctx, const char *fn) {
    shmemi_check_init(fn);
    if (ctx == SHMEM_CTX_INVALID)
        return;
    shmemi_ctx_check(ctx, fn);
    shmemi_paths_fence(ctx, -1, fn);
}

void shmemi_pe_quiet(shmem_ctx_t ctx, const int *pes, size_t npes, const char *fn) {
    shmemi_check_init(fn);
    if (ctx == SHMEM_CTX_INVALID)
        return;
    shmemi_ctx_check(ctx, fn);
    if (npes && !pes)
        shmemi_fatal("%s: the list of PEs is NULL, with %zu PEs in it", fn, npes);
    const struct shmemi_team *t = ctx->team;
    for (size_t i = 0; i < npes; i++) {
        if ((unsigned)pes[i] >= (unsigned)t->size)
            shmemi_bad_ctx_pe(ctx, pes[i], fn);
        shmemi_paths_quiet(ctx, t->start + pes[i] * t->stride, fn);
    }
}

void shmem_quiet(void) { shmemi_quiet(shmemi_ctx_default_handle, __func__); }
void shmem_ctx_quiet(shmem_ctx_t ctx) { shmemi_quiet(ctx, __func__); }
void shmem_fence(void) { shmemi_fence(shmemi_ctx_default_handle, __func__); }
void shmem_ctx_fence(shmem_ctx_t ctx) { shmemi_fence(ctx, __func__); }

void shmem_ctx_pe_quiet(shmem_ctx_t ctx, const int *target_pes, size_t npes) {
    shmemi_pe_quiet(ctx, target_pes, npes, __func__);
}
void shmem_pe_quiet(const int *target_pes, size_t npes) {
    shmemi_pe_quiet(shmemi_ctx_default_handle, target_pes, npes, __func__);
}

/* ---------------------------------------------------------------- barriers */

/* Dissemination barrier over WORLD: in round k, PE i tells PE i + 2^k that it
 * arrived by storing the epoch in that PE's control block (the only writer of
 * that word), and waits for PE i - 2^k to do the same to it. Epochs only
 * grow, so nothing is ever reset. */
void shmemi_sync_all(const char *fn) {
    int n = shmemi.n_pes, me = shmemi.my_pe;
    uint64_t epoch = ++shmemi.barrier_epoch;
    struct shmemi_ctl *mine = shmemi_ctl_of(me);
    for (int k = 0, dist = 1; dist < n; k++, dist <<= 1) {
        /* Release: everything this PE stored before the barrier is visible
         * to whoever acquires this word (PE me + 2^k's copy of it). */
        uint64_t *w = shmemi_round_word(&mine->barrier[k], epoch);
        shmemi_word_store((me + dist) % n, w, epoch, fn);
        struct shmemi_spin s = {.world_epoch = epoch};
        shmemi_spin_watch(&s, w, sizeof(uint64_t));
        while (__atomic_load_n(w, __ATOMIC_ACQUIRE) < epoch)
            shmemi_spin(&s);
        shmemi_spin_end(&s);
    }
}

void shmemi_barrier_all(const char *fn) {
    shmemi_quiet(shmemi_ctx_default_handle, fn);
    shmemi_sync_all(fn);
}

/* The host barriers and syncs first complete the work this PE queued on its
 * devices (SHMEMI_CHECK_SYNC: in GPU builds with a device heap, everything on
 * the PE's GPU, unless SHMEM_BARRIER_GPU_SYNC=0), so that what it wrote there
 * is visible to the peers that pass the barrier with it. */
void shmem_barrier_all(void) {
    shmemi_check_init(__func__);
    shmemi_paths_check(SHMEMI_CHECK_SYNC, __func__);
    shmemi_barrier_all(__func__);
}

void shmem_sync_all(void) {
    shmemi_check_init(__func__);
    shmemi_paths_check(SHMEMI_CHECK_SYNC, __func__);
    shmemi_sync_all(__func__);
}

/* Active-set barrier on the caller's pSync, restored to SHMEM_SYNC_VALUE on
 * return: members count in on the first PE's pSync[0]; the first PE waits for
 * all of them, resets its counter and releases each member through the
 * member's pSync[1]. */
_Static_assert(SHMEM_BARRIER_SYNC_SIZE >= 2, "an active-set barrier uses two pSync words");

void shmemi_sync_active_set(int start, int log_stride, int size, long *psync, const char *fn) {
    shmemi_check_init(fn);
    if (size < 1 || start < 0 || log_stride < 0 || log_stride > 30)
        shmemi_fatal("%s: invalid active set (PE_start %d, logPE_stride %d, PE_size %d)", fn, start,
                     log_stride, size);
    long stride = 1L << log_stride;
    long last = start + (long)(size - 1) * stride;
    if (last >= shmemi.n_pes)
        shmemi_fatal("%s: active set (PE_start %d, logPE_stride %d, PE_size %d) names PE %ld, "
                     "beyond the last PE %d",
                     fn, start, log_stride, size, last, shmemi.n_pes - 1);
    long rel = shmemi.my_pe - start;
    if (rel < 0 || rel % stride || rel / stride >= size)
        shmemi_fatal("%s: PE %d is not in the active set (PE_start %d, logPE_stride %d, PE_size "
                     "%d)",
                     fn, shmemi.my_pe, start, log_stride, size);
    if (size == 1)
        return;
    /* pSync[0] counts in on the first PE (an AMO, whatever row reaches it);
     * pSync[1] of each member is its release word. Checked symmetric either
     * way. */
    long *count = shmemi_remote(&psync[0], 2 * sizeof(long), shmemi.my_pe, fn);
    long *release = &psync[1];
    /* Every PE: the dissemination barrier of shmem_sync_all, one message a
     * PE a round where counting in on the first PE and its release are two
     * in turn (two PEs: 13 us against 26 over tcp, 0.27 against 0.42 on one
     * node). pSync stays as it is, SHMEM_SYNC_VALUE. Not where another thread
     * may be in a barrier of WORLD meanwhile (SHMEM_THREAD_MULTIPLE): the
     * two would share its epochs. */
    if (start == 0 && size == shmemi.n_pes &&
        __atomic_load_n(&shmemi.thread_asked, __ATOMIC_RELAXED) < SHMEM_THREAD_MULTIPLE) {
        shmemi_sync_all(fn);
        return;
    }
    struct shmemi_spin s = {0};
    shmemi_spin_watch(&s, shmemi.my_pe == start ? (void *)count : (void *)release, sizeof(long));
    if (shmemi.my_pe == start) {
        while (__atomic_load_n(count, __ATOMIC_ACQUIRE) != size - 1)
            shmemi_spin(&s);
        shmemi_spin_end(&s);
        __atomic_store_n(count, SHMEM_SYNC_VALUE, __ATOMIC_RELAXED);
        for (int i = 1; i < size; i++)
            shmemi_sym_store(release, 1, start + (int)(i * stride), fn);
    } else {
        shmemi_sym_amo(&psync[0], start, SHMEMI_AMO_ADD, 1, 0, fn);
        while (__atomic_load_n(release, __ATOMIC_ACQUIRE) != 1)
            shmemi_spin(&s);
        shmemi_spin_end(&s);
        __atomic_store_n(release, SHMEM_SYNC_VALUE, __ATOMIC_RELAXED);
    }
}

void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync) {
    shmemi_check_init(__func__);
    shmemi_paths_check(SHMEMI_CHECK_SYNC, __func__);
    shmemi_quiet(shmemi_ctx_default_handle, __func__);
    shmemi_sync_active_set(PE_start, logPE_stride, PE_size, pSync, __func__);
}

void shmem_sync(int PE_start, int logPE_stride, int PE_size, long *pSync) {
    shmemi_check_init(__func__);
    shmemi_paths_check(SHMEMI_CHECK_SYNC, __func__);
    shmemi_sync_active_set(PE_start, logPE_stride, PE_size, pSync, __func__);
}

/* Cache management of old Cray systems: nothing to do on coherent memory. */
void shmem_clear_cache_inv(void) {}
void shmem_set_cache_inv(void) {}
void shmem_clear_cache_line_inv(void *dest) { (void)dest; }
void shmem_set_cache_line_inv(void *dest) { (void)dest; }
void shmem_udcflush(void) {}
void shmem_udcflush_line(void *dest) { (void)dest; }

/* ----------------------------------------------- point-to-point: wait/test */

static void bad_cmp(int cmp, const char *fn) __attribute__((noreturn));
static void bad_cmp(int cmp, const char *fn) {
    shmemi_fatal("%s: comparison %d is not one of the SHMEM_CMP_* constants", fn, cmp);
}

/* The ivars are written by peers; read them with acquire loads so that data
 * put before the update is visible once the comparison holds. */
void shmemi_ivars_check(const void *ivars, size_t nelems, size_t esize, const char *fn) {
    shmemi_check_init(fn);
    struct shmemi_route r;
    if (nelems)
        shmemi_route_pe(&r, ivars, shmemi_bytes(nelems, esize, fn), shmemi.my_pe, fn);
}

/* Through the row that reaches the word: on the direct row an acquire load;
 * on the device heap's row a one-element runtime copy on every turn of a
 * wait (slow, but it sees every writer: peers' kernels, copy engines and
 * host AMOs). */
void shmemi_ivar_load(const void *ivar, size_t esize, void *out, const char *fn) {
    struct shmemi_route r;
    shmemi_route_pe(&r, ivar, esize, shmemi.my_pe, fn);
    r.path->load(&r, out, esize, fn);
}

/* The _any routines must not starve an index: a caller that tests until
 * every index has been returned once (the specification's own example does)
 * must see each of them, although index 0 may satisfy the comparison every
 * time. So each scan starts just after the index the last call on the same
 * array returned, and wraps around. The cursor is kept per thread, for the
 * last few arrays a thread waited on (evicted in turn): no lock, and threads
 * that test the same array do not disturb each other's order. */
struct any_cursor {
    const void *ivars;
    size_t next; /* where the next scan of ivars starts */
};
#define ANY_CURSORS 8
static _Thread_local struct any_cursor any_cursors[ANY_CURSORS];
static _Thread_local unsigned any_evict;

static struct any_cursor *any_cursor(const void *ivars, size_t n) {
    for (int k = 0; k < ANY_CURSORS; k++) {
        struct any_cursor *c = &any_cursors[k];
        if (c->ivars == ivars) {
            if (c->next >= n) /* the same array, called with fewer elements */
                c->next = 0;
            return c;
        }
    }
    struct any_cursor *c = &any_cursors[any_evict++ % ANY_CURSORS];
    *c = (struct any_cursor){ivars, 0};
    return c;
}

/* Note the index an _any routine returns (SIZE_MAX: none) and return it. */
static size_t any_returned(struct any_cursor *c, size_t i) {
    if (i != SIZE_MAX)
        c->next = i + 1;
    return i;
}

/* A test that finds its condition unmet lets the rows that move data only
 * in a caller's progress (a fabric with manual progress) have a turn: a
 * program that polls with shmem_test, on both sides, neither waiting in the
 * library, would otherwise never see a peer's put arrive (nor send its own).
 * Where the waits yield (shmemi_spin_yields: more PEs than CPUs), it also
 * yields: the thread that wants the core is most likely the PE whose store
 * the caller polls for. A token passed around 4 PEs
 * on 2 CPUs, each polling with shmem_test: 21 us a hop against 10.4 ms
 * (a time slice); over tcp 175 us against 10.6 ms. */
static inline size_t tested(size_t met, size_t none) {
    if (met == none) {
        shmemi_paths_progress();
        if (shmemi_spin_yields())
            sched_yield();
    }
    return met;
}

#define SHMEMI_P2P_CORE(T, N)                                                                      \
    static inline T load_##N(const T *p, const char *fn) {                                         \
        T x;                                                                                       \
        shmemi_ivar_load(p, sizeof(T), &x, fn);                                                    \
        return x;                                                                                  \
    }                                                                                              \
    static inline int cmp_##N(T *p, int cmp, T v, const char *fn) {                                \
        T x = load_##N(p, fn);                                                                     \
        switch (cmp) {                                                                             \
        case SHMEM_CMP_EQ: return x == v;                                                          \
        case SHMEM_CMP_NE: return x != v;                                                          \
        case SHMEM_CMP_GT: return x > v;                                                           \
        case SHMEM_CMP_GE: return x >= v;                                                          \
        case SHMEM_CMP_LT: return x < v;                                                           \
        case SHMEM_CMP_LE: return x <= v;                                                          \
        default: bad_cmp(cmp, fn);                                                                 \
        }                                                                                          \
    }                                                                                              \
    static void check_##N(const T *p, size_t n, const char *fn) {                                  \
        shmemi_ivars_check(p, n, sizeof(T), fn);                                                   \
    }                                                                                              \
    static void wait_until_##N(T *ivar, int cmp, T v, const char *fn) {                            \
        check_##N(ivar, 1, fn);                                                                    \
        struct shmemi_spin s = {0};                                                                \
        shmemi_spin_watch(&s, ivar, sizeof(T));                                                    \
        while (!cmp_##N(ivar, cmp, v, fn))                                                         \
            shmemi_spin(&s);                                                                       \
        shmemi_spin_end(&s);                                                                       \
    }                                                                                              \
    /* The array forms: `vals` is NULL for one value, else one per element. */                     \
    static int all_##N(T *iv, size_t n, const int *st, int cmp, T v, const T *vals,                \
                       const char *fn) {                                                           \
        for (size_t i = 0; i < n; i++)                                                             \
            if (!(st && st[i]) && !cmp_##N(&iv[i], cmp, vals ? vals[i] : v, fn))                   \
                return 0;                                                                          \
        return 1;                                                                                  \
    }                                                                                              \
    /* The scan starts at index `from` and wraps around (see any_cursor). */                       \
    static size_t any_##N(T *iv, size_t n, const int *st, int cmp, T v, const T *vals,             \
                          size_t from, int *live, const char *fn) {                                \
        *live = 0;                                                                                 \
        for (size_t k = 0, i = from; k < n; k++, i = i + 1 < n ? i + 1 : 0) {                      \
            if (st && st[i])                                                                       \
                continue;                                                                          \
            *live = 1;                                                                             \
            if (cmp_##N(&iv[i], cmp, vals ? vals[i] : v, fn))                                      \
                return i;                                                                          \
        }                                                                                          \
        return SIZE_MAX;                                                                           \
    }                                                                                              \
    static size_t some_##N(T *iv, size_t n, size_t *idx, const int *st, int cmp, T v,              \
                           const T *vals, int *live, const char *fn) {                             \
        size_t k = 0;                                                                              \
        *live = 0;                                                                                 \
        for (size_t i = 0; i < n; i++) {                                                           \
            if (st && st[i])                                                                       \
                continue;                                                                          \
            *live = 1;                                                                             \
            if (cmp_##N(&iv[i], cmp, vals ? vals[i] : v, fn))                                      \
                idx[k++] = i;                                                                      \
        }                                                                                          \
        return k;                                                                                  \
    }                                                                                              \
    static void wait_all_##N(T *iv, size_t n, const int *st, int cmp, T v, const T *vals,          \
                             const char *fn) {                                                     \
        check_##N(iv, n, fn);                                                                      \
        struct shmemi_spin s = {0};                                                                \
        shmemi_spin_watch(&s, iv, n * sizeof(T));                                                  \
        while (!all_##N(iv, n, st, cmp, v, vals, fn))                                              \
            shmemi_spin(&s);                                                                       \
        shmemi_spin_end(&s);                                                                       \
    }                                                                                              \
    static size_t test_any_##N(T *iv, size_t n, const int *st, int cmp, T v, const T *vals,        \
                               const char *fn) {                                                   \
        check_##N(iv, n, fn);                                                                      \
        struct any_cursor *c = any_cursor(iv, n);                                                  \
        int live;                                                                                  \
        size_t i = any_##N(iv, n, st, cmp, v, vals, c->next, &live, fn);                           \
        return any_returned(c, tested(i, live ? SIZE_MAX : 0));                                    \
    }                                                                                              \
    static size_t wait_any_##N(T *iv, size_t n, const int *st, int cmp, T v, const T *vals,        \
                               const char *fn) {                                                   \
        check_##N(iv, n, fn);                                                                      \
        struct any_cursor *c = any_cursor(iv, n);                                                  \
        struct shmemi_spin s = {0};                                                                \
        shmemi_spin_watch(&s, iv, n * sizeof(T));                                                  \
        int live;                                                                                  \
        for (;;) {                                                                                 \
            size_t i = any_##N(iv, n, st, cmp, v, vals, c->next, &live, fn);                       \
            if (i != SIZE_MAX || !live) {                                                          \
                shmemi_spin_end(&s);                                                               \
                return any_returned(c, i);                                                         \
            }                                                                                      \
            shmemi_spin(&s);                                                                       \
        }                                                                                          \
    }                                                                                              \
    static size_t wait_some_##N(T *iv, size_t n, size_t *idx, const int *st, int cmp, T v,         \
                                const T *vals, const char *fn) {                                   \
        check_##N(iv, n, fn);                                                                      \
        struct shmemi_spin s = {0};                                                                \
        shmemi_spin_watch(&s, iv, n * sizeof(T));                                                  \
        int live;                                                                                  \
        for (;;) {                                                                                 \
            size_t k = some_##N(iv, n, idx, st, cmp, v, vals, &live, fn);                          \
            if (k || !live) {                                                                      \
                shmemi_spin_end(&s);                                                               \
                return k;                                                                          \
            }                                                                                      \
            shmemi_spin(&s);                                                                       \
        }                                                                                          \
    }
SHMEMI_P2P_ALL_TYPES(SHMEMI_P2P_CORE)

/* The bodies of the point-to-point rows of the op table: V is the one
 * comparison value, VALS the vector of them (or NULL). */
#define SHMEMI_B_WAIT_UNTIL(N) wait_until_##N(ivar, cmp, cmp_value, __func__);
#define SHMEMI_B_WAIT(N) wait_until_##N(ivar, SHMEM_CMP_NE, cmp_value, __func__);
#define SHMEMI_B_TEST(N)                                                                           \
    check_##N(ivar, 1, __func__);                                                                  \
    return (int)tested((size_t)cmp_##N(ivar, cmp, cmp_value, __func__), 0);
#define SHMEMI_B_WAIT_ALL(N, V, VALS) wait_all_##N(ivars, nelems, status, cmp, V, VALS, __func__);
#define SHMEMI_B_WAIT_ANY(N, V, VALS)                                                              \
    return wait_any_##N(ivars, nelems, status, cmp, V, VALS, __func__);
#define SHMEMI_B_WAIT_SOME(N, V, VALS)                                                             \
    return wait_some_##N(ivars, nelems, indices, status, cmp, V, VALS, __func__);
#define SHMEMI_B_TEST_ALL(N, V, VALS)                                                              \
    check_##N(ivars, nelems, __func__);                                                            \
    return (int)tested((size_t)all_##N(ivars, nelems, status, cmp, V, VALS, __func__), 0);
#define SHMEMI_B_TEST_ANY(N, V, VALS)                                                              \
    return test_any_##N(ivars, nelems, status, cmp, V, VALS, __func__);
#define SHMEMI_B_TEST_SOME(N, V, VALS)                                                             \
    int live;                                                                                      \
    check_##N(ivars, nelems, __func__);                                                            \
    size_t k = some_##N(ivars, nelems, indices, status, cmp, V, VALS, &live, __func__);            \
    return tested(k, live ? 0 : SIZE_MAX);
#include "shmem/api_define.h"

void shmem_wait(long *ivar, long cmp_value) {
    wait_until_long(ivar, SHMEM_CMP_NE, cmp_value, __func__);
}
void shmem_wait_until(long *ivar, int cmp, long cmp_value) {
    wait_until_long(ivar, cmp, cmp_value, __func__);
}

/* ------------------------------------------------------------------ signals */

uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value) {
    wait_until_uint64(sig_addr, cmp, cmp_value, __func__);
    return load_uint64(sig_addr, __func__);
}
