/* Triggered plans on the copy engines (PLANS.md).
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
#include "shmem/shmemi.h"

#include "sdma/sdma.h"
#include "shmem/engine.h"
#include "device/plan_view.h"
#include "shmem/plan_ledger.h"
#if defined(SHMEM_GPU_CUDA) || defined(SHMEM_GPU_HIP)
#include "shmem/gpu_stream.h"
#endif

#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#define DEFAULT_TIMEOUT_S 30.0
/* Views of consecutive rounds: start(r) reuses round r - VIEW_SLOTS's view once
 * that round's stream-ordered fence has passed, so the host may run this many
 * rounds ahead of kernels still reading older views. */
#define VIEW_SLOTS 256
#define MAX_INTERVALS ((size_t)1 << 26) /* rows the overlap check expands, at most */

/* ----------------------------------------------------------- plan queues */

struct plan_queue {
    struct sdma_queue *q;
    struct shmemi_ledger ledger;
};
static struct plan_queue *pqs; /* per peer, opened with the first plan */
static struct shmemx_plan *plans; /* every plan not yet freed, oldest first */
static pthread_mutex_t plan_lock = PTHREAD_MUTEX_INITIALIZER;
static int plan_serial;

struct chain {
    uint32_t *dw;
    size_t ndw;
    size_t poll_ref;  /* dword index of the gate POLL's reference */
    size_t peer_ref;  /* dword index of the peer-fence POLL's reference */
    size_t arrival_val; /* dword index of the arrival FENCE's value */
    size_t fence_val; /* dword index of the FENCE value */
};

struct pchunk {
    int owner, writers;
    size_t first_region, nregions;
};

struct shmemx_plan {
    int id;
    char *buf;
    size_t size;
    int n, me;
    double timeout_s;
    int ahead;

    size_t nchunks;
    struct pchunk *chunks;
    shmemx_region_t *regions;
    int *chunk_base; /* per PE, plus one: PE p's chunks are [base[p], base[p+1]) */
    int *writers;

    /* Symmetric words (one allocation that host threads, kernels and the copy
     * engine all reach: shmemi_words_malloc): see device/plan_view.h. */
    char *words;
    uint64_t *marks;
    uint32_t *gates, *arrival, *sent /* [c * n + p] */, *fence, *abortw, *error, *error_chunk;
    uint32_t *error_round, *error_peer; /* where the GPU's first error happened */
    uint32_t *done;     /* the last round whose next_round_on_stream the stream passed */
    uint32_t *go;       /* the last round whose stream-ordered wait may pass (watchdog) */
    uint32_t **peer_fence; /* [n]: fence[me] on each PE, as this PE reaches it */
    int *dev_writers;   /* writers, where kernels read them */
    shmemx_plan_view_t *views; /* VIEW_SLOTS views: round r uses views[r % VIEW_SLOTS] */
    int on_dev;         /* the buffer is on the device heap */
    int stream_mode;    /* rounds were waited on or fenced on a stream */
    int error_reported; /* the GPU's recorded error was returned */
    double watch_since; /* stream mode: when the watchdog's clock for the next round started */

    struct chain *chains; /* [p * own + k] for own chunk k to peer p */
    size_t own;
    size_t round_bytes; /* ring bytes one round's chains take on each queue (max over peers) */
    size_t hold;

    uint32_t round, prepared;
    int state;
    char errmsg[512];
    struct shmemx_plan *next;
};

static char create_errmsg[512]; /* the message of a failed create (no plan to hold it) */

/* Record the message of an error the plan returns (the create message when
 * there is no plan yet); print it under SHMEM_DEBUG. Returns code. */
