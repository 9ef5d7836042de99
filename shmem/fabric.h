/* The fabric: libfabric for the PEs this process does not map (PEs of other
 * nodes, or every other PE with SHMEM_FORCE_FABRIC). Shared by its files:
 *   fabric.c          endpoints, memory registration, the exchange of
 *                     addresses and keys
 *   fabric_choice.c   the provider's choice and what it can do
 *   fabric_progress.c completion, waits, errors, the progress thread
 *   fabric_bell.c     the progress thread's doorbell
 *   path_fabric.c     the row of the path table (RMA, AMOs, signals, quiet)
 *   fabric_am.c       messages the target PE carries out: AMOs a provider
 *                     does not offer (SHMEM_OFI_ATOMICS=am) and the device
 *                     heap of a GPU build where the provider cannot register
 *                     GPU memory
 *
 * One RDM endpoint per PE (the main one: the target of every peer's
 * transfers, the initiator of the default context's) and one more per
 * context that initiates fabric transfers (its own completion counter, so
 * that its quiet waits for its own transfers only), up to
 * SHMEM_OFI_CTX_ENDPOINTS; later contexts share the main one. Every transfer counts
 * in its endpoint's counter once complete; transfers are posted with
 * FI_DELIVERY_COMPLETE, so complete means visible at the target, and quiet
 * is "the counter reached the number posted".
 *
 * Registration (what the provider's FI_MR_* modes ask):
 *   FI_MR_VIRT_ADDR  remote addresses are the target's virtual addresses;
 *                    without it, offsets from the start of the registration
 *   FI_MR_PROV_KEY   the provider picks the keys; without it, we do (1, 2, 3
 *                    for the host heap, the data segment, the device heap)
 *   FI_MR_ALLOCATED  only allocated memory: the heaps and the data segment
 *                    are mapped before they are registered
 *   FI_MR_LOCAL      local buffers need a descriptor: the heaps and the data
 *                    segment have one; any other buffer goes through the
 *                    endpoint's registered bounce buffer
 *   FI_MR_ENDPOINT   registrations bind to the main endpoint, and contexts
 *                    initiate through it too
 *   FI_MR_HMEM       (GPU builds) the device heap is registered with its
 *                    interface (FI_HMEM_CUDA / FI_HMEM_ROCR) where the
 *                    provider has FI_HMEM; else it is staged (fabric_am.c)
 */
#ifndef SHMEMI_FABRIC_H
#define SHMEMI_FABRIC_H

#include "shmem/shmemi.h"

#include <pthread.h>
#include <rdma/fabric.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

/* libfabric is loaded at run time (dlopen), by the first job that needs it:
 * a program on one node never loads it (nor the libraries it pulls in, some
 * of which install signal handlers when loaded), and the library runs where
 * libfabric is not installed. The few functions it exports are called
 * through this table; everything else in its API is inline and calls
 * through the objects' own operations. */
struct shmemi_fi_lib {
    int (*getinfo)(uint32_t version, const char *node, const char *service, uint64_t flags,
                   const struct fi_info *hints, struct fi_info **info);
    void (*freeinfo)(struct fi_info *info);
    struct fi_info *(*dupinfo)(const struct fi_info *info);
    int (*fabric)(struct fi_fabric_attr *attr, struct fid_fabric **fabric, void *context);
    const char *(*strerror)(int errnum);
    uint32_t version; /* fi_version(): FI_VERSION(major, minor) */
};
extern struct shmemi_fi_lib shmemi_fi;
#undef fi_allocinfo
#define fi_getinfo (*shmemi_fi.getinfo)
#define fi_freeinfo (*shmemi_fi.freeinfo)
#define fi_dupinfo (*shmemi_fi.dupinfo)
#define fi_allocinfo() (*shmemi_fi.dupinfo)(NULL)
#define fi_fabric (*shmemi_fi.fabric)
#define fi_strerror (*shmemi_fi.strerror)

/* One half of an endpoint's bounce buffer: local buffers the provider cannot
 * take (unregistered memory with FI_MR_LOCAL, the device heap without
 * FI_HMEM) go through it, one half filling while the other is on the wire. */
#define FAB_STAGE_BYTES ((size_t)64 << 10)
#define FAB_SLOTS 64
#define FAB_SLOT_BYTES ((size_t)256)

