/* The fabric row of the path table: PEs this process does not map (PEs of
 * other nodes; every other PE with SHMEM_FORCE_FABRIC), reached through
 * libfabric (shmem/fabric.h; setup and completion in shmem/fabric.c).
 *
 * A route of the row is (world PE, region, offset): the remote address is
 * the peer's base of the region (or 0 without FI_MR_VIRT_ADDR) plus the
 * offset, with the peer's key of the region.
 *
 *   put   up to the inject size: FI_INJECT (the source is free at once);
 *         above it, blocking puts wait for their own completion (FI_COMPLETION:
 *         other threads' transfers on the endpoint do not count), _nbi ones
 *         complete at quiet
 *   get   the same, without inject
 *   AMO   the provider's atomic where it has the type and operation natively
 *         (fi_query_atomic), else a compare-and-swap loop, else a message the
 *         target carries out (fabric_am.c); fetching ones wait for their
 *         completion, the others complete at quiet. Non-fetching ones go as
 *         messages without a reply where the provider's atomics are the
 *         target CPU's too (see "posted AMOs" below)
 *   signal  an atomic write or add of the 64-bit word, after the data: the
 *         provider keeps writes in order (FI_ORDER_WAW), or the data's
 *         completion is waited for first
 *   quiet the endpoint's counter reaches the number of transfers posted;
 *         every transfer is FI_DELIVERY_COMPLETE, so they are visible at
 *         their targets (or, SHMEM_OFI_QUIET=readback, a read from every PE
 *         written to since the last quiet comes back after those writes)
 *   fence every put, AMO and signal of a context that does not complete
 *         before its call returns is a write or atomic of the context's one
 *         endpoint (staged and fetching transfers are waited for): where the
 *         provider places writes and atomics in order (FI_ORDER_WAW), nothing
 *         to wait for. Else the first transfer after it of a way the
 *         provider does not place after those in flight (an atomic after
 *         writes over tcp;ofi_rxm, a message of the target's from another
 *         endpoint) waits for a quiet. A quiet where an atomic still in
 *         flight went to a PE whose puts do not take the fabric (this PE, a
 *         PE of this node: AMOs of every PE go through the fabric)
 *
 * Local buffers the provider cannot take (unregistered memory where the
 * provider has FI_MR_LOCAL; this PE's device heap without FI_HMEM) go
 * through the endpoint's bounce buffer, two halves in turn: one is copied
 * while the other is on the wire. A peer's region that the provider cannot
 * reach (its device heap, staged) is reached by messages (fabric_am.c). */
#include "shmem/fabric.h"

#include <stdlib.h>

/* ----------------------------------------------------------- posting */

/* One write (or read) of n bytes between buf and ra, in pe's region, with
 * exactly `flags`; counted as issued (before it is posted: a completion
 * never shows before its count). */
static void post(struct fab_ep *e, int pe, int region, uint64_t ra, void *buf, size_t n, void *desc,
                 uint64_t flags, void *ctx, int write, const char *what, const char *fn) {
    const struct fab_peer *p = &shmemi_fab.peers[pe];
    struct iovec iov = {buf, n};
    struct fi_rma_iov riov = {ra, n, p->key[region]};
    struct fi_msg_rma m = {.msg_iov = &iov,
                           .desc = &desc,
                           .iov_count = 1,
                           .addr = p->addr,
                           .rma_iov = &riov,
                           .rma_iov_count = 1,
                           .context = ctx};
    /* A quiet that reads the count waits for this one. */
    shmemi_fab_count(e);
    if (write)
        FAB_POST(e, pe, what, fn, fi_writemsg(e->ep, &m, flags));
    else
        FAB_POST(e, pe, what, fn, fi_readmsg(e->ep, &m, flags));
    shmemi_fab_toward(e, pe);
}

/* A transfer that completes at quiet was posted on e, taking `way`, and
 * counted: marked after (release), so a quiet that clears the mark waits for
 * it. */
static void in_flight(struct fab_ep *e, int way) {
    if (!(__atomic_load_n(&e->ways, __ATOMIC_RELAXED) & way))
        __atomic_fetch_or(&e->ways, way, __ATOMIC_RELEASE);
}

/* An application's transfer, posted: counted after issued (release), so a
 * quiet that reads this count also waits for the transfers it counts. */
static void count_app(struct fab_ep *e) { __atomic_fetch_add(&e->app_issued, 1, __ATOMIC_RELEASE); }

static void rma(struct fab_ep *e, const struct shmemi_route *r, uint64_t ra, void *buf, size_t n,
                void *desc, uint64_t flags, void *ctx, int write, const char *fn) {
    uint64_t dc = write ? shmemi_fab_write_flags(e, r->pe) : 0;
    post(e, r->pe, r->region, ra, buf, n, desc, flags | dc, ctx, write, write ? "a put" : "a get",
         fn);
    count_app(e);
    if (write && !dc)
        shmemi_fab_dirty(e, r->pe);
    if (write)
        in_flight(e, FAB_WAY_WRITE);
}

/* n bytes in pieces of at most max_msg, each counted in q (set here, before
 * the first is posted), or completing at quiet (q NULL). */