static int perr(struct shmemx_plan *p, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int perr(struct shmemx_plan *p, int code, const char *fmt, ...) {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    if (p)
        snprintf(p->errmsg, sizeof(p->errmsg), "%s", buf);
    else
        snprintf(create_errmsg, sizeof(create_errmsg), "%s", buf);
    shmemi_debug("plan: %s", buf);
    return code;
}

const char *shmemx_plan_errmsg(shmemx_plan_t plan) { return plan ? plan->errmsg : create_errmsg; }

const char *shmemx_plan_strerror(int code) {
    switch (code) {
    case SHMEMX_PLAN_OK: return "success";
    case SHMEMX_PLAN_EINVAL: return "invalid argument or schedule";
    case SHMEMX_PLAN_ETIMEDOUT: return "timed out (too few marks, or a peer did not reach the round fence)";
    case SHMEMX_PLAN_EMARKS: return "a chunk was marked ready more often than it has writers";
    case SHMEMX_PLAN_EPEER: return "a peer could not prepare the round";
    case SHMEMX_PLAN_ESTATE: return "call out of order for the plan's state";
    case SHMEMX_PLAN_ENOSPC: return "the plan queues cannot hold the chains (raise SHMEM_PLAN_RING_SIZE)";
    case SHMEMX_PLAN_ENOMEM: return "out of memory (symmetric heap or host)";
    case SHMEMX_PLAN_EUNSUPPORTED: return "not supported in this build";
    case SHMEMX_PLAN_EROUNDS: return "the round counter would pass 2^32 - 1";
    case SHMEMX_PLAN_EENGINE: return "no copy engine, or a copy-engine queue failed";
    case SHMEMX_PLAN_EORDER: return "round started behind another plan's round that has not started";
    default: return "unknown plan error";
    }
}

static double now_s(void) { return (double)shmemi_view_now_ns() * 1e-9; }

/* One turn of a host wait: the core's waiter (it spins, runs the engine's ready
 * packets, then sleeps until a store wakes it: shmem/wait.c). Returns 1 when
 * the caller should look at the clock: every 256 turns, and every turn once
 * the waiter sleeps. The loop ends with shmemi_spin_end. */
static int relax(struct shmemi_spin *sp, unsigned *spins) {
    int look = (++*spins & 255) == 0 || sp->blocking;
    shmemi_spin(sp);
    return look;
}

/* The plan queues (one per peer, owned by shmem/queues.c) and their ledgers. */
static int open_plan_queues(void) {
    if (pqs)
        return 0;
    struct plan_queue *q = calloc((size_t)shmemi.n_pes, sizeof(*q));
    if (!q)
        return SHMEMX_PLAN_ENOMEM;
    for (int p = 0; p < shmemi.n_pes; p++) {
        q[p].q = shmemi_poll_queue(p);
        shmemi_ledger_init(&q[p].ledger, shmemi.cfg.PLAN_RING_SIZE / 2);
    }
    pqs = q;
    return 0;
}

/* Where the engine's thread has no CPU of its own, no kick: the caller waits
 * next and runs the chains itself (shmem/engine.c). */
static void kick(void) {
    if (!shmemi_engine_offload())
        return;
    for (int p = 0; p < shmemi.n_pes; p++)
        if (pqs && pqs[p].q) {
            sdma_queue_kick(pqs[p].q); /* one engine thread serves them all */
            return;
        }
}

/* ------------------------------------------------------------- schedules */

struct sched_header {
    int32_t status; /* 0, or SHMEMX_PLAN_EINVAL with the reason in `why` */
    int32_t ahead;
    int32_t on_dev;
    int32_t pad;
    uint64_t buf_off, size, nchunks, nregions;
    double timeout_s;
    char why[160];
};

struct wire_chunk {
    uint64_t nregions;
    int64_t writers;
};

static size_t region_extent(const shmemx_region_t *r) {
    size_t stride = r->stride ? r->stride : r->row_bytes;
    return (r->rows - 1) * stride + r->row_bytes;
}

static int region_check(const shmemx_region_t *r, size_t size, char *why, size_t len) {
    if (!r->row_bytes || !r->rows)
        return snprintf(why, len, "a region of %zu rows of %zu bytes is empty", r->rows,
                        r->row_bytes), -1;
    if (r->rows > 1 && r->stride && r->stride < r->row_bytes)
        return snprintf(why, len, "a region's stride %zu is smaller than its rows (%zu bytes)",
                        r->stride, r->row_bytes), -1;
    if (r->row_bytes > UINT32_MAX || r->rows > UINT32_MAX || r->stride > UINT32_MAX)
        return snprintf(why, len, "a region (%zu rows of %zu bytes, stride %zu) exceeds the "
                        "copy engine's 32-bit sizes", r->rows, r->row_bytes, r->stride), -1;
    size_t stride = r->stride ? r->stride : r->row_bytes, ext;
    if (__builtin_mul_overflow(r->rows - 1, stride, &ext) ||
        __builtin_add_overflow(ext, r->row_bytes, &ext) || r->offset > size ||
        ext > size - r->offset)
        return snprintf(why, len, "a region at offset %zu (%zu rows of %zu bytes, stride %zu) "
                        "runs past the end of the %zu-byte buffer", r->offset, r->rows,
                        r->row_bytes, r->stride, size), -1;
    return 0;
}

struct interval {
    size_t lo, hi;
    size_t chunk;
};

static int cmp_interval(const void *a, const void *b) {
    const struct interval *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Same verdict on every PE: the input is the gathered schedules. */
static int check_overlaps(struct shmemx_plan *p) {
    size_t n = 0;
    for (size_t i = 0; i < p->nchunks; i++)
        for (size_t k = 0; k < p->chunks[i].nregions; k++) {
            const shmemx_region_t *r = &p->regions[p->chunks[i].first_region + k];
            n += r->stride && r->stride != r->row_bytes && r->rows > 1 ? r->rows : 1;
        }
    if (n > MAX_INTERVALS)
        return perr(NULL, SHMEMX_PLAN_EINVAL, "the schedules have %zu rows, more than the %zu "
                    "the overlap check takes", n, MAX_INTERVALS);
    struct interval *iv = malloc((n ? n : 1) * sizeof(*iv));
    if (!iv)
        return SHMEMX_PLAN_ENOMEM;
    size_t m = 0;
    for (size_t i = 0; i < p->nchunks; i++)
        for (size_t k = 0; k < p->chunks[i].nregions; k++) {
            const shmemx_region_t *r = &p->regions[p->chunks[i].first_region + k];
            if (r->stride && r->stride != r->row_bytes && r->rows > 1) {
                for (size_t row = 0; row < r->rows; row++) {
                    size_t lo = r->offset + row * r->stride;
                    iv[m++] = (struct interval){lo, lo + r->row_bytes, i};
                }
            } else {
                iv[m++] = (struct interval){r->offset, r->offset + region_extent(r), i};
            }
        }
    qsort(iv, m, sizeof(*iv), cmp_interval);
    int rc = 0;
    size_t reach = 0, reach_chunk = 0;
    for (size_t i = 0; i < m; i++) {
        if (i && iv[i].lo < reach) {
            size_t a = reach_chunk, b = iv[i].chunk;
            rc = perr(NULL, SHMEMX_PLAN_EINVAL, "schedules overlap: chunk %zu (PE %d) and chunk "
                      "%zu (PE %d) both send bytes at offset %zu", a < b ? a : b,
                      p->chunks[a < b ? a : b].owner, a < b ? b : a, p->chunks[a < b ? b : a].owner,
                      iv[i].lo);
            break;
        }
        if (iv[i].hi > reach) {
            reach = iv[i].hi;
            reach_chunk = iv[i].chunk;
        }
    }
    free(iv);
    return rc;
}

/* ---------------------------------------------------------------- chains */

static uint64_t addr(const void *x) { return (uint64_t)(uintptr_t)x; }

static int region_linear(const shmemx_region_t *r) {
    return r->rows == 1 || !r->stride || r->stride == r->row_bytes;
}

/* How a strided region is copied on this engine: one LARGE sub-window packet,
 * one 13-dword sub-window packet (pre-gfx12 parts), or row by row when the
 * window does not fit the 13-dword format. Offsets of src and dst share
 * their alignment (same offset in the same-aligned heaps). */
enum { COPY_LARGE, COPY_SW13, COPY_ROWS };
static int region_2d_kind(const struct shmemx_plan *p, const shmemx_region_t *r) {
    if (sdma_engine_copy_2d_format(shmemi_engine()) != SDMA_COPY_2D_SW13)
        return COPY_LARGE;
    uint64_t a = addr(p->buf + r->offset);
    return sdma_pkt_copy_2d_sw13_fits(a, (uint32_t)r->stride, a, (uint32_t)r->stride,
                                      (uint32_t)r->row_bytes, (uint32_t)r->rows)
               ? COPY_SW13
               : COPY_ROWS;
}

static size_t region_dwords(const struct shmemx_plan *p, const shmemx_region_t *r) {
    if (region_linear(r)) {
        size_t bytes = region_extent(r), max = SDMA_COPY_LINEAR_MAX;
        return SDMA_COPY_LINEAR_DW * ((bytes + max - 1) / max);
    }
    switch (region_2d_kind(p, r)) {
    case COPY_LARGE: return SDMA_COPY_2D_DW;
    case COPY_SW13: return SDMA_COPY_2D_SW13_DW;
    default: return SDMA_COPY_LINEAR_DW * r->rows;
    }
}

static size_t chain_dwords(const struct shmemx_plan *p, size_t c) {
    size_t dw = 2 * SDMA_POLL_DW + 2 * SDMA_FENCE_DW;
    for (size_t k = 0; k < p->chunks[c].nregions; k++)
        dw += region_dwords(p, &p->regions[p->chunks[c].first_region + k]);
    return dw;
}


/* The peer's mapping of one of our symmetric addresses. */
/* pe's copy of a symmetric address of this PE, in the host or device heap. */
static void *at_peer(const void *local, int pe) {
    if (shmemi_on_device(local))
        return shmemi.peers[pe].dev + ((const char *)local - shmemi.dev_base);
    return shmemi.peers[pe].heap + ((const char *)local - shmemi.heap_base);
}

static int build_chains(struct shmemx_plan *p) {
    size_t first = (size_t)p->chunk_base[p->me];
    p->chains = calloc((size_t)p->n * (p->own ? p->own : 1), sizeof(*p->chains));
    if (!p->chains)
        return SHMEMX_PLAN_ENOMEM;
    size_t most = 0;
    for (int peer = 0; peer < p->n; peer++) {
        if (peer == p->me)
            continue;
        size_t bytes = 0;
        for (size_t k = 0; k < p->own; k++) {
            size_t c = first + k;
            struct chain *ch = &p->chains[(size_t)peer * p->own + k];
            ch->ndw = chain_dwords(p, c);
            ch->dw = malloc(ch->ndw * sizeof(uint32_t));
            if (!ch->dw)
                return SHMEMX_PLAN_ENOMEM;
            uint32_t *d = ch->dw;
            ch->poll_ref = 3;
            d += sdma_pkt_poll(d, addr(&p->gates[c]), 0, 0xFFFFFFFFu, SDMA_POLL_GE, 10,
                               SDMA_POLL_RETRY_FOREVER);
            ch->peer_ref = (size_t)(d - ch->dw) + 3;
            d += sdma_pkt_poll(d, addr(&p->fence[peer]), 0, 0xFFFFFFFFu, SDMA_POLL_GE, 10,
                               SDMA_POLL_RETRY_FOREVER);
            for (size_t r = 0; r < p->chunks[c].nregions; r++) {
                const shmemx_region_t *g = &p->regions[p->chunks[c].first_region + r];
                char *src = p->buf + g->offset, *dst = (char *)at_peer(src, peer);
                if (region_linear(g)) {
                    size_t left = region_extent(g);
                    while (left) {
                        size_t n = left > SDMA_COPY_LINEAR_MAX ? SDMA_COPY_LINEAR_MAX : left;
                        d += sdma_pkt_copy_linear(d, addr(dst), addr(src), (uint32_t)n);
                        src += n, dst += n, left -= n;
                    }
                } else if (region_2d_kind(p, g) == COPY_LARGE) {
                    d += sdma_pkt_copy_2d(d, addr(dst), (uint32_t)g->stride, addr(src),
                                          (uint32_t)g->stride, (uint32_t)g->row_bytes,
                                          (uint32_t)g->rows);
                } else if (region_2d_kind(p, g) == COPY_SW13) {
                    d += sdma_pkt_copy_2d_sw13(d, addr(dst), (uint32_t)g->stride, addr(src),
                                               (uint32_t)g->stride, (uint32_t)g->row_bytes,
                                               (uint32_t)g->rows);
                } else {
                    for (size_t row = 0; row < g->rows; row++)
                        d += sdma_pkt_copy_linear(d, addr(dst + row * g->stride),
                                                  addr(src + row * g->stride), (uint32_t)g->row_bytes);
                }
            }
            ch->arrival_val = (size_t)(d - ch->dw) + 3;
            d += sdma_pkt_fence(d, addr(at_peer(&p->arrival[c], peer)), 0);
            ch->fence_val = (size_t)(d - ch->dw) + 3;
            d += sdma_pkt_fence(d, addr(&p->sent[c * (size_t)p->n + (size_t)peer]), 0);
            bytes += ch->ndw * sizeof(uint32_t);
        }
        if (bytes > most)
            most = bytes;
    }
    p->round_bytes = most;
    return 0;
}

/* Arm round r on every queue: the chains, in schedule order, behind their gates. */
static int arm(struct shmemx_plan *p, uint32_t r) {
    for (int peer = 0; peer < p->n && p->own; peer++) {
        if (peer == p->me)
            continue;
        for (size_t k = 0; k < p->own; k++) {
            struct chain *ch = &p->chains[(size_t)peer * p->own + k];
            ch->dw[ch->poll_ref] = r;
            ch->dw[ch->peer_ref] = r - 1;
            ch->dw[ch->arrival_val] = r;
            ch->dw[ch->fence_val] = r;
            /* No kick: the chain waits on its gate, and opening the gate kicks. */
            int rc = sdma_queue_submit_flags(pqs[peer].q, ch->dw, ch->ndw, SDMA_SUBMIT_NO_KICK);
            if (rc)
                return perr(p, rc == SDMA_ERR_NO_RESOURCE ? SHMEMX_PLAN_ENOSPC : SHMEMX_PLAN_EENGINE,
                            "round %u: cannot queue chunk %zu's chain to PE %d: %s (%s)", r,
                            (size_t)p->chunk_base[p->me] + k, peer, sdma_strerror(rc),
                            sdma_last_error());
        }
        if (shmemi_ledger_push(&pqs[peer].ledger, p, r, p->round_bytes))
            return SHMEMX_PLAN_ENOMEM;
    }
    p->prepared = r;
    return 0;
}

/* ------------------------------------------------------------------ create */

static void plan_free_local(struct shmemx_plan *p) {
    if (!p)
        return;
    if (p->chains)
        for (size_t i = 0; i < (size_t)p->n * p->own; i++)
            free(p->chains[i].dw);
    free(p->chains);
    free(p->chunks);
    free(p->regions);
    free(p->chunk_base);
    free(p->writers);
    p->chains = NULL;
    p->chunks = NULL;
    p->regions = NULL;
    p->chunk_base = NULL;
    p->writers = NULL;
}

/* Gather every PE's schedule through a symmetric scratch buffer. */
static int gather_schedules(struct shmemx_plan *p, const struct sched_header *hs,
                            const shmemx_chunk_t *schedule, size_t nchunks) {
    size_t most = 0, total_c = 0, total_r = 0;
    for (int q = 0; q < p->n; q++) {
        size_t b = hs[q].nchunks * sizeof(struct wire_chunk) + hs[q].nregions * sizeof(shmemx_region_t);
        most = b > most ? b : most;
        total_c += hs[q].nchunks;
        total_r += hs[q].nregions;
    }
    if (total_c > INT_MAX)
        return perr(NULL, SHMEMX_PLAN_EINVAL, "%zu chunks in all: more than chunk ids can number", total_c);
    char *scratch = shmemi_words_malloc(most ? most : 64, "shmemx_plan_create");
    if (!scratch)
        return perr(NULL, SHMEMX_PLAN_ENOMEM, "no symmetric memory to gather the schedules");
    struct wire_chunk *wc = (struct wire_chunk *)scratch;
    shmemx_region_t *wr = (shmemx_region_t *)(scratch + nchunks * sizeof(*wc));
    for (size_t i = 0, k = 0; i < nchunks; i++) {
        wc[i] = (struct wire_chunk){schedule[i].nregions, schedule[i].writers};
        for (size_t j = 0; j < schedule[i].nregions; j++)
            wr[k++] = schedule[i].regions[j];
    }
    shmemi_barrier_all(); /* every PE's schedule is in its scratch */
    p->nchunks = total_c;
    p->chunks = calloc(total_c ? total_c : 1, sizeof(*p->chunks));
    p->regions = calloc(total_r ? total_r : 1, sizeof(*p->regions));
    p->chunk_base = calloc((size_t)p->n + 1, sizeof(int));
    p->writers = calloc(total_c ? total_c : 1, sizeof(int));
    int rc = 0;
    if (!p->chunks || !p->regions || !p->chunk_base || !p->writers)
        rc = SHMEMX_PLAN_ENOMEM; /* still take part in the barriers below */
    size_t c = 0, r = 0;
    for (int q = 0; q < p->n && !rc; q++) {
        const char *src = (const char *)at_peer(scratch, q);
        const struct wire_chunk *qc = (const struct wire_chunk *)src;
        const shmemx_region_t *qr = (const shmemx_region_t *)(src + hs[q].nchunks * sizeof(*qc));
        p->chunk_base[q] = (int)c;
        for (size_t i = 0; i < hs[q].nchunks; i++, c++) {
            p->chunks[c] = (struct pchunk){q, (int)qc[i].writers, r, qc[i].nregions};
            p->writers[c] = (int)qc[i].writers;
            for (size_t j = 0; j < qc[i].nregions; j++)
                p->regions[r++] = *qr++;
        }
    }
    if (!rc)
        p->chunk_base[p->n] = (int)c;
    shmemi_words_free(scratch, "shmemx_plan_create"); /* frees after a barrier */
    return rc;
}

static int validate(struct shmemx_plan *p) {
    char why[200];
    for (size_t c = 0; c < p->nchunks; c++) {
        if (p->chunks[c].writers < 1)
            return perr(NULL, SHMEMX_PLAN_EINVAL, "chunk %zu (PE %d) has %d writers: every chunk "
                        "needs at least one", c, p->chunks[c].owner, p->chunks[c].writers);
        if (!p->chunks[c].nregions)
            return perr(NULL, SHMEMX_PLAN_EINVAL, "chunk %zu (PE %d) has no regions", c,
                        p->chunks[c].owner);
        for (size_t k = 0; k < p->chunks[c].nregions; k++)
            if (region_check(&p->regions[p->chunks[c].first_region + k], p->size, why, sizeof(why)))
                return perr(NULL, SHMEMX_PLAN_EINVAL, "chunk %zu (PE %d): %s", c,
                            p->chunks[c].owner, why);
    }
    return check_overlaps(p);
}

/* Every PE learns every PE's status; the lowest failing PE's error wins. */
static int agree(int rc, const char *msg, char *out, size_t outlen) {
    struct {
        int32_t rc;
        char msg[220];
    } mine = {rc, ""}, *all = calloc((size_t)shmemi.n_pes, sizeof(mine));
    if (!all)
        shmemi_fatal("out of memory");
    snprintf(mine.msg, sizeof(mine.msg), "%s", msg ? msg : "");
    if (shmemi.boot->allgather(shmemi.boot, &mine, all, sizeof(mine)))
        shmemi_fatal("bootstrap allgather failed in shmemx_plan_create");
    int res = 0;
    for (int q = 0; q < shmemi.n_pes; q++)
        if (all[q].rc) {
            res = all[q].rc;
            snprintf(out, outlen, "PE %d: %s", q, all[q].msg);
            break;
        }
    free(all);
    return res;
}

int shmemx_plan_create(void *buf, size_t size, const shmemx_chunk_t *schedule, size_t nchunks,
                       const shmemx_plan_config_t *cfg, shmemx_plan_t *plan) {
    shmemi_check_init(__func__);
    pthread_mutex_lock(&plan_lock);
    create_errmsg[0] = '\0';
    shmemx_plan_config_t c = {0};
    if (cfg)
        c = *cfg;
    if (c.timeout_s <= 0)
        c.timeout_s = DEFAULT_TIMEOUT_S;

    /* 1. Local checks, then every PE's header: the same verdict everywhere. */
    struct sched_header me = {0};
    me.ahead = c.prepare_ahead ? 1 : 0;
    me.size = size;
    me.nchunks = nchunks;
    me.timeout_s = c.timeout_s;
    /* The buffer lives in the user heap: host heap, or device heap (GPU builds). */
    struct shmemi_route br;
    int in_heap = buf && size && !shmemi_route_try(&br, buf, size, shmemi.my_pe) &&
                  br.region != SHMEMI_REGION_DATA;
    int on_dev = in_heap && br.region == SHMEMI_REGION_DEVICE;
    me.buf_off = in_heap ? br.off : 0;
    me.on_dev = on_dev;
    int rc = 0;
#define LOCAL_FAIL(...) (rc = SHMEMX_PLAN_EINVAL, snprintf(me.why, sizeof(me.why), __VA_ARGS__))
    if (!plan)
        LOCAL_FAIL("plan (the output) is NULL");
    else if (c.team && c.team != SHMEM_TEAM_WORLD)
        rc = SHMEMX_PLAN_EUNSUPPORTED,
        snprintf(me.why, sizeof(me.why), "plans run on SHMEM_TEAM_WORLD only");
    else if (!in_heap)
        LOCAL_FAIL("the buffer %p (%zu bytes) is not inside the symmetric heap", buf, size);
    else if (on_dev && !(shmemi_engine() && shmemi.words_gpu &&
                         (sdma_engine_caps(shmemi_engine()) & SDMA_CAP_DEVICE_MEMORY)))
        rc = SHMEMX_PLAN_EUNSUPPORTED,
        snprintf(me.why, sizeof(me.why), "a buffer on the device heap needs a copy engine that "
                 "reaches GPU memory (the cuda engine; SHMEM_COPY_ENGINE is %s) and host words "
                 "kernels can use", shmemi.cfg.COPY_ENGINE);
    else if (nchunks && !schedule)
        LOCAL_FAIL("schedule is NULL with %zu chunks", nchunks);
    else if (!shmemi_engine())
        rc = SHMEMX_PLAN_EENGINE,
        snprintf(me.why, sizeof(me.why), "plans need a copy engine (SHMEM_COPY_ENGINE is %s)",
                 shmemi.cfg.COPY_ENGINE);
    for (size_t i = 0; !rc && i < nchunks; i++) {
        if (schedule[i].nregions && !schedule[i].regions)
            LOCAL_FAIL("chunk %zu has %zu regions but regions is NULL", i, schedule[i].nregions);
        me.nregions += schedule[i].nregions;
    }
    me.status = rc;
    struct sched_header *hs = calloc((size_t)shmemi.n_pes, sizeof(*hs));
    if (!hs)
        shmemi_fatal("out of memory");
    if (shmemi.boot->allgather(shmemi.boot, &me, hs, sizeof(me)))
        shmemi_fatal("bootstrap allgather failed in shmemx_plan_create");
    rc = 0;
    for (int q = 0; q < shmemi.n_pes && !rc; q++) {
        if (hs[q].status)
            rc = perr(NULL, hs[q].status, "PE %d: %s", q, hs[q].why);
        else if (hs[q].buf_off != hs[0].buf_off || hs[q].size != hs[0].size ||
                 hs[q].on_dev != hs[0].on_dev)
            rc = perr(NULL, SHMEMX_PLAN_EINVAL, "the buffer is not symmetric: PE 0 passed %llu "
                      "bytes at heap offset %llu, PE %d %llu bytes at offset %llu",
                      (unsigned long long)hs[0].size, (unsigned long long)hs[0].buf_off, q,
                      (unsigned long long)hs[q].size, (unsigned long long)hs[q].buf_off);
        else if (hs[q].ahead != hs[0].ahead || hs[q].timeout_s != hs[0].timeout_s)
            rc = perr(NULL, SHMEMX_PLAN_EINVAL, "the configs differ: PE 0 (timeout %g s, "
                      "prepare_ahead %d) and PE %d (timeout %g s, prepare_ahead %d)",
                      hs[0].timeout_s, hs[0].ahead, q, hs[q].timeout_s, hs[q].ahead);
    }
    if (rc) {
        free(hs);
        pthread_mutex_unlock(&plan_lock);
        return rc;
    }

    /* 2. Gather every schedule and check it: again the same verdict everywhere. */
    struct shmemx_plan *p = calloc(1, sizeof(*p));
    if (!p)
        shmemi_fatal("out of memory");
    p->buf = buf;
    p->size = size;
    p->n = shmemi.n_pes;
    p->me = shmemi.my_pe;
    p->timeout_s = c.timeout_s;
    p->ahead = me.ahead;
    rc = gather_schedules(p, hs, schedule, nchunks);
    free(hs);
    char msg[220] = "";
    if (!rc)
        rc = validate(p);
    if (rc)
        snprintf(msg, sizeof(msg), "%s", create_errmsg);
    /* validate() is deterministic, but memory failures are local: agree. */
    rc = agree(rc, msg, create_errmsg, sizeof(create_errmsg));
    if (rc)
        goto err_local;

    /* 3. Symmetric words, zeroed everywhere before any peer writes them, then
     * what kernels read: writers, the views, the peers' fence words. */
    size_t N = p->nchunks, n = (size_t)p->n;
    size_t wbytes = (N * 8 + N * 4 * 2 + N * n * 4 + n * 4 * 2 + 6 * 4 + 63) & ~(size_t)63;
    size_t vbytes = VIEW_SLOTS * sizeof(shmemx_plan_view_t) + n * sizeof(uint32_t *) + N * 4;
    size_t bytes = wbytes + vbytes;
    p->on_dev = on_dev;
    p->words = shmemi_words_malloc(bytes, __func__);
    if (!p->words) {
        rc = perr(NULL, SHMEMX_PLAN_ENOMEM, "no symmetric memory for the plan's %zu bytes of "
                  "words (raise SHMEM_SYMMETRIC_SIZE)", bytes);
        goto err_local;
    }
    memset(p->words, 0, bytes);
    p->marks = (uint64_t *)p->words;
    p->gates = (uint32_t *)(p->marks + N);
    p->arrival = p->gates + N;
    p->sent = p->arrival + N;
    p->fence = p->sent + N * n;
    p->abortw = p->fence + n;
    p->error = p->abortw + n;
    p->error_chunk = p->error + 1;
    p->error_round = p->error + 2;
    p->error_peer = p->error + 3;
    p->done = p->error + 4;
    p->go = p->error + 5;
    p->views = (shmemx_plan_view_t *)(p->words + wbytes);
    p->peer_fence = (uint32_t **)(p->views + VIEW_SLOTS);
    p->dev_writers = (int *)(p->peer_fence + n);
    for (size_t q = 0; q < n; q++)
        p->peer_fence[q] = (uint32_t *)at_peer(&p->fence[p->me], (int)q);
    memcpy(p->dev_writers, p->writers, N * sizeof(int));
    p->own = (size_t)(p->chunk_base[p->me + 1] - p->chunk_base[p->me]);

    /* 4. Queues, chains and ring space, then round 1 armed. */
    rc = open_plan_queues();
    if (!rc)
        rc = build_chains(p);
    p->hold = p->round_bytes * (p->ahead ? 2 : 1);
    int held = 0;
    if (!rc) {
        for (int q = 0; q < p->n && !rc; q++)
            if (q != p->me && p->own && shmemi_ledger_hold(&pqs[q].ledger, p->hold)) {
                rc = perr(p, SHMEMX_PLAN_ENOSPC, "the chains need %zu bytes of each plan queue "
                          "per round (x%d with prepare_ahead) beside %zu held by other plans; "
                          "the queues hold %zu: raise SHMEM_PLAN_RING_SIZE",
                          p->round_bytes, p->ahead ? 2 : 1, pqs[q].ledger.held,
                          pqs[q].ledger.capacity);
                for (int u = 0; u < q; u++)
                    if (u != p->me)
                        shmemi_ledger_unhold(&pqs[u].ledger, p->hold);
            }
        held = !rc;
    }
    rc = agree(rc, p->errmsg, create_errmsg, sizeof(create_errmsg));
    if (rc) {
        if (held)
            for (int q = 0; q < p->n; q++)
                if (q != p->me && p->own)
                    shmemi_ledger_unhold(&pqs[q].ledger, p->hold);
        shmemi_words_free(p->words, __func__);
        goto err_local;
    }
    p->round = 1;
    rc = arm(p, 1);
    rc = agree(rc, p->errmsg, create_errmsg, sizeof(create_errmsg));
    if (rc)
        shmemi_fatal("shmemx_plan_create: cannot arm round 1: %s", create_errmsg);
    p->state = SHMEMX_PLAN_ARMED;
    p->id = ++plan_serial;
    struct shmemx_plan **tail = &plans;
    while (*tail)
        tail = &(*tail)->next;
    *tail = p;
    *plan = p;
    shmemi_barrier_all();
    pthread_mutex_unlock(&plan_lock);
    return 0;

err_local:
    plan_free_local(p);
    free(p);
    pthread_mutex_unlock(&plan_lock);
    return rc;
}

int shmemx_plan_chunk_id(shmemx_plan_t p, int pe, size_t index) {
    if (!p || pe < 0 || pe >= p->n || !p->chunk_base ||
        index >= (size_t)(p->chunk_base[pe + 1] - p->chunk_base[pe]))
        return SHMEMX_PLAN_EINVAL;
    return p->chunk_base[pe] + (int)index;
}

int shmemx_plan_query(shmemx_plan_t p, int *state, long *round) {
    if (!p)
        return SHMEMX_PLAN_EINVAL;
    if (state)
        *state = p->state;
    if (round)
        *round = (long)p->round;
    return 0;
}

/* ------------------------------------------------------------------ rounds */

static int check_live(struct shmemx_plan *p, const char *fn) {
    if (!p)
        return SHMEMX_PLAN_EINVAL;
    if (p->state == SHMEMX_PLAN_CLOSED || p->state == SHMEMX_PLAN_CLOSING)
        return perr(p, SHMEMX_PLAN_ESTATE, "%s: plan %d is closed", fn, p->id);
    if (p->state == SHMEMX_PLAN_FAILED) {
        /* errmsg keeps saying why it failed. */
        shmemi_debug("plan: %s: plan %d failed in round %u (%s); close it", fn, p->id, p->round,
                     p->errmsg);
        return SHMEMX_PLAN_ESTATE;
    }
    return 0;
}

static int stream_error(struct shmemx_plan *p);

/* Stream mode: the rounds whose fence kernel has run are delivered (their
 * ledger entries go), and round r's view slot is free once round
 * r - VIEW_SLOTS's fence has run (bounded by the plan timeout). */
static int stream_catch_up(struct shmemx_plan *p) {
    double deadline = now_s() + p->timeout_s;
    unsigned spins = 0;
    struct shmemi_spin sp = {0};
    int look = 0;
    for (;;) {
        uint32_t done = __atomic_load_n(p->done, __ATOMIC_ACQUIRE);
        int rc = stream_error(p);
        if (rc) {
            shmemi_spin_end(&sp);
            return rc;
        }
        pthread_mutex_lock(&plan_lock);
        for (int q = 0; q < p->n; q++)
            if (q != p->me)
                shmemi_ledger_release(&pqs[q].ledger, p, done);
        pthread_mutex_unlock(&plan_lock);
        if (p->round <= VIEW_SLOTS || done >= p->round - VIEW_SLOTS) {
            shmemi_spin_end(&sp);
            return 0;
        }
        if (look && now_s() > deadline) {
            shmemi_spin_end(&sp);
            return perr(p, SHMEMX_PLAN_ETIMEDOUT, "round %u: the stream has not passed round "
                        "%u's fence within %g s (its view slot is still in use)", p->round,
                        p->round - VIEW_SLOTS, p->timeout_s);
        }
        look = relax(&sp, &spins);
    }
}

int shmemx_plan_start(shmemx_plan_t p, shmemx_plan_view_t **view) {
    int rc = check_live(p, __func__);
    if (rc)
        return rc;
    if (p->state != SHMEMX_PLAN_ARMED)
        return perr(p, SHMEMX_PLAN_ESTATE, "round %u: start called twice (the round is %s)",
                    p->round, p->state == SHMEMX_PLAN_ACTIVE ? "running" : "delivered");
    if (p->stream_mode && (rc = stream_catch_up(p)))
        return rc;
    pthread_mutex_lock(&plan_lock);
    for (int q = 0; q < p->n; q++) {
        const struct shmemi_ledger_entry *b;
        if (q != p->me && shmemi_ledger_check_start(&pqs[q].ledger, p, p->round, &b)) {
            const struct shmemx_plan *o = b->plan;
            pthread_mutex_unlock(&plan_lock);
            return perr(p, SHMEMX_PLAN_EORDER, "round %u of plan %d would wait on the queue to "
                        "PE %d behind round %u of plan %d, which has not started: start plans "
                        "in the order their rounds were prepared", p->round, p->id, q, b->round,
                        o->id);
        }
    }
    for (int q = 0; q < p->n; q++)
        if (q != p->me)
            shmemi_ledger_open(&pqs[q].ledger, p, p->round);
    pthread_mutex_unlock(&plan_lock);
    shmemx_plan_view_t *v = &p->views[p->round % VIEW_SLOTS];
    *v = (shmemx_plan_view_t){p->round, p->me, (int)p->nchunks, p->chunk_base[p->me], (int)p->own,
                              p->dev_writers, p->marks, p->gates, p->arrival, p->error,
                              p->error_chunk, (uint64_t)(p->timeout_s * 1e9)};
    p->state = SHMEMX_PLAN_ACTIVE;
    if (view)
        *view = v;
    return 0;
}

/* The first chunk not yet delivered this round, or -1. `cursor` remembers
 * where the previous scan stopped (everything before it was delivered). */
static long first_missing_of(struct shmemx_plan *p, uint32_t round, size_t *cursor, int *peer);
static long first_missing(struct shmemx_plan *p, size_t *cursor, int *peer) {
    return first_missing_of(p, p->round, cursor, peer);
}

static long first_missing_of(struct shmemx_plan *p, uint32_t round, size_t *cursor, int *peer) {
    size_t first = (size_t)p->chunk_base[p->me], own_end = first + p->own;
    for (size_t c = *cursor; c < p->nchunks; c++) {
        if (c >= first && c < own_end) {
            for (int q = 0; q < p->n; q++)
                if (q != p->me &&
                    __atomic_load_n(&p->sent[c * (size_t)p->n + (size_t)q], __ATOMIC_ACQUIRE) < round) {
                    *cursor = c;
                    *peer = q;
                    return (long)c;
                }
        } else if (__atomic_load_n(&p->arrival[c], __ATOMIC_ACQUIRE) < round) {
            *cursor = c;
            *peer = p->me;
            return (long)c;
        }
    }
    *cursor = p->nchunks;
    return -1;
}

static int queue_failure(struct shmemx_plan *p) {
    char msg[400];
    for (int q = 0; q < p->n; q++)
        if (q != p->me && sdma_queue_error(pqs[q].q, msg, sizeof(msg)))
            return perr(p, SHMEMX_PLAN_EENGINE, "round %u: the plan queue to PE %d failed: %s",
                        p->round, q, msg);
    return 0;
}

static int recorded_error(struct shmemx_plan *p) {
    uint32_t e = __atomic_load_n(p->error, __ATOMIC_ACQUIRE);
    if (!e)
        return 0;
    int code = -(int)e;
    uint32_t c = __atomic_load_n(p->error_chunk, __ATOMIC_ACQUIRE);
    uint32_t r = __atomic_load_n(p->error_round, __ATOMIC_ACQUIRE);
    uint32_t q = __atomic_load_n(p->error_peer, __ATOMIC_ACQUIRE);
    /* Errors of the stream-ordered kernels (shmem/gpu_stream.cu). */
    if (code == SHMEMX_PLAN_ETIMEDOUT && c == UINT32_MAX)
        return perr(p, code, "round %u: PE %u did not reach next_round within %g s", r, q,
                    p->timeout_s);
    if (code == SHMEMX_PLAN_ETIMEDOUT && c < p->nchunks && p->chunks[c].owner == p->me)
        return perr(p, code, "round %u: chunk %u (PE %d) did not reach PE %u within %g s "
                    "(stream-ordered wait)", r, c, p->me, q, p->timeout_s);
    if (code == SHMEMX_PLAN_ETIMEDOUT && c < p->nchunks)
        return perr(p, code, "round %u: chunk %u from PE %d did not arrive at PE %d within %g s "
                    "(stream-ordered wait)", r, c, p->chunks[c].owner, p->me, p->timeout_s);
    if (code == SHMEMX_PLAN_EPEER)
        return perr(p, code, "round %u: PE %u could not prepare round %u", r, q, r + 1);
    if (code == SHMEMX_PLAN_EMARKS)
        return perr(p, code, "round %u: chunk %u (PE %d) was marked ready more often than its "
                    "%d writers", p->round, c, p->me, c < p->nchunks ? p->writers[c] : 0);
    return perr(p, code, "round %u: chunk %u was marked ready by PE %d, which does not own it",
                p->round, c, p->me);
}

int shmemx_plan_wait(shmemx_plan_t p, double timeout_s) {
    int rc = check_live(p, __func__);
    if (rc)
        return rc;
    if (p->stream_mode && (rc = stream_error(p)))
        return rc;
    if (p->state == SHMEMX_PLAN_ARMED && !p->stream_mode)
        return perr(p, SHMEMX_PLAN_ESTATE, "round %u: wait before start", p->round);
    if (p->state == SHMEMX_PLAN_DELIVERED || p->state == SHMEMX_PLAN_ARMED)
        return 0;
    if (timeout_s < 0)
        timeout_s = p->timeout_s;
    double deadline = now_s() + timeout_s;
    size_t cursor = 0;
    unsigned spins = 0;
    int peer = -1, look = 0;
    struct shmemi_spin sp = {0};
    for (;;) {
        if ((rc = recorded_error(p)))
            break;
        long c = first_missing(p, &cursor, &peer);
        if (c < 0) {
            shmemi_spin_end(&sp);
            p->state = SHMEMX_PLAN_DELIVERED;
            pthread_mutex_lock(&plan_lock);
            for (int q = 0; q < p->n; q++)
                if (q != p->me)
                    shmemi_ledger_release(&pqs[q].ledger, p, p->round);
            pthread_mutex_unlock(&plan_lock);
            return 0;
        }
        if (look) {
            if ((rc = queue_failure(p)))
                break;
            if (now_s() > deadline) {
                const struct pchunk *ch = &p->chunks[c];
                if (ch->owner == p->me) {
                    uint64_t m = __atomic_load_n(&p->marks[c], __ATOMIC_ACQUIRE);
                    uint64_t base = (uint64_t)(p->round - 1) * (uint64_t)ch->writers;
                    rc = perr(p, SHMEMX_PLAN_ETIMEDOUT, "round %u: chunk %ld (PE %d) did not "
                              "reach PE %d within %g s: %llu of its %d writers marked it ready",
                              p->round, c, p->me, peer, timeout_s,
                              (unsigned long long)(m > base ? m - base : 0), ch->writers);
                } else {
                    rc = perr(p, SHMEMX_PLAN_ETIMEDOUT, "round %u: chunk %ld from PE %d did not "
                              "arrive at PE %d within %g s", p->round, c, ch->owner, p->me,
                              timeout_s);
                }
                break;
            }
        }
        look = relax(&sp, &spins);
    }
    shmemi_spin_end(&sp);
    p->state = SHMEMX_PLAN_FAILED;
    return rc;
}

static int prepare(struct shmemx_plan *p, uint32_t r) {
    if (p->prepared >= r)
        return 0;
    if (p->prepared == UINT32_MAX)
        return perr(p, SHMEMX_PLAN_EROUNDS, "round %u is the last: rounds are 32-bit and the "
                    "engine's compare is unsigned", p->prepared);
    pthread_mutex_lock(&plan_lock);
    int rc = arm(p, r);
    pthread_mutex_unlock(&plan_lock);
    return rc;
}

int shmemx_plan_prepare_next(shmemx_plan_t p) {
    int rc = check_live(p, __func__);
    if (rc)
        return rc;
    if (!p->ahead)
        return perr(p, SHMEMX_PLAN_ESTATE, "prepare_next needs a plan created with prepare_ahead");
    if (p->state == SHMEMX_PLAN_ARMED)
        return perr(p, SHMEMX_PLAN_ESTATE, "round %u: prepare_next before start", p->round);
    return prepare(p, p->round + 1);
}

int shmemx_plan_next_round(shmemx_plan_t p) {
    int rc = check_live(p, __func__);
    if (rc)
        return rc;
    if (p->state != SHMEMX_PLAN_DELIVERED)
        return perr(p, SHMEMX_PLAN_ESTATE, "round %u: next_round before the round was waited for",
                    p->round);
    uint32_t r = p->round;
    int prc = prepare(p, r + 1);
    char prep_msg[512];
    snprintf(prep_msg, sizeof(prep_msg), "%s", p->errmsg);
    /* The fence: tell every peer we reached it (and whether we could prepare),
     * then wait for every peer, bounded by the plan timeout. */
    for (int q = 0; q < p->n; q++) {
        if (q == p->me)
            continue;
        if (prc)
            __atomic_store_n((uint32_t *)at_peer(&p->abortw[p->me], q), r, __ATOMIC_RELAXED);
        /* Release: our abort word is visible before the fence word. */
        uint32_t *f = at_peer(&p->fence[p->me], q);
        __atomic_store_n(f, r, __ATOMIC_RELEASE);
        shmemi_wake_at(q, f, sizeof(*f)); /* its waits, and its engine's fence POLLs */
    }
    double deadline = now_s() + p->timeout_s;
    unsigned spins = 0;
    int look = 0;
    struct shmemi_spin sp = {0};
    for (int q = 0; q < p->n; q++) {
        while (q != p->me && __atomic_load_n(&p->fence[q], __ATOMIC_ACQUIRE) < r) {
            if (look && now_s() > deadline) {
                shmemi_spin_end(&sp);
                p->state = SHMEMX_PLAN_FAILED;
                return perr(p, SHMEMX_PLAN_ETIMEDOUT, "round %u: PE %d did not reach next_round "
                            "within %g s", r, q, p->timeout_s);
            }
            look = relax(&sp, &spins);
        }
    }
    shmemi_spin_end(&sp);
    if (prc) {
        p->state = SHMEMX_PLAN_FAILED;
        return perr(p, prc, "%s", prep_msg);
    }
    for (int q = 0; q < p->n; q++)
        if (q != p->me && __atomic_load_n(&p->abortw[q], __ATOMIC_ACQUIRE) == r) {
            p->state = SHMEMX_PLAN_FAILED;
            return perr(p, SHMEMX_PLAN_EPEER, "round %u: PE %d could not prepare round %u", r, q,
                        r + 1);
        }
    p->round = r + 1;
    p->state = SHMEMX_PLAN_ARMED;
    return 0;
}

/* Open every own gate up to round r, as the chunks stand. */
static void open_all_gates(struct shmemx_plan *p, uint32_t r) {
    for (size_t k = 0; k < p->own; k++)
        __atomic_store_n(&p->gates[(size_t)p->chunk_base[p->me] + k], r, __ATOMIC_RELEASE);
    kick();
}

int shmemx_plan_run(shmemx_plan_t p, double timeout_s) {
    int rc = shmemx_plan_start(p, NULL);
    if (rc)
        return rc;
    for (size_t k = 0; k < p->own; k++) {
        size_t c = (size_t)p->chunk_base[p->me] + k;
        __atomic_store_n(&p->marks[c], (uint64_t)p->round * (uint64_t)p->writers[c], __ATOMIC_RELEASE);
    }
    open_all_gates(p, p->round);
    return shmemx_plan_wait(p, timeout_s);
}

/* Stream mode: the first error the GPU recorded, returned once (the plan
 * fails with it); 0 when none. */
static int stream_error(struct shmemx_plan *p) {
    if (p->error_reported || !__atomic_load_n(p->error, __ATOMIC_ACQUIRE))
        return 0;
    p->error_reported = 1;
    p->state = SHMEMX_PLAN_FAILED;
    return recorded_error(p);
}

#if defined(SHMEM_GPU_CUDA) || defined(SHMEM_GPU_HIP)
static struct shmemi_plan_gpu gpu_round(struct shmemx_plan *p, uint32_t r) {
    return (struct shmemi_plan_gpu){
        .round = r, .me = p->me, .n = p->n, .nchunks = (int)p->nchunks,
        .own_first = p->chunk_base[p->me], .own_count = (int)p->own, .sent = p->sent,
        .arrival = p->arrival, .fence = p->fence, .abortw = p->abortw, .error = p->error,
        .error_chunk = p->error_chunk, .error_round = p->error_round,
        .error_peer = p->error_peer, .timeout_ns = (uint64_t)(p->timeout_s * 1e9)};
}

static int stream_usable(struct shmemx_plan *p, void *stream, const char *fn) {
    int rc = check_live(p, fn);
    if (rc)
        return rc;
    if (!p->on_dev)
        return perr(p, SHMEMX_PLAN_EUNSUPPORTED, "%s: the plan's buffer is host memory; "
                    "stream-ordered rounds need a buffer on the device heap", fn);
    (void)stream;
    return stream_error(p);
}

/* The stream-ordered wait without a kernel: the stream waits (a stream memory
 * wait, cheaper to queue than a launch) until go reaches the round, and this
 * thread releases go once the round is delivered, or records why it cannot
 * be (a peer that could not prepare it, a timeout naming a peer that never
 * passed the last next_round or the chunk that did not come) and releases it
 * anyway, so a stream never waits past the plan's timeout. A round's timeout
 * runs from the previous round's release (rounds pass in stream order). Needs
 * eager module loading (a stream wait deadlocks a lazy first launch); the wait
 * kernel does the same work otherwise. */
struct watch {
    struct shmemx_plan *p;
    uint32_t round;
};
static struct {
    pthread_mutex_t lock;
    pthread_cond_t work; /* signalled when a watch comes, or at stop */
    pthread_t thread;
    int started, stop;
    struct watch *w; /* pending, oldest first */
    size_t n, cap;
} wd = {.lock = PTHREAD_MUTEX_INITIALIZER, .work = PTHREAD_COND_INITIALIZER};

/* A host-side error of the round, first one wins (like the kernels'). */
static void watch_error(struct shmemx_plan *p, int code, uint32_t chunk, uint32_t peer,
                        uint32_t round) {
    uint32_t expected = 0;
    if (__atomic_compare_exchange_n(p->error, &expected, (uint32_t)-code, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE)) {
        __atomic_store_n(p->error_chunk, chunk, __ATOMIC_RELAXED);
        __atomic_store_n(p->error_round, round, __ATOMIC_RELAXED);
        __atomic_store_n(p->error_peer, peer, __ATOMIC_RELEASE);
    }
}

/* 1 when the watch is over (go released). since: when the plan's previous
 * watch ended (or this one began). */
static int watch_check(struct watch *w, double now, double *since) {
    struct shmemx_plan *p = w->p;
    uint32_t r = w->round;
    size_t cursor = 0;
    int peer = -1;
    if (!__atomic_load_n(p->error, __ATOMIC_ACQUIRE)) {
        for (int q = 0; q < p->n; q++)
            if (q != p->me && r >= 2 && __atomic_load_n(&p->abortw[q], __ATOMIC_ACQUIRE) == r - 1)
                watch_error(p, SHMEMX_PLAN_EPEER, UINT32_MAX, (uint32_t)q, r - 1);
    }
    if (!__atomic_load_n(p->error, __ATOMIC_ACQUIRE)) {
        long c = first_missing_of(p, r, &cursor, &peer);
        if (c >= 0 && now - *since <= p->timeout_s)
            return 0;
        if (c >= 0) {
            int late = -1;
            for (int q = 0; q < p->n && late < 0; q++)
                if (q != p->me && __atomic_load_n(&p->fence[q], __ATOMIC_ACQUIRE) < r - 1)
                    late = q;
            if (late >= 0)
                watch_error(p, SHMEMX_PLAN_ETIMEDOUT, UINT32_MAX, (uint32_t)late, r - 1);
            else
                watch_error(p, SHMEMX_PLAN_ETIMEDOUT, (uint32_t)c, (uint32_t)peer, r);
        }
    }
    /* Release: the copies this thread saw delivered are visible to the stream's
     * later work once it sees go (the engine's fences preceded what we read). */
    __atomic_store_n(p->go, r, __ATOMIC_RELEASE);
    *since = now;
    return 1;
}

/* While rounds are watched, GPU streams wait on it (nothing wakes it when a
 * kernel's copy lands): it polls, spinning for 200 us after its last
 * release, then every 50 us. Idle for 200 us, it sleeps until a watch comes. */
static void *watchdog(void *arg) {
    (void)arg;
    double idle_since = now_s(), busy_since = idle_since;
    for (;;) {
        double t = now_s();
        pthread_mutex_lock(&wd.lock);
        while (!wd.n && !wd.stop && t - idle_since >= 200e-6) {
            pthread_cond_wait(&wd.work, &wd.lock);
            t = idle_since = busy_since = now_s();
        }
        if (wd.stop) {
            pthread_mutex_unlock(&wd.lock);
            return NULL;
        }
        size_t n = wd.n;
        /* Each plan's oldest watch: its rounds pass in stream order. */
        for (size_t i = 0; i < wd.n; i++) {
            struct shmemx_plan *p = wd.w[i].p;
            int older = 0;
            for (size_t k = 0; k < i && !older; k++)
                older = wd.w[k].p == p;
            if (older || !watch_check(&wd.w[i], t, &p->watch_since))
                continue;
            memmove(wd.w + i, wd.w + i + 1, (wd.n - i - 1) * sizeof(*wd.w));
            wd.n--;
            i--;
            busy_since = t;
        }
        if (n)
            idle_since = t;
        if (wd.n && t - busy_since > 200e-6) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_nsec += 50000;
            if (ts.tv_nsec >= 1000000000) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000;
            }
            pthread_cond_timedwait(&wd.work, &wd.lock, &ts);
            pthread_mutex_unlock(&wd.lock);
            continue;
        }
        pthread_mutex_unlock(&wd.lock);
        sched_yield();
    }
}

