/* The core's path table: how a (PE, symmetric address) is reached.
 *
 * A path is one transport, described by a small table of operations
 * (struct shmemi_path_ops), one row per file:
 *   direct (path_direct.c)  the peer's memory is mapped here: memcpy, C11
 *                           atomics, large non-blocking copies on the engine
 *   device (path_device.c)  the device heap of GPU builds: the GPU runtime's
 *                           copies and the atomic kernel (shmem/gpu.c)
 *   fabric (path_fabric.c)  PEs of other nodes (every other PE with
 *                           SHMEM_FORCE_FABRIC): libfabric RMA and atomics
 * and the rows are listed once, in path.c. Every (PE, region) slot of the
 * job names the row that reaches it (shmemi.peers[pe].path[region]), filled
 * at shmem_init by each row's setup; a later row (the fabric) takes over the
 * slots it reaches.
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
    char *addr; /* the PE's copy as mapped here; NULL where the row has no mapping */
    size_t off; /* offset in the region */
    int pe;     /* world PE */
    int region; /* enum shmemi_region */
};

/* The row may load and store through route.addr from host threads (the
 * collectives, locks and active-set syncs, which copy between mappings). */
#define SHMEMI_PATH_HOST_MAPPED 1u
/* Without a mapping, the library's own protocols (barriers, collectives,
 * locks, liveness) may reach the row's slots through its operations
 * (shmemi_word_*, shmemi_sym_*): a fabric. */
#define SHMEMI_PATH_PROTOCOL_OPS 2u

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
    /* The library's own 64-bit protocol word (one writer, never two stores
     * in flight to it: struct shmemi_round) set to v, ordered after the
     * transfers this PE completed; may complete before it is visible at the
     * target (no delivery acknowledgement: the target's waiter is the one
     * who needs to see it). Optional: a signal SET otherwise. */
    void (*word_store)(const struct shmemi_route *r, uint64_t v, const char *fn);
    /* n bytes to r, then v into the library's 64-bit word w (a route of this
     * row in the same region), carried out in that order at the target:
     * whoever sees v sees the bytes. Complete for the caller at once (a small
     * collective's message into a slot of the control block). Optional:
     * small collectives then take the barrier path. */
    void (*ordered_store)(const struct shmemi_route *r, const void *src, size_t n,
                          const struct shmemi_route *w, uint64_t v, const char *fn);
    /* n bytes of src to r, then v into the library's 64-bit word w (a route
     * of this row; word_store's rules), visible at the target in that order:
     * whoever sees v sees the bytes; src is free when it returns. Optional: a
     * blocking put, then word_store. */
    void (*put_word)(const struct shmemi_route *r, const void *src, size_t n,
                     const struct shmemi_route *w, uint64_t v, const char *fn);
    /* Mailboxes: a message of n bytes (n may be 0) for box `box` (below
     * SHMEMI_MAIL_BOXES) of world PE pe, tagged seq, which the target keeps in
     * memory of its own until read there: complete for the caller at once.
     * mail_in: the bytes of the message tagged seq from PE pe in this PE's
     * box, or NULL while it has not come. The sender of a box never has two
     * messages in it unread (seq and seq + 1 alternate between two boxes).
     * Reaches every PE of the job, mapped ones included. mail_bytes: the
     * largest message that beats the barrier path, the same on every PE.
     * Optional: mid-size collectives then take the barrier path. */
    void (*mail)(int pe, int box, uint64_t seq, const void *src, size_t n, const char *fn);
    const void *(*mail_in)(int pe, int box, uint64_t seq);
    size_t (*mail_bytes)(void);
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
    /* Move the row's own work along (a waiting thread calls it): 1 when the
     * row's transfers move only while threads of this PE run its progress
     * (a waiter should then yield, not sleep). Optional. */
    int (*progress)(void);
    /* The last of this PE's waits that ran the progress (shmemi_waits_serving)
     * ended. Optional. */
    void (*served)(void);
    /* Release what the row keeps for a context (shmem_ctx_destroy, after its
     * quiet). Optional. */
    void (*ctx_free)(struct shmemi_ctx *c);
    /* shmem_finalize, once every PE is in it: the row's last collective step
     * and its teardown. Optional. */
    void (*fini)(void);
    /* The job ends without a finalize (a fatal error, shmem_global_exit, an
     * exit without shmem_finalize): release what would outlive the process.
     * Any thread, any lock held, the row set up or not (its setup may have
     * failed half way). Optional. */
    void (*abandon)(void);
};

