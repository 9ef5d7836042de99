/* Ordering, completion, barriers and point-to-point synchronization. */
#include "shmem/shmemi.h"

/* ------------------------------------------------------- fence and quiet */

/* Every row of the path table completes (or orders) what the context queued
 * on it. A quiet or fence on SHMEM_CTX_INVALID does nothing: the
 * specification's team-context example calls them on PEs outside the team. */
void shmemi_quiet(shmem_ctx_t ctx, const char *fn) {
    shmemi_check_init(fn);
    if (ctx == SHMEM_CTX_INVALID)
        return;
    shmemi_paths_quiet(ctx, -1, fn);
}

void shmemi_fence(shmem_ctx_t ctx, const char *fn) {
    shmemi_check_init(fn);
    if (ctx == SHMEM_CTX_INVALID)
        return;
    shmemi_paths_fence(ctx, -1, fn);
}

void shmemi_pe_quiet(shmem_ctx_t ctx, const int *pes, size_t npes, const char *fn) {
    shmemi_check_init(fn);
    if (ctx == SHMEM_CTX_INVALID)
        return;
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
void shmemi_sync_all(void) {
    int n = shmemi.n_pes, me = shmemi.my_pe;
    uint64_t epoch = ++shmemi.barrier_epoch;
    struct shmemi_ctl *mine = shmemi_ctl_of(me);
    for (int k = 0, dist = 1; dist < n; k++, dist <<= 1) {
        struct shmemi_ctl *to = shmemi_ctl_of((me + dist) % n);
        /* Release: everything this PE stored before the barrier is visible
         * to whoever acquires this word. */
        __atomic_store_n(&to->barrier[k].v, epoch, __ATOMIC_RELEASE);
        shmemi_wake_at((me + dist) % n, &to->barrier[k].v, sizeof(uint64_t));
        struct shmemi_spin s = {0};
        shmemi_spin_watch(&s, &mine->barrier[k].v, sizeof(uint64_t));
        while (__atomic_load_n(&mine->barrier[k].v, __ATOMIC_ACQUIRE) < epoch)
            shmemi_spin(&s);
        shmemi_spin_end(&s);
    }
}

void shmemi_barrier_all(void) {
    shmemi_quiet(shmemi_ctx_default_handle, "shmem_barrier_all");
    shmemi_sync_all();
}

void shmem_barrier_all(void) {
    shmemi_check_init(__func__);
    shmemi_paths_check(0, __func__);
    shmemi_barrier_all();
}

void shmem_sync_all(void) {
    shmemi_check_init(__func__);
    shmemi_sync_all();
}

/* Active-set barrier on the caller's pSync, restored to SHMEM_SYNC_VALUE on
 * return: members count in on the first PE's pSync[0]; the first PE waits for
 * all of them, resets its counter and releases each member through the
 * member's pSync[1]. */
void shmemi_sync_active_set(int start, int log_stride, int size, long *psync, const char *fn) {
    shmemi_check_init(fn);
    if (size < 1 || start < 0 || log_stride < 0 || log_stride > 30)
        shmemi_fatal("%s: invalid active set (PE_start %d, logPE_stride %d, PE_size %d)", fn,
                     start, log_stride, size);
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
    long *count = shmemi_remote(&psync[0], sizeof(long), start, fn);
    long *release = &psync[1];
    shmemi_remote(release, sizeof(long), shmemi.my_pe, fn);
    struct shmemi_spin s = {0};
    shmemi_spin_watch(&s, shmemi.my_pe == start ? (void *)count : (void *)release, sizeof(long));
    if (shmemi.my_pe == start) {
        while (__atomic_load_n(count, __ATOMIC_ACQUIRE) != size - 1)
            shmemi_spin(&s);
        shmemi_spin_end(&s);
        __atomic_store_n(count, SHMEM_SYNC_VALUE, __ATOMIC_RELAXED);
        for (int i = 1; i < size; i++) {
            int pe = start + (int)(i * stride);
            long *r = shmemi_remote(release, sizeof(long), pe, fn);
            __atomic_store_n(r, 1L, __ATOMIC_RELEASE);
            shmemi_wake_at(pe, r, sizeof(long));
        }
    } else {
        __atomic_fetch_add(count, 1, __ATOMIC_ACQ_REL);
        shmemi_wake_at(start, count, sizeof(long));
        while (__atomic_load_n(release, __ATOMIC_ACQUIRE) != 1)
            shmemi_spin(&s);
        shmemi_spin_end(&s);
        __atomic_store_n(release, SHMEM_SYNC_VALUE, __ATOMIC_RELAXED);
    }
}

void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync) {
    shmemi_check_init(__func__);
    shmemi_quiet(shmemi_ctx_default_handle, __func__);
    shmemi_sync_active_set(PE_start, logPE_stride, PE_size, pSync, __func__);
}