static void rma_pieces(struct fab_ep *e, const struct shmemi_route *r, char *buf, size_t n,
                       void *desc, struct fab_req *q, int write, const char *fn) {
    size_t max = shmemi_fab.max_msg;
    uint64_t ra = shmemi_fab_raddr(r);
    if (q)
        *q = (struct fab_req){FAB_KIND_REQ, r->pe, (int)((n + max - 1) / max)};
    for (size_t done = 0; done < n; done += max)
        rma(e, r, ra + done, buf + done, n - done < max ? n - done : max, desc,
            q ? FI_COMPLETION : 0, q ? (void *)q : FAB_CTX(r->pe), write, fn);
}

/* Blocking ones wait for their own completions; nbi ones complete at quiet. */
static void rma_all(struct fab_ep *e, const struct shmemi_route *r, char *buf, size_t n, void *desc,
                    int nbi, int write, const char *fn) {
    struct fab_req q = {0};
    rma_pieces(e, r, buf, n, desc, nbi ? NULL : &q, write, fn);
    if (!nbi)
        shmemi_fab_wait_req(e, &q, fn);
}

/* Through the bounce buffer: half h carries piece k while the other half is
 * filled (a put) or emptied (a get). Blocking. */
static void staged(struct fab_ep *e, const struct shmemi_route *r, char *local, size_t n, int write,
                   const char *fn) {
    const size_t half = FAB_STAGE_BYTES;
    uint64_t ra = shmemi_fab_raddr(r);
    struct fab_req q[2] = {{FAB_KIND_REQ, r->pe, 0}, {FAB_KIND_REQ, r->pe, 0}};
    if (n <= FAB_SLOT_BYTES) {
        /* A slot of its own: a thread waiting in a larger staged transfer (the
         * lock held) may need a small one, the liveness record's. */
        char *slot = shmemi_fab_slot(e);
        if (write)
            shmemi_local_copy(slot, local, n, fn);
        q[0].pending = 1;
        rma(e, r, ra, slot, n, e->stage_desc, FI_COMPLETION, &q[0], write, fn);
        shmemi_fab_wait_req(e, &q[0], fn);
        if (!write)
            shmemi_local_copy(local, slot, n, fn);
        shmemi_fab_slot_put(e, slot);
        return;
    }
    pthread_mutex_lock(&e->stage_lock);
    if (write) {
        for (size_t off = 0, k = 0; off < n; off += half, k++) {
            size_t len = n - off < half ? n - off : half;
            char *h = e->stage + (k & 1) * half;
            shmemi_fab_wait_req(e, &q[k & 1], fn); /* this half's last piece is out */
            shmemi_local_copy(h, local + off, len, fn);
            q[k & 1].pending = 1;
            rma(e, r, ra + off, h, len, e->stage_desc, FI_COMPLETION, &q[k & 1], 1, fn);
        }
    } else if (n) {
        size_t pieces = (n + half - 1) / half;
        /* One piece ahead: piece k + 1 is on the wire while piece k is copied out. */
        q[0].pending = 1;
        rma(e, r, ra, e->stage, n < half ? n : half, e->stage_desc, FI_COMPLETION, &q[0], 0, fn);
        for (size_t k = 0; k < pieces; k++) {
            size_t off = k * half, len = n - off < half ? n - off : half;
            if (k + 1 < pieces) {
                size_t noff = off + half, nlen = n - noff < half ? n - noff : half;
                q[(k + 1) & 1].pending = 1;
                rma(e, r, ra + noff, e->stage + ((k + 1) & 1) * half, nlen, e->stage_desc,
                    FI_COMPLETION, &q[(k + 1) & 1], 0, fn);
            }
            shmemi_fab_wait_req(e, &q[k & 1], fn);
            shmemi_local_copy(local + off, e->stage + (k & 1) * half, len, fn);
        }
    }
    shmemi_fab_wait_req(e, &q[0], fn);
    shmemi_fab_wait_req(e, &q[1], fn);
    pthread_mutex_unlock(&e->stage_lock);
}

/* ------------------------------------------------------------- quiet */

/* A readback quiet: a read from every PE written to since the last quiet
 * (the provider places it after those writes: FI_ORDER_RAW), all posted,
 * then waited for. One quiet at a time: a thread's quiet that finds the
 * marks of its writes cleared by another's (whose reads of those PEs are
 * still on their way) waits for that one's reads to come back. */
static void readback(struct fab_ep *e, const char *fn) {
    struct shmemi_spin s = {0};
    while (__atomic_load_n(&e->reading_back, __ATOMIC_RELAXED) ||
           __atomic_exchange_n(&e->reading_back, 1, __ATOMIC_ACQUIRE)) {
        shmemi_fab_progress(e);
        shmemi_spin(&s);
    }
    shmemi_spin_end(&s);
    struct fab_req q = {FAB_KIND_REQ, -1, 0};
    int reads = 0;
    uint64_t sink[1];
    char *buf = (char *)sink;
    void *desc = NULL;
    if (shmemi_fab.mr_local) {
        buf = shmemi_fab_slot(e);
        desc = e->stage_desc;
    }
    for (int w = 0; w < (shmemi.n_pes + 63) / 64; w++) {
        uint64_t bits = __atomic_exchange_n(&e->dirty[w], 0, __ATOMIC_ACQ_REL);
        while (bits) {
            int pe = w * 64 + __builtin_ctzll(bits);
            bits &= bits - 1;
            __atomic_fetch_add(&q.pending, 1, __ATOMIC_RELAXED);
            q.pe = reads++ ? -1 : pe; /* the PE a timeout names: the only one */
            post(e, pe, SHMEMI_REGION_HEAP, shmemi_fab.peers[pe].raddr[SHMEMI_REGION_HEAP], buf,
                 sizeof(uint64_t), desc, FI_COMPLETION, &q, 0, "a quiet's read", fn);
        }
    }
    shmemi_fab_wait_req(e, &q, fn);
    if (shmemi_fab.mr_local)
        shmemi_fab_slot_put(e, buf);
    __atomic_store_n(&e->reading_back, 0, __ATOMIC_RELEASE);
    shmemi_wake(shmemi.my_pe); /* quiets asleep until this readback ends */
}

