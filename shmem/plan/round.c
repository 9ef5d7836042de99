/* Rounds of triggered plans on the host: start (the round's view), wait,
 * prepare_next, next_round (the round fence on the plan's own words), run;
 * and the view calls of host producers (shmemx_plan_mark_ready, ...). */
#include "shmem/plan/plan.h"

#include <stdio.h>

int shmemi_plan_check_live(struct shmemx_plan *p, const char *fn) {
    if (!p)
        return SHMEMX_PLAN_EINVAL;
    if (p->state == SHMEMX_PLAN_CLOSED || p->state == SHMEMX_PLAN_CLOSING)
        return shmemi_plan_err(p, SHMEMX_PLAN_ESTATE, "%s: plan %d is closed", fn, p->id);
    if (p->state == SHMEMX_PLAN_FAILED) {
        /* errmsg keeps saying why it failed. */
        shmemi_debug("plan: %s: plan %d failed in round %u (%s); close it", fn, p->id, p->round,
                     p->errmsg);
        return SHMEMX_PLAN_ESTATE;
    }
    return 0;
}

/* Stream mode: the rounds whose fence kernel has run are delivered (their
 * ledger entries go), and round r's view slot is free once round
 * r - VIEW_SLOTS's fence has run (bounded by the plan timeout). */
static int stream_catch_up(struct shmemx_plan *p) {
    double deadline = shmemi_plan_now() + p->timeout_s;
    unsigned spins = 0;
    int look = 0, rc = 0;
    struct shmemi_spin sp = {0};
    for (;;) {
        uint32_t done = __atomic_load_n(p->w.done, __ATOMIC_ACQUIRE);
        if ((rc = shmemi_plan_stream_error(p)))
            break;
        pthread_mutex_lock(&shmemi_plan_lock);
        for (int q = 0; q < p->n; q++)
            if (q != p->me)
                shmemi_ledger_release(&shmemi_plan_queues[q].ledger, p, done);
        pthread_mutex_unlock(&shmemi_plan_lock);
        if (p->round <= SHMEMI_PLAN_VIEW_SLOTS || done >= p->round - SHMEMI_PLAN_VIEW_SLOTS)
            break;
        if (look && shmemi_plan_now() > deadline) {
            rc = shmemi_plan_err(p, SHMEMX_PLAN_ETIMEDOUT,
                                 "round %u: the stream has not passed "
                                 "round %u's fence within %g s (its view slot is still in use)",
                                 p->round, p->round - SHMEMI_PLAN_VIEW_SLOTS, p->timeout_s);
            break;
        }
        look = shmemi_plan_relax(&sp, &spins);
    }
    shmemi_spin_end(&sp);
    return rc;
}

int shmemx_plan_start(shmemx_plan_t p, shmemx_plan_view_t **view) {
    int rc = shmemi_plan_check_live(p, __func__);
    if (rc)
        return rc;
    if (p->state != SHMEMX_PLAN_ARMED)
        return shmemi_plan_err(p, SHMEMX_PLAN_ESTATE,
                               "round %u: start called twice (the round "
                               "is %s)",
                               p->round, p->state == SHMEMX_PLAN_ACTIVE ? "running" : "delivered");
    if (p->stream_mode && (rc = stream_catch_up(p)))
        return rc;
    pthread_mutex_lock(&shmemi_plan_lock);
    for (int q = 0; q < p->n; q++) {
        const struct shmemi_ledger_entry *b;
        if (q != p->me &&
            shmemi_ledger_check_start(&shmemi_plan_queues[q].ledger, p, p->round, &b)) {
            const struct shmemx_plan *o = b->plan;
            pthread_mutex_unlock(&shmemi_plan_lock);
            return shmemi_plan_err(p, SHMEMX_PLAN_EORDER,
                                   "round %u of plan %d would wait on the "
                                   "queue to PE %d behind round %u of plan %d, which has not "
                                   "started: start plans in the order their rounds were prepared",
                                   p->round, p->id, q, b->round, o->id);
        }
    }
    for (int q = 0; q < p->n; q++)
        if (q != p->me)
            shmemi_ledger_open(&shmemi_plan_queues[q].ledger, p, p->round);
    pthread_mutex_unlock(&shmemi_plan_lock);
    shmemx_plan_view_t *v = &p->w.views[p->round % SHMEMI_PLAN_VIEW_SLOTS];
    *v = (shmemx_plan_view_t){
        p->round,     p->me,        (int)p->nchunks,  p->chunk_base[p->me],
        (int)p->own,  p->w.writers, p->w.marks,       p->w.gates,
        p->w.arrival, p->w.error,   p->w.error_chunk, (uint64_t)(p->timeout_s * 1e9)};
    p->state = SHMEMX_PLAN_ACTIVE;
    if (view)
        *view = v;
    return 0;
}

