/* The soft engine: one host thread per engine executes the packet bytes of every queue it
 * serves, in order per queue, round-robin across queues. The same thread, with another
 * executor (struct sdma_soft_backend), is the proxy of engines that queue the packets'
 * operations on hardware instead (the cuda engine). A POLL that is not satisfied
 * parks its queue (nothing behind it runs) while the others go on. When there is nothing
 * to do the thread sleeps on a futex: a submit through this API wakes it at once; because
 * doorbells may also be written by producers that cannot wake it (GPU kernels), it also
 * re-checks every doorbell with a backoff of at most 1 ms. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sdma/soft_exec.h"
#include "sdma/sdma_internal.h"
#include "sdma/soft_backend.h"

#define SOFT_BUDGET 64          /* packets per queue per pass */
#define SOFT_MIN_SLEEP_US 20
#define SOFT_MAX_SLEEP_US 1000  /* doorbell re-check period when idle */

struct soft_queue {
    struct sdma_queue *q;
    struct sdma_soft_ctx x;
    uint64_t rd;     /* next byte index to execute (published to *rptr) */
    unsigned slot_off; /* tagged queues: dwords of the slot at rd already executed */
    int waiting;     /* a POLL at the head is not satisfied yet */
    double wait_until;
    void *owned_ring; /* ring memory we allocated, or NULL */
    void *bq;         /* the backend's queue state */
};

struct soft_engine {
    struct sdma_engine *e;
    const struct sdma_soft_backend *b; /* NULL: the host executes */
    void *bstate;
    pthread_t thread;
    pthread_mutex_t lock; /* guards qs/nq; held by the thread while it executes */
    struct soft_queue **qs;
    size_t nq, cap;
    uint32_t wake_seq;    /* futex word: bumped by every kick */
    int sleeping;         /* the thread is about to sleep or sleeping on wake_seq */
    int want_lock;        /* a queue open/close waits for the lock */
    int stop;
};

static void soft_free_ring(struct soft_engine *se, void *ring)
{
    if (!ring)
        return;
    if (se->b)
        se->b->free(se->bstate, ring);
    else
        free(ring);
}

static long futex(uint32_t *addr, int op, uint32_t val, const struct timespec *ts)
{
    return syscall(SYS_futex, addr, op, val, ts, NULL, 0);
}

static void soft_trap(void *arg, uint32_t context)
{
    struct soft_queue *sq = arg;
    struct sdma_engine *e = sq->q->eng;
    if (e->cfg.trap)
        e->cfg.trap(e->cfg.trap_arg, sq->q, context);
}

static int run_packets(struct soft_queue *sq, double t);

/* Execute up to SOFT_BUDGET packets of one queue, then let the backend issue what they
 * queued and publish completion. Returns the number executed. */
static int run_queue(struct soft_engine *se, struct soft_queue *sq, double t)
{
    int n = run_packets(sq, t);
    const struct sdma_soft_backend *b = se->b;
    struct sdma_queue *q = sq->q;
    if (b) {
        int rc = b->flush(sq->bq, sq->rd, n > 0);
        if (rc < 0 && __atomic_load_n(&q->state, __ATOMIC_RELAXED) == SDMA_QSTATE_RUN)
            sdma_queue_set_error(q, "sdma: queue '%s': %s", q->label, sdma_last_error());
        if (rc > 0 && n == 0)
            n = 1; /* the backend holds work back: come again soon, do not sleep */
    } else if (n && q->complete) {
        /* Everything below rd has run (on this thread): publish it. */
        sdma_store_release_u64(q->complete, sq->rd);
    }
    return n;
}

/* Execute the packet at dw (ring index `index`): a POLL not satisfied parks the queue, a
 * bad packet stops it (nothing behind it runs). Returns sdma_soft_exec's result. */