/* ------------------------------------------------------- posted AMOs */

/* A non-fetching AMO of the application as a message without a reply
 * (shmemi_fab.post_amos): one message where the provider's atomic is two
 * (the atomic and its acknowledgement). The target carries out one
 * initiator's messages in the order sent, after the writes and atomics that
 * reached it before them; until a round trip to the PE (a SYNC, a fetching
 * AMO as a message) came back after them, e->posted names the PE:
 *   quiet  a SYNC to every PE named
 *   fence  the ways not placed after messages wait for a quiet (fabric_fence)
 *   AMOs   a fetching AMO to a PE named sees them, as the provider's atomics
 *          of one endpoint see each other: it goes as a message behind them
 *          (or after a SYNC where the provider's atomics are a NIC's). A get
 *          sees them after a quiet, as the specification says (and as the
 *          provider's atomics over rxm, which its reads overtake)
 * Set after the send (release): a quiet that clears the bit sends its SYNC
 * after the message. */
static void posted_to(struct fab_ep *e, int pe, int way) {
    uint64_t bit = (uint64_t)1 << (pe % 64);
    if (!(__atomic_load_n(&e->posted[pe / 64], __ATOMIC_RELAXED) & bit))
        __atomic_fetch_or(&e->posted[pe / 64], bit, __ATOMIC_SEQ_CST);
    if (!__atomic_load_n(&e->posted_any, __ATOMIC_RELAXED))
        __atomic_store_n(&e->posted_any, 1, __ATOMIC_SEQ_CST);
    in_flight(e, way);
}

/* Whether e posted AMOs to pe since its last round trip there; that mark
 * cleared (the caller's round trip comes next, behind them). */
static int posted_take(struct fab_ep *e, int pe) {
    if (!e || !__atomic_load_n(&e->posted_any, __ATOMIC_RELAXED))
        return 0;
    uint64_t bit = (uint64_t)1 << (pe % 64);
    return (__atomic_load_n(&e->posted[pe / 64], __ATOMIC_RELAXED) & bit) &&
           (__atomic_fetch_and(&e->posted[pe / 64], ~bit, __ATOMIC_SEQ_CST) & bit);
}

/* Every AMO e posted, carried out (its quiet). */
static void posted_quiet(struct fab_ep *e, const char *fn) {
    if (!__atomic_load_n(&e->posted_any, __ATOMIC_RELAXED) ||
        !__atomic_exchange_n(&e->posted_any, 0, __ATOMIC_SEQ_CST))
        return;
    int pes[64];
    for (int w = 0; w < (shmemi.n_pes + 63) / 64; w++) {
        if (!__atomic_load_n(&e->posted[w], __ATOMIC_RELAXED))
            continue;
        int n = 0;
        for (uint64_t b = __atomic_exchange_n(&e->posted[w], 0, __ATOMIC_SEQ_CST); b; b &= b - 1)
            pes[n++] = w * 64 + __builtin_ctzll(b);
        shmemi_fab_am_sync(pes, n, fn);
    }
}

