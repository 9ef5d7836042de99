/* SDMA-SHMEM device API: OpenSHMEM routines called from GPU kernels (HIP or
 * CUDA), header-only, no relocatable device code.
 *
 * Who calls what
 *   shmem_* standard names ........ one thread (thread scope), anywhere.
 *   shmemx_*_wave ................. every thread of a wave (warp), uniformly.
 *   shmemx_*_wg ................... every thread of a workgroup (block), uniformly,
 *                                   outside divergent branches.
 *   shmem_barrier_all, shmem_sync_all: ONE thread of the whole grid per PE
 *                                   (the barrier has one epoch per PE); the other
 *                                   threads of the grid must be ordered around it by
 *                                   the kernel itself. shmemx_barrier_all_wg /
 *                                   shmemx_sync_all_wg: ONE workgroup of the grid.
 *   shmemx_broadcastmem_wg, shmemx_fcollectmem_wg, shmemx_<T>_sum_reduce_wg:
 *                                   one workgroup per PE, every PE (WORLD).
 *
 * How it works on one node: every peer's heap is mapped in this GPU's address
 * space (IPC), so the address of `addr` on PE pe is
 *   state.peer_heap[pe] + (addr - state.heap_base).
 * Puts (blocking and _nbi) are stores into the peer's mapping, 16 bytes at a
 * time where the alignment allows; gets are loads; AMOs are system-scope
 * atomics on the peer's word; fence and quiet are system-scope fences (a
 * store is complete once a later system-scope release has ordered it);
 * waits are system-scope acquire loads, unbounded as the specification says,
 * with a short hot spin and then back-off. Workgroup and wave _nbi puts of at
 * least SHMEM_DEVICE_NBI_THRESHOLD bytes go to the copy engine when one reaches
 * the device heap: the group's first thread writes a COPY packet into the
 * device-driven queue to the peer (device/ring_dev.h), and quiet waits for the
 * queue's completion index. Everything else is stores.
 *
 * long double: GPU device code has no x87 long double (HIP: 8 bytes against
 * the host's 16; CUDA: computed as double), so shmem_longdouble_* have no
 * device bodies: a kernel that calls one fails to link.
 *
 * The device state (device/state.h) is a static __device__ copy in every
 * translation unit that includes this header; a static constructor registers
 * that unit's fill function with shmemx_device_register, and shmem_init
 * copies the state in. Kernels must run after shmem_init.
 *
 * One definition per pass (DESIGN §5): standard names are declared in shmem.h
 * with SHMEM_HD and get their bodies here only in the device pass. In plain C
 * (CPU builds) the bodies are the static inline shmemi_dev_* functions, bound to
 * a per-thread state with shmemi_dev_cpu_bind(), so the device logic is unit-
 * tested with host threads. */
#ifndef SHMEM_DEVICE_H
#define SHMEM_DEVICE_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "shmemx.h"
#include "shmem_ops.h"

/* Installed beside this header, under shmem/ (in the source tree, include/shmem/
 * holds links to device/ and to the sdma/ headers these include). */
#include "shmem/device/arch.h"
#include "shmem/device/state.h"
#include "shmem/device/ring_dev.h"

/* ------------------------------------------------------------ generation */

/* Types device code cannot hold with the host's layout (see the top). */
#if defined(SHMEMI_DEV_GPU)
#define SHMEMI_DEV_SKIP_longdouble ~, 1
#endif
#define SHMEMI_DEV_IF_0(X, T, N) X(T, N)
#define SHMEMI_DEV_IF_1(X, T, N)
/* SHMEMI_RMA_TYPES(SHMEMI_DEV_FILTER) expands SHMEMI_DEV_X(T, N) for each type
 * device code supports (define SHMEMI_DEV_X around the expansion). */