static int exec_one(struct soft_queue *sq, const uint32_t *dw, size_t avail, size_t *used,
                    uint64_t index)
{
    struct sdma_queue *q = sq->q;
    int rc = sdma_soft_exec(&sq->x, dw, avail, used);
    sq->waiting = rc == SDMA_EXEC_WAIT;
    if (rc == SDMA_EXEC_WAIT)
        sq->wait_until = sq->x.wait_until;
    else if (rc == SDMA_EXEC_ERROR)
        sdma_queue_set_error(q, "sdma: queue '%s' at byte offset %llu (index %llu): opcode %u "
                                "sub-op %u: %s",
                             q->label, (unsigned long long)(index & (q->ring.size - 1)),
                             (unsigned long long)index, sq->x.op, sq->x.sub_op, sq->x.msg);
    return rc;
}

/* A tagged queue: run whole slots while the tag at the read pointer is that slot's. */
static int run_slots(struct soft_queue *sq)
{
    struct sdma_queue *q = sq->q;
    const struct sdma_ring *r = &q->ring;
    int n = 0;
    while (n < SOFT_BUDGET) {
        uint32_t *slot = sdma_ring_at(r, sq->rd);
        /* Acquire pairs with the producer's release of the tag: its packet is visible. */
        if (sdma_load_acquire_u32(&slot[SDMA_SLOT_DW - 1]) != sdma_slot_tag(sq->rd))
            break;
        while (sq->slot_off < SDMA_SLOT_DW) {
            size_t used = 0;
            if (exec_one(sq, slot + sq->slot_off, SDMA_SLOT_DW - sq->slot_off, &used,
                         sq->rd + 4u * sq->slot_off) != SDMA_EXEC_DONE)
                return n;
            sq->slot_off += (unsigned)used;
        }
        sq->slot_off = 0;
        sq->rd += SDMA_SLOT_BYTES;
        sdma_store_release_u64(r->rptr, sq->rd);
        n++;
    }
    return n;
}

static int run_packets(struct soft_queue *sq, double t)
{
    struct sdma_queue *q = sq->q;
    const struct sdma_ring *r = &q->ring;
    uint64_t db;
    int n = 0;

    if (__atomic_load_n(&q->state, __ATOMIC_RELAXED) != SDMA_QSTATE_RUN)
        return 0;
    if (sq->waiting && t < sq->wait_until)
        return 0;
    if (q->flags & SDMA_QUEUE_TAGGED)
        return run_slots(sq);
    /* Acquire pairs with the producer's release store of the doorbell (sdma_ring_commit):
     * the packet dwords below it are visible. */
    db = sdma_load_acquire_u64(r->doorbell);
    while (sq->rd != db && n < SOFT_BUDGET) {
        uint64_t off = sq->rd & (r->size - 1);
        uint64_t avail = db - sq->rd;
        size_t used = 0;
        if (avail > r->size || (avail & 3)) {
            sdma_queue_set_error(q, "sdma: queue '%s': doorbell %llu is not a dword index "
                                    "within one ring (%llu bytes) of the read pointer %llu",
                                 q->label, (unsigned long long)db,
                                 (unsigned long long)r->size, (unsigned long long)sq->rd);
            return n;
        }
        if (avail > r->size - off)
            avail = r->size - off;
        if (exec_one(sq, r->base + off / 4, (size_t)(avail / 4), &used, sq->rd) != SDMA_EXEC_DONE)
            return n;
        sq->rd += (uint64_t)used * 4;
        /* Release: our reads of the consumed slots are done before a producer that acquires
         * rptr (sdma_ring_reserve) overwrites them. */
        sdma_store_release_u64(r->rptr, sq->rd);
        n++;
    }
    return n;
}

/* 1 when some queue has work it can run now (doorbell ahead, no parked poll). */
static int any_ready(struct soft_engine *se)
{
    size_t i;
    for (i = 0; i < se->nq; i++) {
        struct soft_queue *sq = se->qs[i];
        if (sq->waiting ||
            __atomic_load_n(&sq->q->state, __ATOMIC_RELAXED) != SDMA_QSTATE_RUN)
            continue;
        if (sq->q->flags & SDMA_QUEUE_TAGGED) {
            const uint32_t *slot = sdma_ring_at(&sq->q->ring, sq->rd);
            if (sdma_load_acquire_u32(&slot[SDMA_SLOT_DW - 1]) == sdma_slot_tag(sq->rd))
                return 1;
        } else if (sdma_load_acquire_u64(sq->q->ring.doorbell) != sq->rd) {
            return 1;
        }
    }
    return 0;
}