void shmemi_fab_quiet(struct fab_ep *e, const char *fn) {
    /* Acquire: pairs with the increments of the threads that posted; the
     * application's count first, so the issued count read next covers it. No
     * application transfer since the last quiet that found them all done:
     * only protocol words (a barrier's) may be on their way, which no quiet
     * promises. */
    /* Counted before the marks are cleared: a fence that finds them cleared
     * sees this quiet under way (fabric_fence). Acquire: the counts read next
     * cover the transfers whose marks these clear. */
    __atomic_fetch_add(&e->quieting, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&e->ways, __ATOMIC_RELAXED))
        __atomic_exchange_n(&e->ways, 0, __ATOMIC_ACQ_REL);
    int fenced = __atomic_load_n(&e->fenced, __ATOMIC_ACQUIRE);
    uint64_t app = __atomic_load_n(&e->app_issued, __ATOMIC_ACQUIRE);
    int waited = 0;
    if (app != __atomic_load_n(&e->app_quieted, __ATOMIC_RELAXED)) {
        /* The counter counts completions, in whatever order they come: where
         * another thread counted transfers meanwhile, some it shows may be
         * theirs, done ahead of one of ours. Then the quiet waits again, until
         * an instant when every transfer counted is complete, holding new
         * ones back meanwhile (shmemi_fab_count) so that one comes. */
        uint64_t issued = __atomic_load_n(&e->issued, __ATOMIC_ACQUIRE);
        int drain = 0;
        for (;;) {
            waited |= shmemi_fab_wait(e, issued, -1, fn);
            __atomic_thread_fence(__ATOMIC_SEQ_CST);
            uint64_t now = __atomic_load_n(&e->issued, __ATOMIC_SEQ_CST);
            if (SHMEMI_LIKELY(now == issued))
                break;
            issued = now;
            if (!drain++) {
                __atomic_fetch_add(&e->draining, 1, __ATOMIC_SEQ_CST);
                shmemi_fab_ungated++;
            }
        }
        if (drain) {
            shmemi_fab_ungated--;
            __atomic_fetch_sub(&e->draining, 1, __ATOMIC_SEQ_CST);
            shmemi_wake(shmemi.my_pe); /* threads asleep at the gate */
        }
        /* The PEs a later wait rings (fabric_bell.c): none, unless more was
         * posted meanwhile. A poster sets its PE's bit after counting its
         * transfer (shmemi_fab_toward), so a bit cleared here whose transfer
         * this quiet did not wait for shows as a count that moved, and goes
         * back: another thread's wait never loses the PE it must ring. */
        for (int w = 0; e->towards && w < (shmemi.n_pes + 63) / 64; w++) {
            if (!__atomic_load_n(&e->towards[w], __ATOMIC_RELAXED))
                continue;
            uint64_t was = __atomic_exchange_n(&e->towards[w], 0, __ATOMIC_SEQ_CST);
            if (__atomic_load_n(&e->issued, __ATOMIC_SEQ_CST) != issued)
                __atomic_fetch_or(&e->towards[w], was, __ATOMIC_SEQ_CST);
        }
        /* Two threads' quiets may store out of order: a smaller count only
         * makes the next quiet wait. */
        __atomic_store_n(&e->app_quieted, app, __ATOMIC_RELAXED);
    }
    posted_quiet(e, fn);
    if (e->dirty)
        readback(e, fn);
    for (int w = 0; e->acked && w < (shmemi.n_pes + 63) / 64; w++)
        if (__atomic_load_n(&e->acked[w], __ATOMIC_RELAXED))
            __atomic_store_n(&e->acked[w], 0, __ATOMIC_RELEASE);
    /* The marks of fences made before this quiet began go: their transfers
     * are complete. A fence made since (it changed the marks) may order
     * transfers this quiet did not wait for: then the marks stay. */
    if (fenced)
        __atomic_compare_exchange_n(&e->fenced, &fenced, 0, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
    __atomic_fetch_sub(&e->quieting, 1, __ATOMIC_RELEASE);
    /* Each transfer counted as issued ends in one of the two counts, done or
     * failed: when the done count reached the issued one at the first look,
     * none of them failed, and the failed count needs no look of its own (a
     * run of the provider's progress: a system call over sockets, a fifth of
     * a barrier's time over tcp). A failure among them that another
     * thread's later transfers hid from that sum ends the job at the next
     * look, which every wait makes. */
    if (waited)
        shmemi_fab_check(e, fn);
}

/* --------------------------------------------------------------- RMA */

static int by_messages(const struct shmemi_route *r) {
    return shmemi_fab.peers[r->pe].reach[r->region] != 1;
}

/* The endpoint of c, or NULL where c has posted nothing yet. */
static struct fab_ep *ctx_ep(struct shmemi_ctx *c) {
    if (!shmemi_fab.open)
        return NULL;
    return c == &shmemi_ctx_default || shmemi_fab.mr_endpoint
               ? &shmemi_fab.main
               : __atomic_load_n((struct fab_ep **)&c->fabric, __ATOMIC_ACQUIRE);
}

/* A transfer of c's is about to take `way`: after a fence that left it
 * unordered, once c's transfers before the fence are complete. */
static void after_fence(struct shmemi_ctx *c, int way, const char *fn) {
    struct fab_ep *e = ctx_ep(c);
    if (e && (__atomic_load_n(&e->fenced, __ATOMIC_RELAXED) & way))
        shmemi_fab_quiet(e, fn);
}

/* Blocking puts of up to shmemi_fab.bounce bytes (8 or 64 KiB: see
 * shmemi_fab_bounce_bytes) on the PE's endpoint return once their
 * bytes are copied into one of BOUNCES buffers (all a blocking put promises:
 * the source may change) and complete at quiet, like a non-blocking one; a
 * buffer is free again when its write completes (q.pending back to 0).
 * Without them every such put waited for the target's acknowledgement: 128
 * bytes to 4 KiB in a window of puts and a quiet ran at 0.45 of OSHMEM's
 * rate over tcp. Not where local buffers must be registered (FI_MR_LOCAL). */
#define BOUNCES 64
static struct {
    pthread_mutex_t lock;
    char *mem;
    struct fab_req q[BOUNCES];
} bounce = {.lock = PTHREAD_MUTEX_INITIALIZER};