long shmemi_plan_first_missing(struct shmemx_plan *p, uint32_t round, size_t *cursor, int *peer) {
    size_t first = (size_t)p->chunk_base[p->me], own_end = first + p->own;
    for (size_t c = *cursor; c < p->nchunks; c++) {
        if (c >= first && c < own_end) {
            for (int q = 0; q < p->n; q++)
                if (q != p->me && __atomic_load_n(&p->w.sent[c * (size_t)p->n + (size_t)q],
                                                  __ATOMIC_ACQUIRE) < round) {
                    *cursor = c;
                    *peer = q;
                    return (long)c;
                }
        } else if (__atomic_load_n(&p->w.arrival[c], __ATOMIC_ACQUIRE) < round) {
            *cursor = c;
            *peer = p->me;
            return (long)c;
        }
    }
    *cursor = p->nchunks;
    return -1;
}

int shmemi_plan_queue_failure(struct shmemx_plan *p) {
    char msg[400];
    for (int q = 0; q < p->n; q++)
        if (q != p->me && sdma_queue_error(shmemi_plan_queues[q].q, msg, sizeof(msg)))
            return shmemi_plan_err(p, SHMEMX_PLAN_EENGINE,
                                   "round %u: the plan queue to PE %d "
                                   "failed: %s",
                                   p->round, q, msg);
    return 0;
}

int shmemi_plan_recorded_error(struct shmemx_plan *p) {
    uint32_t e = __atomic_load_n(p->w.error, __ATOMIC_ACQUIRE);
    if (!e)
        return 0;
    int code = -(int)e;
    uint32_t c = __atomic_load_n(p->w.error_chunk, __ATOMIC_ACQUIRE);
    uint32_t r = __atomic_load_n(p->w.error_round, __ATOMIC_ACQUIRE);
    uint32_t q = __atomic_load_n(p->w.error_peer, __ATOMIC_ACQUIRE);
    /* Errors of the stream-ordered kernels (shmem/gpu_stream.cu). */
    if (code == SHMEMX_PLAN_ETIMEDOUT && c == UINT32_MAX)
        return shmemi_plan_err(p, code, "round %u: PE %u did not reach next_round within %g s", r,
                               q, p->timeout_s);
    if (code == SHMEMX_PLAN_ETIMEDOUT && c < p->nchunks && p->chunks[c].owner == p->me)
        return shmemi_plan_err(p, code,
                               "round %u: chunk %u (PE %d) did not reach PE %u within "
                               "%g s (stream-ordered wait)",
                               r, c, p->me, q, p->timeout_s);
    if (code == SHMEMX_PLAN_ETIMEDOUT && c < p->nchunks)
        return shmemi_plan_err(p, code,
                               "round %u: chunk %u from PE %d did not arrive at PE %d "
                               "within %g s (stream-ordered wait)",
                               r, c, p->chunks[c].owner, p->me, p->timeout_s);
    if (code == SHMEMX_PLAN_EPEER)
        return shmemi_plan_err(p, code, "round %u: PE %u could not prepare round %u", r, q, r + 1);
    if (code == SHMEMX_PLAN_EMARKS)
        return shmemi_plan_err(p, code,
                               "round %u: chunk %u (PE %d) was marked ready more often "
                               "than its %d writers",
                               p->round, c, p->me, c < p->nchunks ? p->writers[c] : 0);
    /* A mark of chunk -1 arrives here as 4294967295: say what the caller passed. */
    if ((int32_t)c < 0 || c >= p->nchunks)
        return shmemi_plan_err(p, code,
                               "round %u: PE %d marked chunk %d ready, which is not a "
                               "chunk of this plan (it has chunks 0 to %zu)",
                               p->round, p->me, (int)(int32_t)c, p->nchunks - 1);
    return shmemi_plan_err(p, code,
                           "round %u: chunk %u was marked ready by PE %d, which does not "
                           "own it (PE %d does)",
                           p->round, c, p->me, p->chunks[c].owner);
}