/* finalize: plans are closed, nothing is watched: end the thread. */
static void watch_stop(void) {
    pthread_mutex_lock(&wd.lock);
    int started = wd.started;
    wd.stop = 1;
    pthread_cond_signal(&wd.work);
    pthread_mutex_unlock(&wd.lock);
    if (started)
        pthread_join(wd.thread, NULL);
    free(wd.w);
    wd.w = NULL;
    wd.n = wd.cap = 0;
    wd.started = wd.stop = 0;
}

static int watch_add(struct shmemx_plan *p, uint32_t round) {
    int rc = 0;
    pthread_mutex_lock(&wd.lock);
    if (!wd.started) {
        if (pthread_create(&wd.thread, NULL, watchdog, NULL) == 0) {
            wd.started = 1;
        } else {
            rc = -1;
        }
    }
    if (!rc && wd.n == wd.cap) {
        size_t cap = wd.cap ? wd.cap * 2 : 64;
        struct watch *nw = realloc(wd.w, cap * sizeof(*nw));
        if (nw) {
            wd.w = nw;
            wd.cap = cap;
        } else {
            rc = -1;
        }
    }
    if (!rc) {
        int pending = 0;
        for (size_t i = 0; i < wd.n && !pending; i++)
            pending = wd.w[i].p == p;
        if (!pending) /* the timeout of the plan's next round runs from now */
            p->watch_since = now_s();
        wd.w[wd.n++] = (struct watch){p, round};
        pthread_cond_signal(&wd.work);
    }
    pthread_mutex_unlock(&wd.lock);
    return rc;
}