static int bounced(struct fab_ep *e, const struct shmemi_route *r, const void *src, size_t n,
                   const char *fn) {
    size_t slot = shmemi_fab.bounce;
    if (e != &shmemi_fab.main || shmemi_fab.mr_local || n > slot || shmemi_on_device(src))
        return 0;
    if (SHMEMI_UNLIKELY(!__atomic_load_n(&bounce.mem, __ATOMIC_ACQUIRE))) {
        pthread_mutex_lock(&bounce.lock);
        if (!bounce.mem) {
            char *m = NULL;
            if (posix_memalign((void **)&m, 4096, BOUNCES * slot))
                m = NULL;
            for (int i = 0; i < BOUNCES; i++)
                bounce.q[i] = (struct fab_req){FAB_KIND_REQ, -1, 0};
            __atomic_store_n(&bounce.mem, m, __ATOMIC_RELEASE);
        }
        pthread_mutex_unlock(&bounce.lock);
        if (!bounce.mem)
            return 0;
    }
    for (;;) {
        for (int i = 0; i < BOUNCES; i++) {
            int zero = 0;
            if (__atomic_load_n(&bounce.q[i].pending, __ATOMIC_ACQUIRE) ||
                !__atomic_compare_exchange_n(&bounce.q[i].pending, &zero, 1, 0, __ATOMIC_ACQUIRE,
                                             __ATOMIC_RELAXED))
                continue;
            char *buf = bounce.mem + (size_t)i * slot;
            memcpy(buf, src, n);
            bounce.q[i].pe = r->pe;
            rma(e, r, shmemi_fab_raddr(r), buf, n, NULL, FI_COMPLETION, &bounce.q[i], 1, fn);
            return 1;
        }
        shmemi_fab_progress(e); /* every buffer is in a write: one ends */
    }
}

static void fabric_put(struct shmemi_ctx *c, const struct shmemi_route *r, const void *src,
                       size_t n, int nbi, const char *fn) {
    if (SHMEMI_UNLIKELY(by_messages(r))) {
        after_fence(c, FAB_WAY_MESSAGE, fn);
        shmemi_fab_am_put(r, src, n, fn);
        return;
    }
    after_fence(c, FAB_WAY_WRITE, fn);
    struct fab_ep *e = shmemi_fab_ep(c, fn);
    void *desc;
    if (SHMEMI_UNLIKELY(shmemi_fab_local(src, n, &desc))) {
        staged(e, r, (char *)src, n, 1, fn);
        return;
    }
    if (n <= shmemi_fab.inject) {
        /* The source is free at once; visible at the target by quiet. */
        rma(e, r, shmemi_fab_raddr(r), (void *)src, n, desc, FI_INJECT, FAB_CTX(r->pe), 1, fn);
        return;
    }
    if (!nbi && bounced(e, r, src, n, fn))
        return;
    rma_all(e, r, (char *)src, n, desc, nbi, 1, fn);
}

static void fabric_get(struct shmemi_ctx *c, void *dst, const struct shmemi_route *r, size_t n,
                       int nbi, const char *fn) {
    if (SHMEMI_UNLIKELY(by_messages(r))) {
        shmemi_fab_am_get(dst, r, n, fn);
        return;
    }
    struct fab_ep *e = shmemi_fab_ep(c, fn);
    void *desc;
    if (SHMEMI_UNLIKELY(shmemi_fab_local(dst, n, &desc))) {
        staged(e, r, dst, n, 0, fn);
        return;
    }
    rma_all(e, r, dst, n, desc, nbi, 0, fn);
}

/* Element by element, every one complete at the end (the blocking strided
 * forms): complete the context's transfers. */
static void fabric_iput(struct shmemi_ctx *c, const struct shmemi_route *r, size_t rstride,
                        const void *src, size_t lstride, size_t esize, size_t nelems,
                        const char *fn) {
    struct shmemi_route x = *r;
    const char *s = src;
    for (size_t i = 0; i < nelems; i++, x.off += rstride, s += lstride)
        fabric_put(c, &x, s, esize, 1, fn);
    shmemi_fab_quiet(shmemi_fab_ep(c, fn), fn);
}

static void fabric_iget(struct shmemi_ctx *c, void *dst, size_t lstride,
                        const struct shmemi_route *r, size_t rstride, size_t esize, size_t nelems,
                        const char *fn) {
    struct shmemi_route x = *r;
    char *d = dst;
    for (size_t i = 0; i < nelems; i++, x.off += rstride, d += lstride)
        fabric_get(c, d, &x, esize, 1, fn);
    shmemi_fab_quiet(shmemi_fab_ep(c, fn), fn);
}

/* -------------------------------------------------------------- AMOs */

static uint64_t amo_apply(enum shmemi_amo_op op, uint64_t cur, uint64_t v) {
    switch (op) {
    case SHMEMI_AMO_ADD: return cur + v;
    case SHMEMI_AMO_AND: return cur & v;
    case SHMEMI_AMO_OR: return cur | v;
    case SHMEMI_AMO_XOR: return cur ^ v;
    case SHMEMI_AMO_FETCH: return cur;
    default: return v; /* SET, SWAP */
    }
}

/* The provider's atomic `fop` on the size-byte word: with result (fetching,
 * compare when cmp), waited for; without, FI_INJECT, complete at quiet. */