static void *soft_main(void *arg)
{
    struct soft_engine *se = arg;
    size_t rr = 0;
    unsigned sleep_us = SOFT_MIN_SLEEP_US;
    double last_work = 0;

    pthread_mutex_lock(&se->lock);
    while (!__atomic_load_n(&se->stop, __ATOMIC_ACQUIRE)) {
        double t = sdma_soft_clock(), next = t + SOFT_MAX_SLEEP_US * 1e-6;
        int progress = 0;
        size_t i;
        uint32_t seq;

        for (i = 0; i < se->nq; i++) {
            struct soft_queue *sq = se->qs[(rr + i) % se->nq];
            progress += run_queue(se, sq, t);
            if (sq->waiting && sq->wait_until < next)
                next = sq->wait_until;
        }
        rr++;
        if (__atomic_load_n(&se->want_lock, __ATOMIC_ACQUIRE)) {
            pthread_mutex_unlock(&se->lock);
            while (__atomic_load_n(&se->want_lock, __ATOMIC_ACQUIRE))
                sched_yield();
            pthread_mutex_lock(&se->lock);
        }
        if (progress) {
            sleep_us = SOFT_MIN_SLEEP_US;
            last_work = t;
            continue;
        }
        /* A proxy for producers that cannot wake it (kernels) polls for a while after
         * its last work: the next kernel's packets usually come soon. */
        if (se->b && t - last_work < se->b->spin_us * 1e-6) {
            sched_yield();
            continue;
        }
        /* Going to sleep. Announce it first (seq_cst), then read the wake sequence and
         * re-check the doorbells: a producer stores its doorbell, bumps wake_seq (seq_cst)
         * and then reads `sleeping`, so either we see its doorbell here or it sees us
         * sleeping and wakes us (and futex_wait refuses to sleep if wake_seq moved). */
        __atomic_store_n(&se->sleeping, 1, __ATOMIC_SEQ_CST);
        seq = __atomic_load_n(&se->wake_seq, __ATOMIC_SEQ_CST);
        if (!any_ready(se) && !__atomic_load_n(&se->stop, __ATOMIC_ACQUIRE)) {
            double dt = next - sdma_soft_clock();
            long ns = (long)(dt * 1e9);
            struct timespec ts;
            if (ns > (long)sleep_us * 1000)
                ns = (long)sleep_us * 1000;
            if (se->b && ns > (long)se->b->max_sleep_us * 1000)
                ns = (long)se->b->max_sleep_us * 1000;
            if (ns > 0) {
                ts.tv_sec = 0;
                ts.tv_nsec = ns;
                pthread_mutex_unlock(&se->lock);
                futex(&se->wake_seq, FUTEX_WAIT_PRIVATE, seq, &ts);
                pthread_mutex_lock(&se->lock);
            }
            if (__atomic_load_n(&se->wake_seq, __ATOMIC_RELAXED) != seq)
                sleep_us = SOFT_MIN_SLEEP_US; /* woken by a submit */
            else if (sleep_us < SOFT_MAX_SLEEP_US)
                sleep_us *= 2; /* nothing came: re-check less often, up to 1 ms */
        }
        __atomic_store_n(&se->sleeping, 0, __ATOMIC_RELAXED);
    }
    pthread_mutex_unlock(&se->lock);
    return NULL;
}

/* A thread that waits for the engine can run its packets itself while the engine thread is
 * not running them (asleep, or about to sleep): no hand-off between threads, which on a
 * busy node costs a scheduling round per wait. Parked polls are re-checked at once. */
int sdma_soft_progress(struct sdma_engine *e)
{
    struct soft_engine *se = e->priv;
    int progress = 0;
    size_t i;

    if (pthread_mutex_trylock(&se->lock))
        return 0; /* the engine thread is at work */
    for (i = 0; i < se->nq; i++)
        progress += run_queue(se, se->qs[i], 1e300);
    pthread_mutex_unlock(&se->lock);
    return progress;
}

