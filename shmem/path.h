/* The core's path table: how a (PE, symmetric address) is reached.
 *
 * A path is one transport, described by a small table of operations
 * (struct shmemi_path_ops), one row per file:
 *   direct (path_direct.c)  the peer's memory is mapped here: memcpy, C11
 *                           atomics, large non-blocking copies on the engine
 *   device (path_device.c)  the device heap of GPU builds: the GPU runtime's
 *                           copies and the atomic kernel (shmem/gpu.c)
 * and the rows are listed once, in path.c. Every (PE, region) slot of the
 * job names the row that reaches it (shmemi.peers[pe].path[region]), filled
 * at shmem_init by each row's setup; a later row (a fabric for PEs of other
 * nodes) takes over the slots it reaches.
 *
 * shmemi_route() is the one decision point: context -> team -> world PE ->
 * region and offset -> the row of that slot. A remote address is always
 * expressible as (world PE, region, offset); `addr` is the peer's copy as
 * mapped here where the row has a mapping. The operation bodies (rma.c,
 * amo.c, sync.c, coll.c, lock.c, xput.c) call the row through the route and
 * never ask which row it is. */
#ifndef SHMEMI_PATH_H
#define SHMEMI_PATH_H

#include "shmem/shmemi.h"

struct shmemi_path_ops;

/* Where `len` bytes of a PE's symmetric memory are, and what reaches them. */
struct shmemi_route {
    const struct shmemi_path_ops *path;
    char *addr;  /* the PE's copy as mapped here; NULL where the row has no mapping */
    size_t off;  /* offset in the region */
    int pe;      /* world PE */
    int region;  /* enum shmemi_region */
};

/* The row may load and store through route.addr from host threads (the
 * collectives, locks and active-set syncs, which copy between mappings). */
#define SHMEMI_PATH_HOST_MAPPED 1u

/* One transport. Every operation ends the job through shmemi_fatal on a
 * failure, naming `fn` (the routine the user called). Buffers named `src`
 * and `dst` are the caller's local memory (host memory, or this PE's device
 * heap in GPU builds); the remote side is a route of this row. `nbi`: the
 * operation may complete at quiet. Optional entries are NULL when the row has
 * nothing to do. */
struct shmemi_path_ops {
    const char *name;
    unsigned caps; /* SHMEMI_PATH_* */
    /* Why a routine that needs a capability the row lacks refuses an address
     * of the row: "<address> <refusal>". */
    const char *refusal;
    /* At shmem_init, after the heaps exist: claim the (PE, region) slots the
     * row reaches (shmemi.peers[pe].path[region]). Returns 0, or negative. */
    int (*setup)(void);

    void (*put)(struct shmemi_ctx *c, const struct shmemi_route *r, const void *src, size_t n,
                int nbi, const char *fn);
    void (*get)(struct shmemi_ctx *c, void *dst, const struct shmemi_route *r, size_t n, int nbi,
                const char *fn);
    /* Strided: nelems elements of esize bytes, rstride and lstride bytes
     * apart on the remote and the local side (route: the whole extent). */
    void (*iput)(struct shmemi_ctx *c, const struct shmemi_route *r, size_t rstride,
                 const void *src, size_t lstride, size_t esize, size_t nelems, const char *fn);
    void (*iget)(struct shmemi_ctx *c, void *dst, size_t lstride, const struct shmemi_route *r,
                 size_t rstride, size_t esize, size_t nelems, const char *fn);
    /* n bytes to r, then the signal update of sig (a route of this row): whoever
     * sees the signal sees the data. */
    void (*put_signal)(struct shmemi_ctx *c, const struct shmemi_route *r, const void *src,
                       size_t n, const struct shmemi_route *sig, uint64_t signal, int sig_op,
                       int nbi, const char *fn);
    /* The signal update alone (SHMEM_SIGNAL_SET or _ADD on a 64-bit word),
     * ordered after every transfer of this PE to sig->pe already complete. */
    void (*signal)(struct shmemi_ctx *c, const struct shmemi_route *sig, uint64_t signal,
                   int sig_op, int nbi, const char *fn);
    /* `op` on the size-byte (4 or 8) word; *old (when not NULL) gets the old
     * value; without old, the operation may complete at quiet. */
    void (*amo)(struct shmemi_ctx *c, const struct shmemi_route *r, enum shmemi_amo_op op,
                size_t size, uint64_t value, uint64_t cond, uint64_t *old, const char *fn);
    /* An acquire load of a word (1, 2, 4 or 8 bytes) into *out: wait, test
     * and signal_fetch on this PE's memory. */
    void (*load)(const struct shmemi_route *r, void *out, size_t size, const char *fn);
    /* Complete (quiet) or order (fence) what ctx queued on the row, for one
     * world PE or every PE (pe < 0). Optional. */
    void (*quiet)(struct shmemi_ctx *c, int pe, const char *fn);
    void (*fence)(struct shmemi_ctx *c, int pe, const char *fn);
    /* Report a failure the row found asynchronously (ends the job), after
     * what `how` (enum shmemi_check) asks first: a host barrier's or sync's
     * completion of this PE's own device work, or finalize's drain. Optional. */
    void (*check)(int how, const char *fn);
};

extern const struct shmemi_path_ops shmemi_path_direct, shmemi_path_device;

/* Run every row's setup (shmem_init, after the heaps). */
int shmemi_paths_init(void);
/* The rows in use, in table order (quiet, fence and check go through each). */
extern const struct shmemi_path_ops *shmemi_paths[];
extern int shmemi_npaths;

/* ------------------------------------------------------------ the route */

void shmemi_ctx_invalid(const char *fn) __attribute__((noreturn));
void shmemi_bad_ctx_pe(const struct shmemi_ctx *c, int pe, const char *fn)
    __attribute__((noreturn));
