/* The life of a triggered plan: create, one step per function (exchange the
 * headers, gather and check the schedules, lay out the shared words, build
 * the chains and hold their ring space, arm round 1), the queries, close,
 * and the library's hooks (shmem_free, shmem_realloc and finalize). */
#include "shmem/plan/plan.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#define DEFAULT_TIMEOUT_S 30.0

struct shmemi_plan_queue *shmemi_plan_queues;
struct shmemx_plan *shmemi_plans;
pthread_mutex_t shmemi_plan_lock = PTHREAD_MUTEX_INITIALIZER;
static int plan_serial;

static char create_errmsg[512]; /* the message of a failed create (no plan to hold it) */

int shmemi_plan_err(struct shmemx_plan *p, int code, const char *fmt, ...) {
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
    case SHMEMX_PLAN_ETIMEDOUT:
        return "timed out (too few marks, or a peer did not reach the round fence)";
    case SHMEMX_PLAN_EMARKS: return "a chunk was marked ready more often than it has writers";
    case SHMEMX_PLAN_EPEER: return "a peer could not prepare the round";
    case SHMEMX_PLAN_ESTATE: return "call out of order for the plan's state";
    case SHMEMX_PLAN_ENOSPC:
        return "the plan queues cannot hold the chains (raise SHMEM_PLAN_RING_SIZE)";
    case SHMEMX_PLAN_ENOMEM: return "out of memory (symmetric heap or host)";
    case SHMEMX_PLAN_EUNSUPPORTED: return "not supported in this build";
    case SHMEMX_PLAN_EROUNDS: return "the round counter would pass 2^32 - 1";
    case SHMEMX_PLAN_EENGINE: return "no copy engine, or a copy-engine queue failed";
    case SHMEMX_PLAN_EORDER:
        return "round started behind another plan's round that has not started";
    default: return "unknown plan error";
    }
}

/* The plan queues (one per peer, owned by shmem/queues.c) and their ledgers. */
static int open_plan_queues(void) {
    if (shmemi_plan_queues)
        return 0;
    struct shmemi_plan_queue *q = calloc((size_t)shmemi.n_pes, sizeof(*q));
    if (!q)
        return SHMEMX_PLAN_ENOMEM;
    for (int p = 0; p < shmemi.n_pes; p++) {
        q[p].q = shmemi_poll_queue(p);
        shmemi_ledger_init(&q[p].ledger, shmemi.cfg.PLAN_RING_SIZE / 2);
    }
    shmemi_plan_queues = q;
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

/* Every PE learns every PE's status; the lowest failing PE's error wins and
 * becomes the create message. */
static int agree(int rc, const char *msg) {
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
            snprintf(create_errmsg, sizeof(create_errmsg), "PE %d: %s", q, all[q].msg);
            break;
        }
    free(all);
    return res;
}

/* Step 2: every schedule gathered and checked. The check is deterministic,
 * but memory failures are local: agree (agree copies this PE's message before
 * it writes the verdict). */
static int create_schedules(struct shmemx_plan *p, const struct shmemi_plan_sched *all,
                            const shmemx_chunk_t *schedule, size_t nchunks) {
    int rc = shmemi_plan_gather(p, all, schedule, nchunks);
    if (!rc)
        rc = shmemi_plan_validate(p);
    return agree(rc, rc ? create_errmsg : "");
}

/* Step 3: the symmetric words, zeroed everywhere before any peer writes them,
 * then what kernels read: writers, the peers' fence words. The allocator
 * decides alike on every PE. */
static int create_words(struct shmemx_plan *p) {
    size_t bytes = shmemi_plan_words_place(&p->w, NULL, p->nchunks, (size_t)p->n);
    p->words = bytes == SIZE_MAX ? NULL : shmemi_words_malloc(bytes, "shmemx_plan_create");
    if (!p->words)
        return shmemi_plan_err(NULL, SHMEMX_PLAN_ENOMEM,
                               "no symmetric memory for the plan's %zu "
                               "bytes of words (raise SHMEM_SYMMETRIC_SIZE)",
                               bytes);
    memset(p->words, 0, bytes);
    shmemi_plan_words_place(&p->w, p->words, p->nchunks, (size_t)p->n);
    for (int q = 0; q < p->n; q++)
        p->w.peer_fence[q] = (uint32_t *)shmemi_plan_at_peer(&p->w.fence[p->me], q);
    memcpy(p->w.writers, p->writers, p->nchunks * sizeof(int));
    p->own = (size_t)(p->chunk_base[p->me + 1] - p->chunk_base[p->me]);
    return 0;
}

static void unhold(struct shmemx_plan *p, int upto) {
    for (int q = 0; q < upto; q++)
        if (q != p->me && p->own)
            shmemi_ledger_unhold(&shmemi_plan_queues[q].ledger, p->hold);
}

/* Step 4: the queues, the chains, and the ring space they need on every
 * queue beside the other plans' (agreed: a PE without room fails them all). */