#define SHMEMI_DEV_FILTER(T, N)                                                                    \
    SHMEMI_CAT(SHMEMI_DEV_IF_, SHMEMI_PROBE(SHMEMI_DEV_SKIP_##N))(SHMEMI_DEV_X, T, N)

/* Standard names: a body in the device pass only, forwarding to the internal
 * shmemi_dev_NAME. _CTX also emits shmem_ctx_NAME (every context is the
 * default one on the device). */
#if defined(SHMEMI_DEV_PASS)
#define SHMEMI_STD(RET, NAME, P, A)                                                                \
    extern "C" __host__ __device__ inline RET shmem_##NAME P { return shmemi_dev_##NAME A; }
#define SHMEMI_STD_CTX(RET, NAME, P, A)                                                            \
    SHMEMI_STD(RET, NAME, P, A)                                                                    \
    extern "C" __host__ __device__ inline RET shmem_ctx_##NAME(shmem_ctx_t ctx,                    \
                                                               SHMEMI_UNPAREN P) {                 \
        (void)ctx;                                                                                 \
        return shmemi_dev_##NAME A;                                                                \
    }
#else
#define SHMEMI_STD(RET, NAME, P, A)
#define SHMEMI_STD_CTX(RET, NAME, P, A)
#endif
/* Device-only extensions: defined in both passes of a GPU compile. */
#if defined(SHMEMI_DEV_GPU)
#define SHMEMI_XDEV(RET, NAME, P, A)                                                               \
    extern "C" __device__ inline RET shmemx_##NAME P { return shmemi_dev_##NAME A; }
#else
#define SHMEMI_XDEV(RET, NAME, P, A)
#endif

/* ------------------------------------------------------------------ state */
#if defined(SHMEMI_DEV_GPU)
/* This translation unit's copy, filled by shmem_init (see the end): in
 * constant memory, so every thread reads it through the constant cache. */
static __constant__ struct shmemi_device_state shmemi_dstate;
#define SHMEMI_DST (&shmemi_dstate)
#else
/* CPU builds: each host thread plays one PE with its own state. */
static __thread const struct shmemi_device_state *shmemi_dev_cpu_state;
#define SHMEMI_DST shmemi_dev_cpu_state
static inline void shmemi_dev_cpu_bind(const struct shmemi_device_state *st) {
    shmemi_dev_cpu_state = st;
}
#endif

SHMEMI_DFN int shmemi_dev_my_pe(void) { return SHMEMI_DST->my_pe; }
SHMEMI_DFN int shmemi_dev_n_pes(void) { return SHMEMI_DST->n_pes; }

/* Address of symmetric `addr` on `pe`, unchecked (the RMA fast path). */
SHMEMI_DFN void *shmemi_dev_peer(const void *addr, int pe) {
    const struct shmemi_device_state *st = SHMEMI_DST;
    char *base = pe < SHMEMI_DEV_INLINE_PEERS ? st->peer_base[pe] : st->peer_heap[pe];
    return base + ((const char *)addr - st->heap_base);
}

/* shmem_ptr: the peer address when addr lies in the symmetric heap and pe is
 * a PE of the node (all of them here); else NULL. */
SHMEMI_DFN void *shmemi_dev_ptr(const void *addr, int pe) {
    const struct shmemi_device_state *st = SHMEMI_DST;
    const char *a = (const char *)addr;
    if (pe < 0 || pe >= st->n_pes || a < st->heap_base || a >= st->heap_base + st->heap_size)
        return NULL;
    return shmemi_dev_peer(addr, pe);
}

SHMEMI_STD(int, my_pe, (void), ())
SHMEMI_STD(int, n_pes, (void), ())
SHMEMI_STD(void *, ptr, (const void *dest, int pe), (dest, pe))

/* ------------------------------------------------------------ bulk copies */
#if defined(SHMEMI_DEV_GPU)
typedef uint4 shmemi_v16;
typedef uint64_t shmemi_v8;
typedef uint32_t shmemi_v4;
typedef uint16_t shmemi_v2;
#else
typedef struct {
    uint64_t a, b;
} __attribute__((aligned(16), may_alias)) shmemi_v16;
typedef uint64_t __attribute__((may_alias)) shmemi_v8;
typedef uint32_t __attribute__((may_alias)) shmemi_v4;
typedef uint16_t __attribute__((may_alias)) shmemi_v2;
#endif

/* Thread `rank` of `nthr` copies its share of [src, src + n) to dst: a byte
 * head up to the unit's alignment, then units striped over the threads (lanes
 * of a wave touch consecutive units), then a byte tail. The unit is the
 * widest of 16/8/4 bytes that dst and src share the alignment of. */
#define SHMEMI_COPY_UNITS(UT, US)                                                                  \
    do {                                                                                           \
        size_t head = (US - ((uintptr_t)d & (US - 1))) & (US - 1), nv, i;                          \
        if (head > n)                                                                              \
            head = n;                                                                              \
        for (i = rank; i < head; i += nthr)                                                        \
            d[i] = s[i];                                                                           \
        nv = (n - head) / US;                                                                      \
        for (i = rank; i < nv; i += nthr)                                                          \
            ((UT *)(d + head))[i] = ((const UT *)(s + head))[i];                                   \
        for (i = head + nv * US + rank; i < n; i += nthr)                                          \
            d[i] = s[i];                                                                           \
    } while (0)

SHMEMI_DFN void shmemi_dev_copy_par(void *dst, const void *src, size_t n, unsigned rank,
                                    unsigned nthr) {
    char *d = (char *)dst;
    const char *s = (const char *)src;
    uintptr_t mis = (uintptr_t)d ^ (uintptr_t)s;
    if ((mis & 15) == 0)
        SHMEMI_COPY_UNITS(shmemi_v16, 16);
    else if ((mis & 7) == 0)
        SHMEMI_COPY_UNITS(shmemi_v8, 8);
    else if ((mis & 3) == 0)
        SHMEMI_COPY_UNITS(shmemi_v4, 4);
    else
        SHMEMI_COPY_UNITS(char, 1);
}
#undef SHMEMI_COPY_UNITS

/* ------------------------------------------------- RMA: bytes, thread scope */
SHMEMI_DFN void shmemi_dev_putmem(void *dest, const void *source, size_t nelems, int pe) {
    /* Stores into the peer's mapping; complete (visible to the peer) after
     * this thread's next quiet/fence/barrier release. */
    shmemi_dev_copy_par(shmemi_dev_peer(dest, pe), source, nelems, 0, 1);
}
SHMEMI_DFN void shmemi_dev_getmem(void *dest, const void *source, size_t nelems, int pe) {
    shmemi_dev_copy_par(dest, shmemi_dev_peer(source, pe), nelems, 0, 1);
}
/* _nbi: the same stores (they are asynchronous by nature; quiet completes them). */
SHMEMI_DFN void shmemi_dev_putmem_nbi(void *dest, const void *source, size_t nelems, int pe) {
    shmemi_dev_putmem(dest, source, nelems, pe);
}
SHMEMI_DFN void shmemi_dev_getmem_nbi(void *dest, const void *source, size_t nelems, int pe) {
    shmemi_dev_getmem(dest, source, nelems, pe);
}

/* ------------------------------------------------- copy-engine _nbi puts */
/* The queue a group's _nbi put of n bytes to pe goes to, or NULL (stores). */
SHMEMI_DFN const struct shmemi_dev_queue *shmemi_dev_ce_queue(int pe, size_t n) {
    const struct shmemi_device_state *st = SHMEMI_DST;
    if (!st->queues || n < st->ce_min_bytes || n == 0 || pe == st->my_pe)
        return 0;
    return &st->queues[pe];
}

/* One thread queues the copy (in packets of at most SDMA_COPY_LINEAR_MAX
 * bytes) and publishes how far the ring must complete. The group's writes to
 * src were ordered before this thread's by the caller's group barrier; the
 * commit's system-scope release makes them visible to the engine (cumulative).
 * A ring still full after ce_timeout_ns: the rest is copied by stores. */
SHMEMI_DFN void shmemi_dev_ce_put(const struct shmemi_dev_queue *q, char *dst, const char *src,
                                  size_t n) {
    while (n) {
        size_t k = n > SDMA_COPY_LINEAR_MAX ? (size_t)SDMA_COPY_LINEAR_MAX : n;
        uint64_t end = 0, d = (uint64_t)(uintptr_t)dst, s = (uint64_t)(uintptr_t)src;
        uint64_t t = SHMEMI_DST->ce_timeout_ns;
        int rc = q->doorbell ? shmemi_dev_ring_copy_fenced(
                                   &q->ring, d, s, k, (uint64_t)(uintptr_t)q->complete, t, &end)
                             : shmemi_dev_ring_copy_tagged(&q->ring, d, s, k, t, &end);
        if (rc != SDMA_OK) {
            shmemi_dev_copy_par(dst, src, n, 0, 1);
            return;
        }
        shmemi_arch_max64(q->published, end);
        dst += k;
        src += k;
        n -= k;
    }
}

/* Wait until the engine completed every packet any producer of this PE
 * committed before (its completion index passes what was published); the
 * caller fences after it. */
SHMEMI_DFN void shmemi_dev_ce_quiet(void) {
    const struct shmemi_device_state *st = SHMEMI_DST;
    if (!st->queues)
        return;
    for (int pe = 0; pe < st->n_pes; pe++) {
        const struct shmemi_dev_ce_line *l = &st->ce_lines[pe];
        if (pe == st->my_pe)
            continue;
        /* Relaxed: both words in one round trip; the caller's system-scope
         * fence after this loop is the acquire (the engine writes the index
         * after its copies, with a fence: the bytes are visible once it is). */
        uint64_t want = shmemi_arch_ld_rlx64(&l->published);
        unsigned spins = 0;
        /* Modulo 2^32: a doorbell queue's FENCE stores 32 bits (what is
         * outstanding is always far less than 2^31 bytes of ring). */
        while ((int32_t)((uint32_t)shmemi_arch_ld_rlx64(&l->complete) - (uint32_t)want) < 0)
            shmemi_arch_pause(&spins);
    }
}

/* ------------------------------------------------------ ordering, signals */
SHMEMI_DFN void shmemi_dev_quiet(void) {
    /* Copy-engine puts of this PE have completed, then a release at system
     * scope: every store/AMO this thread issued (and all it synchronized
     * with) is visible to any later acquirer on any PE. */
    shmemi_dev_ce_quiet();
    shmemi_arch_fence_sys();
}
SHMEMI_DFN void shmemi_dev_fence(void) { shmemi_arch_fence_sys(); }

/* Update the signal word on pe after the data: SET is a store, ADD an atomic
 * add, both preceded by a system-scope fence (release) so that a consumer whose
 * acquire load sees the new signal also sees the data. */
SHMEMI_DFN void shmemi_dev_signal_update(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) {
    void *p = shmemi_dev_peer(sig_addr, pe);
    shmemi_arch_fence_sys(); /* release: data before signal (acquired in signal_wait_until) */
    if (sig_op == SHMEM_SIGNAL_ADD)
        (void)shmemi_arch_amo64(SHMEMI_AMO_ADD, p, signal, 0);
    else
        shmemi_arch_st_rlx64(p, signal);
}
SHMEMI_DFN void shmemi_dev_putmem_signal(void *dest, const void *source, size_t nelems,
                                         uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) {
    shmemi_dev_putmem(dest, source, nelems, pe);
    shmemi_dev_signal_update(sig_addr, signal, sig_op, pe);
}
SHMEMI_DFN void shmemi_dev_putmem_signal_nbi(void *dest, const void *source, size_t nelems,
                                             uint64_t *sig_addr, uint64_t signal, int sig_op,
                                             int pe) {
    shmemi_dev_putmem_signal(dest, source, nelems, sig_addr, signal, sig_op, pe);
}
SHMEMI_DFN uint64_t shmemi_dev_signal_fetch(const uint64_t *sig_addr) {
    return shmemi_arch_ld_acq64(sig_addr); /* acquire: data put before the signal */
}

/* Comparison of the point-to-point routines. */
#define SHMEMI_DEV_CMP(a, cmp, b)                                                                  \
    ((cmp) == SHMEM_CMP_EQ   ? (a) == (b)                                                          \
     : (cmp) == SHMEM_CMP_NE ? (a) != (b)                                                          \
     : (cmp) == SHMEM_CMP_GT ? (a) > (b)                                                           \
     : (cmp) == SHMEM_CMP_GE ? (a) >= (b)                                                          \
     : (cmp) == SHMEM_CMP_LT ? (a) < (b)                                                           \
                             : (a) <= (b))

SHMEMI_DFN uint64_t shmemi_dev_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value) {
    unsigned spins = 0;
    for (;;) {
        /* Acquire (system): pairs with the putter's fence before the signal. */
        uint64_t v = shmemi_arch_ld_acq64(sig_addr);
        if (SHMEMI_DEV_CMP(v, cmp, cmp_value))
            return v;
        shmemi_arch_pause(&spins);
    }
}