static void soft_wake(struct soft_engine *se)
{
    /* Pairs with the sleeper's announcement in soft_main (see there). */
    __atomic_fetch_add(&se->wake_seq, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&se->sleeping, __ATOMIC_SEQ_CST))
        futex(&se->wake_seq, FUTEX_WAKE_PRIVATE, 1, NULL);
}

static void soft_lock(struct soft_engine *se)
{
    __atomic_fetch_add(&se->want_lock, 1, __ATOMIC_ACQ_REL);
    soft_wake(se);
    pthread_mutex_lock(&se->lock);
    __atomic_fetch_sub(&se->want_lock, 1, __ATOMIC_ACQ_REL);
}

int sdma_soft_open_backend(struct sdma_engine *e, const struct sdma_soft_backend *b,
                           char *err, size_t errlen)
{
    struct soft_engine *se = calloc(1, sizeof *se);
    const char *name = b ? b->name : "soft";
    int rc;
    if (!se) {
        snprintf(err, errlen, "%s: out of memory", name);
        return SDMA_ERR_NOMEM;
    }
    se->e = e;
    se->b = b;
    if (b && (rc = b->open(e, &se->bstate, err, errlen))) {
        free(se);
        return rc;
    }
    pthread_mutex_init(&se->lock, NULL);
    rc = pthread_create(&se->thread, NULL, soft_main, se);
    if (rc) {
        snprintf(err, errlen, "%s: cannot start the engine thread: %s", name, strerror(rc));
        pthread_mutex_destroy(&se->lock);
        if (b)
            b->close(se->bstate);
        free(se);
        return SDMA_ERR_SYSTEM;
    }
    e->priv = se;
    return SDMA_OK;
}

static int soft_open(struct sdma_engine *e, char *err, size_t errlen)
{
    return sdma_soft_open_backend(e, NULL, err, errlen);
}

void *sdma_soft_backend_state(struct sdma_engine *e)
{
    return ((struct soft_engine *)e->priv)->bstate;
}

void sdma_soft_close(struct sdma_engine *e)
{
    struct soft_engine *se = e->priv;
    __atomic_store_n(&se->stop, 1, __ATOMIC_RELEASE);
    soft_wake(se);
    pthread_join(se->thread, NULL);
    pthread_mutex_destroy(&se->lock);
    if (se->b)
        se->b->close(se->bstate);
    free(se->qs);
    free(se);
}

