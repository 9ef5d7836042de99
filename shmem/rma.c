/* RMA: put, get, p, g, iput, iget, ibput, ibget, their _nbi forms,
 * put-with-signal and the signal updates alone.
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
    if (SHMEMI_UNLIKELY(!src))
        shmemi_null_buffer("source", bytes, fn);
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
    if (SHMEMI_UNLIKELY(!dest))
        shmemi_null_buffer("dest", bytes, fn);
    shmemi_path_get(ctx, dest, &r, bytes, nbi, fn);
}

/* The byte length of a strided access of nblocks (> 0) blocks of `block`
 * bytes, `stride` elements of esize bytes apart, for the bounds check done
 * once per call; the pitch in bytes in *pitch. A stride smaller than the
 * block would overlap blocks: `min` is the block in elements. */
static size_t strided_extent(ptrdiff_t stride, size_t min, size_t nblocks, size_t esize,
                             size_t block, size_t *pitch, const char *what, const char *fn) {
    if (stride <= 0 || (size_t)stride < min)
        shmemi_fatal("%s: %s stride %td must be at least %zu", fn, what, stride, min ? min : 1);
    size_t span;
    if (__builtin_mul_overflow((size_t)stride, nblocks - 1, &span) ||
        __builtin_mul_overflow(span, esize, &span) || __builtin_add_overflow(span, block, &span) ||
        __builtin_mul_overflow((size_t)stride, esize, pitch))
        shmemi_fatal("%s: %zu blocks with stride %td overflow the address space", fn, nblocks,
                     stride);
    return span;
}

/* Strided RMA: nblocks blocks of bsize elements of esize bytes, dst and sst
 * elements apart on the target and the source side. iput and iget are the
 * blocks of one element; ibput and ibget (1.6) the blocks of bsize. A call
 * without elements does nothing (its buffers may be NULL). */
static void strided(shmem_ctx_t ctx, int put, void *dest, const void *src, ptrdiff_t dst,
                    ptrdiff_t sst, size_t bsize, size_t nblocks, size_t esize, int pe,
                    const char *fn) {
    shmemi_check_init(fn);
    if (!nblocks || !bsize)
        return;
    size_t block = shmemi_bytes(bsize, esize, fn), min = bsize > 1 ? bsize : 0;
    size_t dpitch, spitch;
    size_t dlen = strided_extent(dst, min, nblocks, esize, block, &dpitch, "target", fn);
    size_t slen = strided_extent(sst, min, nblocks, esize, block, &spitch, "source", fn);
    struct shmemi_route r;
    if (!(put ? src : dest))
        shmemi_null_buffer(put ? "source" : "dest", put ? slen : dlen, fn);
    if (put) {
        shmemi_route(&r, ctx, dest, dlen, pe, fn);
        r.path->iput(ctx, &r, dpitch, src, spitch, block, nblocks, fn);
    } else {
        shmemi_route(&r, ctx, src, slen, pe, fn);
        r.path->iget(ctx, dest, dpitch, &r, spitch, block, nblocks, fn);
    }
}

void shmemi_iput(shmem_ctx_t ctx, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst,
                 size_t nelems, size_t esize, int pe, const char *fn) {
    strided(ctx, 1, dest, src, dst, sst, 1, nelems, esize, pe, fn);
}

void shmemi_iget(shmem_ctx_t ctx, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst,
                 size_t nelems, size_t esize, int pe, const char *fn) {
    strided(ctx, 0, dest, src, dst, sst, 1, nelems, esize, pe, fn);
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
        shmemi_fatal("%s: signal operation %d is neither SHMEM_SIGNAL_SET nor SHMEM_SIGNAL_ADD", fn,
                     sig_op);
    if (!bytes) {
        rs.path->signal(ctx, &rs, signal, sig_op, nbi, fn);
        return;
    }
    shmemi_route(&r, ctx, dest, bytes, pe, fn);
    if (SHMEMI_UNLIKELY(!src))
        shmemi_null_buffer("source", bytes, fn);
    if (SHMEMI_LIKELY(r.path == rs.path)) {
        r.path->put_signal(ctx, &r, src, bytes, &rs, signal, sig_op, nbi, fn);
        return;
    }
    r.path->put(ctx, &r, src, bytes, 0, fn);
    rs.path->signal(ctx, &rs, signal, sig_op, nbi, fn);
}