/* close: the plan's words go; its pending watches (a stream the caller did
 * not synchronize) are released first. */
static void watch_drop(struct shmemx_plan *p) {
    pthread_mutex_lock(&wd.lock);
    size_t k = 0;
    for (size_t i = 0; i < wd.n; i++)
        if (wd.w[i].p != p)
            wd.w[k++] = wd.w[i];
    wd.n = k;
    pthread_mutex_unlock(&wd.lock);
    if (p->go)
        __atomic_store_n(p->go, UINT32_MAX, __ATOMIC_RELEASE);
}

static int eager_loading(void) {
    const char *m = getenv("CUDA_MODULE_LOADING");
    return m && !strcasecmp(m, "EAGER");
}

int shmemx_plan_wait_on_stream(shmemx_plan_t p, void *stream) {
    int rc = stream_usable(p, stream, __func__);
    if (rc)
        return rc;
    if (p->state != SHMEMX_PLAN_ACTIVE)
        return perr(p, SHMEMX_PLAN_ESTATE, "round %u: wait_on_stream %s", p->round,
                    p->state == SHMEMX_PLAN_ARMED ? "before start" : "called twice");
    int e;
    if (eager_loading() && watch_add(p, p->round) == 0) {
        e = shmemi_gpu_stream_wait32(stream, p->go, p->round);
    } else {
        struct shmemi_plan_gpu a = gpu_round(p, p->round);
        e = shmemi_gpu_plan_wait_launch(&a, stream);
    }
    if (e)
        return perr(p, SHMEMX_PLAN_EENGINE, "round %u: the stream-ordered wait did not queue "
                    "(runtime error %d)", p->round, e);
    p->stream_mode = 1;
    p->state = SHMEMX_PLAN_DELIVERED; /* as far as the host's calls go: queued */
    return 0;
}