SHMEMI_STD(uint64_t, signal_fetch, (const uint64_t *sig_addr), (sig_addr))
SHMEMI_STD(uint64_t, signal_wait_until, (uint64_t * sig_addr, int cmp, uint64_t cmp_value),
           (sig_addr, cmp, cmp_value))
SHMEMI_STD(void, quiet, (void), ())
SHMEMI_STD(void, fence, (void), ())
#if defined(SHMEMI_DEV_PASS)
extern "C" __host__ __device__ inline void shmem_ctx_quiet(shmem_ctx_t ctx) {
    (void)ctx;
    shmemi_dev_quiet();
}
extern "C" __host__ __device__ inline void shmem_ctx_fence(shmem_ctx_t ctx) {
    (void)ctx;
    shmemi_dev_fence();
}
#endif

/* ------------------------------------------------ RMA: typed and sized */
/* Strided element copy of element type T (the sized forms use same-width
 * unsigned types, 16-byte vectors for 128). */
#define SHMEMI_DEV_RMA_SHAPES(T, N)                                                                \
    SHMEMI_DFN void shmemi_dev_##N##_put(T *dest, const T *source, size_t nelems, int pe) {        \
        shmemi_dev_putmem(dest, source, nelems * sizeof(T), pe);                                   \
    }                                                                                              \
    SHMEMI_DFN void shmemi_dev_##N##_get(T *dest, const T *source, size_t nelems, int pe) {        \
        shmemi_dev_getmem(dest, source, nelems * sizeof(T), pe);                                   \
    }                                                                                              \
    SHMEMI_DFN void shmemi_dev_##N##_put_nbi(T *dest, const T *source, size_t nelems, int pe) {    \
        shmemi_dev_putmem_nbi(dest, source, nelems * sizeof(T), pe);                               \
    }                                                                                              \
    SHMEMI_DFN void shmemi_dev_##N##_get_nbi(T *dest, const T *source, size_t nelems, int pe) {    \
        shmemi_dev_getmem_nbi(dest, source, nelems * sizeof(T), pe);                               \
    }                                                                                              \
    SHMEMI_DFN void shmemi_dev_##N##_iput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,  \
                                          size_t nelems, int pe) {                                 \
        T *d = (T *)shmemi_dev_peer(dest, pe);                                                     \
        for (size_t i = 0; i < nelems; ++i)                                                        \
            d[(ptrdiff_t)i * dst] = source[(ptrdiff_t)i * sst];                                    \
    }                                                                                              \
    SHMEMI_DFN void shmemi_dev_##N##_iget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,  \
                                          size_t nelems, int pe) {                                 \
        const T *s = (const T *)shmemi_dev_peer(source, pe);                                       \
        for (size_t i = 0; i < nelems; ++i)                                                        \
            dest[(ptrdiff_t)i * dst] = s[(ptrdiff_t)i * sst];                                      \
    }                                                                                              \
    SHMEMI_DFN void shmemi_dev_##N##_put_signal(T *dest, const T *source, size_t nelems,           \
                                                uint64_t *sig_addr, uint64_t signal, int sig_op,   \
                                                int pe) {                                          \
        shmemi_dev_putmem_signal(dest, source, nelems * sizeof(T), sig_addr, signal, sig_op, pe);  \
    }                                                                                              \
    SHMEMI_DFN void shmemi_dev_##N##_put_signal_nbi(T *dest, const T *source, size_t nelems,       \
                                                    uint64_t *sig_addr, uint64_t signal,           \
                                                    int sig_op, int pe) {                          \
        shmemi_dev_putmem_signal_nbi(dest, source, nelems * sizeof(T), sig_addr, signal, sig_op,   \
                                     pe);                                                          \
    }