void shmemi_path_refused(const struct shmemi_route *r, const void *addr, const char *fn)
    __attribute__((noreturn));

/* The region and offset of [addr, addr + len) of this PE: the user heap or
 * the static data segment, never the library's own words beyond the user heap
 * (barrier and team words, the device control area). 0, or -1 outside. */
static inline int shmemi_region_of(const void *addr, size_t len, int *region, size_t *off) {
    uintptr_t o = (uintptr_t)addr - (uintptr_t)shmemi.user_base;
    if (SHMEMI_LIKELY(o < shmemi.user_size && len <= shmemi.user_size - o)) {
        *region = shmemi.user_region;
        *off = o;
        return 0;
    }
    o = (uintptr_t)addr - (uintptr_t)shmemi.data_base;
    if (o < shmemi.data_size && len <= shmemi.data_size - o) {
        *region = SHMEMI_REGION_DATA;
        *off = o;
        return 0;
    }
    return -1;
}

/* The route to (world PE wpe, region, off). */
static inline void shmemi_route_slot(struct shmemi_route *r, int wpe, int region, size_t off) {
    const struct shmemi_peer *p = &shmemi.peers[wpe];
    char *base = p->base[region];
    r->path = p->path[region];
    r->addr = SHMEMI_LIKELY(base != NULL) ? base + off : NULL;
    r->off = off;
    r->pe = wpe;
    r->region = region;
}

/* Route a symmetric address of this PE to world PE wpe (checked by the
 * caller); ends the job naming fn when it is not symmetric. */
static inline void shmemi_route_at(struct shmemi_route *r, const void *addr, size_t len, int wpe,
                                   const char *fn) {
    int region;
    size_t off;
    if (SHMEMI_UNLIKELY(shmemi_region_of(addr, len, &region, &off)))
        shmemi_bad_addr(addr, len, wpe, fn);
    shmemi_route_slot(r, wpe, region, off);
}

/* The one decision point of every operation on a context: the PE number is
 * relative to the context's team (the default context's team is WORLD), so
 * ctx -> team -> world PE -> region and offset -> path. Ends the job on an
 * invalid context, PE or address. */
static inline void shmemi_route(struct shmemi_route *r, shmem_ctx_t ctx, const void *addr,
                                size_t len, int pe, const char *fn) {
    shmemi_check_init(fn);
    if (SHMEMI_UNLIKELY(ctx == SHMEM_CTX_INVALID))
        shmemi_ctx_invalid(fn);
    const struct shmemi_team *t = ctx->team;
    if (SHMEMI_UNLIKELY((unsigned)pe >= (unsigned)t->size))
        shmemi_bad_ctx_pe(ctx, pe, fn);
    shmemi_route_at(r, addr, len, t->start + pe * t->stride, fn);
}

/* The same for a world PE (collectives, locks, copy-engine puts, plans). */
static inline void shmemi_route_pe(struct shmemi_route *r, const void *addr, size_t len, int pe,
                                   const char *fn) {
    shmemi_check_init(fn);
    if (SHMEMI_UNLIKELY((unsigned)pe >= (unsigned)shmemi.n_pes))
        shmemi_bad_pe(pe, fn);
    shmemi_route_at(r, addr, len, pe, fn);
}

/* The same without ending the job: 0, or -1 for a bad PE or address. */
static inline int shmemi_route_try(struct shmemi_route *r, const void *addr, size_t len, int pe) {
    int region;
    size_t off;
    if ((unsigned)pe >= (unsigned)shmemi.n_pes || shmemi_region_of(addr, len, &region, &off))
        return -1;
    shmemi_route_slot(r, pe, region, off);
    return 0;
}

/* The route of the library's own memory: [addr, addr + len) anywhere in this
 * PE's host or device heap, the library's areas beyond the user heap included
 * (triggered plans' words in the words area), to world PE pe (checked by the
 * caller). For the library's protocols only: users' addresses go through the
 * routes above. 0, or -1 when the range is in neither heap. */
static inline int shmemi_route_internal(struct shmemi_route *r, const void *addr, size_t len,
                                        int pe) {
    uintptr_t o = (uintptr_t)addr - (uintptr_t)shmemi.heap_base;
    int region = SHMEMI_REGION_HEAP;
    if (o >= shmemi.heap_size || len > shmemi.heap_size - o) {
        o = (uintptr_t)addr - (uintptr_t)shmemi.dev_base;
        if (o >= shmemi.dev_size || len > shmemi.dev_size - o)
            return -1;
        region = SHMEMI_REGION_DEVICE;
    }
    shmemi_route_slot(r, pe, region, o);
    return 0;
}

/* The peer's copy as a host pointer, for the routines that load and store
 * through the mapping themselves (collectives, locks, active-set syncs): an
 * address whose row lacks SHMEMI_PATH_HOST_MAPPED ends the job with the row's
 * refusal (world PE; ends the job on a bad PE or address too). */
static inline void *shmemi_remote(const void *addr, size_t len, int pe, const char *fn) {
    struct shmemi_route r;
    shmemi_route_pe(&r, addr, len, pe, fn);
    if (SHMEMI_UNLIKELY(!(r.path->caps & SHMEMI_PATH_HOST_MAPPED)))
        shmemi_path_refused(&r, addr, fn);
    return r.addr;
}

/* Complete, order or check (how: enum shmemi_check) every row (pe < 0: every PE). */
void shmemi_paths_quiet(struct shmemi_ctx *c, int pe, const char *fn);
void shmemi_paths_fence(struct shmemi_ctx *c, int pe, const char *fn);
void shmemi_paths_check(int how, const char *fn);

#endif