struct fab_ep {
    struct fid_ep *ep;
    struct fid_cntr *cntr; /* completions of FI_WRITE | FI_READ transfers */
    struct fid_cq *cq;     /* errors (selective completion); messages on the main one */
    /* Transfers that count in cntr (atomic), each counted before it is posted:
     * every completion cntr shows is of a transfer already counted here. */
    uint64_t issued;
    /* Quiets draining the endpoint (atomic): new transfers wait until none
     * does (shmemi_fab_count). */
    int draining;
    /* Of those, the application's (not the library's protocol words), counted
     * after issued; and their count at the last quiet that found every
     * transfer done (atomics). A quiet with none since has nothing to wait
     * for: a barrier's quiet then reads no counter (each read runs the
     * provider's progress, a system call over sockets). */
    uint64_t app_issued, app_quieted;
    uint64_t *dirty;   /* readback quiet: PEs written to since the last quiet (bits) */
    int reading_back;  /* a quiet's readback is posted or in flight (atomic; readback) */
    uint64_t *acked;   /* PEs whose first write since the last quiet was delivered */
    uint64_t *towards; /* with a doorbell: PEs posted to since a quiet found none more (bits) */
    /* PEs sent AMOs as messages without a reply (fabric_am.c's POSTs) since
     * a round trip to them (bits), and whether any is (atomics). */
    uint64_t *posted;
    int posted_any;
    /* Atomics (see fabric_fence): the ways (FAB_WAY_*) of the application's
     * transfers posted since the last quiet began that complete at quiet,
     * cleared as a quiet begins; and the ways whose next transfer waits for
     * a quiet first (a fence passed without one while the provider does not
     * place them after those in flight), cleared as a quiet ends unless a
     * fence added to them meanwhile. */
    int ways, fenced;
    /* Quiets begun and not ended (atomic): while one is, a transfer that
     * `ways` no longer shows may still be on its way. */
    int quieting;
    uint64_t errors; /* cntr's error count already reported (atomic) */
    /* The application thread that reads cq (atomic; 0: none): the others
     * leave the provider to it meanwhile. Its low bit: a waiting thread
     * keeps the queue until its transfer completes, and the others' waits
     * sleep until theirs do or it hands the queue on (fabric_progress.c). */
    uintptr_t reading;
    pthread_mutex_t stage_lock;
    /* Registered: 2 * FAB_STAGE_BYTES of bounce buffer, then FAB_SLOTS slots of
     * FAB_SLOT_BYTES (small transfers, AMO operands and results: taken one
     * each, so a thread that waits holding one can start another), or NULL. */
    char *stage;
    uint64_t slots_free; /* bits (atomic) */
    struct fid_mr *stage_mr;
    void *stage_desc;
    /* A context's endpoint: its place among the others (under the endpoint
     * lock) and, for shm, the name of its file (see shmemi_fab_abandon). */
    struct fab_ep *next;
    char *file;
};

/* The ways a transfer takes, as fences order them: a write; an atomic; a
 * message (sent from the main endpoint, which the target carries out); an
 * atomic to a PE whose puts do not take the fabric (this PE, a PE of this
 * node), which no provider order places before them. */
enum { FAB_WAY_WRITE = 1, FAB_WAY_ATOMIC = 2, FAB_WAY_MESSAGE = 4, FAB_WAY_ASIDE = 8 };

/* How an AMO (operation, size) reaches a peer. */
enum fab_amo_how { FAB_AMO_NATIVE, FAB_AMO_CAS, FAB_AMO_AM };
#define FAB_AMO_OPS (SHMEMI_AMO_XOR + 1)

struct fab_peer {
    fi_addr_t addr;
    uint64_t raddr[SHMEMI_REGIONS]; /* remote address of offset 0 of each region */
    uint64_t key[SHMEMI_REGIONS];
    int reach[SHMEMI_REGIONS]; /* 1: by RMA; 2: by messages (device heap, staged) */
};