int shmemx_plan_next_round_on_stream(shmemx_plan_t p, void *stream) {
    int rc = stream_usable(p, stream, __func__);
    if (rc)
        return rc;
    if (p->state != SHMEMX_PLAN_DELIVERED)
        return perr(p, SHMEMX_PLAN_ESTATE, "round %u: next_round_on_stream before the round's "
                    "wait", p->round);
    uint32_t r = p->round;
    int prc = prepare(p, r + 1);
    if (prc) /* every peer's next wait reports it (EPEER) */
        for (int q = 0; q < p->n; q++)
            if (q != p->me)
                __atomic_store_n((uint32_t *)at_peer(&p->abortw[p->me], q), r, __ATOMIC_RELEASE);
    /* After the stream's reads of round r: tell every peer (its chains to this
     * PE wait for it), then note it here (start's view-slot check). Stream
     * writes, no kernel: nothing on this stream waits for the peers. */
    uint32_t *words[64];
    int e = 0, k = 0;
    for (int q = 0; q <= p->n && !e; q++) {
        if (q < p->n && q != p->me)
            words[k++] = p->peer_fence[q];
        else if (q == p->n) /* last: the local note */
            words[k++] = p->done;
        if (k == 64 || (q == p->n && k)) {
            e = shmemi_gpu_stream_write32_n(stream, words, k, r);
            k = 0;
        }
    }
    if (e)
        return perr(p, SHMEMX_PLAN_EENGINE, "round %u: the stream writes of next_round did not "
                    "queue (runtime error %d)", r, e);
    p->stream_mode = 1;
    if (prc) {
        p->state = SHMEMX_PLAN_FAILED;
        return prc;
    }
    p->round = r + 1;
    p->state = SHMEMX_PLAN_ARMED;
    return 0;
}
#else
int shmemx_plan_wait_on_stream(shmemx_plan_t p, void *stream) {
    (void)stream;
    return perr(p, SHMEMX_PLAN_EUNSUPPORTED, "wait_on_stream needs a GPU build");
}