static void native(struct fab_ep *e, const struct shmemi_route *r, enum fi_op fop, size_t size,
                   uint64_t value, const uint64_t *cmp, uint64_t *result, const char *fn) {
    const struct fab_peer *p = &shmemi_fab.peers[r->pe];
    enum fi_datatype dt = size == 8 ? FI_UINT64 : FI_UINT32;
    /* Operands and results in registered memory where the provider needs it:
     * a slot of the endpoint's, held for the call. */
    int regd = shmemi_fab.mr_local;
    uint64_t words[3] = {0, 0, 0};
    char *w = (char *)words;
    void *desc = NULL;
    if (regd) {
        w = shmemi_fab_slot(e);
        desc = e->stage_desc;
    }
    /* The operand, the compare value and the result, each size bytes. */
    memcpy(w, &value, size); /* little-endian: the low bytes */
    if (cmp)
        memcpy(w + 8, cmp, size);
    struct fi_ioc ioc = {w, 1}, cioc = {w + 8, 1}, rioc = {w + 16, 1};
    struct fi_rma_ioc rma_ioc = {shmemi_fab_raddr(r), 1, p->key[r->region]};
    void *descs[1] = {desc};
    struct fab_req q = {FAB_KIND_REQ, r->pe, 1};
    struct fi_msg_atomic m = {.msg_iov = &ioc,
                              .desc = descs,
                              .iov_count = 1,
                              .addr = p->addr,
                              .rma_iov = &rma_ioc,
                              .rma_iov_count = 1,
                              .datatype = dt,
                              .op = fop,
                              .context = &q};
    uint64_t dc = shmemi_fab.dc;
    shmemi_fab_count(e);
    if (cmp) {
        FAB_POST(
            e, r->pe, "an atomic", fn,
            fi_compare_atomicmsg(e->ep, &m, &cioc, descs, 1, &rioc, descs, 1, FI_COMPLETION | dc));
    } else if (result) {
        FAB_POST(e, r->pe, "an atomic", fn,
                 fi_fetch_atomicmsg(e->ep, &m, &rioc, descs, 1, FI_COMPLETION | dc));
    } else if (size <= shmemi_fab.inject) {
        m.context = FAB_CTX(r->pe);
        FAB_POST(e, r->pe, "an atomic", fn, fi_atomicmsg(e->ep, &m, FI_INJECT | dc));
        q.pending = 0;
    } else {
        FAB_POST(e, r->pe, "an atomic", fn, fi_atomicmsg(e->ep, &m, FI_COMPLETION | dc));
    }
    shmemi_fab_toward(e, r->pe);
    count_app(e);
    if (!result && !dc)
        shmemi_fab_dirty(e, r->pe);
    if (!q.pending) /* complete at quiet */
        in_flight(e, shmemi.peers[r->pe].path[r->region] == &shmemi_path_fabric ? FAB_WAY_ATOMIC
                                                                                : FAB_WAY_ASIDE);
    shmemi_fab_wait_req(e, &q, fn);
    if (result) {
        *result = 0;
        memcpy(result, w + 16, size);
    }
    if (regd)
        shmemi_fab_slot_put(e, w);
}

/* Compare-and-swap until the word moved from the value read to the one
 * computed from it. */
static uint64_t cas_loop(struct fab_ep *e, const struct shmemi_route *r, enum shmemi_amo_op op,
                         size_t size, uint64_t value, const char *fn) {
    uint64_t mask = size == 8 ? ~(uint64_t)0 : 0xffffffffu, cur = 0, seen;
    if (shmemi_fab.amo_how[SHMEMI_AMO_FETCH][size == 8] == FAB_AMO_NATIVE)
        native(e, r, FI_ATOMIC_READ, size, 0, NULL, &cur, fn);
    for (;;) {
        uint64_t next = amo_apply(op, cur, value) & mask;
        native(e, r, FI_CSWAP, size, next, &cur, &seen, fn);
        if (seen == cur)
            return cur;
        cur = seen;
    }
}

/* The AMO; a non-fetching one posted where `post` allows (the API's AMOs:
 * a signal lands after its data, which a message on another endpoint than
 * the data's would not). */
static void amo(struct shmemi_ctx *c, const struct shmemi_route *r, enum shmemi_amo_op op,
                size_t size, uint64_t value, uint64_t cond, uint64_t *old, int post,
                const char *fn) {
    int how = by_messages(r) ? FAB_AMO_AM : shmemi_fab.amo_how[op][size == 8];
    int fetch = old || op == SHMEMI_AMO_FETCH || op == SHMEMI_AMO_SWAP || op == SHMEMI_AMO_CSWAP;
    if (!fetch && post && (how == FAB_AMO_AM || shmemi_fab.post_amos)) {
        after_fence(c, FAB_WAY_MESSAGE, fn);
        struct fab_ep *e = shmemi_fab_ep(c, fn);
        shmemi_fab_am_post(r, op, size, value, fn);
        /* Fenced like an atomic to a PE whose puts do not take the fabric. */
        posted_to(e, r->pe,
                  shmemi.peers[r->pe].path[r->region] == &shmemi_path_fabric ? FAB_WAY_MESSAGE
                                                                             : FAB_WAY_ASIDE);
        return;
    }
    struct fab_ep *e = ctx_ep(c);
    if (how != FAB_AMO_AM && posted_take(e, r->pe)) {
        /* Behind the AMOs posted to the PE: as a message too where the
         * provider's atomics are the target CPU's, else after a SYNC. */
        if (shmemi_fab.post_amos)
            how = FAB_AMO_AM;
        else
            shmemi_fab_am_sync(&r->pe, 1, fn);
    }
    if (how == FAB_AMO_AM) {
        after_fence(c, FAB_WAY_MESSAGE, fn);
        shmemi_fab_am_amo(r, op, size, value, cond, old, fn);
        return;
    }
    after_fence(c, FAB_WAY_ATOMIC, fn);
    e = shmemi_fab_ep(c, fn);
    if (how == FAB_AMO_CAS) {
        uint64_t o = cas_loop(e, r, op, size, value, fn);
        if (old)
            *old = o;
        return;
    }
    enum fi_op fop = shmemi_fab_amo_op(op);
    uint64_t o = 0;
    native(e, r, fop, size, value, op == SHMEMI_AMO_CSWAP ? &cond : NULL, fetch ? &o : NULL, fn);
    if (old)
        *old = o;
}