struct fab {
    int open;
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct fab_ep main;
    struct fid_mr *mr[SHMEMI_REGIONS];
    void *desc[SHMEMI_REGIONS];
    char *lbase[SHMEMI_REGIONS];
    size_t lsize[SHMEMI_REGIONS];
    struct fab_peer *peers;
    int mr_local;    /* local buffers need a registration (FI_MR_LOCAL, or asked for) */
    int mr_endpoint; /* registrations bind to an endpoint: contexts share the main one */
    int waw;         /* writes and atomics land in the order posted (FI_ORDER_WAW) */
    int behind[2];   /* the ways placed after writes [0], atomics [1] posted before */
    uint64_t dc;     /* atomics: FI_DELIVERY_COMPLETE, or 0 with a readback quiet */
    uint64_t wdc;    /* writes: the same (0 also where only writes are read back) */
    int dev_hmem;    /* the device heap is registered (FI_HMEM) */
    size_t inject;   /* largest inject */
    size_t max_msg;  /* largest single transfer posted (pieces of larger ones) */
    uint8_t amo_how[FAB_AMO_OPS][2]; /* [op][size == 8] */
    int post_amos;     /* non-fetching AMOs as messages without a reply (path_fabric.c) */
    int cpu_amos;      /* every AMO that reaches a PE is carried out by its CPU's atomics */
    int auto_progress; /* the provider moves data outside libfabric calls */
    int sleeps;        /* the progress thread sleeps when idle (see fabric.c) */
    int cq_waits;      /* the main queue has a wait object (fi_cq_sread) */
    int bell;          /* the progress thread sleeps on a doorbell (fabric_bell.c) */
    size_t eager;      /* largest message sent without a handshake (0: any) */
    size_t bounce;     /* largest blocking put copied aside (path_fabric.c) */
    double timeout_s;
    const char *prov; /* the provider's name */
};

extern struct fab shmemi_fab;

/* fabric_choice.c */
int shmemi_fab_choose(void); /* shmemi_fab.info (0), or a libfabric error */
int shmemi_fab_progresses_alone(const struct fi_info *info);
size_t shmemi_fab_eager_bytes(const struct fi_info *info);
size_t shmemi_fab_bounce_bytes(const struct fi_info *info);
size_t shmemi_fab_piece_bytes(const struct fi_info *info);
int shmemi_fab_wakes_on_arrival(const struct fi_info *info);
void shmemi_fab_amo_table(void); /* shmemi_fab.amo_how, once the domain is open */

/* fabric.c */
int shmemi_fab_open(void);
void shmemi_fab_close(void);
/* The job's last step (shmem_finalize): the bootstrap's barrier with the
 * progress running, then the close. */
void shmemi_fab_finish(void);
/* The endpoint of context c (made on first use). */
struct fab_ep *shmemi_fab_ep(struct shmemi_ctx *c, const char *fn);
void shmemi_fab_ctx_free(struct shmemi_ctx *c);
void shmemi_fab_abandon(void);
/* fabric_window.c: the copy engine's context goes (its endpoint), before the
 * fabric closes. */
void shmemi_fab_window_fini(void);
/* Run the provider's progress on e (and on the main endpoint: messages). */
void shmemi_fab_progress(struct fab_ep *e);
/* The progress thread (fabric_progress.c): started at open as
 * SHMEM_OFI_PROGRESS says; a polling one now whatever it says (the last
 * barrier); stopped at close. */
void shmemi_fab_progress_start(void);
void shmemi_fab_progress_now(void);
void shmemi_fab_progress_stop(void);
/* Wait until e's counter reaches target (transfers to pe, or -1): 0 when it
 * had at the first look, 1 when the wait ran (looking for failures). */
int shmemi_fab_wait(struct fab_ep *e, uint64_t target, int pe, const char *fn);
/* Everything posted on e so far, complete. */
void shmemi_fab_quiet(struct fab_ep *e, const char *fn);
/* A posting call failed with rc (not -FI_EAGAIN): ends the job. */
void shmemi_fab_fail(int rc, const char *what, int pe, const char *fn) __attribute__((noreturn));
/* Report a failed transfer of e, if any (ends the job). */
void shmemi_fab_check(struct fab_ep *e, const char *fn);
/* The descriptor of a local buffer: 0 with *desc set (NULL where the
 * provider needs none), or -1 when it must go through the bounce buffer. */
int shmemi_fab_local(const void *buf, size_t n, void **desc);
/* A registered slot of e (struct fab_ep), and its return. */
char *shmemi_fab_slot(struct fab_ep *e);
void shmemi_fab_slot_put(struct fab_ep *e, char *slot);

/* A write or atomic to pe was posted on e: a readback quiet reads from pe.
 * After the post, so that a read that a quiet posts once it cleared the bit
 * is placed after the write. */
static inline void shmemi_fab_dirty(struct fab_ep *e, int pe) {
    if (e->dirty) {
        uint64_t bit = (uint64_t)1 << (pe % 64);
        if (!(__atomic_load_n(&e->dirty[pe / 64], __ATOMIC_RELAXED) & bit))
            __atomic_fetch_or(&e->dirty[pe / 64], bit, __ATOMIC_RELEASE);
    }
}
/* The completion flags of a write to pe: FI_DELIVERY_COMPLETE, or 0 when a
 * readback quiet reads it back (the caller marks pe once it is posted:
 * shmemi_fab_dirty). Where only writes are read back (atomics delivered), the
 * first write to a PE since the last quiet is delivered instead: a lone put
 * and its quiet then cost one round trip, not a write and then a read
 * (e->acked: the PEs that had theirs). */