/* Typed: the shapes plus p and g. */
#define SHMEMI_DEV_RMA_TYPED(T, N)                                                                 \
    SHMEMI_DEV_RMA_SHAPES(T, N)                                                                    \
    SHMEMI_DFN void shmemi_dev_##N##_p(T *dest, T value, int pe) {                                 \
        *(T *)shmemi_dev_peer(dest, pe) = value;                                                   \
    }                                                                                              \
    SHMEMI_DFN T shmemi_dev_##N##_g(const T *source, int pe) {                                     \
        return *(const T *)shmemi_dev_peer(source, pe);                                            \
    }
#define SHMEMI_DEV_X SHMEMI_DEV_RMA_TYPED
SHMEMI_RMA_TYPES(SHMEMI_DEV_FILTER)
#undef SHMEMI_DEV_X

/* Sized: shmem_put8 ... shmem_put128 on same-width element types. */
#define SHMEMI_DEV_SZT_8 uint8_t
#define SHMEMI_DEV_SZT_16 shmemi_v2
#define SHMEMI_DEV_SZT_32 shmemi_v4
#define SHMEMI_DEV_SZT_64 shmemi_v8
#define SHMEMI_DEV_SZT_128 shmemi_v16
#define SHMEMI_DEV_RMA_SIZED_SHAPES(B) SHMEMI_DEV_RMA_SHAPES(SHMEMI_DEV_SZT_##B, sz##B)
SHMEMI_RMA_SIZES(SHMEMI_DEV_RMA_SIZED_SHAPES)
#undef SHMEMI_DEV_RMA_SIZED_SHAPES
#define SHMEMI_DEV_RMA_SIZED_STD(B)                                                                \
    SHMEMI_STD_CTX(void, put##B, (void *dest, const void *source, size_t nelems, int pe),          \
                   (dest, source, nelems * (B / 8), pe))                                           \
    SHMEMI_STD_CTX(void, get##B, (void *dest, const void *source, size_t nelems, int pe),          \
                   (dest, source, nelems * (B / 8), pe))                                           \
    SHMEMI_STD_CTX(void, put##B##_nbi, (void *dest, const void *source, size_t nelems, int pe),    \
                   (dest, source, nelems * (B / 8), pe))                                           \
    SHMEMI_STD_CTX(void, get##B##_nbi, (void *dest, const void *source, size_t nelems, int pe),    \
                   (dest, source, nelems * (B / 8), pe))                                           \
    SHMEMI_STD_CTX(                                                                                \
        void, iput##B,                                                                             \
        (void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe),     \
        ((SHMEMI_DEV_SZT_##B *)dest, (const SHMEMI_DEV_SZT_##B *)source, dst, sst, nelems, pe))    \
    SHMEMI_STD_CTX(                                                                                \
        void, iget##B,                                                                             \
        (void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe),     \
        ((SHMEMI_DEV_SZT_##B *)dest, (const SHMEMI_DEV_SZT_##B *)source, dst, sst, nelems, pe))    \
    SHMEMI_STD_CTX(void, put##B##_signal,                                                          \
                   (void *dest, const void *source, size_t nelems, uint64_t *sig_addr,             \
                    uint64_t signal, int sig_op, int pe),                                          \
                   (dest, source, nelems * (B / 8), sig_addr, signal, sig_op, pe))                 \
    SHMEMI_STD_CTX(void, put##B##_signal_nbi,                                                      \
                   (void *dest, const void *source, size_t nelems, uint64_t *sig_addr,             \
                    uint64_t signal, int sig_op, int pe),                                          \
                   (dest, source, nelems * (B / 8), sig_addr, signal, sig_op, pe))
/* The sized names forward to the byte routines (put/get/signal) and to the
 * sized strided shapes (iput/iget). */
#define shmemi_dev_put8 shmemi_dev_putmem
#define shmemi_dev_put16 shmemi_dev_putmem
#define shmemi_dev_put32 shmemi_dev_putmem
#define shmemi_dev_put64 shmemi_dev_putmem
#define shmemi_dev_put128 shmemi_dev_putmem
#define shmemi_dev_get8 shmemi_dev_getmem
#define shmemi_dev_get16 shmemi_dev_getmem
#define shmemi_dev_get32 shmemi_dev_getmem
#define shmemi_dev_get64 shmemi_dev_getmem
#define shmemi_dev_get128 shmemi_dev_getmem
#define shmemi_dev_put8_nbi shmemi_dev_putmem_nbi
#define shmemi_dev_put16_nbi shmemi_dev_putmem_nbi
#define shmemi_dev_put32_nbi shmemi_dev_putmem_nbi
#define shmemi_dev_put64_nbi shmemi_dev_putmem_nbi
#define shmemi_dev_put128_nbi shmemi_dev_putmem_nbi
#define shmemi_dev_get8_nbi shmemi_dev_getmem_nbi
#define shmemi_dev_get16_nbi shmemi_dev_getmem_nbi
#define shmemi_dev_get32_nbi shmemi_dev_getmem_nbi
#define shmemi_dev_get64_nbi shmemi_dev_getmem_nbi
#define shmemi_dev_get128_nbi shmemi_dev_getmem_nbi
#define shmemi_dev_iput8 shmemi_dev_sz8_iput
#define shmemi_dev_iput16 shmemi_dev_sz16_iput
#define shmemi_dev_iput32 shmemi_dev_sz32_iput
#define shmemi_dev_iput64 shmemi_dev_sz64_iput
#define shmemi_dev_iput128 shmemi_dev_sz128_iput
#define shmemi_dev_iget8 shmemi_dev_sz8_iget
#define shmemi_dev_iget16 shmemi_dev_sz16_iget
#define shmemi_dev_iget32 shmemi_dev_sz32_iget
#define shmemi_dev_iget64 shmemi_dev_sz64_iget
#define shmemi_dev_iget128 shmemi_dev_sz128_iget
#define shmemi_dev_put8_signal shmemi_dev_putmem_signal
#define shmemi_dev_put16_signal shmemi_dev_putmem_signal
#define shmemi_dev_put32_signal shmemi_dev_putmem_signal
#define shmemi_dev_put64_signal shmemi_dev_putmem_signal
#define shmemi_dev_put128_signal shmemi_dev_putmem_signal
#define shmemi_dev_put8_signal_nbi shmemi_dev_putmem_signal_nbi
#define shmemi_dev_put16_signal_nbi shmemi_dev_putmem_signal_nbi
#define shmemi_dev_put32_signal_nbi shmemi_dev_putmem_signal_nbi
#define shmemi_dev_put64_signal_nbi shmemi_dev_putmem_signal_nbi
#define shmemi_dev_put128_signal_nbi shmemi_dev_putmem_signal_nbi
SHMEMI_RMA_SIZES(SHMEMI_DEV_RMA_SIZED_STD)
#undef SHMEMI_DEV_RMA_SIZED_STD

/* -------------------------------------------------------------------- AMOs */
enum { SHMEMI_AMO_FETCH = 100, SHMEMI_AMO_SET = 101 };

/* One typed AMO on pe: the value's bits go through the 32- or 64-bit system-
 * scope atomic (every AMO type is 4 or 8 bytes; two's complement makes the
 * unsigned add right for signed types). Returns the old value. */
#define SHMEMI_DEV_AMO_CORE(T, N)                                                                  \
    SHMEMI_DFN T shmemi_dev_##N##_amo(int op, const T *dest, T value, T cond, int pe) {            \
        uint64_t v = 0, c = 0, o = 0;                                                              \
        T r;                                                                                       \
        void *p = shmemi_dev_peer(dest, pe);                                                       \
        memcpy(&v, &value, sizeof(T));                                                             \
        memcpy(&c, &cond, sizeof(T));                                                              \
        if (op == SHMEMI_AMO_FETCH)                                                                \
            o = sizeof(T) == 4 ? shmemi_arch_ld_rlx32(p) : shmemi_arch_ld_rlx64(p);                \
        else if (op == SHMEMI_AMO_SET && sizeof(T) == 4)                                           \
            shmemi_arch_st_rlx32(p, (uint32_t)v);                                                  \
        else if (op == SHMEMI_AMO_SET)                                                             \
            shmemi_arch_st_rlx64(p, v);                                                            \
        else if (sizeof(T) == 4)                                                                   \
            o = shmemi_arch_amo32(op, p, (uint32_t)v, (uint32_t)c);                                \
        else                                                                                       \
            o = shmemi_arch_amo64(op, p, v, c);                                                    \
        memcpy(&r, &o, sizeof(T));                                                                 \
        return r;                                                                                  \
    }
SHMEMI_AMO_EXT_TYPES(SHMEMI_DEV_AMO_CORE)
#undef SHMEMI_DEV_AMO_CORE

#define SHMEMI_DEV_AMO_EXT(T, N)                                                                   \
    SHMEMI_DFN T shmemi_dev_##N##_atomic_fetch(const T *source, int pe) {                          \
        return shmemi_dev_##N##_amo(SHMEMI_AMO_FETCH, source, (T)0, (T)0, pe);                     \
    }                                                                                              \
    SHMEMI_DFN void shmemi_dev_##N##_atomic_set(T *dest, T value, int pe) {                        \
        (void)shmemi_dev_##N##_amo(SHMEMI_AMO_SET, dest, value, (T)0, pe);                         \
    }                                                                                              \
    SHMEMI_DFN T shmemi_dev_##N##_atomic_swap(T *dest, T value, int pe) {                          \
        return shmemi_dev_##N##_amo(SHMEMI_AMO_SWAP, dest, value, (T)0, pe);                       \
    }                                                                                              \
    SHMEMI_DFN void shmemi_dev_##N##_atomic_fetch_nbi(T *fetch, const T *source, int pe) {         \
        *fetch = shmemi_dev_##N##_atomic_fetch(source, pe);                                        \
    }                                                                                              \
    SHMEMI_DFN void shmemi_dev_##N##_atomic_swap_nbi(T *fetch, T *dest, T value, int pe) {         \
        *fetch = shmemi_dev_##N##_atomic_swap(dest, value, pe);                                    \
    }