void shmem_sync(int PE_start, int logPE_stride, int PE_size, long *pSync) {
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

#define SHMEMI_DEF_P2P(T, N)                                                                  \
    static inline T load_##N(const T *p, const char *fn) {                                    \
        T x;                                                                                  \
        shmemi_ivar_load(p, sizeof(T), &x, fn);                                               \
        return x;                                                                             \
    }                                                                                         \
    static inline int cmp_##N(T *p, int cmp, T v, const char *fn) {                           \
        T x = load_##N(p, fn);                                                                \
        switch (cmp) {                                                                        \
        case SHMEM_CMP_EQ: return x == v;                                                     \
        case SHMEM_CMP_NE: return x != v;                                                     \
        case SHMEM_CMP_GT: return x > v;                                                      \
        case SHMEM_CMP_GE: return x >= v;                                                     \
        case SHMEM_CMP_LT: return x < v;                                                      \
        case SHMEM_CMP_LE: return x <= v;                                                     \
        default: bad_cmp(cmp, fn);                                                            \
        }                                                                                     \
    }                                                                                         \
    static void check_##N(const T *p, size_t n, const char *fn) {                             \
        shmemi_ivars_check(p, n, sizeof(T), fn);                                              \
    }                                                                                         \
    int shmem_##N##_test(T *ivar, int cmp, T cmp_value) {                                     \
        check_##N(ivar, 1, __func__);                                                         \
        return cmp_##N(ivar, cmp, cmp_value, __func__);                                       \
    }                                                                                         \
    void shmem_##N##_wait_until(T *ivar, int cmp, T cmp_value) {                              \
        check_##N(ivar, 1, __func__);                                                         \
        struct shmemi_spin s = {0};                                                           \
        shmemi_spin_watch(&s, ivar, sizeof(T));                                               \
        while (!cmp_##N(ivar, cmp, cmp_value, __func__))                                      \
            shmemi_spin(&s);                                                                  \
        shmemi_spin_end(&s);                                                                  \
    }                                                                                         \
    /* The array forms: `vals` is NULL for one value, else one per element. */                \
    static int all_##N(T *iv, size_t n, const int *st, int cmp, T v, const T *vals, const char *fn) { \
        for (size_t i = 0; i < n; i++)                                                        \
            if (!(st && st[i]) && !cmp_##N(&iv[i], cmp, vals ? vals[i] : v, fn))              \
                return 0;                                                                     \
        return 1;                                                                             \
    }                                                                                         \
    static size_t any_##N(T *iv, size_t n, const int *st, int cmp, T v, const T *vals, int *live, \
                          const char *fn) {                                                   \
        *live = 0;                                                                            \
        for (size_t i = 0; i < n; i++) {                                                      \
            if (st && st[i])                                                                  \
                continue;                                                                     \
            *live = 1;                                                                        \
            if (cmp_##N(&iv[i], cmp, vals ? vals[i] : v, fn))                                 \
                return i;                                                                     \
        }                                                                                     \
        return SIZE_MAX;                                                                      \
    }                                                                                         \
    static size_t some_##N(T *iv, size_t n, size_t *idx, const int *st, int cmp, T v, const T *vals, \
                           int *live, const char *fn) {                                       \
        size_t k = 0;                                                                         \
        *live = 0;                                                                            \
        for (size_t i = 0; i < n; i++) {                                                      \
            if (st && st[i])                                                                  \
                continue;                                                                     \
            *live = 1;                                                                        \
            if (cmp_##N(&iv[i], cmp, vals ? vals[i] : v, fn))                                 \
                idx[k++] = i;                                                                 \
        }                                                                                     \
        return k;                                                                             \
    }                                                                                         \
    static void wait_all_##N(T *iv, size_t n, const int *st, int cmp, T v, const T *vals,     \
                             const char *fn) {                                                \
        check_##N(iv, n, fn);                                                                 \
        struct shmemi_spin s = {0};                                                           \
        shmemi_spin_watch(&s, iv, n * sizeof(T));                                             \
        while (!all_##N(iv, n, st, cmp, v, vals, fn))                                         \
            shmemi_spin(&s);                                                                  \
        shmemi_spin_end(&s);                                                                  \
    }                                                                                         \
    static size_t wait_any_##N(T *iv, size_t n, const int *st, int cmp, T v, const T *vals,   \
                               const char *fn) {                                              \
        check_##N(iv, n, fn);                                                                 \
        struct shmemi_spin s = {0};                                                           \
        shmemi_spin_watch(&s, iv, n * sizeof(T));                                             \
        int live;                                                                             \
        for (;;) {                                                                            \
            size_t i = any_##N(iv, n, st, cmp, v, vals, &live, fn);                           \
            if (i != SIZE_MAX || !live) {                                                     \
                shmemi_spin_end(&s);                                                          \
                return i;                                                                     \
            }                                                                                 \
            shmemi_spin(&s);                                                                  \
        }                                                                                     \
    }                                                                                         \
    static size_t wait_some_##N(T *iv, size_t n, size_t *idx, const int *st, int cmp, T v,   \
                                const T *vals, const char *fn) {                              \
        check_##N(iv, n, fn);                                                                 \
        struct shmemi_spin s = {0};                                                           \
        shmemi_spin_watch(&s, iv, n * sizeof(T));                                             \
        int live;                                                                             \
        for (;;) {                                                                            \
            size_t k = some_##N(iv, n, idx, st, cmp, v, vals, &live, fn);                     \
            if (k || !live) {                                                                 \
                shmemi_spin_end(&s);                                                          \
                return k;                                                                     \
            }                                                                                 \
            shmemi_spin(&s);                                                                  \
        }                                                                                     \
    }                                                                                         \
    void shmem_##N##_wait_until_all(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value) { \
        wait_all_##N(ivars, nelems, status, cmp, cmp_value, NULL, __func__);                  \
    }                                                                                         \
    size_t shmem_##N##_wait_until_any(T *ivars, size_t nelems, const int *status, int cmp,    \
                                      T cmp_value) {                                          \
        return wait_any_##N(ivars, nelems, status, cmp, cmp_value, NULL, __func__);           \
    }                                                                                         \
    size_t shmem_##N##_wait_until_some(T *ivars, size_t nelems, size_t *indices,              \
                                       const int *status, int cmp, T cmp_value) {             \
        return wait_some_##N(ivars, nelems, indices, status, cmp, cmp_value, NULL, __func__); \
    }                                                                                         \
    void shmem_##N##_wait_until_all_vector(T *ivars, size_t nelems, const int *status, int cmp, \
                                           T *cmp_values) {                                   \
        wait_all_##N(ivars, nelems, status, cmp, 0, cmp_values, __func__);                    \
    }                                                                                         \
    size_t shmem_##N##_wait_until_any_vector(T *ivars, size_t nelems, const int *status, int cmp, \
                                             T *cmp_values) {                                 \
        return wait_any_##N(ivars, nelems, status, cmp, 0, cmp_values, __func__);             \
    }                                                                                         \
    size_t shmem_##N##_wait_until_some_vector(T *ivars, size_t nelems, size_t *indices,       \
                                              const int *status, int cmp, T *cmp_values) {    \
        return wait_some_##N(ivars, nelems, indices, status, cmp, 0, cmp_values, __func__);   \
    }                                                                                         \
    int shmem_##N##_test_all(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value) { \
        check_##N(ivars, nelems, __func__);                                                   \
        return all_##N(ivars, nelems, status, cmp, cmp_value, NULL, __func__);                \
    }                                                                                         \
    size_t shmem_##N##_test_any(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value) { \
        check_##N(ivars, nelems, __func__);                                                   \
        int live;                                                                             \
        return any_##N(ivars, nelems, status, cmp, cmp_value, NULL, &live, __func__);         \
    }                                                                                         \
    size_t shmem_##N##_test_some(T *ivars, size_t nelems, size_t *indices, const int *status, \
                                 int cmp, T cmp_value) {                                      \
        check_##N(ivars, nelems, __func__);                                                   \
        int live;                                                                             \
        return some_##N(ivars, nelems, indices, status, cmp, cmp_value, NULL, &live, __func__); \
    }                                                                                         \
    int shmem_##N##_test_all_vector(T *ivars, size_t nelems, const int *status, int cmp,      \
                                    T *cmp_values) {                                          \
        check_##N(ivars, nelems, __func__);                                                   \
        return all_##N(ivars, nelems, status, cmp, 0, cmp_values, __func__);                  \
    }                                                                                         \
    size_t shmem_##N##_test_any_vector(T *ivars, size_t nelems, const int *status, int cmp,   \
                                       T *cmp_values) {                                       \
        check_##N(ivars, nelems, __func__);                                                   \
        int live;                                                                             \
        return any_##N(ivars, nelems, status, cmp, 0, cmp_values, &live, __func__);           \
    }                                                                                         \
    size_t shmem_##N##_test_some_vector(T *ivars, size_t nelems, size_t *indices,             \
                                        const int *status, int cmp, T *cmp_values) {          \
        check_##N(ivars, nelems, __func__);                                                   \
        int live;                                                                             \
        return some_##N(ivars, nelems, indices, status, cmp, 0, cmp_values, &live, __func__); \
    }
SHMEMI_P2P_TYPES(SHMEMI_DEF_P2P)

#define SHMEMI_DEF_WAIT_DEPR(T, N)                                                            \
    void shmem_##N##_wait(T *ivar, T cmp_value) {                                             \
        shmem_##N##_wait_until(ivar, SHMEM_CMP_NE, cmp_value);                                \
    }
SHMEMI_WAIT_DEPR_TYPES(SHMEMI_DEF_WAIT_DEPR)
void shmem_wait(long *ivar, long cmp_value) { shmem_long_wait_until(ivar, SHMEM_CMP_NE, cmp_value); }
void shmem_wait_until(long *ivar, int cmp, long cmp_value) {
    shmem_long_wait_until(ivar, cmp, cmp_value);
}

/* ------------------------------------------------------------------ signals */

uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value) {
    shmem_uint64_wait_until(sig_addr, cmp, cmp_value);
    return load_uint64(sig_addr, __func__);
}