static inline uint64_t shmemi_fab_write_flags(struct fab_ep *e, int pe) {
    if (shmemi_fab.wdc)
        return shmemi_fab.wdc;
    if (shmemi_fab.dc && e->acked) {
        uint64_t bit = (uint64_t)1 << (pe % 64);
        if (!(__atomic_fetch_or(&e->acked[pe / 64], bit, __ATOMIC_ACQ_REL) & bit))
            return FI_DELIVERY_COMPLETE;
    }
    return 0;
}
/* The remote address of a route of the fabric row. */
static inline uint64_t shmemi_fab_raddr(const struct shmemi_route *r) {
    return shmemi_fab.peers[r->pe].raddr[r->region] + r->off;
}
/* The context of a transfer that completes only in its endpoint's counter:
 * its PE, for error messages (a value below any pointer). */
#define FAB_CTX(pe) ((void *)(uintptr_t)((pe) + 1))
#define FAB_CTX_MAX ((uintptr_t)4096)

/* Every other context is one of these, told apart by their first word. */
enum { FAB_KIND_REQ = 0x52455131, FAB_KIND_AM_RECV, FAB_KIND_AM_SEND, FAB_KIND_AM_MULTI };

/* A transfer (or `pending` of them) a thread waits for: posted with
 * FI_COMPLETION, counted down by whoever reads the completion. */
struct fab_req {
    uint32_t kind; /* FAB_KIND_REQ */
    int pe;
    int pending; /* atomic */
};
void shmemi_fab_wait_req(struct fab_ep *e, struct fab_req *q, const char *fn);
/* One of q's transfers completed (release): wakes q's waiter where it sleeps.
 * The last access to q. */
void shmemi_fab_req_done(struct fab_req *q);
enum fi_op shmemi_fab_amo_op(enum shmemi_amo_op op);

/* An application's thread posts a transfer (fabric_progress.c). */
void shmemi_fab_posting(void);

/* A transfer about to be posted on e, counted in e->issued; first, while a
 * quiet drains the endpoint, the wait until it has (shmemi_fab_quiet). Not
 * for the transfers of a thread that drains or waits at the gate itself
 * (the liveness checks of its wait read the peers' words):
 * shmemi_fab_ungated. */
extern __thread int shmemi_fab_ungated;
void shmemi_fab_gate(struct fab_ep *e);
static inline void shmemi_fab_count(struct fab_ep *e) {
    if (SHMEMI_UNLIKELY(__atomic_load_n(&e->draining, __ATOMIC_SEQ_CST)) && !shmemi_fab_ungated)
        shmemi_fab_gate(e);
    __atomic_fetch_add(&e->issued, 1, __ATOMIC_SEQ_CST);
}

/* A transfer to pe that quiet waits for was counted in e->issued: pe joins the PEs a
 * stalled quiet rings (fabric_bell.c). After the count, so that a quiet that clears the
 * bit and then finds the count unchanged knows the transfer was among those it waited for
 * (shmemi_fab_quiet); sequentially consistent with that count, with the test below and with
 * the quiet's exchange and load. */
static inline void shmemi_fab_toward(struct fab_ep *e, int pe) {
    if (!e->towards)
        return;
    uint64_t bit = (uint64_t)1 << (pe % 64);
    if (!(__atomic_load_n(&e->towards[pe / 64], __ATOMIC_SEQ_CST) & bit))
        __atomic_fetch_or(&e->towards[pe / 64], bit, __ATOMIC_SEQ_CST);
}

/* fabric_bell.c: the progress thread's doorbell, opened where it sleeps:
 * its address into name (*len: room, then length), and the peers'. */
int shmemi_fab_bell_open(void *name, size_t *len);
int shmemi_fab_bell_insert(int pe, const void *name, size_t len);
void shmemi_fab_bell_close(void);
/* The progress thread: asleep until rung or us microseconds passed (< 0:
 * no limit). Both return how long the rings that came ask it to serve (ns;
 * 0: none came). */
uint64_t shmemi_fab_bell_sleep(long us);
uint64_t shmemi_fab_bell_rung(void);
/* The rings last read came while this PE's own threads serve the peers: the
 * ringers hear so, and ring later for a while. */