static void fabric_amo(struct shmemi_ctx *c, const struct shmemi_route *r, enum shmemi_amo_op op,
                       size_t size, uint64_t value, uint64_t cond, uint64_t *old, const char *fn) {
    amo(c, r, op, size, value, cond, old, 1, fn);
}

/* ----------------------------------------------------------- signals */

static void fabric_signal(struct shmemi_ctx *c, const struct shmemi_route *sig, uint64_t signal,
                          int sig_op, int nbi, const char *fn) {
    (void)nbi;
    amo(c, sig, sig_op == SHMEM_SIGNAL_SET ? SHMEMI_AMO_SET : SHMEMI_AMO_ADD, sizeof(uint64_t),
        signal, 0, NULL, 0, fn);
}

/* n (at most the inject size) bytes of a library protocol to r from the
 * default context's endpoint: complete once the provider holds them, without
 * the target's acknowledgement that a delivery completion costs. Nothing
 * waits for them but the target. Counted as issued, as every transfer of the
 * endpoint is. */
static void protocol_write(const struct shmemi_route *r, const void *src, size_t n,
                           const char *fn) {
    post(shmemi_fab_ep(&shmemi_ctx_default, fn), r->pe, r->region, shmemi_fab_raddr(r), (void *)src,
         n, NULL, FI_INJECT | FI_INJECT_COMPLETE, FAB_CTX(r->pe), 1, "a protocol store", fn);
}

/* A protocol word: one 8-byte write (a barrier round is two messages, not
 * the four of a delivered atomic), never two in flight to one word (struct
 * shmemi_round). */
static void fabric_word_store(const struct shmemi_route *r, uint64_t v, const char *fn) {
    /* Where a write completes before it is visible and the provider may
     * reorder writes, the completed ones are made visible first. */
    if (!shmemi_fab.waw && !shmemi_fab.wdc)
        shmemi_fab_quiet(&shmemi_fab.main, fn);
    if (shmemi_fab.inject < sizeof v || by_messages(r)) {
        fabric_signal(&shmemi_ctx_default, r, v, SHMEM_SIGNAL_SET, 1, fn);
        return;
    }
    /* Release: this thread's stores, and the transfers complete so far (a
     * fabric completes them once visible at the target), come first. */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    protocol_write(r, &v, sizeof v, fn);
}

/* The bytes, then the word: right behind them where the provider places
 * writes in order (the word's write one of them), and only then the wait for
 * the bytes' completion (the source is free); elsewhere the word once they
 * are complete and visible. */
static void fabric_put_word(const struct shmemi_route *r, const void *src, size_t n,
                            const struct shmemi_route *w, uint64_t v, const char *fn) {
    struct fab_ep *e = &shmemi_fab.main;
    void *desc;
    if (!shmemi_fab.waw || shmemi_fab.inject < sizeof v || by_messages(r) || by_messages(w) ||
        shmemi_fab_local(src, n, &desc)) {
        fabric_put(&shmemi_ctx_default, r, src, n, 1, fn);
        shmemi_fab_quiet(e, fn);
        fabric_word_store(w, v, fn);
        return;
    }
    struct fab_req q;
    rma_pieces(e, r, (char *)src, n, desc, &q, 1, fn);
    fabric_word_store(w, v, fn);
    shmemi_fab_wait_req(e, &q, fn);
}

static void fabric_put_signal(struct shmemi_ctx *c, const struct shmemi_route *r, const void *src,
                              size_t n, const struct shmemi_route *sig, uint64_t signal, int sig_op,
                              int nbi, const char *fn) {
    struct fab_ep *e = shmemi_fab_ep(c, fn);
    fabric_put(c, r, src, n, 1, fn);
    /* The signal lands after the data: the provider places writes in order,
     * or the data is complete (visible) before the signal is posted. */
    if (!shmemi_fab.waw || by_messages(sig))
        shmemi_fab_quiet(e, fn);
    fabric_signal(c, sig, signal, sig_op, nbi, fn);
    if (!nbi)
        shmemi_fab_quiet(e, fn); /* the source is free */
}

/* --------------------------------------------------------- the rest */

static void fabric_load(const struct shmemi_route *r, void *out, size_t size, const char *fn) {
    fabric_get(&shmemi_ctx_default, out, r, size, 0, fn);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
}

static void fabric_quiet(struct shmemi_ctx *c, int pe, const char *fn) {
    (void)pe;
    struct fab_ep *e = ctx_ep(c);
    if (e)
        shmemi_fab_quiet(e, fn);
}

/* Where the provider places the endpoint's transfers of the ways in flight
 * before those posted after them, the fence has nothing to wait for (over
 * tcp a quiet is a round trip, a pipelined wavefront's fence a third of its
 * step): the first transfer of a way it does not so place waits for a quiet
 * instead (messages leave from the main endpoint: behind no other's). An
 * atomic to a PE reached also another way: a quiet. */