extern const struct shmemi_path_ops shmemi_path_direct, shmemi_path_device, shmemi_path_fabric;

/* Run every row's setup (shmem_init, after the heaps). */
int shmemi_paths_init(void);
/* The rows in use, in table order (quiet, fence and check go through each). */
extern const struct shmemi_path_ops *shmemi_paths[];
extern int shmemi_npaths;

/* ------------------------------------------------------------ the route */

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
    shmemi_ctx_check(ctx, fn);
    const struct shmemi_team *t = ctx->team;
    if (SHMEMI_UNLIKELY((unsigned)pe >= (unsigned)t->size))
        shmemi_bad_ctx_pe(ctx, pe, fn);
    shmemi_route_at(r, addr, len, t->start + pe * t->stride, fn);
}

/* Atomicity across rows: CPU atomics on a mapping and a NIC's atomics on the
 * same word are not atomic with each other. So once any PE of the job is
 * reached through the fabric, every AMO on symmetric memory goes through it,
 * the PEs of this node and this PE itself included (shmemi.amo_row, set by the
 * fabric's setup) -- unless the fabric's atomics are carried out by the
 * target's CPU with its atomic instructions (shmemi.amo_mapped: libfabric's
 * software atomics, or the target's message handler): then an AMO on a word
 * this PE maps is that same kind of atomic, and stays a hardware atomic on the
 * mapping. The one place that decides the row of an AMO. */
static inline void shmemi_route_atomic(struct shmemi_route *r) {
    if (SHMEMI_UNLIKELY(shmemi.amo_row != NULL) && r->region != SHMEMI_REGION_DEVICE &&
        !(shmemi.amo_mapped && (r->path->caps & SHMEMI_PATH_HOST_MAPPED)))
        r->path = shmemi.amo_row;
}

