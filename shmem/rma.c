/* RMA: put, get, p, g, iput, iget, their _nbi forms and put-with-signal.
 *
 * On this node a peer's memory is mapped here: a put is a copy into the
 * peer's mapping. Non-blocking transfers of at least SHMEM_NBI_THRESHOLD
 * bytes go to the copy engine and complete at quiet. */
#include "shmem/shmemi.h"

#include "shmem/engine.h"

void shmemi_put(shmem_ctx_t ctx, void *dest, const void *src, size_t bytes, int pe, int nbi,
                const char *fn) {
    struct shmemi_ctx *c = shmemi_ctx_check(ctx, fn);
    void *r = shmemi_remote(dest, bytes, pe, fn);
    if (nbi && bytes >= shmemi.cfg.NBI_THRESHOLD && shmemi_engine_copy(c, r, src, bytes, pe))
        return;
    memcpy(r, src, bytes);
}

void shmemi_get(shmem_ctx_t ctx, void *dest, const void *src, size_t bytes, int pe, int nbi,
                const char *fn) {
    struct shmemi_ctx *c = shmemi_ctx_check(ctx, fn);
    const void *r = shmemi_remote(src, bytes, pe, fn);
    if (nbi && bytes >= shmemi.cfg.NBI_THRESHOLD && shmemi_engine_copy(c, dest, r, bytes, pe))
        return;
    memcpy(dest, r, bytes);
}

/* The extent [lowest, highest byte] of a strided access, for the bounds
 * check done once per call. */
static void strided_extent(const char *base, ptrdiff_t stride, size_t nelems, size_t esize,
                           const char **lo, size_t *len, const char *fn) {
    if (stride <= 0)
        shmemi_fatal("%s: stride %td must be positive", fn, stride);
    size_t span;
    if (__builtin_mul_overflow((size_t)stride, nelems - 1, &span) ||
        __builtin_mul_overflow(span, esize, &span) || __builtin_add_overflow(span, esize, &span))
        shmemi_fatal("%s: %zu elements with stride %td overflow the address space", fn, nelems,
                     stride);
    *lo = base;
    *len = span;
}

void shmemi_iput(shmem_ctx_t ctx, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst,
                 size_t nelems, size_t esize, int pe, const char *fn) {
    shmemi_ctx_check(ctx, fn);
    if (!nelems) {
        shmemi_remote(dest, 0, pe, fn);
        return;
    }
    const char *lo;
    size_t len;
    strided_extent(dest, dst, nelems, esize, &lo, &len, fn);
    char *r = shmemi_remote(lo, len, pe, fn);
    const char *s = src;
    if (sst <= 0)
        shmemi_fatal("%s: source stride %td must be positive", fn, sst);
    size_t ds = (size_t)dst * esize, ss = (size_t)sst * esize;
    for (size_t i = 0; i < nelems; i++, r += ds, s += ss)
        memcpy(r, s, esize);
}

void shmemi_iget(shmem_ctx_t ctx, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst,
                 size_t nelems, size_t esize, int pe, const char *fn) {
    shmemi_ctx_check(ctx, fn);
    if (!nelems) {
        shmemi_remote(src, 0, pe, fn);
        return;
    }
    const char *lo;
    size_t len;
    strided_extent(src, sst, nelems, esize, &lo, &len, fn);
    const char *r = shmemi_remote(lo, len, pe, fn);
    char *d = dest;
    if (dst <= 0)
        shmemi_fatal("%s: target stride %td must be positive", fn, dst);
    size_t ds = (size_t)dst * esize, ss = (size_t)sst * esize;
    for (size_t i = 0; i < nelems; i++, d += ds, r += ss)
        memcpy(d, r, esize);
}