SHMEMI_AMO_EXT_TYPES(SHMEMI_DEV_AMO_EXT)
#undef SHMEMI_DEV_AMO_EXT

#define SHMEMI_DEV_AMO_STD(T, N)                                                                   \
    SHMEMI_DFN T shmemi_dev_##N##_atomic_compare_swap(T *dest, T cond, T value, int pe) {          \
        return shmemi_dev_##N##_amo(SHMEMI_AMO_CAS, dest, value, cond, pe);                        \
    }                                                                                              \
    SHMEMI_DFN T shmemi_dev_##N##_atomic_fetch_add(T *dest, T value, int pe) {                     \
        return shmemi_dev_##N##_amo(SHMEMI_AMO_ADD, dest, value, (T)0, pe);                        \
    }                                                                                              \
    SHMEMI_DFN T shmemi_dev_##N##_atomic_fetch_inc(T *dest, int pe) {                              \
        return shmemi_dev_##N##_atomic_fetch_add(dest, (T)1, pe);                                  \
    }                                                                                              \
    SHMEMI_DFN void shmemi_dev_##N##_atomic_add(T *dest, T value, int pe) {                        \
        (void)shmemi_dev_##N##_atomic_fetch_add(dest, value, pe);                                  \
    }                                                                                              \
    SHMEMI_DFN void shmemi_dev_##N##_atomic_inc(T *dest, int pe) {                                 \
        (void)shmemi_dev_##N##_atomic_fetch_add(dest, (T)1, pe);                                   \
    }                                                                                              \
    SHMEMI_DFN void shmemi_dev_##N##_atomic_compare_swap_nbi(T *fetch, T *dest, T cond, T value,   \
                                                             int pe) {                             \
        *fetch = shmemi_dev_##N##_atomic_compare_swap(dest, cond, value, pe);                      \
    }                                                                                              \
    SHMEMI_DFN void shmemi_dev_##N##_atomic_fetch_inc_nbi(T *fetch, T *dest, int pe) {             \
        *fetch = shmemi_dev_##N##_atomic_fetch_inc(dest, pe);                                      \
    }                                                                                              \
    SHMEMI_DFN void shmemi_dev_##N##_atomic_fetch_add_nbi(T *fetch, T *dest, T value, int pe) {    \
        *fetch = shmemi_dev_##N##_atomic_fetch_add(dest, value, pe);                               \
    }
