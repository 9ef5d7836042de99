/* RMA: put, get, p, g, iput, iget, their _nbi forms and put-with-signal.
 *
 * Each core entry checks its arguments, resolves the route once (context ->
 * team -> world PE -> the row of the path table that reaches the address,
 * shmem/path.h) and hands the operation to that row. A zero-length transfer
 * does nothing (its buffers may be NULL); a zero-length put-with-signal
 * still updates the signal. */
#include "shmem/shmemi.h"

#include "shmem/path_direct.h"

#define SHMEMI_FILE rma
#include "shmem/api.h"

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
    /* The signal is an AMO on its word (peers may add to it through the
     * fabric while this PE sets it). */
    shmemi_route_amo(&rs, ctx, sig_addr, sizeof(*sig_addr), pe, fn);
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
/* The bodies of this file's rows of the op table (include/shmem_ops.h): ESZ
 * is the element size, NBI 1 for the non-blocking forms. */
#define SHMEMI_B_PUT(ESZ, NBI)                                                                    \
    shmemi_put(ctx, dest, source, shmemi_bytes(nelems, ESZ, __func__), pe, NBI, __func__);
#define SHMEMI_B_GET(ESZ, NBI)                                                                    \
    shmemi_get(ctx, dest, source, shmemi_bytes(nelems, ESZ, __func__), pe, NBI, __func__);
#define SHMEMI_B_P() shmemi_put(ctx, dest, &value, sizeof value, pe, 0, __func__);
#define SHMEMI_B_G(T)                                                                             \
    T v_;                                                                                         \
    shmemi_get(ctx, &v_, source, sizeof v_, pe, 0, __func__);                                     \
    return v_;
#define SHMEMI_B_IPUT(ESZ) shmemi_iput(ctx, dest, source, dst, sst, nelems, ESZ, pe, __func__);
#define SHMEMI_B_IGET(ESZ) shmemi_iget(ctx, dest, source, dst, sst, nelems, ESZ, pe, __func__);
#define SHMEMI_B_PUT_SIGNAL(ESZ, NBI)                                                             \
    shmemi_put_signal(ctx, dest, source, shmemi_bytes(nelems, ESZ, __func__), sig_addr, signal,   \
                      sig_op, pe, NBI, __func__);
#include "shmem/api_define.h"

uint64_t shmem_signal_fetch(const uint64_t *sig_addr) {
    uint64_t v;
    shmemi_ivar_load(sig_addr, sizeof(v), &v, __func__);
    return v;
}