int shmemi_plan_stream_error(struct shmemx_plan *p) {
    if (p->error_reported || !__atomic_load_n(p->w.error, __ATOMIC_ACQUIRE))
        return 0;
    p->error_reported = 1;
    p->state = SHMEMX_PLAN_FAILED;
    return shmemi_plan_recorded_error(p);
}

/* Why round `c` of the wait timed out: the marks of an own chunk, or a
 * chunk of another PE that did not come. */
static int wait_timed_out(struct shmemx_plan *p, long c, int peer, double timeout_s) {
    const struct shmemi_plan_chunk *ch = &p->chunks[c];
    if (ch->owner != p->me)
        return shmemi_plan_err(p, SHMEMX_PLAN_ETIMEDOUT,
                               "round %u: chunk %ld from PE %d did not "
                               "arrive at PE %d within %g s",
                               p->round, c, ch->owner, p->me, timeout_s);
    uint64_t m = __atomic_load_n(&p->w.marks[c], __ATOMIC_ACQUIRE);
    uint64_t base = (uint64_t)(p->round - 1) * (uint64_t)ch->writers;
    return shmemi_plan_err(p, SHMEMX_PLAN_ETIMEDOUT,
                           "round %u: chunk %ld (PE %d) did not reach "
                           "PE %d within %g s: %llu of its %d writers marked it ready",
                           p->round, c, p->me, peer, timeout_s,
                           (unsigned long long)(m > base ? m - base : 0), ch->writers);
}

int shmemx_plan_wait(shmemx_plan_t p, double timeout_s) {
    int rc = shmemi_plan_check_live(p, __func__);
    if (rc)
        return rc;
    if (p->stream_mode && (rc = shmemi_plan_stream_error(p)))
        return rc;
    if (p->state == SHMEMX_PLAN_ARMED && !p->stream_mode)
        return shmemi_plan_err(p, SHMEMX_PLAN_ESTATE, "round %u: wait before start", p->round);
    if (p->state == SHMEMX_PLAN_DELIVERED || p->state == SHMEMX_PLAN_ARMED)
        return 0;
    if (timeout_s < 0)
        timeout_s = p->timeout_s;
    double deadline = shmemi_plan_now() + timeout_s;
    size_t cursor = 0;
    unsigned spins = 0;
    int peer = -1, look = 0;
    struct shmemi_spin sp = {0};
    for (;;) {
        if ((rc = shmemi_plan_recorded_error(p)))
            break;
        long c = shmemi_plan_first_missing(p, p->round, &cursor, &peer);
        if (c < 0) {
            shmemi_spin_end(&sp);
            p->state = SHMEMX_PLAN_DELIVERED;
            pthread_mutex_lock(&shmemi_plan_lock);
            for (int q = 0; q < p->n; q++)
                if (q != p->me)
                    shmemi_ledger_release(&shmemi_plan_queues[q].ledger, p, p->round);
            pthread_mutex_unlock(&shmemi_plan_lock);
            return 0;
        }
        if (look) {
            if ((rc = shmemi_plan_queue_failure(p)))
                break;
            if (shmemi_plan_now() > deadline) {
                rc = wait_timed_out(p, c, peer, timeout_s);
                break;
            }
        }
        look = shmemi_plan_relax(&sp, &spins);
    }
    shmemi_spin_end(&sp);
    p->state = SHMEMX_PLAN_FAILED;
    return rc;
}

int shmemi_plan_prepare(struct shmemx_plan *p, uint32_t r) {
    if (p->prepared >= r)
        return 0;
    if (p->prepared == UINT32_MAX)
        return shmemi_plan_err(p, SHMEMX_PLAN_EROUNDS,
                               "round %u is the last: rounds are 32-bit "
                               "and the engine's compare is unsigned",
                               p->prepared);
    pthread_mutex_lock(&shmemi_plan_lock);
    int rc = shmemi_plan_arm(p, r);
    pthread_mutex_unlock(&shmemi_plan_lock);
    return rc;
}

