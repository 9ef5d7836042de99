/* The direct row's hot operations (put, get, AMO), inline, and the dispatch
 * the core entries use for them: a route of the direct row runs them here,
 * without a call through the table (the hot path of every small put, get and
 * AMO); any other row is called through its table. The row itself is
 * shmem/path_direct.c. */
#ifndef SHMEMI_PATH_DIRECT_H
#define SHMEMI_PATH_DIRECT_H

#include "shmem/shmemi.h"

#include "sdma/copy.h"
#include "shmem/engine.h"
#include "shmem/pages.h"

/* A local buffer on this PE's device heap (GPU builds) is copied by the GPU
 * runtime, blocking. A large transfer first maps the pages of the peer it
 * covers that this PE has not mapped yet (shmem/pages.c). Non-blocking copies
 * of at least SHMEM_NBI_THRESHOLD bytes go to the copy engine and complete at
 * quiet, where the engine has a CPU of its own (SHMEM_NBI_ENGINE). */
static inline void shmemi_direct_put(struct shmemi_ctx *c, const struct shmemi_route *r,
                                     const void *src, size_t n, int nbi, const char *fn) {
    if (SHMEMI_UNLIKELY(shmemi_on_device(src))) {
        shmemi_local_copy(r->addr, src, n, fn);
        return;
    }
    shmemi_pages_ready(r->pe, r->region, r->off, n);
    if (nbi && n >= shmemi.cfg.NBI_THRESHOLD && shmemi_engine_offload() &&
        shmemi_engine_copy(c, r->addr, src, n, r->pe, fn))
        return;
    sdma_copy_bytes(r->addr, src, n);
    shmemi_wake_at(r->pe, r->addr, n); /* a thread of r->pe may sleep until it lands */
}

static inline void shmemi_direct_get(struct shmemi_ctx *c, void *dst, const struct shmemi_route *r,
                                     size_t n, int nbi, const char *fn) {
    if (SHMEMI_UNLIKELY(shmemi_on_device(dst))) {
        shmemi_local_copy(dst, r->addr, n, fn);
        return;
    }
    shmemi_pages_ready(r->pe, r->region, r->off, n);
    if (nbi && n >= shmemi.cfg.NBI_THRESHOLD && shmemi_engine_offload() &&
        shmemi_engine_copy(c, dst, r->addr, n, r->pe, fn))
        return;
    sdma_copy_bytes(dst, r->addr, n);
}

#define SHMEMI_SC __ATOMIC_SEQ_CST

/* The host atomic on the bits of a 4- or 8-byte word (every AMO type is one
 * of the two: float and double only fetch, set and swap, which move bits;
 * signed and unsigned adds are the same bits in two's complement).
 * Sequentially consistent, so AMOs also order the caller's earlier stores to
 * that PE (what users of flags expect). Returns the old value. */
#define SHMEMI_DIRECT_AMO(W)                                                                       \
    static inline W shmemi_direct_amo_##W(W *r, enum shmemi_amo_op op, W v, W c) {                 \
        switch (op) {                                                                              \
        case SHMEMI_AMO_FETCH: return __atomic_load_n(r, SHMEMI_SC);                               \
        case SHMEMI_AMO_SET: __atomic_store_n(r, v, SHMEMI_SC); return 0;                          \
        case SHMEMI_AMO_SWAP: return __atomic_exchange_n(r, v, SHMEMI_SC);                         \
        case SHMEMI_AMO_CSWAP:                                                                     \
            __atomic_compare_exchange_n(r, &c, v, 0, SHMEMI_SC, SHMEMI_SC);                        \
            return c;                                                                              \
        case SHMEMI_AMO_ADD: return __atomic_fetch_add(r, v, SHMEMI_SC);                           \
        case SHMEMI_AMO_AND: return __atomic_fetch_and(r, v, SHMEMI_SC);                           \
        case SHMEMI_AMO_OR: return __atomic_fetch_or(r, v, SHMEMI_SC);                             \
        case SHMEMI_AMO_XOR: return __atomic_fetch_xor(r, v, SHMEMI_SC);                           \
        }                                                                                          \
        __builtin_unreachable();                                                                   \
    }
SHMEMI_DIRECT_AMO(uint32_t)
SHMEMI_DIRECT_AMO(uint64_t)

/* Complete at once, fetching or not. */
static inline void shmemi_direct_amo(struct shmemi_ctx *c, const struct shmemi_route *r,
                                     enum shmemi_amo_op op, size_t size, uint64_t value,
                                     uint64_t cond, uint64_t *old, const char *fn) {
    (void)c, (void)fn;
    uint64_t o;
    if (size == 4)
        o = shmemi_direct_amo_uint32_t((uint32_t *)r->addr, op, (uint32_t)value, (uint32_t)cond);
    else
        o = shmemi_direct_amo_uint64_t((uint64_t *)r->addr, op, value, cond);
    if (op != SHMEMI_AMO_FETCH)
        shmemi_wake_at(r->pe, r->addr, size);
    if (old)
        *old = o;
}

/* ------------------------------------------------------------ dispatch */

static inline void shmemi_path_put(struct shmemi_ctx *c, const struct shmemi_route *r,
                                   const void *src, size_t n, int nbi, const char *fn) {
    if (SHMEMI_LIKELY(r->path == &shmemi_path_direct))
        shmemi_direct_put(c, r, src, n, nbi, fn);
    else
        r->path->put(c, r, src, n, nbi, fn);
}

static inline void shmemi_path_get(struct shmemi_ctx *c, void *dst, const struct shmemi_route *r,
                                   size_t n, int nbi, const char *fn) {
    if (SHMEMI_LIKELY(r->path == &shmemi_path_direct))
        shmemi_direct_get(c, dst, r, n, nbi, fn);
    else
        r->path->get(c, dst, r, n, nbi, fn);
}

static inline void shmemi_path_amo(struct shmemi_ctx *c, const struct shmemi_route *r,
                                   enum shmemi_amo_op op, size_t size, uint64_t value,
                                   uint64_t cond, uint64_t *old, const char *fn) {
    if (SHMEMI_LIKELY(r->path == &shmemi_path_direct))
        shmemi_direct_amo(c, r, op, size, value, cond, old, fn);
    else
        r->path->amo(c, r, op, size, value, cond, old, fn);
}

#endif
