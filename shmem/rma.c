/* RMA: put, get, p, g, iput, iget, their _nbi forms and put-with-signal.
 *
 * Each core entry checks its arguments, resolves the route once (context ->
 * team -> world PE -> the row of the path table that reaches the address,
 * shmem/path.h) and hands the operation to that row. A zero-length transfer
 * does nothing (its buffers may be NULL); a zero-length put-with-signal
 * still updates the signal. */
#include "shmem/shmemi.h"

#include "shmem/path_direct.h"

void shmemi_put(shmem_ctx_t ctx, void *dest, const void *src, size_t bytes, int pe, int nbi,
                const char *fn) {
    if (SHMEMI_UNLIKELY(!bytes)) {
        shmemi_check_init(fn);
        return;
    }
    struct shmemi_route r;
    shmemi_route(&r, ctx, dest, bytes, pe, fn);
    shmemi_path_put(ctx, &r, src, bytes, nbi, fn);
}

void shmemi_get(shmem_ctx_t ctx, void *dest, const void *src, size_t bytes, int pe, int nbi,
                const char *fn) {
    if (SHMEMI_UNLIKELY(!bytes)) {
        shmemi_check_init(fn);
        return;
    }
    struct shmemi_route r;
    shmemi_route(&r, ctx, src, bytes, pe, fn);
    shmemi_path_get(ctx, dest, &r, bytes, nbi, fn);
}

/* The byte length of a strided access of nelems (> 0) elements `stride`
 * elements apart, for the bounds check done once per call; its pitch in
 * bytes in *pitch. */
static size_t strided_extent(ptrdiff_t stride, size_t nelems, size_t esize, size_t *pitch,
                             const char *what, const char *fn) {
    if (stride <= 0)
        shmemi_fatal("%s: %s stride %td must be positive", fn, what, stride);
    size_t span;
    if (__builtin_mul_overflow((size_t)stride, nelems - 1, &span) ||
        __builtin_mul_overflow(span, esize, &span) || __builtin_add_overflow(span, esize, &span) ||
        __builtin_mul_overflow((size_t)stride, esize, pitch))
        shmemi_fatal("%s: %zu elements with stride %td overflow the address space", fn, nelems,
                     stride);
    return span;
}

void shmemi_iput(shmem_ctx_t ctx, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst,
                 size_t nelems, size_t esize, int pe, const char *fn) {
    shmemi_check_init(fn);
    if (!nelems)
        return;
    size_t dpitch, spitch;
    size_t len = strided_extent(dst, nelems, esize, &dpitch, "target", fn);
    strided_extent(sst, nelems, esize, &spitch, "source", fn);
    struct shmemi_route r;
    shmemi_route(&r, ctx, dest, len, pe, fn);
    r.path->iput(ctx, &r, dpitch, src, spitch, esize, nelems, fn);
}

void shmemi_iget(shmem_ctx_t ctx, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst,
                 size_t nelems, size_t esize, int pe, const char *fn) {
    shmemi_check_init(fn);
    if (!nelems)
        return;
    size_t dpitch, spitch;
    size_t len = strided_extent(sst, nelems, esize, &spitch, "source", fn);
    strided_extent(dst, nelems, esize, &dpitch, "target", fn);
    struct shmemi_route r;
    shmemi_route(&r, ctx, src, len, pe, fn);
    r.path->iget(ctx, dest, dpitch, &r, spitch, esize, nelems, fn);
}

/* The data, then the signal. On one row, the row keeps that order (one
 * stream, one engine queue, or a fence between a copy and a store); across
 * rows (data on the device heap, signal a static variable, or the other way
 * round) the data is copied blocking first. */
void shmemi_put_signal(shmem_ctx_t ctx, void *dest, const void *src, size_t bytes,
                       uint64_t *sig_addr, uint64_t signal, int sig_op, int pe, int nbi,
                       const char *fn) {
    struct shmemi_route r, rs;
    shmemi_route(&rs, ctx, sig_addr, sizeof(*sig_addr), pe, fn);
    if (sig_op != SHMEM_SIGNAL_SET && sig_op != SHMEM_SIGNAL_ADD)
        shmemi_fatal("%s: signal operation %d is neither SHMEM_SIGNAL_SET nor SHMEM_SIGNAL_ADD",
                     fn, sig_op);
    if (!bytes) {
        rs.path->signal(ctx, &rs, signal, sig_op, nbi, fn);
        return;
    }
    shmemi_route(&r, ctx, dest, bytes, pe, fn);
    if (SHMEMI_LIKELY(r.path == rs.path)) {
        r.path->put_signal(ctx, &r, src, bytes, &rs, signal, sig_op, nbi, fn);
        return;
    }
    r.path->put(ctx, &r, src, bytes, 0, fn);
    rs.path->signal(ctx, &rs, signal, sig_op, nbi, fn);
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
        shmemi_put(ctx, dest, &value, sizeof(T), pe, 0, __func__);                            \
    }                                                                                         \
    void shmem_##N##_p(T *dest, T value, int pe) {                                            \
        shmemi_put(CTX_DEF, dest, &value, sizeof(T), pe, 0, __func__);                        \
    }                                                                                         \
    T shmem_ctx_##N##_g(shmem_ctx_t ctx, const T *source, int pe) {                           \
        T v;                                                                                  \
        shmemi_get(ctx, &v, source, sizeof(T), pe, 0, __func__);                              \
        return v;                                                                             \
    }                                                                                         \
    T shmem_##N##_g(const T *source, int pe) {                                                \
        T v;                                                                                  \
        shmemi_get(CTX_DEF, &v, source, sizeof(T), pe, 0, __func__);                          \
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
    uint64_t v;
    shmemi_ivar_load(sig_addr, sizeof(v), &v, __func__);
    return v;
}