int shmemx_plan_prepare_next(shmemx_plan_t p) {
    int rc = shmemi_plan_check_live(p, __func__);
    if (rc)
        return rc;
    if (!p->ahead)
        return shmemi_plan_err(p, SHMEMX_PLAN_ESTATE,
                               "prepare_next needs a plan created with "
                               "prepare_ahead");
    if (p->state == SHMEMX_PLAN_ARMED)
        return shmemi_plan_err(p, SHMEMX_PLAN_ESTATE, "round %u: prepare_next before start",
                               p->round);
    return shmemi_plan_prepare(p, p->round + 1);
}

int shmemx_plan_next_round(shmemx_plan_t p) {
    int rc = shmemi_plan_check_live(p, __func__);
    if (rc)
        return rc;
    if (p->state != SHMEMX_PLAN_DELIVERED)
        return shmemi_plan_err(p, SHMEMX_PLAN_ESTATE,
                               "round %u: next_round before the round was "
                               "waited for",
                               p->round);
    uint32_t r = p->round;
    int prc = shmemi_plan_prepare(p, r + 1);
    char prep_msg[512];
    snprintf(prep_msg, sizeof(prep_msg), "%s", p->errmsg);
    /* The fence: tell every peer we reached it (and whether we could prepare),
     * then wait for every peer, bounded by the plan timeout. */
    for (int q = 0; q < p->n; q++) {
        if (q == p->me)
            continue;
        if (prc)
            shmemi_word_store32(q, &p->w.abortw[p->me], r, __func__);
        /* Release: our abort word is visible before the fence word. The store
         * wakes its waits and its engine's fence POLLs. */
        shmemi_word_store32(q, &p->w.fence[p->me], r, __func__);
    }
    double deadline = shmemi_plan_now() + p->timeout_s;
    unsigned spins = 0;
    int look = 0;
    struct shmemi_spin sp = {0};
    for (int q = 0; q < p->n; q++) {
        while (q != p->me && __atomic_load_n(&p->w.fence[q], __ATOMIC_ACQUIRE) < r) {
            if (look && shmemi_plan_now() > deadline) {
                shmemi_spin_end(&sp);
                p->state = SHMEMX_PLAN_FAILED;
                return shmemi_plan_err(p, SHMEMX_PLAN_ETIMEDOUT,
                                       "round %u: PE %d did not reach "
                                       "next_round within %g s",
                                       r, q, p->timeout_s);
            }
            look = shmemi_plan_relax(&sp, &spins);
        }
    }
    shmemi_spin_end(&sp);
    if (prc) {
        p->state = SHMEMX_PLAN_FAILED;
        return shmemi_plan_err(p, prc, "%s", prep_msg);
    }
    for (int q = 0; q < p->n; q++)
        if (q != p->me && __atomic_load_n(&p->w.abortw[q], __ATOMIC_ACQUIRE) == r) {
            p->state = SHMEMX_PLAN_FAILED;
            return shmemi_plan_err(p, SHMEMX_PLAN_EPEER,
                                   "round %u: PE %d could not prepare "
                                   "round %u",
                                   r, q, r + 1);
        }
    p->round = r + 1;
    p->state = SHMEMX_PLAN_ARMED;
    return 0;
}

int shmemx_plan_run(shmemx_plan_t p, double timeout_s) {
    int rc = shmemx_plan_start(p, NULL);
    if (rc)
        return rc;
    for (size_t k = 0; k < p->own; k++) {
        size_t c = (size_t)p->chunk_base[p->me] + k;
        __atomic_store_n(&p->w.marks[c], (uint64_t)p->round * (uint64_t)p->writers[c],
                         __ATOMIC_RELEASE);
    }
    shmemi_plan_open_gates(p, p->round);
    return shmemx_plan_wait(p, timeout_s);
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
        uint32_t err = sdma_load_acquire_u32(view->error);
        if (err) {
            rc = -(int)err;
            break;
        }
        if (look && shmemi_view_now_ns() > deadline) {
            rc = SHMEMX_PLAN_ETIMEDOUT;
            break;
        }
        look = shmemi_plan_relax(&sp, &spins);
    }
    shmemi_spin_end(&sp);
    return rc;
}