void shmemi_fab_bell_hush(void);
/* The waits that served the peers ended: the hushed ringers ring as before. */
void shmemi_fab_bell_unhush(void);
void shmemi_fab_bell_wake(void); /* the progress thread's sleep ends (its stop) */
/* A wait for transfers to pe (-1: every PE e posted to) that may need the
 * peer's progress: called every turn, it rings the peer's bell once the wait
 * has lasted. */
struct fab_stall {
    uint64_t start, next; /* ns */
    uint64_t all;         /* the next ring of every PE (ns) */
};
void shmemi_fab_stalled(struct fab_stall *s, struct fab_ep *e, int pe);
/* Nanoseconds until the wait's next ring is due (UINT64_MAX: no bell). */
uint64_t shmemi_fab_stall_due(const struct fab_stall *s);
static inline void shmemi_fab_stall(struct fab_stall *s, struct fab_ep *e, int pe) {
    if (shmemi_fab.bell)
        shmemi_fab_stalled(s, e, pe);
}
/* fabric.c: the main endpoint's provider description with a source address
 * of its own (suffix: a string address's). */
struct fi_info *shmemi_fab_fresh_info(const char *suffix);

/* A post the provider refused for want of resources (-FI_EAGAIN), tried
 * again: the progress (which frees them), the peer's bell, failed transfers,
 * and SHMEM_OFI_TIMEOUT -- net refuses every post to a peer it cannot
 * connect to, one that ended among them, and the retries must end. */
struct fab_retry {
    struct shmemi_spin spin;
    struct fab_stall stall;
    unsigned turn;
    double deadline;
};
void shmemi_fab_retry(struct fab_retry *r, struct fab_ep *e, int pe, const char *what,
                      const char *fn);

/* Post with `call` (an expression that may use nothing but its arguments),
 * retrying while the provider is out of resources. */
#define FAB_POST(e, pe, what, fn, call)                                                            \
    do {                                                                                           \
        ssize_t rc_;                                                                               \
        struct fab_retry rt_ = {0};                                                                \
        shmemi_fab_posting();                                                                      \
        while ((rc_ = (call)) == -FI_EAGAIN)                                                       \
            shmemi_fab_retry(&rt_, e, pe, what, fn);                                               \
        shmemi_spin_end(&rt_.spin);                                                                \
        if (rc_)                                                                                   \
            shmemi_fab_fail((int)rc_, what, pe, fn);                                               \
    } while (0)

/* fabric_am.c: messages between the main endpoints. */
int shmemi_fab_am_open(void);
void shmemi_fab_am_close(void);
/* Handle a completion of the main endpoint's queue (a message or a reply). */
void shmemi_fab_am_completion(const struct fi_cq_data_entry *e);
/* Carry out and answer the messages queued while the queue was read (those
 * nothing waited before were answered at once); whether the provider has
 * receive buffers again after it had none (read the queue again: messages
 * may have waited for them). */
int shmemi_fab_am_progress(void);
int shmemi_fab_am_idle(void);
/* An AMO carried out by the target: the old value into *old (may be NULL). */
void shmemi_fab_am_amo(const struct shmemi_route *r, enum shmemi_amo_op op, size_t size,
                       uint64_t value, uint64_t cond, uint64_t *old, const char *fn);
/* A non-fetching AMO that the target carries out without a reply: complete
 * for the caller once sent, carried out once a SYNC to the PE came back. */
void shmemi_fab_am_post(const struct shmemi_route *r, enum shmemi_amo_op op, size_t size,
                        uint64_t value, const char *fn);
void shmemi_fab_am_sync(const int *pes, int n, const char *fn);
/* n bytes between local memory and a region reached by messages (the device
 * heap of a GPU build staged through the target's host memory). */
void shmemi_fab_am_put(const struct shmemi_route *r, const void *src, size_t n, const char *fn);
void shmemi_fab_am_get(void *dst, const struct shmemi_route *r, size_t n, const char *fn);
/* n bytes to r, then v into the 64-bit `word` (the same region), stored by
 * the target in that order with release; complete for the caller at once
 * (the bytes are copied), visible at the target some time later. */
void shmemi_fab_am_store(const struct shmemi_route *r, const void *src, size_t n,
                         const struct shmemi_route *word, uint64_t v, const char *fn);
/* The row's mailboxes (struct shmemi_path_ops: mail, mail_in). */
void shmemi_fab_am_mail(int pe, int box, uint64_t seq, const void *src, size_t n, const char *fn);
const void *shmemi_fab_am_mail_in(int pe, int box, uint64_t seq);
size_t shmemi_fab_am_mail_bytes(void);

#endif