int shmemx_plan_next_round_on_stream(shmemx_plan_t p, void *stream) {
    (void)stream;
    return perr(p, SHMEMX_PLAN_EUNSUPPORTED, "next_round_on_stream needs a GPU build");
}
#endif

/* ------------------------------------------------------------------- close */

static int blocked(struct shmemx_plan *p) {
    for (int q = 0; q < p->n; q++)
        if (q != p->me && shmemi_ledger_blocker(&pqs[q].ledger, p))
            return 1;
    return 0;
}

/* Wait until every own chunk of every prepared round has left for every peer. */
static int drain(struct shmemx_plan *p, double timeout_s) {
    double deadline = now_s() + timeout_s;
    unsigned spins = 0;
    int look = 0, rc = 0;
    struct shmemi_spin sp = {0};
    size_t first = (size_t)p->chunk_base[p->me];
    for (size_t c = first; c < first + p->own && !rc; c++)
        for (int q = 0; q < p->n && !rc; q++)
            while (q != p->me &&
                   __atomic_load_n(&p->sent[c * (size_t)p->n + (size_t)q], __ATOMIC_ACQUIRE) < p->prepared) {
                if ((rc = queue_failure(p)))
                    break;
                if (look && now_s() > deadline) {
                    rc = perr(p, SHMEMX_PLAN_ETIMEDOUT, "close: chunk %zu did not reach PE %d "
                              "within %g s", c, q, timeout_s);
                    break;
                }
                look = relax(&sp, &spins);
            }
    shmemi_spin_end(&sp);
    return rc;
}

