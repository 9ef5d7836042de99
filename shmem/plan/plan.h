/* Triggered plans on the copy engines (PLANS.md): what the rooms of
 * shmem/plan/ share.
 *
 *   lifecycle.c  create, step by step; chunk ids, query, close; the library's hooks
 *   schedule.c   schedules: exchanged, gathered and checked; the schedule builders
 *   chain.c      chains: built once at create, armed again every round
 *   round.c      rounds on the host: start, wait, next_round, run; the host view
 *   stream.c     stream-ordered rounds (GPU builds) and the watchdog that releases them
 *   ledger.c     the per-queue ledger (ledger.h)
 *
 * For every own chunk c and every peer p, a chain is built once at create, on
 * the plan queue to p (one per peer, shared by all plans, never used by
 * ordinary RMA):
 *     POLL(gates[c] >= r) -> POLL(fence[p] >= r - 1) -> COPY per region
 *                         -> FENCE arrival[c]@p = r -> FENCE sent[c][p] = r
 * Arming round r copies the chain into the ring with r patched into the POLL
 * reference and the FENCE values. Only c's owner writes arrival[c] on p, once
 * per round and in round order (one queue), so writing r is the same as
 * adding 1 each round, and a FENCE is a stream write on the cuda engine where
 * an ATOMIC is a kernel launch. The producer's last mark of c opens the gate
 * (device/plan_view.h). fence[p] is the last round whose next_round PE p has
 * passed (p writes it here): the second POLL keeps round r's copies out of p's
 * buffer until p is done reading round r - 1, whatever this PE does meanwhile.
 * wait() watches sent[] for own chunks and arrival[] for the others.
 * next_round() is a fence on the plan's own words, bounded by the plan
 * timeout, so a peer that never reaches it costs one timeout and leaves every
 * other barrier of the library in step; next_round_on_stream() only tells the
 * peers (stream writes), the chains do the waiting. close() is collective:
 * once every PE is in it, the fence POLLs are released (fence[] = max). */
#ifndef SHMEMI_PLAN_PLAN_H
#define SHMEMI_PLAN_PLAN_H

#include "shmem/shmemi.h"

#include "sdma/sdma.h"
#include "shmem/engine.h"
#include "device/plan_view.h"
#include "shmem/plan/ledger.h"

#include <pthread.h>

/* Views of consecutive rounds: start(r) reuses round r - VIEW_SLOTS's view once
 * that round's stream-ordered fence has passed, so the host may run this many
 * rounds ahead of kernels still reading older views. */
#define SHMEMI_PLAN_VIEW_SLOTS 256

/* ----------------------------------------------------------- plan queues */

struct shmemi_plan_queue {
    struct sdma_queue *q; /* owned by shmem/queues.c */
    struct shmemi_ledger ledger;
};
/* Per peer, opened with the first plan (lifecycle.c); every plan not yet
 * freed, oldest first; the lock that serializes the plan calls touching them. */
extern struct shmemi_plan_queue *shmemi_plan_queues;
extern struct shmemx_plan *shmemi_plans;
extern pthread_mutex_t shmemi_plan_lock;

/* --------------------------------------------------------------- a plan */

/* A chain as built once: its packets, and where each round's number goes. */
struct shmemi_plan_chain {
    uint32_t *dw;
    size_t ndw;
    size_t poll_ref;    /* dword index of the gate POLL's reference */
    size_t peer_ref;    /* dword index of the peer-fence POLL's reference */
    size_t arrival_val; /* dword index of the arrival FENCE's value */
    size_t fence_val;   /* dword index of the sent FENCE's value */
};

/* A chunk of the gathered schedules: its owner, writers and regions. */
struct shmemi_plan_chunk {
    int owner, writers;
    size_t first_region, nregions;
};

/* The plan's shared words: one symmetric allocation that host threads,
 * kernels and the copy engine all reach (shmemi_words_malloc), laid out by
 * shmemi_plan_words_place() alone and never reset (device/plan_view.h). N is
 * the number of chunks, n of PEs. */
struct shmemi_plan_words {
    uint64_t *marks;   /* [N] writers' marks of own chunks, counted over all rounds */
    uint32_t *gates;   /* [N] own chunk c: the engine's POLL waits for gates[c] >= r */
    uint32_t *arrival; /* [N] others' chunk c: its owner's engine writes r after the copies */
    uint32_t *sent;    /* [N * n] own chunk c left for PE q: sent[c * n + q] = r */
    uint32_t *fence;   /* [n] the last round whose next_round PE q passed (q writes it) */
    uint32_t *abortw;  /* [n] r when PE q could not prepare round r + 1 (q writes it) */
    uint32_t *error;   /* the first error of a kernel or of the watchdog (-code) */
    uint32_t *error_chunk, *error_round, *error_peer; /* where it happened */
    uint32_t *done;            /* the last round whose next_round_on_stream the stream passed */
    uint32_t *go;              /* the last round whose stream-ordered wait may pass (watchdog) */
    shmemx_plan_view_t *views; /* [VIEW_SLOTS]: round r uses views[r % VIEW_SLOTS] */
    uint32_t **peer_fence;     /* [n]: fence[me] on each PE, as this PE reaches it */
    int *writers;              /* [N]: writers per chunk, where kernels read them */
};

/* Lay the words of a plan of nchunks chunks on npes PEs out from base (NULL:
 * only count, every pointer NULL). Returns the bytes they take, SIZE_MAX when
 * that overflows. */
size_t shmemi_plan_words_place(struct shmemi_plan_words *w, char *base, size_t nchunks,
                               size_t npes);

struct shmemx_plan {
    int id;
    char *buf;
    size_t size;
    int n, me;
    double timeout_s;
    int ahead;