int sdma_soft_queue_open(struct sdma_queue *q, const struct sdma_queue_attr *a)
{
    struct soft_engine *se = q->eng->priv;
    const struct sdma_soft_backend *b = se->b;
    struct sdma_queue_words *w = &q->words;
    struct soft_queue *sq = calloc(1, sizeof *sq);
    size_t rb = a->ring_bytes ? a->ring_bytes : SDMA_RING_DEFAULT_BYTES;
    uint32_t rflags = (a->flags & SDMA_QUEUE_SINGLE_PRODUCER) ? SDMA_RING_SINGLE_PRODUCER : 0;
    int ext = a->ring || a->ctl || a->rptr || a->wptr || a->doorbell;
    int rc;

    if (!sq)
        return sdma_seterr(SDMA_ERR_NOMEM, "soft: out of memory for queue '%s'", q->label);
    if (ext) {
        if (!a->ring || !a->ctl || !a->rptr || !a->wptr || !a->doorbell || *a->rptr != *a->wptr ||
            *a->wptr != *a->doorbell) {
            free(sq);
            return sdma_seterr(SDMA_ERR_INVAL, "soft: queue '%s': a caller ring needs ring, "
                                               "ctl, rptr, wptr and doorbell, equal at start",
                               q->label);
        }
        if (b) {
            /* The ring is the caller's; the quiet word must still be the hardware's. */
            sq->owned_ring = b->alloc(se->bstate, sizeof *w);
            if (!sq->owned_ring) {
                free(sq);
                return sdma_seterr(SDMA_ERR_NOMEM, "%s: out of memory for queue words",
                                   b->name);
            }
            w = memset(sq->owned_ring, 0, sizeof *w);
        }
        rc = sdma_ring_init(&q->ring, a->ring, rb, a->ctl, a->rptr, a->wptr, a->doorbell, rflags);
    } else {
        /* A backend's hardware (and GPU producers) must reach the ring and its words:
         * they come from its allocator, the words right after the ring. */
        sq->owned_ring = b ? b->alloc(se->bstate, rb + sizeof *w) : aligned_alloc(4096, rb);
        if (!sq->owned_ring) {
            free(sq);
            return sdma_seterr(SDMA_ERR_NOMEM, "%s: out of memory for a %zu-byte ring",
                               b ? b->name : "soft", rb);
        }
        memset(sq->owned_ring, 0, rb + (b ? sizeof *w : 0));
        if (b)
            w = (struct sdma_queue_words *)((char *)sq->owned_ring + rb);
        rc = sdma_ring_init(&q->ring, sq->owned_ring, rb, &w->ctl, &w->rptr, &w->wptr,
                            &w->doorbell, rflags);
    }
    if (rc) {
        soft_free_ring(se, sq->owned_ring);
        free(sq);
        return sdma_seterr(rc, "soft: queue '%s': bad ring", q->label);
    }
    /* The quiet word starts at the ring's current dword index (see sdma_queue_mark). */
    q->seq_word = &w->seq;
    *q->seq_word = (uint32_t)(*q->ring.wptr >> 2);
    if (b && (rc = b->queue_open(se->bstate, q, &sq->bq))) {
        soft_free_ring(se, sq->owned_ring);
        free(sq);
        return rc;
    }
    if (b) {
        sq->x.ops = b->exec;
        sq->x.ops_arg = sq->bq;
        sq->x.poll_interval_max_s = b->poll_interval_us * 1e-6;
    }
    sq->q = q;
    sq->rd = *q->ring.rptr;
    sq->x.check = q->eng->cfg.addr_check;
    sq->x.check_arg = q->eng->cfg.addr_check_arg;
    sq->x.trap = soft_trap;
    sq->x.trap_arg = sq;
    sq->x.poll_timeout_s = q->eng->cfg.poll_timeout_s;
    if (!b)
        sq->x.foreign = q->eng->cfg.foreign; /* the host executor's window */
    q->priv = sq;

    soft_lock(se);
    if (se->nq == se->cap) {
        size_t cap = se->cap ? se->cap * 2 : 8;
        struct soft_queue **n = realloc(se->qs, cap * sizeof *n);
        if (!n) {
            pthread_mutex_unlock(&se->lock);
            if (b)
                b->queue_close(se->bstate, sq->bq);
            soft_free_ring(se, sq->owned_ring);
            free(sq);
            return sdma_seterr(SDMA_ERR_NOMEM, "soft: out of memory for queue '%s'", q->label);
        }
        se->qs = n;
        se->cap = cap;
    }
    se->qs[se->nq++] = sq;
    pthread_mutex_unlock(&se->lock);
    return SDMA_OK;
}

void sdma_soft_queue_close(struct sdma_queue *q)
{
    struct soft_engine *se = q->eng->priv;
    struct soft_queue *sq = q->priv;
    size_t i;
    soft_lock(se);
    for (i = 0; i < se->nq; i++)
        if (se->qs[i] == sq) {
            se->qs[i] = se->qs[--se->nq];
            break;
        }
    pthread_mutex_unlock(&se->lock);
    if (se->b)
        se->b->queue_close(se->bstate, sq->bq);
    soft_free_ring(se, sq->owned_ring);
    free(sq);
}

void sdma_soft_kick(struct sdma_queue *q)
{
    soft_wake(q->eng->priv);
}

const struct sdma_engine_ops sdma_soft_ops = {
    .name = "soft",
    .open = soft_open,
    .close = sdma_soft_close,
    .queue_open = sdma_soft_queue_open,
    .queue_close = sdma_soft_queue_close,
    .kick = sdma_soft_kick,
    .progress = sdma_soft_progress,
    .caps = SDMA_CAP_TAGGED,
};