/* The signal update alone (1.6 signal_add and signal_set): ordered after the
 * caller's transfers to that PE as put-with-signal orders it after its data. */
void shmemi_signal(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe,
                   const char *fn) {
    struct shmemi_route rs;
    shmemi_route(&rs, ctx, sig_addr, sizeof(*sig_addr), pe, fn);
    rs.path->signal(ctx, &rs, signal, sig_op, 0, fn);
}

/* shmem_p and shmem_g: one element, its size a constant here, from or into
 * the caller's own variable (never device memory). Through a mapping that is
 * one load or store, not a call into the copy routine for 8 bytes
 * (shmem_long_p to a peer of the node: 135 against 92 million a second). The
 * direct row's own inline put (shmemi_path_put) would do the same, but the
 * compiler keeps it out of line at this many call sites, and its call takes
 * the length as a variable (185 against 225 million a second). */
static inline __attribute__((always_inline)) void
put_elem(shmem_ctx_t ctx, void *dest, const void *src, size_t n, int pe, const char *fn) {
    struct shmemi_route r;
    shmemi_route(&r, ctx, dest, n, pe, fn);
    if (SHMEMI_LIKELY(r.path == &shmemi_path_direct)) {
        memcpy(r.addr, src, n);
        shmemi_wake_at(r.pe, r.addr, n); /* a thread of r.pe may sleep until it lands */
    } else {
        r.path->put(ctx, &r, src, n, 0, fn);
    }
}

static inline __attribute__((always_inline)) void
get_elem(shmem_ctx_t ctx, void *dst, const void *src, size_t n, int pe, const char *fn) {
    struct shmemi_route r;
    shmemi_route(&r, ctx, src, n, pe, fn);
    if (SHMEMI_LIKELY(r.path == &shmemi_path_direct))
        memcpy(dst, r.addr, n);
    else
        r.path->get(ctx, dst, &r, n, 0, fn);
}

/* ------------------------------------------------------------ public names */
/* The bodies of this file's rows of the op table (include/shmem_ops.h): ESZ
 * is the element size, NBI 1 for the non-blocking forms. */
#define SHMEMI_B_PUT(ESZ, NBI)                                                                     \
    shmemi_put(ctx, dest, source, shmemi_bytes(nelems, ESZ, __func__), pe, NBI, __func__);
#define SHMEMI_B_GET(ESZ, NBI)                                                                     \
    shmemi_get(ctx, dest, source, shmemi_bytes(nelems, ESZ, __func__), pe, NBI, __func__);
#define SHMEMI_B_P() put_elem(ctx, dest, &value, sizeof value, pe, __func__);
#define SHMEMI_B_G(T)                                                                              \
    T v_;                                                                                          \
    get_elem(ctx, &v_, source, sizeof v_, pe, __func__);                                           \
    return v_;
#define SHMEMI_B_IPUT(ESZ) shmemi_iput(ctx, dest, source, dst, sst, nelems, ESZ, pe, __func__);
#define SHMEMI_B_IGET(ESZ) shmemi_iget(ctx, dest, source, dst, sst, nelems, ESZ, pe, __func__);
#define SHMEMI_B_IBPUT(ESZ)                                                                        \
    strided(ctx, 1, dest, source, dst, sst, bsize, nblocks, ESZ, pe, __func__);
#define SHMEMI_B_IBGET(ESZ)                                                                        \
    strided(ctx, 0, dest, source, dst, sst, bsize, nblocks, ESZ, pe, __func__);
#define SHMEMI_B_SIGNAL(OP) shmemi_signal(ctx, sig_addr, signal, OP, pe, __func__);
#define SHMEMI_B_PUT_SIGNAL(ESZ, NBI)                                                              \
    shmemi_put_signal(ctx, dest, source, shmemi_bytes(nelems, ESZ, __func__), sig_addr, signal,    \
                      sig_op, pe, NBI, __func__);
#include "shmem/api_define.h"

/* Programs poll with it, as with shmem_test: the rows that move data only
 * in a caller's progress (a fabric with manual progress) get a turn first,
 * or a peer's put-with-signal polled for on both sides would never land. */
uint64_t shmem_signal_fetch(const uint64_t *sig_addr) {
    uint64_t v;
    shmemi_paths_progress();
    shmemi_ivar_load(sig_addr, sizeof(v), &v, __func__);
    return v;
}