void shmemi_put_signal(shmem_ctx_t ctx, void *dest, const void *src, size_t bytes,
                       uint64_t *sig_addr, uint64_t signal, int sig_op, int pe, int nbi,
                       const char *fn) {
    struct shmemi_ctx *c = shmemi_ctx_check(ctx, fn);
    void *r = shmemi_remote(dest, bytes, pe, fn);
    uint64_t *rs = shmemi_remote(sig_addr, sizeof(*sig_addr), pe, fn);
    if (sig_op != SHMEM_SIGNAL_SET && sig_op != SHMEM_SIGNAL_ADD)
        shmemi_fatal("%s: signal operation %d is neither SHMEM_SIGNAL_SET nor SHMEM_SIGNAL_ADD",
                     fn, sig_op);
    if (nbi && bytes >= shmemi.cfg.NBI_THRESHOLD &&
        shmemi_engine_copy_signal(c, r, src, bytes, rs, signal, sig_op, pe))
        return;
    memcpy(r, src, bytes);
    /* Release the data before the signal: whoever observes the signal (an
     * acquire load in wait_until / signal_wait_until) sees the data. A full
     * fence, because large copies may use non-temporal stores. */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (sig_op == SHMEM_SIGNAL_SET)
        __atomic_store_n(rs, signal, __ATOMIC_RELEASE);
    else
        __atomic_fetch_add(rs, signal, __ATOMIC_RELEASE);
}

/* ------------------------------------------------------------ public names */

#define CTX_DEF shmemi_ctx_default_handle