/* Free what the plan holds. Collective (the symmetric words). */
static void finish(struct shmemx_plan *p) {
    for (int q = 0; q < p->n; q++)
        if (q != p->me) {
            shmemi_ledger_release(&pqs[q].ledger, p, UINT32_MAX);
            if (p->own)
                shmemi_ledger_unhold(&pqs[q].ledger, p->hold);
        }
    shmemi_words_free(p->words, "shmemx_plan_close");
    p->words = NULL;
    plan_free_local(p);
    p->state = SHMEMX_PLAN_CLOSED;
}

int shmemx_plan_close(shmemx_plan_t p, double timeout_s) {
    shmemi_check_init(__func__);
    if (!p)
        return SHMEMX_PLAN_EINVAL;
    if (p->state == SHMEMX_PLAN_CLOSED || p->state == SHMEMX_PLAN_CLOSING)
        return 0;
    if (timeout_s < 0)
        timeout_s = p->timeout_s;
    /* Stream mode: an error the GPU recorded and no wait returned yet. */
    int serr = p->stream_mode ? stream_error(p) : 0;
#if defined(SHMEM_GPU_CUDA) || defined(SHMEM_GPU_HIP)
    if (p->stream_mode)
        watch_drop(p);
#endif
    /* Every PE is here, done with the buffer: release the chains that wait for a
     * peer's next_round. */
    shmemi_barrier_all();
    for (int q = 0; q < p->n; q++)
        __atomic_store_n(&p->fence[q], UINT32_MAX, __ATOMIC_RELEASE);
    pthread_mutex_lock(&plan_lock);
    /* Prepared copies cannot be withdrawn: send this PE's chunks as they stand. */
    open_all_gates(p, p->prepared);
    for (int q = 0; q < p->n; q++)
        if (q != p->me)
            shmemi_ledger_open(&pqs[q].ledger, p, 0);
    int rc = 0;
    if (blocked(p)) {
        p->state = SHMEMX_PLAN_CLOSING;
    } else {
        rc = drain(p, timeout_s);
        /* Every PE's copies into every buffer have landed after this barrier. */
        shmemi_barrier_all();
        finish(p);
        /* Plans that were waiting behind this one can finish now, oldest first. */
        for (struct shmemx_plan *o = plans; o; o = o->next)
            if (o->state == SHMEMX_PLAN_CLOSING && !blocked(o)) {
                int orc = drain(o, timeout_s);
                shmemi_barrier_all();
                if (orc || *o->error)
                    shmemi_warn("plan %d, closed behind plan %d: %s", o->id, p->id,
                                orc ? o->errmsg : shmemx_plan_strerror(-(int)*o->error));
                finish(o);
            }
    }
    pthread_mutex_unlock(&plan_lock);
    if (p->state == SHMEMX_PLAN_CLOSING)
        shmemi_barrier_all();
    return rc ? rc : serr;
}