    size_t nchunks;
    struct shmemi_plan_chunk *chunks;
    shmemx_region_t *regions;
    int *chunk_base; /* per PE, plus one: PE p's chunks are [base[p], base[p+1]) */
    int *writers;

    char *words; /* the allocation of w */
    struct shmemi_plan_words w;
    int on_dev;         /* the buffer is on the device heap */
    int stream_mode;    /* rounds were waited on or fenced on a stream */
    int error_reported; /* the GPU's recorded error was returned */
    double watch_since; /* stream mode: when the watchdog's clock for the next round started */

    struct shmemi_plan_chain *chains; /* [p * own + k] for own chunk k to peer p */
    size_t own;
    size_t round_bytes; /* ring bytes one round's chains take on each queue (max over peers) */
    size_t hold;

    uint32_t round, prepared;
    int state;
    char errmsg[512];
    struct shmemx_plan *next;
};

/* ------------------------------------------------------- shared helpers */

/* Record the message of an error the plan returns (the create message when p
 * is NULL: no plan yet) and print it under SHMEM_DEBUG. Returns code. */
int shmemi_plan_err(struct shmemx_plan *p, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static inline double shmemi_plan_now(void) { return (double)shmemi_view_now_ns() * 1e-9; }

/* pe's copy of a symmetric address of this PE (the plan's buffer or words),
 * as this PE's copy engine names it: the mapping, or for a PE of another node
 * the soft engine's fabric window (shmemi_peer_addr). Creation refuses plans
 * whose peers have neither (shmemi_plan_unreachable): an address without one
 * ends the job. */
static inline void *shmemi_plan_at_peer(const void *local, int pe) {
    void *a = shmemi_peer_addr(local, pe);
    if (SHMEMI_UNLIKELY(!a))
        shmemi_fatal("triggered plan: %p has no mapping of PE %d's copy here", local, pe);
    return a;
}

/* ------------------------------------------------- schedules (schedule.c) */

/* Bytes from a region's first byte to its last one's end. */
static inline size_t shmemi_plan_region_extent(const shmemx_region_t *r) {
    size_t stride = r->stride ? r->stride : r->row_bytes;
    return (r->rows - 1) * stride + r->row_bytes;
}

/* What every PE tells the others about its part of a plan at create. */
struct shmemi_plan_sched {
    int32_t status; /* 0, or the error code with the reason in `why` */
    int32_t ahead;
    int32_t on_dev;
    int32_t pad;
    uint64_t buf_off, size, nchunks, nregions;
    double timeout_s;
    char why[160];
};

/* Create's first step: this PE's own checks of its arguments, then every PE's
 * header (*all, n_pes of them, the caller frees), checked alike everywhere:
 * the same verdict on every PE. *me: this PE's header. */
int shmemi_plan_exchange(void *buf, size_t size, const shmemx_chunk_t *schedule, size_t nchunks,
                         const shmemx_plan_config_t *cfg, const shmemx_plan_t *plan,
                         struct shmemi_plan_sched *me, struct shmemi_plan_sched **all);
/* Gather every PE's schedule into p (chunks, regions, chunk_base, writers). */
int shmemi_plan_gather(struct shmemx_plan *p, const struct shmemi_plan_sched *all,
                       const shmemx_chunk_t *schedule, size_t nchunks);
/* Check the gathered schedules (the same verdict on every PE). */
int shmemi_plan_validate(struct shmemx_plan *p);

/* --------------------------------------------------------- chains (chain.c) */

/* Build p's chains (once) and the ring bytes a round takes (round_bytes). */
int shmemi_plan_build_chains(struct shmemx_plan *p);
/* Arm round r on every plan queue, behind its gates (plan lock held). */
int shmemi_plan_arm(struct shmemx_plan *p, uint32_t r);
/* Open every own gate up to round r, as the chunks stand, and wake the engine. */
void shmemi_plan_open_gates(struct shmemx_plan *p, uint32_t r);

/* ---------------------------------------------------------- rounds (round.c) */

/* 0 when p may take a call; else why not (EINVAL, ESTATE). */
int shmemi_plan_check_live(struct shmemx_plan *p, const char *fn);
/* Arm round r unless it is armed (next_round, prepare_next). */
int shmemi_plan_prepare(struct shmemx_plan *p, uint32_t r);
/* The first chunk not yet delivered in `round`, or -1 (*peer: where it is
 * missing). *cursor remembers where the previous scan stopped. */
long shmemi_plan_first_missing(struct shmemx_plan *p, uint32_t round, size_t *cursor, int *peer);
/* A failed plan queue, reported as the plan's error; 0 when none. */
int shmemi_plan_queue_failure(struct shmemx_plan *p);
/* The error the GPU or the watchdog recorded, as the plan's error; 0 when none. */
int shmemi_plan_recorded_error(struct shmemx_plan *p);
/* Stream mode: that error, returned once (the plan fails with it); 0 when none. */
int shmemi_plan_stream_error(struct shmemx_plan *p);

/* ---------------------------------------------- stream-ordered (stream.c) */

/* close: release p's pending stream-ordered waits (no-op in CPU builds). */
void shmemi_plan_watch_drop(struct shmemx_plan *p);
/* finalize: end the watchdog thread (no-op in CPU builds). */
void shmemi_plan_watch_stop(void);

/* One turn of a host wait of the plans: the core's waiter (it spins, runs the
 * engine's ready packets, then sleeps until a store wakes it: shmem/wait.c).
 * Returns 1 when the caller should look at the clock: every 256 turns, and
 * every turn once the waiter sleeps. The loop ends with shmemi_spin_end. */
static inline int shmemi_plan_relax(struct shmemi_spin *sp, unsigned *spins) {
    int look = (++*spins & 255) == 0 || sp->blocking;
    shmemi_spin(sp);
    return look;
}

#endif