#define SHMEMI_DEF_RMA(T, N)                                                                  \
    void shmem_ctx_##N##_put(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe) { \
        shmemi_put(ctx, dest, source, shmemi_bytes(nelems, sizeof(T), __func__), pe, 0, __func__); \
    }                                                                                         \
    void shmem_##N##_put(T *dest, const T *source, size_t nelems, int pe) {                   \
        shmemi_put(CTX_DEF, dest, source, shmemi_bytes(nelems, sizeof(T), __func__), pe, 0, __func__); \
    }                                                                                         \
    void shmem_ctx_##N##_get(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe) { \
        shmemi_get(ctx, dest, source, shmemi_bytes(nelems, sizeof(T), __func__), pe, 0, __func__); \
    }                                                                                         \
    void shmem_##N##_get(T *dest, const T *source, size_t nelems, int pe) {                   \
        shmemi_get(CTX_DEF, dest, source, shmemi_bytes(nelems, sizeof(T), __func__), pe, 0, __func__); \
    }                                                                                         \
    void shmem_ctx_##N##_put_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe) { \
        shmemi_put(ctx, dest, source, shmemi_bytes(nelems, sizeof(T), __func__), pe, 1, __func__); \
    }                                                                                         \
    void shmem_##N##_put_nbi(T *dest, const T *source, size_t nelems, int pe) {               \
        shmemi_put(CTX_DEF, dest, source, shmemi_bytes(nelems, sizeof(T), __func__), pe, 1, __func__); \
    }                                                                                         \
    void shmem_ctx_##N##_get_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe) { \
        shmemi_get(ctx, dest, source, shmemi_bytes(nelems, sizeof(T), __func__), pe, 1, __func__); \
    }                                                                                         \
    void shmem_##N##_get_nbi(T *dest, const T *source, size_t nelems, int pe) {               \
        shmemi_get(CTX_DEF, dest, source, shmemi_bytes(nelems, sizeof(T), __func__), pe, 1, __func__); \
    }                                                                                         \
    void shmem_ctx_##N##_p(shmem_ctx_t ctx, T *dest, T value, int pe) {                       \
        shmemi_ctx_check(ctx, __func__);                                                      \
        T *r = shmemi_remote(dest, sizeof(T), pe, __func__);                                  \
        memcpy(r, &value, sizeof(T));                                                         \
    }                                                                                         \
    void shmem_##N##_p(T *dest, T value, int pe) {                                            \
        T *r = shmemi_remote(dest, sizeof(T), pe, __func__);                                  \
        memcpy(r, &value, sizeof(T));                                                         \
    }                                                                                         \
    T shmem_ctx_##N##_g(shmem_ctx_t ctx, const T *source, int pe) {                           \
        shmemi_ctx_check(ctx, __func__);                                                      \
        const T *r = shmemi_remote(source, sizeof(T), pe, __func__);                          \
        T v;                                                                                  \
        memcpy(&v, r, sizeof(T));                                                             \
        return v;                                                                             \
    }                                                                                         \
    T shmem_##N##_g(const T *source, int pe) {                                                \
        const T *r = shmemi_remote(source, sizeof(T), pe, __func__);                          \
        T v;                                                                                  \
        memcpy(&v, r, sizeof(T));                                                             \
        return v;                                                                             \
    }                                                                                         \
    void shmem_ctx_##N##_iput(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst,       \
                              ptrdiff_t sst, size_t nelems, int pe) {                         \
        shmemi_iput(ctx, dest, source, dst, sst, nelems, sizeof(T), pe, __func__);            \
    }                                                                                         \
    void shmem_##N##_iput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, \
                          int pe) {                                                           \
        shmemi_iput(CTX_DEF, dest, source, dst, sst, nelems, sizeof(T), pe, __func__);        \
    }                                                                                         \
    void shmem_ctx_##N##_iget(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst,       \
                              ptrdiff_t sst, size_t nelems, int pe) {                         \
        shmemi_iget(ctx, dest, source, dst, sst, nelems, sizeof(T), pe, __func__);            \
    }                                                                                         \
    void shmem_##N##_iget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, \
                          int pe) {                                                           \
        shmemi_iget(CTX_DEF, dest, source, dst, sst, nelems, sizeof(T), pe, __func__);        \
    }                                                                                         \
    void shmem_ctx_##N##_put_signal(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, \
                                    uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) { \
        shmemi_put_signal(ctx, dest, source, shmemi_bytes(nelems, sizeof(T), __func__), sig_addr, \
                          signal, sig_op, pe, 0, __func__);                                   \
    }                                                                                         \
    void shmem_##N##_put_signal(T *dest, const T *source, size_t nelems, uint64_t *sig_addr,  \
                                uint64_t signal, int sig_op, int pe) {                        \
        shmemi_put_signal(CTX_DEF, dest, source, shmemi_bytes(nelems, sizeof(T), __func__),   \
                          sig_addr, signal, sig_op, pe, 0, __func__);                         \
    }                                                                                         \
    void shmem_ctx_##N##_put_signal_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, \
                                        uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) { \
        shmemi_put_signal(ctx, dest, source, shmemi_bytes(nelems, sizeof(T), __func__), sig_addr, \
                          signal, sig_op, pe, 1, __func__);                                   \
    }                                                                                         \
    void shmem_##N##_put_signal_nbi(T *dest, const T *source, size_t nelems, uint64_t *sig_addr, \
                                    uint64_t signal, int sig_op, int pe) {                    \
        shmemi_put_signal(CTX_DEF, dest, source, shmemi_bytes(nelems, sizeof(T), __func__),   \
                          sig_addr, signal, sig_op, pe, 1, __func__);                         \
    }
SHMEMI_RMA_TYPES(SHMEMI_DEF_RMA)