static int create_chains(struct shmemx_plan *p) {
    int rc = open_plan_queues();
    if (!rc)
        rc = shmemi_plan_build_chains(p);
    p->hold = p->round_bytes * (p->ahead ? 2 : 1);
    for (int q = 0; q < p->n && !rc; q++) {
        struct shmemi_ledger *l = &shmemi_plan_queues[q].ledger;
        if (q != p->me && p->own && shmemi_ledger_hold(l, p->hold)) {
            rc = shmemi_plan_err(p, SHMEMX_PLAN_ENOSPC,
                                 "the chains need %zu bytes of each plan "
                                 "queue per round (x%d with prepare_ahead) beside %zu held by "
                                 "other plans; the queues hold %zu: raise SHMEM_PLAN_RING_SIZE",
                                 p->round_bytes, p->ahead ? 2 : 1, l->held, l->capacity);
            unhold(p, q);
        }
    }
    int held = !rc;
    rc = agree(rc, p->errmsg);
    if (rc && held)
        unhold(p, p->n);
    return rc;
}

int shmemx_plan_create(void *buf, size_t size, const shmemx_chunk_t *schedule, size_t nchunks,
                       const shmemx_plan_config_t *cfg, shmemx_plan_t *plan) {
    shmemi_check_init(__func__);
    pthread_mutex_lock(&shmemi_plan_lock);
    create_errmsg[0] = '\0';
    shmemx_plan_config_t c = {0};
    if (cfg)
        c = *cfg;
    if (c.timeout_s <= 0)
        c.timeout_s = DEFAULT_TIMEOUT_S;
    /* Every step ends with the same verdict on every PE, so every PE takes the
     * same path through the collective steps that follow. */
    struct shmemi_plan_sched me, *all = NULL;
    int rc = shmemi_plan_exchange(buf, size, schedule, nchunks, &c, plan, &me, &all);
    if (rc) {
        pthread_mutex_unlock(&shmemi_plan_lock);
        return rc;
    }
    struct shmemx_plan *p = calloc(1, sizeof(*p));
    if (!p)
        shmemi_fatal("out of memory");
    p->buf = buf;
    p->size = size;
    p->n = shmemi.n_pes;
    p->me = shmemi.my_pe;
    p->timeout_s = c.timeout_s;
    p->ahead = me.ahead;
    p->on_dev = me.on_dev;
    rc = create_schedules(p, all, schedule, nchunks);
    free(all);
    if (!rc)
        rc = create_words(p);
    if (!rc && (rc = create_chains(p)))
        shmemi_words_free(p->words, __func__);
    if (rc) {
        plan_free_local(p);
        free(p);
        pthread_mutex_unlock(&shmemi_plan_lock);
        return rc;
    }
    /* Step 5: round 1 armed everywhere, the plan listed. */
    p->round = 1;
    if ((rc = agree(shmemi_plan_arm(p, 1), p->errmsg)))
        shmemi_fatal("shmemx_plan_create: cannot arm round 1: %s", create_errmsg);
    p->state = SHMEMX_PLAN_ARMED;
    p->id = ++plan_serial;
    struct shmemx_plan **tail = &shmemi_plans;
    while (*tail)
        tail = &(*tail)->next;
    *tail = p;
    *plan = p;
    shmemi_barrier_all(__func__);
    pthread_mutex_unlock(&shmemi_plan_lock);
    return 0;
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

/* ------------------------------------------------------------------- close */

static int blocked(struct shmemx_plan *p) {
    for (int q = 0; q < p->n; q++)
        if (q != p->me && shmemi_ledger_blocker(&shmemi_plan_queues[q].ledger, p))
            return 1;
    return 0;
}

/* Wait until every own chunk of every prepared round has left for every peer. */
static int drain(struct shmemx_plan *p, double timeout_s) {
    double deadline = shmemi_plan_now() + timeout_s;
    unsigned spins = 0;
    int look = 0, rc = 0;
    struct shmemi_spin sp = {0};
    size_t first = (size_t)p->chunk_base[p->me];
    for (size_t c = first; c < first + p->own && !rc; c++)
        for (int q = 0; q < p->n && !rc; q++)
            while (q != p->me && __atomic_load_n(&p->w.sent[c * (size_t)p->n + (size_t)q],
                                                 __ATOMIC_ACQUIRE) < p->prepared) {
                if ((rc = shmemi_plan_queue_failure(p)))
                    break;
                if (look && shmemi_plan_now() > deadline) {
                    rc = shmemi_plan_err(p, SHMEMX_PLAN_ETIMEDOUT,
                                         "close: chunk %zu did not "
                                         "reach PE %d within %g s",
                                         c, q, timeout_s);
                    break;
                }
                look = shmemi_plan_relax(&sp, &spins);
            }
    shmemi_spin_end(&sp);
    return rc;
}

/* Free what the plan holds. Collective (the symmetric words). */
static void finish(struct shmemx_plan *p) {
    for (int q = 0; q < p->n; q++)
        if (q != p->me) {
            shmemi_ledger_release(&shmemi_plan_queues[q].ledger, p, UINT32_MAX);
            if (p->own)
                shmemi_ledger_unhold(&shmemi_plan_queues[q].ledger, p->hold);
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
    int serr = p->stream_mode ? shmemi_plan_stream_error(p) : 0;
    shmemi_plan_watch_drop(p);
    /* Every PE is here, done with the buffer: release the chains that wait for a
     * peer's next_round. */
    shmemi_barrier_all(__func__);
    for (int q = 0; q < p->n; q++)
        __atomic_store_n(&p->w.fence[q], UINT32_MAX, __ATOMIC_RELEASE);
    pthread_mutex_lock(&shmemi_plan_lock);
    /* Prepared copies cannot be withdrawn: send this PE's chunks as they stand. */
    shmemi_plan_open_gates(p, p->prepared);
    for (int q = 0; q < p->n; q++)
        if (q != p->me)
            shmemi_ledger_open(&shmemi_plan_queues[q].ledger, p, 0);
    int rc = 0;
    if (blocked(p)) {
        p->state = SHMEMX_PLAN_CLOSING;
    } else {
        rc = drain(p, timeout_s);
        /* Every PE's copies into every buffer have landed after this barrier. */
        shmemi_barrier_all(__func__);
        finish(p);
        /* Plans that were waiting behind this one can finish now, oldest first. */
        for (struct shmemx_plan *o = shmemi_plans; o; o = o->next)
            if (o->state == SHMEMX_PLAN_CLOSING && !blocked(o)) {
                int orc = drain(o, timeout_s);
                shmemi_barrier_all(__func__);
                if (orc || *o->w.error)
                    shmemi_warn("plan %d, closed behind plan %d: %s", o->id, p->id,
                                orc ? o->errmsg : shmemx_plan_strerror(-(int)*o->w.error));
                finish(o);
            }
    }
    pthread_mutex_unlock(&shmemi_plan_lock);
    if (p->state == SHMEMX_PLAN_CLOSING)
        shmemi_barrier_all(__func__);
    return rc ? rc : serr;
}

/* ------------------------------------------------------- library hooks */

static const char *state_name(int s) {
    static const char *names[] = {"?",      "ARMED",   "ACTIVE", "DELIVERED",
                                  "FAILED", "CLOSING", "CLOSED"};
    return s >= 1 && s <= 6 ? names[s] : names[0];
}

/* The first plan not closed whose buffer overlaps [ptr, ptr + len), or NULL. */
static struct shmemx_plan *live_plan_in(const void *ptr, size_t len) {
    for (struct shmemx_plan *p = shmemi_plans; p; p = p->next)
        if (p->state != SHMEMX_PLAN_CLOSED && (const char *)ptr < p->buf + p->size &&
            p->buf < (const char *)ptr + len)
            return p;
    return NULL;
}

void shmemi_plan_check_free(const void *ptr, size_t len, const char *fn) {
    struct shmemx_plan *p = live_plan_in(ptr, len);
    if (p)
        shmemi_fatal("%s: %p holds the buffer of triggered plan %d (state %s): every PE must "
                     "shmemx_plan_close it first",
                     fn, ptr, p->id, state_name(p->state));
}

void shmemi_plan_check_realloc(const void *ptr, size_t old, size_t size, int moves,
                               const char *fn) {
    /* The plan's chains hold the peers' addresses of the buffer: it may
     * neither move nor lose a part. */
    struct shmemx_plan *p = moves        ? live_plan_in(ptr, old)
                            : size < old ? live_plan_in((const char *)ptr + size, old - size)
                                         : NULL;
    if (p && moves)
        shmemi_fatal("%s: %p holds the buffer of triggered plan %d (state %s), and growing it "
                     "from %zu to %zu bytes would move it (the memory after it is in use): every "
                     "PE must shmemx_plan_close the plan first",
                     fn, ptr, p->id, state_name(p->state), old, size);
    if (p)
        shmemi_fatal("%s: shrinking %p from %zu to %zu bytes would give back part of the buffer "
                     "of triggered plan %d (state %s): every PE must shmemx_plan_close the plan "
                     "first",
                     fn, ptr, old, size, p->id, state_name(p->state));
}

void shmemi_plan_fini(void) {
    for (struct shmemx_plan *p = shmemi_plans; p; p = p->next)
        if (p->state != SHMEMX_PLAN_CLOSED)
            shmemi_fatal("shmem_finalize: triggered plan %d on buffer %p is still open (state "
                         "%s): close it first",
                         p->id, (void *)p->buf, state_name(p->state));
    shmemi_plan_watch_stop();
    while (shmemi_plans) {
        struct shmemx_plan *p = shmemi_plans;
        shmemi_plans = p->next;
        free(p);
    }
    if (shmemi_plan_queues) {
        for (int q = 0; q < shmemi.n_pes; q++)
            shmemi_ledger_fini(&shmemi_plan_queues[q].ledger);
        free(shmemi_plan_queues);
        shmemi_plan_queues = NULL;
    }
    shmemi_poll_queues_close();
}
