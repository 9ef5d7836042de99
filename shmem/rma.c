/* RMA: put, get, p, g, iput, iget, their _nbi forms and put-with-signal.
 *
 * On this node a peer's memory is mapped here: a put is a copy into the
 * peer's mapping. Non-blocking transfers of at least SHMEM_NBI_THRESHOLD
 * bytes go to the copy engine and complete at quiet. On the device heap
 * (GPU builds) the copy is the device path's: a GPU runtime copy to or from
 * the peer's IPC-mapped heap; non-blocking forms go to the copy engine when
 * it reaches GPU memory (the cuda engine) and complete at quiet. */
#include "shmem/shmemi.h"

#include "shmem/engine.h"

#define SHMEMI_FILE rma
#include "shmem/api.h"

void shmemi_put(shmem_ctx_t ctx, void *dest, const void *src, size_t bytes, int pe, int nbi,
                const char *fn) {
    struct shmemi_ctx *c = shmemi_ctx_check(ctx, fn);
    void *r;
    if (SHMEMI_UNLIKELY(shmemi_route(dest, bytes, pe, fn, &r) == SHMEMI_PATH_DEVICE)) {
        if (!(nbi && shmemi_engine_reaches_device() && shmemi_engine_copy(c, r, src, bytes, pe)))
            shmemi.dev->copy(r, src, bytes, nbi, fn);
        return;
    }
    if (SHMEMI_UNLIKELY(shmemi_on_device(src))) {
        shmemi_local_copy(r, src, bytes, fn);
        return;
    }
    if (nbi && bytes >= shmemi.cfg.NBI_THRESHOLD && shmemi_engine_copy(c, r, src, bytes, pe))
        return;
    memcpy(r, src, bytes);
}

void shmemi_get(shmem_ctx_t ctx, void *dest, const void *src, size_t bytes, int pe, int nbi,
                const char *fn) {
    struct shmemi_ctx *c = shmemi_ctx_check(ctx, fn);
    void *r;
    if (SHMEMI_UNLIKELY(shmemi_route(src, bytes, pe, fn, &r) == SHMEMI_PATH_DEVICE)) {
        if (!(nbi && shmemi_engine_reaches_device() && shmemi_engine_copy(c, dest, r, bytes, pe)))
            shmemi.dev->copy(dest, r, bytes, nbi, fn);
        return;
    }
    if (SHMEMI_UNLIKELY(shmemi_on_device(dest))) {
        shmemi_local_copy(dest, r, bytes, fn);
        return;
    }
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
    void *rv;
    enum shmemi_path path = shmemi_route(lo, len, pe, fn, &rv);
    char *r = rv;
    const char *s = src;
    if (sst <= 0)
        shmemi_fatal("%s: source stride %td must be positive", fn, sst);
    size_t ds = (size_t)dst * esize, ss = (size_t)sst * esize;
    if (SHMEMI_UNLIKELY(path == SHMEMI_PATH_DEVICE || shmemi_on_device(src))) {
        shmemi.dev->copy_2d(r, ds, s, ss, esize, nelems, fn);
        return;
    }
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
    void *rv;
    enum shmemi_path path = shmemi_route(lo, len, pe, fn, &rv);
    const char *r = rv;
    char *d = dest;
    if (dst <= 0)
        shmemi_fatal("%s: target stride %td must be positive", fn, dst);
    size_t ds = (size_t)dst * esize, ss = (size_t)sst * esize;
    if (SHMEMI_UNLIKELY(path == SHMEMI_PATH_DEVICE || shmemi_on_device(dest))) {
        shmemi.dev->copy_2d(d, ds, r, ss, esize, nelems, fn);
        return;
    }
    for (size_t i = 0; i < nelems; i++, d += ds, r += ss)
        memcpy(d, r, esize);
}

/* Put-with-signal where the data, its source or the signal is on the device
 * heap. The data first, then the signal: on one stream (both on the device
 * path) the stream keeps that order, even for the nbi form; otherwise the
 * data copy completes before the signal is written. */
static void put_signal_device(void *r, enum shmemi_path pd, const void *src, size_t bytes,
                              uint64_t *rs, enum shmemi_path ps, uint64_t signal, int sig_op,
                              int nbi, const char *fn) {
    if (pd == SHMEMI_PATH_DEVICE)
        shmemi.dev->copy(r, src, bytes, nbi && ps == SHMEMI_PATH_DEVICE, fn);
    else
        shmemi_local_copy(r, src, bytes, fn);
    if (ps == SHMEMI_PATH_DEVICE) {
        shmemi.dev->amo(rs, sig_op == SHMEM_SIGNAL_SET ? SHMEMI_AMO_SET : SHMEMI_AMO_ADD,
                        sizeof(*rs), signal, 0, NULL, nbi, fn);
        return;
    }
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (sig_op == SHMEM_SIGNAL_SET)
        __atomic_store_n(rs, signal, __ATOMIC_RELEASE);
    else
        __atomic_fetch_add(rs, signal, __ATOMIC_RELEASE);
}

void shmemi_put_signal(shmem_ctx_t ctx, void *dest, const void *src, size_t bytes,
                       uint64_t *sig_addr, uint64_t signal, int sig_op, int pe, int nbi,
                       const char *fn) {
    struct shmemi_ctx *c = shmemi_ctx_check(ctx, fn);
    void *r, *rsv;
    enum shmemi_path pd = shmemi_route(dest, bytes, pe, fn, &r);
    enum shmemi_path ps = shmemi_route(sig_addr, sizeof(*sig_addr), pe, fn, &rsv);
    uint64_t *rs = rsv;
    if (sig_op != SHMEM_SIGNAL_SET && sig_op != SHMEM_SIGNAL_ADD)
        shmemi_fatal("%s: signal operation %d is neither SHMEM_SIGNAL_SET nor SHMEM_SIGNAL_ADD",
                     fn, sig_op);
    if (SHMEMI_UNLIKELY(pd == SHMEMI_PATH_DEVICE || ps == SHMEMI_PATH_DEVICE ||
                        shmemi_on_device(src))) {
        /* Data and signal both on the device heap: one engine queue keeps the
         * signal behind the data. */
        if (nbi && pd == SHMEMI_PATH_DEVICE && ps == SHMEMI_PATH_DEVICE &&
            shmemi_engine_reaches_device() &&
            shmemi_engine_copy_signal(c, r, src, bytes, rs, 1, signal, sig_op, pe))
            return;
        put_signal_device(r, pd, src, bytes, rs, ps, signal, sig_op, nbi, fn);
        return;
    }
    if (nbi && bytes >= shmemi.cfg.NBI_THRESHOLD &&
        shmemi_engine_copy_signal(c, r, src, bytes, rs, 0, signal, sig_op, pe))
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
    void *r;
    if (shmemi_route(sig_addr, sizeof(*sig_addr), shmemi.my_pe, __func__, &r) ==
        SHMEMI_PATH_DEVICE) {
        uint64_t v;
        shmemi.dev->copy(&v, r, sizeof(v), 0, __func__);
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        return v;
    }
    return __atomic_load_n((const uint64_t *)r, __ATOMIC_ACQUIRE);
}