SHMEMI_AMO_STD_TYPES(SHMEMI_DEV_AMO_STD)
#undef SHMEMI_DEV_AMO_STD

#define SHMEMI_DEV_AMO_BIT_OP(T, N, OP, CODE)                                                      \
    SHMEMI_DFN T shmemi_dev_##N##_atomic_fetch_##OP(T *dest, T value, int pe) {                    \
        return shmemi_dev_##N##_amo(CODE, dest, value, (T)0, pe);                                  \
    }                                                                                              \
    SHMEMI_DFN void shmemi_dev_##N##_atomic_##OP(T *dest, T value, int pe) {                       \
        (void)shmemi_dev_##N##_amo(CODE, dest, value, (T)0, pe);                                   \
    }                                                                                              \
    SHMEMI_DFN void shmemi_dev_##N##_atomic_fetch_##OP##_nbi(T *fetch, T *dest, T value, int pe) { \
        *fetch = shmemi_dev_##N##_amo(CODE, dest, value, (T)0, pe);                                \
    }
#define SHMEMI_DEV_AMO_BIT(T, N)                                                                   \
    SHMEMI_DEV_AMO_BIT_OP(T, N, and, SHMEMI_AMO_AND)                                               \
    SHMEMI_DEV_AMO_BIT_OP(T, N, or, SHMEMI_AMO_OR)                                                 \
    SHMEMI_DEV_AMO_BIT_OP(T, N, xor, SHMEMI_AMO_XOR)
SHMEMI_AMO_BIT_TYPES(SHMEMI_DEV_AMO_BIT)
#undef SHMEMI_DEV_AMO_BIT
#undef SHMEMI_DEV_AMO_BIT_OP

/* ------------------------------------------------ wait_until and test */
SHMEMI_DFN uint64_t shmemi_dev_ld_acq(const void *p, size_t size) {
    /* Acquire (system): pairs with the writer's release (put_signal's fence,
     * a quiet, a barrier) so data written before it is visible after. */
    return size == 2   ? shmemi_arch_ld_acq16(p)
           : size == 4 ? shmemi_arch_ld_acq32(p)
                       : shmemi_arch_ld_acq64(p);
}

enum { SHMEMI_SCAN_ALL, SHMEMI_SCAN_ANY, SHMEMI_SCAN_SOME };