static void fabric_fence(struct shmemi_ctx *c, int pe, const char *fn) {
    (void)pe;
    struct fab_ep *e = ctx_ep(c);
    if (!e)
        return;
    /* Acquire: a quiet's clearing of the ways, read here, shows that quiet
     * in its count. While another thread's quiet runs, the ways it cleared
     * may be on their way still, unseen: this fence waits for them too. */
    int ways = __atomic_load_n(&e->ways, __ATOMIC_ACQUIRE);
    if (SHMEMI_UNLIKELY(__atomic_load_n(&e->quieting, __ATOMIC_SEQ_CST)) ||
        (ways & FAB_WAY_ASIDE)) {
        shmemi_fab_quiet(e, fn);
        return;
    }
    if (!ways)
        return;
    int behind = FAB_WAY_WRITE | FAB_WAY_ATOMIC | FAB_WAY_MESSAGE;
    if (ways & FAB_WAY_WRITE)
        behind &= shmemi_fab.behind[0];
    if (ways & FAB_WAY_ATOMIC)
        behind &= shmemi_fab.behind[1];
    if (e != &shmemi_fab.main && (ways & (FAB_WAY_WRITE | FAB_WAY_ATOMIC)))
        behind &= ~FAB_WAY_MESSAGE;
    /* Posted AMOs: only messages are carried out after them. */
    if (ways & FAB_WAY_MESSAGE)
        behind &= FAB_WAY_MESSAGE;
    int wait = (FAB_WAY_WRITE | FAB_WAY_ATOMIC | FAB_WAY_MESSAGE) & ~behind;
    if ((__atomic_load_n(&e->fenced, __ATOMIC_RELAXED) & wait) != wait)
        __atomic_fetch_or(&e->fenced, wait, __ATOMIC_RELAXED);
}

/* A barrier's or sync's check reads the failure count only: its wait runs
 * the progress next, and a look before its first message delayed that
 * message by a system call (2 PEs over tcp: 13.4-13.8 us a barrier with it,
 * 12.3-12.8 without; two sockets exchanging 8 bytes take 12.3 there). */
static void fabric_check(int how, const char *fn) {
    if (shmemi_fab.open) {
        if (how != SHMEMI_CHECK_SYNC)
            shmemi_fab_progress(&shmemi_fab.main);
        shmemi_fab_check(&shmemi_fab.main, fn);
    }
}

static int fabric_progress(void) {
    if (!shmemi_fab.open)
        return 0;
    shmemi_fab_progress(&shmemi_fab.main);
    return !shmemi_fab.auto_progress;
}

static void fabric_ctx_free(struct shmemi_ctx *c) { shmemi_fab_ctx_free(c); }

/* Every PE is in shmem_finalize, done with its transfers: once every PE is
 * past the last barrier, nobody reads this PE's memory any more. */
static void fabric_fini(void) {
    if (!shmemi_fab.open)
        return;
    shmemi_fab_window_fini();
    shmemi_fab_finish();
    /* The endpoint is closed: no write reads the bounce buffers any more. */
    free(bounce.mem);
    bounce.mem = NULL;
}

/* The PEs this process does not map: all of them at once, for every AMO too
 * but those on mapped words where the fabric's atomics are the target CPU's
 * (shmemi_route_atomic). Nothing to do on one node. */
static int fabric_setup(void) {
    int remote = 0;
    for (int pe = 0; pe < shmemi.n_pes; pe++)
        remote |= pe != shmemi.my_pe && !shmemi.peers[pe].heap;
    if (!remote)
        return 0;
    if (shmemi_fab_open())
        return -1;
    /* Peers' transfers into this PE's memory now land without waking its
     * sleeping waits (the provider writes them): waits re-read their words
     * every 20 to 100 us once asleep (shmem/wait.c). */
    __atomic_store_n(&shmemi.raw_stores, 1, __ATOMIC_RELAXED);
    for (int pe = 0; pe < shmemi.n_pes; pe++) {
        struct shmemi_peer *p = &shmemi.peers[pe];
        if (pe == shmemi.my_pe || p->heap)
            continue;
        for (int g = 0; g < SHMEMI_REGIONS; g++)
            if (shmemi_fab.peers[pe].reach[g])
                p->path[g] = &shmemi_path_fabric;
    }
    shmemi.amo_row = &shmemi_path_fabric;
    shmemi.amo_mapped = shmemi_fab.cpu_amos;
    return 0;
}

const struct shmemi_path_ops shmemi_path_fabric = {
    .name = "fabric",
    .caps = SHMEMI_PATH_PROTOCOL_OPS,
    .refusal = "is on another node (reached through the fabric), where this routine does not "
               "reach: it works on the PEs of this node only",
    .setup = fabric_setup,
    .put = fabric_put,
    .get = fabric_get,
    .iput = fabric_iput,
    .iget = fabric_iget,
    .put_signal = fabric_put_signal,
    .signal = fabric_signal,
    .amo = fabric_amo,
    .word_store = fabric_word_store,
    /* One message, which the target's progress stores (bytes, then word). Two
     * ordered writes would spare the target's CPU but cost more: 21.9 us an
     * 8-byte fcollect of two PEs over tcp, against 15.9 as a message. */
    .ordered_store = shmemi_fab_am_store,
    .put_word = fabric_put_word,
    .mail = shmemi_fab_am_mail,
    .mail_in = shmemi_fab_am_mail_in,
    .mail_bytes = shmemi_fab_am_mail_bytes,
    .load = fabric_load,
    .quiet = fabric_quiet,
    .fence = fabric_fence,
    .check = fabric_check,
    .progress = fabric_progress,
    .served = shmemi_fab_bell_unhush,
    .ctx_free = fabric_ctx_free,
    .fini = fabric_fini,
    .abandon = shmemi_fab_abandon,
};