/* shmemi_route() for an AMO. */
static inline void shmemi_route_amo(struct shmemi_route *r, shmem_ctx_t ctx, const void *addr,
                                    size_t len, int pe, const char *fn) {
    shmemi_route(r, ctx, addr, len, pe, fn);
    shmemi_route_atomic(r);
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
/* Every row's progress (1 when one needs its waiters to keep running it),
 * context release and finalize (see struct shmemi_path_ops). */
int shmemi_paths_progress(void);
void shmemi_paths_served(void);
void shmemi_paths_ctx_free(struct shmemi_ctx *c);
void shmemi_paths_fini(void);
void shmemi_paths_abandon(void);

/* ---------------------------------------- peers' memory, whatever the row */
/* For the library's own protocols (barriers, team syncs, collectives, locks,
 * liveness, plans), which reach a peer's copy of a symmetric address or of a
 * word of this PE's control block through a mapping where the row has one,
 * and through the row's operations otherwise (a fabric). Each ends the job
 * naming fn on a failure. */

/* The route to pe's copy of `mine`, a word of this PE's host heap (the
 * control block, the words area): the same offset in pe's host heap. */
static inline void shmemi_route_word(struct shmemi_route *r, int pe, const void *mine) {
    shmemi_route_slot(r, pe, SHMEMI_REGION_HEAP, (size_t)((const char *)mine - shmemi.heap_base));
}

/* Store v into pe's copy of the 64-bit word `mine` of this PE's host heap,
 * with release semantics: what this PE stored before, and the transfers it
 * completed, are visible to whoever acquires the word. The one writer of that
 * word, which never has two stores in flight to it (struct shmemi_round). */
static inline void shmemi_word_store(int pe, uint64_t *mine, uint64_t v, const char *fn) {
    struct shmemi_route r;
    shmemi_route_word(&r, pe, mine);
    if (SHMEMI_LIKELY(r.path->caps & SHMEMI_PATH_HOST_MAPPED)) {
        __atomic_store_n((uint64_t *)r.addr, v, __ATOMIC_RELEASE);
        shmemi_wake_at(pe, r.addr, sizeof(uint64_t)); /* a thread of pe may sleep on it */
    } else if (r.path->word_store) {
        r.path->word_store(&r, v, fn);
    } else {
        r.path->signal(&shmemi_ctx_default, &r, v, SHMEM_SIGNAL_SET, 1, fn);
    }
}

/* n bytes of pe's copy of `mine` (this PE's host heap) into dst. */
void shmemi_word_get(void *dst, const void *mine, size_t n, int pe, const char *fn);

/* The same for a 32-bit word (plans' fence and abort words). */
void shmemi_word_store32(int pe, uint32_t *mine, uint32_t v, const char *fn);

/* pe's copy of the 64-bit word `mine` (relaxed: the caller orders it). */
static inline uint64_t shmemi_word_load(int pe, const uint64_t *mine, const char *fn) {
    struct shmemi_route r;
    shmemi_route_word(&r, pe, mine);
    if (SHMEMI_LIKELY(r.path->caps & SHMEMI_PATH_HOST_MAPPED))
        return __atomic_load_n((const uint64_t *)r.addr, __ATOMIC_RELAXED);
    uint64_t v;
    r.path->get(&shmemi_ctx_default, &v, &r, sizeof(v), 0, fn);
    return v;
}

/* Store v into pe's copy of the symmetric 64-bit word `sym` (release, as
 * shmemi_word_store). */
void shmemi_sym_store(void *sym, uint64_t v, int pe, const char *fn);
/* n bytes of pe's copy of the symmetric `sym` into the local buffer dst
 * (complete when it returns). */
void shmemi_sym_get(void *dst, const void *sym, size_t n, int pe, const char *fn);
/* n bytes of the local src into pe's copy of `sym`: complete at the next
 * quiet of the default context (shmemi_sym_quiet), at once through a
 * mapping; src must stay unchanged until then. */
void shmemi_sym_put(void *sym, const void *src, size_t n, int pe, const char *fn);
/* n bytes of the local src into pe's copy of `sym`, then v into pe's copy of
 * the 64-bit word `mine` of this PE's host heap (shmemi_word_store's word):
 * whoever sees v sees the bytes. src is free when it returns. */
void shmemi_sym_put_word(void *sym, const void *src, size_t n, int pe, uint64_t *mine, uint64_t v,
                         const char *fn);
/* pe's copy of `sym` to read n bytes from: the mapping, or `scratch` (n bytes)
 * filled with a get. */
const void *shmemi_sym_src(const void *sym, size_t n, int pe, void *scratch, const char *fn);
/* Complete the shmemi_sym_put calls of this thread's protocol (nothing when
 * every row in use maps its peers). */
void shmemi_sym_quiet(const char *fn);
/* A 64-bit AMO on pe's copy of `sym`, whatever row reaches it (the row
 * shmemi_route_atomic picks): the old value. */
uint64_t shmemi_sym_amo(void *sym, int pe, enum shmemi_amo_op op, uint64_t value, uint64_t cond,
                        const char *fn);
/* The same addition without its old value: posted, not waited for (it
 * completes at the default context's quiet, and lands on its own). */
void shmemi_sym_add(void *sym, int pe, uint64_t value, const char *fn);
/* The address pe's copy of the local symmetric `sym` has for this PE's copy
 * engine: its mapping, or a window the engine's fabric hook carries to pe
 * (soft engine; NULL when neither exists). */
void *shmemi_peer_addr(const void *sym, int pe);
/* The fabric's side of that: the window address of (pe, region, off), or
 * NULL (shmem/path_fabric.c: the soft engine only; none without libfabric). */
void *shmemi_fabric_window(int pe, int region, size_t off);
/* The window the soft copy engine hands to the fabric (its engine config),
 * or NULL when no PE is reached through the fabric. */
struct sdma_foreign;
const struct sdma_foreign *shmemi_fabric_foreign(void);

#endif