#define SHMEMI_DEV_P2P(T, N)                                                                       \
    SHMEMI_DFN T shmemi_dev_##N##_ld(const T *p) {                                                 \
        uint64_t u = shmemi_dev_ld_acq(p, sizeof(T));                                              \
        T r;                                                                                       \
        memcpy(&r, &u, sizeof(T));                                                                 \
        return r;                                                                                  \
    }                                                                                              \
    SHMEMI_DFN int shmemi_dev_##N##_test(T *ivar, int cmp, T cmp_value) {                          \
        T v = shmemi_dev_##N##_ld(ivar);                                                           \
        return SHMEMI_DEV_CMP(v, cmp, cmp_value);                                                  \
    }                                                                                              \
    SHMEMI_DFN void shmemi_dev_##N##_wait_until(T *ivar, int cmp, T cmp_value) {                   \
        unsigned spins = 0;                                                                        \
        while (!shmemi_dev_##N##_test(ivar, cmp, cmp_value))                                       \
            shmemi_arch_pause(&spins);                                                             \
    }                                                                                              \
    /* One pass over the set: ALL -> 1 when every included one holds; ANY -> the first \
     * index that holds or SIZE_MAX; SOME -> how many hold (written to indices).     */           \
    SHMEMI_DFN size_t shmemi_dev_##N##_scan(T *ivars, size_t nelems, size_t *indices,              \
                                            const int *status, int cmp, const T *vals, int vec,    \
                                            int mode) {                                            \
        size_t i, count = 0;                                                                       \
        for (i = 0; i < nelems; ++i) {                                                             \
            if (status && status[i])                                                               \
                continue;                                                                          \
            int ok = shmemi_dev_##N##_test(&ivars[i], cmp, vec ? vals[i] : vals[0]);               \
            if (mode == SHMEMI_SCAN_ALL && !ok)                                                    \
                return 0;                                                                          \
            if (mode == SHMEMI_SCAN_ANY && ok)                                                     \
                return i;                                                                          \
            if (mode == SHMEMI_SCAN_SOME && ok)                                                    \
                indices[count++] = i;                                                              \
        }                                                                                          \
        return mode == SHMEMI_SCAN_ALL ? 1 : mode == SHMEMI_SCAN_ANY ? SIZE_MAX : count;           \
    }                                                                                              \
    SHMEMI_DFN size_t shmemi_dev_##N##_included(size_t nelems, const int *status) {                \
        size_t i, k = 0;                                                                           \
        for (i = 0; i < nelems; ++i)                                                               \
            k += !(status && status[i]);                                                           \
        return k;                                                                                  \
    }                                                                                              \
    SHMEMI_DFN size_t shmemi_dev_##N##_wait_scan(T *ivars, size_t nelems, size_t *indices,         \
                                                 const int *status, int cmp, const T *vals,        \
                                                 int vec, int mode) {                              \
        unsigned spins = 0;                                                                        \
        size_t r;                                                                                  \
        if (mode != SHMEMI_SCAN_ALL && shmemi_dev_##N##_included(nelems, status) == 0)             \
            return mode == SHMEMI_SCAN_ANY ? SIZE_MAX : 0;                                         \
        for (;;) {                                                                                 \
            r = shmemi_dev_##N##_scan(ivars, nelems, indices, status, cmp, vals, vec, mode);       \
            if (mode == SHMEMI_SCAN_ANY ? r != SIZE_MAX : r != 0)                                  \
                return r;                                                                          \
            shmemi_arch_pause(&spins);                                                             \
        }                                                                                          \
    }                                                                                              \
    SHMEMI_DFN void shmemi_dev_##N##_wait_until_all(T *ivars, size_t nelems, const int *status,    \
                                                    int cmp, T cmp_value) {                        \
        (void)shmemi_dev_##N##_wait_scan(ivars, nelems, NULL, status, cmp, &cmp_value, 0,          \
                                         SHMEMI_SCAN_ALL);                                         \
    }                                                                                              \
    SHMEMI_DFN size_t shmemi_dev_##N##_wait_until_any(T *ivars, size_t nelems, const int *status,  \
                                                      int cmp, T cmp_value) {                      \
        return shmemi_dev_##N##_wait_scan(ivars, nelems, NULL, status, cmp, &cmp_value, 0,         \
                                          SHMEMI_SCAN_ANY);                                        \
    }                                                                                              \
    SHMEMI_DFN size_t shmemi_dev_##N##_wait_until_some(T *ivars, size_t nelems, size_t *indices,   \
                                                       const int *status, int cmp, T cmp_value) {  \
        return shmemi_dev_##N##_wait_scan(ivars, nelems, indices, status, cmp, &cmp_value, 0,      \
                                          SHMEMI_SCAN_SOME);                                       \
    }                                                                                              \
    SHMEMI_DFN void shmemi_dev_##N##_wait_until_all_vector(                                        \
        T *ivars, size_t nelems, const int *status, int cmp, const T *cmp_values) {                \
        (void)shmemi_dev_##N##_wait_scan(ivars, nelems, NULL, status, cmp, cmp_values, 1,          \
                                         SHMEMI_SCAN_ALL);                                         \
    }                                                                                              \
    SHMEMI_DFN size_t shmemi_dev_##N##_wait_until_any_vector(                                      \
        T *ivars, size_t nelems, const int *status, int cmp, const T *cmp_values) {                \
        return shmemi_dev_##N##_wait_scan(ivars, nelems, NULL, status, cmp, cmp_values, 1,         \
                                          SHMEMI_SCAN_ANY);                                        \
    }                                                                                              \
    SHMEMI_DFN size_t shmemi_dev_##N##_wait_until_some_vector(T *ivars, size_t nelems,             \
                                                              size_t *indices, const int *status,  \
                                                              int cmp, const T *cmp_values) {      \
        return shmemi_dev_##N##_wait_scan(ivars, nelems, indices, status, cmp, cmp_values, 1,      \
                                          SHMEMI_SCAN_SOME);                                       \
    }                                                                                              \
    SHMEMI_DFN int shmemi_dev_##N##_test_all(T *ivars, size_t nelems, const int *status, int cmp,  \
                                             T cmp_value) {                                        \
        return (int)shmemi_dev_##N##_scan(ivars, nelems, NULL, status, cmp, &cmp_value, 0,         \
                                          SHMEMI_SCAN_ALL);                                        \
    }                                                                                              \
    SHMEMI_DFN size_t shmemi_dev_##N##_test_any(T *ivars, size_t nelems, const int *status,        \
                                                int cmp, T cmp_value) {                            \
        return shmemi_dev_##N##_scan(ivars, nelems, NULL, status, cmp, &cmp_value, 0,              \
                                     SHMEMI_SCAN_ANY);                                             \
    }                                                                                              \
    SHMEMI_DFN size_t shmemi_dev_##N##_test_some(T *ivars, size_t nelems, size_t *indices,         \
                                                 const int *status, int cmp, T cmp_value) {        \
        return shmemi_dev_##N##_scan(ivars, nelems, indices, status, cmp, &cmp_value, 0,           \
                                     SHMEMI_SCAN_SOME);                                            \
    }                                                                                              \
    SHMEMI_DFN int shmemi_dev_##N##_test_all_vector(T *ivars, size_t nelems, const int *status,    \
                                                    int cmp, const T *cmp_values) {                \
        return (int)shmemi_dev_##N##_scan(ivars, nelems, NULL, status, cmp, cmp_values, 1,         \
                                          SHMEMI_SCAN_ALL);                                        \
    }                                                                                              \
    SHMEMI_DFN size_t shmemi_dev_##N##_test_any_vector(T *ivars, size_t nelems, const int *status, \
                                                       int cmp, const T *cmp_values) {             \
        return shmemi_dev_##N##_scan(ivars, nelems, NULL, status, cmp, cmp_values, 1,              \
                                     SHMEMI_SCAN_ANY);                                             \
    }                                                                                              \
    SHMEMI_DFN size_t shmemi_dev_##N##_test_some_vector(T *ivars, size_t nelems, size_t *indices,  \
                                                        const int *status, int cmp,                \
                                                        const T *cmp_values) {                     \
        return shmemi_dev_##N##_scan(ivars, nelems, indices, status, cmp, cmp_values, 1,           \
                                     SHMEMI_SCAN_SOME);                                            \
    }
SHMEMI_P2P_ALL_TYPES(SHMEMI_DEV_P2P)
#undef SHMEMI_DEV_P2P

/* ---------------------------------------------------------------- barrier */
/* Dissemination barrier over WORLD on the control words of device/state.h.
 * Round k: store this barrier's epoch into barrier[k] of PE me + 2^k, wait for
 * PE me - 2^k's store into our barrier[k]. Epochs only grow and every
 * barrier[k] word has one writer, so a writer one barrier ahead (it can be at
 * most one ahead) only raises the value and `>=` still sees ours. One caller
 * per PE at a time (see the top). The control area starts zeroed. */
/* `released`: the caller just made every earlier access of this thread
 * visible at system scope (barrier_all's quiet), so the first flag store needs
 * no release of its own. One fence per round: the acquire after the wait is
 * also the release of the next round's store (cumulativity). */
SHMEMI_DFN void shmemi_dev_sync_rounds(int released) {
    const struct shmemi_device_state *st = SHMEMI_DST;
    struct shmemi_dev_ctl *ctl = st->ctl;
    int me = st->my_pe, n = st->n_pes, k, d;
    /* The epoch word is this PE's own and one barrier runs at a time per PE:
     * relaxed is enough (kernel boundaries order it between launches). */
    uint64_t e = shmemi_arch_ld_rlx64(&ctl->epoch.v) + 1;
    shmemi_arch_st_rlx64(&ctl->epoch.v, e);
    for (k = 0, d = 1; d < n; ++k, d <<= 1) {
        struct shmemi_dev_ctl *to = (struct shmemi_dev_ctl *)shmemi_dev_peer(ctl, (me + d) % n);
        unsigned spins = 0;
        /* Release (system): everything this thread did or acquired so far
         * (earlier rounds included) before the flag; PE me + 2^k acquires it. */
        if (released)
            shmemi_arch_st_rlx64(&to->barrier[k].v, e);
        else
            shmemi_arch_st_rel64(&to->barrier[k].v, e);
        /* PE me - 2^k's store of round k; the fence below acquires it (and
         * releases the next round's store). */
        while (shmemi_arch_ld_rlx64(&ctl->barrier[k].v) < e)
            shmemi_arch_pause(&spins);
        shmemi_arch_fence_acq_rel();
        released = 1;
    }
}
SHMEMI_DFN void shmemi_dev_sync_all(void) { shmemi_dev_sync_rounds(0); }
SHMEMI_DFN void shmemi_dev_barrier_all(void) {
    shmemi_dev_quiet(); /* puts and AMOs complete before anyone leaves */
    shmemi_dev_sync_rounds(1);
}
SHMEMI_STD(void, barrier_all, (void), ())
SHMEMI_STD(void, sync_all, (void), ())