/* ------------------------------------------------------- library hooks */

static const char *state_name(int s) {
    static const char *names[] = {"?", "ARMED", "ACTIVE", "DELIVERED", "FAILED", "CLOSING", "CLOSED"};
    return s >= 1 && s <= 6 ? names[s] : names[0];
}

void shmemi_plan_check_free(const void *ptr, size_t len, const char *fn) {
    for (struct shmemx_plan *p = plans; p; p = p->next)
        if (p->state != SHMEMX_PLAN_CLOSED && (const char *)ptr < p->buf + p->size &&
            p->buf < (const char *)ptr + len)
            shmemi_fatal("%s: %p holds the buffer of triggered plan %d (state %s): every PE must "
                         "shmemx_plan_close it first",
                         fn, ptr, p->id, state_name(p->state));
}

void shmemi_plan_fini(void) {
    for (struct shmemx_plan *p = plans; p; p = p->next)
        if (p->state != SHMEMX_PLAN_CLOSED)
            shmemi_fatal("shmem_finalize: triggered plan %d on buffer %p is still open (state "
                         "%s): close it first",
                         p->id, (void *)p->buf, state_name(p->state));
#if defined(SHMEM_GPU_CUDA) || defined(SHMEM_GPU_HIP)
    watch_stop();
#endif
    while (plans) {
        struct shmemx_plan *p = plans;
        plans = p->next;
        free(p);
    }
    if (pqs) {
        for (int q = 0; q < shmemi.n_pes; q++)
            shmemi_ledger_fini(&pqs[q].ledger);
        free(pqs);
        pqs = NULL;
    }
    shmemi_poll_queues_close();
}

/* ------------------------------------------------------------ view (host) */

int shmemx_plan_owns(const shmemx_plan_view_t *view, int c) { return shmemi_view_owns(view, c); }

/* The gate opened: with a core to spare for the engine's thread, wake it if it
 * sleeps (one load otherwise). Without, no hand-off: a thread hand-off per
 * gate costs more than the copies, and the PE that waits next (this one, in
 * its plan wait) runs the engine's ready packets itself. */
void shmemx_plan_mark_ready(shmemx_plan_view_t *view, int c) {
    if (shmemi_view_mark_ready(view, c) && shmemi_engine_offload())
        shmemi_wake_at(shmemi.my_pe, &view->gates[c], sizeof(view->gates[c]));
}

int shmemx_plan_arrived(const shmemx_plan_view_t *view, int c) {
    return shmemi_view_arrived(view, c);
}

/* The view's wait (device/plan_view.h) with the core's waiter: it sleeps
 * once the wait lasts, until the engine's fence on the chunk wakes it. */
int shmemx_plan_wait_chunk(const shmemx_plan_view_t *view, int c) {
    uint64_t deadline = shmemi_view_now_ns() + view->timeout_ns;
    unsigned spins = 0;
    int look = 0, rc = SHMEMX_PLAN_OK;
    struct shmemi_spin sp = {0};
    while (!shmemi_view_arrived(view, c)) {
        /* Acquire: pairs with the winner's CAS in shmemi_view_error. */
        uint32_t err = __atomic_load_n(view->error, __ATOMIC_ACQUIRE);
        if (err) {
            rc = -(int)err;
            break;
        }
        if (look && shmemi_view_now_ns() > deadline) {
            rc = SHMEMX_PLAN_ETIMEDOUT;
            break;
        }
        look = relax(&sp, &spins);
    }
    shmemi_spin_end(&sp);
    return rc;
}

/* ---------------------------------------------------------- schedule builders */

int shmemx_plan_whole(size_t offset, size_t bytes, int writers, shmemx_region_t *region,
                      shmemx_chunk_t *chunk) {
    if (!region || !chunk || !bytes || writers < 1)
        return SHMEMX_PLAN_EINVAL;
    *region = (shmemx_region_t){offset, bytes, 1, 0};
    *chunk = (shmemx_chunk_t){region, 1, writers};
    return 1;
}

int shmemx_plan_rows(size_t offset, size_t row_bytes, size_t rows, size_t stride, size_t nchunks,
                     int writers, shmemx_region_t *regions, shmemx_chunk_t *chunks) {
    if (!regions || !chunks || !row_bytes || !rows || !nchunks || nchunks > rows || writers < 1 ||
        (stride && stride < row_bytes))
        return SHMEMX_PLAN_EINVAL;
    size_t pitch = stride ? stride : row_bytes, row = 0;
    for (size_t i = 0; i < nchunks; i++) {
        size_t n = rows / nchunks + (i < rows % nchunks);
        regions[i] = (shmemx_region_t){offset + row * pitch, row_bytes, n, stride};
        chunks[i] = (shmemx_chunk_t){&regions[i], 1, writers};
        row += n;
    }
    return (int)nchunks;
}

int shmemx_plan_tiles(const shmemx_tiling_t *t, const size_t *order, size_t ntiles,
                      size_t tiles_per_chunk, int writers, shmemx_region_t *regions,
                      shmemx_chunk_t *chunks) {
    if (!t || !regions || !chunks || !t->elem_bytes || !t->rows || !t->cols || !t->tile_rows ||
        !t->tile_cols || !tiles_per_chunk || writers < 1 || t->ld_bytes < t->cols * t->elem_bytes)
        return SHMEMX_PLAN_EINVAL;
    size_t grid_r = (t->rows + t->tile_rows - 1) / t->tile_rows;
    size_t grid_c = (t->cols + t->tile_cols - 1) / t->tile_cols;
    if (!order)
        ntiles = grid_r * grid_c;
    if (!ntiles)
        return 0;
    for (size_t i = 0; i < ntiles; i++) {
        size_t tile = order ? order[i] : i;
        if (tile >= grid_r * grid_c)
            return SHMEMX_PLAN_EINVAL;
        size_t tr = tile / grid_c, tc = tile % grid_c;
        size_t r0 = tr * t->tile_rows, c0 = tc * t->tile_cols;
        size_t nr = t->rows - r0 < t->tile_rows ? t->rows - r0 : t->tile_rows;
        size_t nc = t->cols - c0 < t->tile_cols ? t->cols - c0 : t->tile_cols;
        regions[i] = (shmemx_region_t){t->offset + r0 * t->ld_bytes + c0 * t->elem_bytes,
                                       nc * t->elem_bytes, nr, t->ld_bytes};
    }
    size_t nchunks = (ntiles + tiles_per_chunk - 1) / tiles_per_chunk;
    for (size_t k = 0; k < nchunks; k++) {
        size_t first = k * tiles_per_chunk;
        size_t n = ntiles - first < tiles_per_chunk ? ntiles - first : tiles_per_chunk;
        chunks[k] = (shmemx_chunk_t){&regions[first], n, writers};
    }
    return nchunks > INT_MAX ? SHMEMX_PLAN_EINVAL : (int)nchunks;
}