/* Sized and untyped forms: an element of BITS/8 bytes ("mem" = 1 byte). */
#define SHMEMI_DEF_BYTES(NAME, ESIZE)                                                         \
    void shmem_ctx_put##NAME(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe) { \
        shmemi_put(ctx, dest, source, shmemi_bytes(nelems, ESIZE, __func__), pe, 0, __func__); \
    }                                                                                         \
    void shmem_put##NAME(void *dest, const void *source, size_t nelems, int pe) {             \
        shmemi_put(CTX_DEF, dest, source, shmemi_bytes(nelems, ESIZE, __func__), pe, 0, __func__); \
    }                                                                                         \
    void shmem_ctx_get##NAME(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe) { \
        shmemi_get(ctx, dest, source, shmemi_bytes(nelems, ESIZE, __func__), pe, 0, __func__); \
    }                                                                                         \
    void shmem_get##NAME(void *dest, const void *source, size_t nelems, int pe) {             \
        shmemi_get(CTX_DEF, dest, source, shmemi_bytes(nelems, ESIZE, __func__), pe, 0, __func__); \
    }                                                                                         \
    void shmem_ctx_put##NAME##_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, \
                                   int pe) {                                                  \
        shmemi_put(ctx, dest, source, shmemi_bytes(nelems, ESIZE, __func__), pe, 1, __func__); \
    }                                                                                         \
    void shmem_put##NAME##_nbi(void *dest, const void *source, size_t nelems, int pe) {       \
        shmemi_put(CTX_DEF, dest, source, shmemi_bytes(nelems, ESIZE, __func__), pe, 1, __func__); \
    }                                                                                         \
    void shmem_ctx_get##NAME##_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, \
                                   int pe) {                                                  \
        shmemi_get(ctx, dest, source, shmemi_bytes(nelems, ESIZE, __func__), pe, 1, __func__); \
    }                                                                                         \
    void shmem_get##NAME##_nbi(void *dest, const void *source, size_t nelems, int pe) {       \
        shmemi_get(CTX_DEF, dest, source, shmemi_bytes(nelems, ESIZE, __func__), pe, 1, __func__); \
    }                                                                                         \
    void shmem_ctx_put##NAME##_signal(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, \
                                      uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) { \
        shmemi_put_signal(ctx, dest, source, shmemi_bytes(nelems, ESIZE, __func__), sig_addr,  \
                          signal, sig_op, pe, 0, __func__);                                   \
    }                                                                                         \
    void shmem_put##NAME##_signal(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, \
                                  uint64_t signal, int sig_op, int pe) {                      \
        shmemi_put_signal(CTX_DEF, dest, source, shmemi_bytes(nelems, ESIZE, __func__),       \
                          sig_addr, signal, sig_op, pe, 0, __func__);                         \
    }                                                                                         \
    void shmem_ctx_put##NAME##_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source,    \
                                          size_t nelems, uint64_t *sig_addr, uint64_t signal, \
                                          int sig_op, int pe) {                               \
        shmemi_put_signal(ctx, dest, source, shmemi_bytes(nelems, ESIZE, __func__), sig_addr,  \
                          signal, sig_op, pe, 1, __func__);                                   \
    }                                                                                         \
    void shmem_put##NAME##_signal_nbi(void *dest, const void *source, size_t nelems,          \
                                      uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) { \
        shmemi_put_signal(CTX_DEF, dest, source, shmemi_bytes(nelems, ESIZE, __func__),       \
                          sig_addr, signal, sig_op, pe, 1, __func__);                         \
    }

#define SHMEMI_DEF_SIZED(B)                                                                   \
    SHMEMI_DEF_BYTES(B, (B) / 8)                                                              \
    void shmem_ctx_iput##B(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst,     \
                           ptrdiff_t sst, size_t nelems, int pe) {                            \
        shmemi_iput(ctx, dest, source, dst, sst, nelems, (B) / 8, pe, __func__);              \
    }                                                                                         \
    void shmem_iput##B(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, \
                       int pe) {                                                              \
        shmemi_iput(CTX_DEF, dest, source, dst, sst, nelems, (B) / 8, pe, __func__);          \
    }                                                                                         \
    void shmem_ctx_iget##B(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst,     \
                           ptrdiff_t sst, size_t nelems, int pe) {                            \
        shmemi_iget(ctx, dest, source, dst, sst, nelems, (B) / 8, pe, __func__);              \
    }                                                                                         \
    void shmem_iget##B(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, \
                       int pe) {                                                              \
        shmemi_iget(CTX_DEF, dest, source, dst, sst, nelems, (B) / 8, pe, __func__);          \
    }
SHMEMI_RMA_SIZES(SHMEMI_DEF_SIZED)
SHMEMI_DEF_BYTES(mem, 1)

uint64_t shmem_signal_fetch(const uint64_t *sig_addr) {
    const uint64_t *r = shmemi_remote(sig_addr, sizeof(*sig_addr), shmemi.my_pe, __func__);
    return __atomic_load_n(r, __ATOMIC_ACQUIRE);
}