/* ----------------------- workgroup- and wave-cooperative, WORLD collectives */
#include "shmem/device/coop.h"

/* ------------------------------------------ standard names from the op table */
/* Every op-table row marked dev (include/shmem_ops.h) is a standard name in
 * kernels: shmem_NAME (and shmem_ctx_NAME) forwarding to the shmemi_dev_NAME
 * body above, with the row's parameters, so host and device names cannot
 * drift apart. Types device code cannot hold (longdouble) have none. */
#if defined(SHMEMI_DEV_PASS)
#define SHMEMI_FN(SEC, FILE, VER, FORMS, DEV, RET, NAME, P)
#define SHMEMI_OP(SEC, FILE, VER, FORMS, DEV, T, N, RET, NAME, P, A, GEN, BODY)                    \
    SHMEMI_DEV_OP_##DEV(FORMS, N, RET, NAME, P, A)
#define SHMEMI_DEV_OP_host(FORMS, N, RET, NAME, P, A)
#define SHMEMI_DEV_OP_hd(FORMS, N, RET, NAME, P, A)
#define SHMEMI_DEV_OP_dev(FORMS, N, RET, NAME, P, A)                                               \
    SHMEMI_WHEN(SHMEMI_CAT(SHMEMI_DEV_NOT_, SHMEMI_PROBE(SHMEMI_DEV_SKIP_##N)),                    \
                SHMEMI_DEV_STD_##FORMS, (RET, NAME, P, A))
#define SHMEMI_DEV_NOT_0 1
#define SHMEMI_DEV_NOT_1 0
#define SHMEMI_DEV_STD_ctx SHMEMI_STD_CTX
#define SHMEMI_DEV_STD_plain SHMEMI_STD
SHMEMI_OPS_ALL()
#undef SHMEMI_FN
#undef SHMEMI_OP
#endif

/* ------------------------------------------------------- plan view bodies */
#if defined(SHMEMI_DEV_PASS)
#include "shmem/device/plan_view.h"

extern "C" __host__ __device__ inline int shmemx_plan_owns(const shmemx_plan_view_t *view, int c) {
    return shmemi_view_owns(view, c);
}
/* The whole workgroup calls it after its writes to chunk c: every wave drains
 * its stores, the group meets, thread 0 fences at system scope (cumulative over
 * the group's stores) and marks; the last writer's mark opens the gate with a
 * release the engine's POLL acquires (PLANS.md). */
extern "C" __host__ __device__ inline void shmemx_plan_mark_ready(shmemx_plan_view_t *view, int c) {
    shmemi_arch_drain();
    shmemi_arch_wg_sync();
    if (shmemi_arch_wg_rank() == 0) {
        shmemi_arch_fence_sys();
        (void)shmemi_view_mark_ready(view, c);
    }
    shmemi_arch_wg_sync();
}
/* Per thread: the acquire inside makes chunk c's data readable by the caller. */
extern "C" __host__ __device__ inline int shmemx_plan_arrived(const shmemx_plan_view_t *view,
                                                              int c) {
    return shmemi_view_arrived(view, c);
}
extern "C" __host__ __device__ inline int shmemx_plan_wait_chunk(const shmemx_plan_view_t *view,
                                                                 int c) {
    return shmemi_view_wait_chunk(view, c);
}
#endif

/* ----------------------------------------------- device state registration */
#if defined(SHMEMI_DEV_GPU) && !defined(SHMEMI_DEV_PASS)
/* Host side of this translation unit: copy the library's device state into
 * this unit's shmemi_dstate with the application's own runtime (the library
 * cannot name this symbol: DESIGN §5). Called by shmem_init, or at once when
 * registered after it. A unit of a module being loaded (dlopen after
 * shmem_init) registers before its runtime knows the unit's symbols: then it
 * answers "not yet" (non-zero), and the library calls again from its next
 * routine. */
static int shmemi_dstate_fill(const void *state, size_t size) {
    const struct shmemi_device_state *s = (const struct shmemi_device_state *)state;
    if (size != sizeof(struct shmemi_device_state) || s->version != SHMEMI_DEVICE_STATE_VERSION) {
        fprintf(stderr,
                "[PE %d] shmem: shmem_device.h was built against device state version %d "
                "(%zu bytes), the library has version %d (%zu bytes)\n",
                s->my_pe, SHMEMI_DEVICE_STATE_VERSION, sizeof(struct shmemi_device_state),
                s->version, size);
        return 0;
    }
#if defined(__HIPCC__)
    hipError_t rc =
        hipMemcpyToSymbol(HIP_SYMBOL(shmemi_dstate), state, size, 0, hipMemcpyHostToDevice);
    if (rc == hipErrorInvalidSymbol) {
        (void)hipGetLastError();
        return 1;
    }
    if (rc != hipSuccess)
        fprintf(stderr, "[PE %d] shmem: copying the device state into this program failed: %s\n",
                s->my_pe, hipGetErrorString(rc));
#else
    cudaError_t rc = cudaMemcpyToSymbol(shmemi_dstate, state, size, 0, cudaMemcpyHostToDevice);
    if (rc == cudaErrorInvalidSymbol) {
        (void)cudaGetLastError();
        return 1;
    }
    if (rc != cudaSuccess)
        fprintf(stderr, "[PE %d] shmem: copying the device state into this program failed: %s\n",
                s->my_pe, cudaGetErrorString(rc));
#endif
    return 0;
}
__attribute__((constructor)) static void shmemi_dstate_register(void) {
    if (shmemx_device_register(shmemi_dstate_fill) != 0)
        fprintf(stderr, "shmem: too many translation units include shmem_device.h; "
                        "kernels of this one would see no device state\n");
}
#endif

#endif
