/* The soft engine: one host thread per engine executes the packet bytes of every queue it
 * serves, in order per queue, round-robin across queues. The same thread, with another
 * executor (struct sdma_soft_backend), is the proxy of engines that queue the packets'
 * operations on hardware instead (the cuda engine). A POLL that is not satisfied
 * parks its queue (nothing behind it runs) while the others go on.
 *
 * The thread starts when a submit first kicks the engine (or a queue with GPU producers
 * opens), and when it has nothing to do it sleeps without a timer: idle means asleep.
 *   - No parked POLL: it sleeps on a private futex word that every submit through this
 *     API bumps (a kick), and wakes only then.
 *   - A parked POLL: it sleeps on the engine's shared wake word (sdma_engine_config
 *     wake_seq), counted as a sleeper, so that whoever stores a polled word -- a thread of
 *     another process included -- wakes it; a kick wakes it too. Its timeout is the POLL's
 *     deadline. With polls_by_callers it sleeps as when idle (the waiters run the packets);
 *     with neither, parked POLLs are re-checked on a timer.
 *   - Producers that cannot kick or wake (GPU kernels: tagged or GPU-written rings, and
 *     queues whose POLLs wait on words kernels write, SDMA_QUEUE_GPU_WRITES) are served by
 *     a timer while such a queue is open (rings) or has a POLL waiting (GPU_WRITES): a
 *     backoff from 20 us to 1 ms (the backend's own limit for a proxy).
 * A thread that waits for the engine (quiet) runs ready packets itself when the engine's
 * thread is not at them, and otherwise sleeps until the thread ran a batch (block). */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
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

#define SOFT_BUDGET 64 /* packets per queue per pass */
#define SOFT_MIN_SLEEP_US 20
#define SOFT_MAX_SLEEP_US 1000 /* doorbell re-check period when idle */

struct soft_queue {
    struct sdma_queue *q;
    struct sdma_soft_ctx x;
    uint64_t rd;       /* next byte index to execute (published to *rptr) */
    unsigned slot_off; /* tagged queues: dwords of the slot at rd already executed */
    int waiting;       /* a POLL at the head is not satisfied yet */
    double wait_until;
    void *owned_ring; /* ring memory we allocated, or NULL */
    void *bq;         /* the backend's queue state */
};

enum { AWAKE = 0, SLEEP_IDLE = 1, SLEEP_SHARED = 2 };

struct soft_engine {
    struct sdma_engine *e;
    const struct sdma_soft_backend *b; /* NULL: the host executes */
    void *bstate;
    pthread_t thread;
    pthread_mutex_t lock; /* guards qs/nq; held by the thread while it executes */
    pthread_mutex_t start_lock;
    struct soft_queue **qs;
    size_t nq, cap;
    int started;       /* the thread runs (set once, under start_lock) */
    uint32_t wake_seq; /* futex word of an idle sleep: bumped by every kick */
    int sleeping;      /* AWAKE, or how the thread is about to sleep or sleeps */
    int want_lock;     /* a queue open/close waits for the lock */
    int stop;
    uint32_t done_seq; /* futex word of block(): bumped after a batch when someone waits */
    uint32_t done_waiters;
    cpu_set_t cpus; /* the process's CPUs when the engine opened */
    int cpus_valid;
};

static void soft_free_ring(struct soft_engine *se, void *ring) {
    if (!ring)
        return;
    if (se->b)
        se->b->free(se->bstate, ring);
    else
        free(ring);
}

static long futex(uint32_t *addr, int op, uint32_t val, const struct timespec *ts) {
    return syscall(SYS_futex, addr, op, val, ts, NULL, 0);
}

static void soft_trap(void *arg, uint32_t context) {
    struct soft_queue *sq = arg;
    struct sdma_engine *e = sq->q->eng;
    if (e->cfg.trap)
        e->cfg.trap(e->cfg.trap_arg, sq->q, context);
}

static int run_packets(struct soft_queue *sq, double t);
void sdma_soft_queue_close(struct sdma_queue *q);

/* Execute up to SOFT_BUDGET packets of one queue, then let the backend issue what they
 * queued and publish completion. Returns the number executed. */
static int run_queue(struct soft_engine *se, struct soft_queue *sq, double t) {
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
                    uint64_t index) {
    struct sdma_queue *q = sq->q;
    int rc = sdma_soft_exec(&sq->x, dw, avail, used);
    sq->waiting = rc == SDMA_EXEC_WAIT;
    if (rc == SDMA_EXEC_WAIT)
        sq->wait_until = sq->x.wait_until;
    else if (rc == SDMA_EXEC_ERROR)
        sdma_queue_set_error(q,
                             "sdma: queue '%s' at byte offset %llu (index %llu): opcode %u "
                             "sub-op %u: %s",
                             q->label, (unsigned long long)(index & (q->ring.size - 1)),
                             (unsigned long long)index, sq->x.op, sq->x.sub_op, sq->x.msg);
    return rc;
}

/* A tagged queue: run whole slots while the tag at the read pointer is that slot's. */
static int run_slots(struct soft_queue *sq) {
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

static int run_packets(struct soft_queue *sq, double t) {
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
            sdma_queue_set_error(q,
                                 "sdma: queue '%s': doorbell %llu is not a dword index "
                                 "within one ring (%llu bytes) of the read pointer %llu",
                                 q->label, (unsigned long long)db, (unsigned long long)r->size,
                                 (unsigned long long)sq->rd);
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
static int any_ready(struct soft_engine *se) {
    size_t i;
    for (i = 0; i < se->nq; i++) {
        struct soft_queue *sq = se->qs[i];
        if (sq->waiting || __atomic_load_n(&sq->q->state, __ATOMIC_RELAXED) != SDMA_QSTATE_RUN)
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

/* After a batch of packets ran on this thread: tell the queue's owner (its stores may be
 * what someone sleeps for), and wake threads blocked until the engine ran something. */
static void after_batch(struct soft_engine *se, struct soft_queue *sq) {
    if (sq->q->stored)
        sq->q->stored(sq->q->stored_arg);
    /* Pairs with the fetch-add in soft_block: either it sees the packets' effects when it
     * re-checks, or we see it waiting. */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (__atomic_load_n(&se->done_waiters, __ATOMIC_RELAXED)) {
        __atomic_fetch_add(&se->done_seq, 1, __ATOMIC_SEQ_CST);
        futex(&se->done_seq, FUTEX_WAKE_PRIVATE, INT_MAX, NULL);
    }
}

/* Whether a parked POLL of this queue must be re-checked on a timer: kernels may write its
 * word (nothing wakes us), it counts its checks, or no wake word is configured. */
static int poll_timed(const struct soft_engine *se, const struct soft_queue *sq) {
    const struct sdma_engine_config *cfg = &se->e->cfg;
    unsigned flags = sq->q->flags | __atomic_load_n(&sq->q->late_flags, __ATOMIC_ACQUIRE);
    return (flags & SDMA_QUEUE_GPU_WRITES) || sq->x.poll_counted ||
           (!cfg->wake_seq && !cfg->polls_by_callers);
}

/* Rings that GPU producers write without kicking: re-checked on a timer while open. */
static int gpu_ring(const struct soft_queue *sq) {
    return (sq->q->flags & (SDMA_QUEUE_TAGGED | SDMA_QUEUE_GPU_PRODUCER)) != 0;
}

/* One pass over the queues. *timed: some queue needs the timer (its earliest check in
 * *next); *parked: some POLL waits for a wake; *deadline: the earliest parked POLL's
 * deadline. Returns the packets run. */
static int run_all(struct soft_engine *se, size_t rr, double t, double *next, int *timed,
                   int *parked, double *deadline) {
    int progress = 0;
    for (size_t i = 0; i < se->nq; i++) {
        struct soft_queue *sq = se->qs[(rr + i) % se->nq];
        int n = run_queue(se, sq, t);
        if (n > 0)
            after_batch(se, sq);
        progress += n;
        if (gpu_ring(sq))
            *timed = 1;
        if (!sq->waiting)
            continue;
        if (poll_timed(se, sq)) {
            *timed = 1;
            if (sq->wait_until < *next)
                *next = sq->wait_until;
        } else {
            double d = sq->x.poll_start + sq->x.poll_timeout_s;
            *parked = 1;
            if (d < *deadline)
                *deadline = d;
        }
    }
    return progress;
}

static void sleep_for(uint32_t *word, int op, uint32_t seen, double dt) {
    struct timespec ts, *tp = NULL;
    if (dt < 1e9) {
        if (dt < 0)
            dt = 0;
        ts.tv_sec = (time_t)dt;
        ts.tv_nsec = (long)((dt - (double)ts.tv_sec) * 1e9);
        tp = &ts;
    }
    futex(word, op, seen, tp);
}

static void *soft_main(void *arg) {
    struct soft_engine *se = arg;
    const struct sdma_engine_config *cfg = &se->e->cfg;
    size_t rr = 0;
    unsigned sleep_us = SOFT_MIN_SLEEP_US;
    double last_work = 0;

    pthread_mutex_lock(&se->lock);
    while (!__atomic_load_n(&se->stop, __ATOMIC_ACQUIRE)) {
        double t = sdma_soft_clock(), next = t + SOFT_MAX_SLEEP_US * 1e-6, deadline = 1e300;
        int timed = 0, parked = 0;
        int progress = run_all(se, rr++, t, &next, &timed, &parked, &deadline);
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
        if (se->b && timed && t - last_work < se->b->spin_us * 1e-6) {
            sched_yield();
            continue;
        }
        /* Going to sleep. Announce it first (seq_cst), then read the wake sequence and
         * look again: a producer stores its doorbell, bumps wake_seq (seq_cst) and then
         * reads `sleeping`, so either we see its doorbell here or it sees us sleeping and
         * wakes us (and futex_wait refuses to sleep if the word moved). A parked POLL's
         * word is written by others the same way against the shared word's sleeper count. */
        int shared = parked && !timed && cfg->wake_seq;
        uint32_t *word = shared ? cfg->wake_seq : &se->wake_seq;
        uint32_t seq;
        __atomic_store_n(&se->sleeping, shared ? SLEEP_SHARED : SLEEP_IDLE, __ATOMIC_SEQ_CST);
        if (shared) {
            __atomic_fetch_add(cfg->wake_sleepers, 1, __ATOMIC_SEQ_CST);
            if (cfg->wake_fence)
                cfg->wake_fence();
        }
        seq = __atomic_load_n(word, __ATOMIC_SEQ_CST);
        int ready = any_ready(se);
        if (shared && !ready) {
            /* Look at the parked POLLs once more, now that writers see us. */
            for (size_t i = 0; i < se->nq; i++)
                if (se->qs[i]->waiting)
                    se->qs[i]->wait_until = se->qs[i]->x.wait_until = 0;
            ready = run_all(se, rr, sdma_soft_clock(), &next, &timed, &parked, &deadline);
        }
        if (!ready && !__atomic_load_n(&se->stop, __ATOMIC_ACQUIRE)) {
            double dt = 1e300;
            if (timed) {
                dt = next - sdma_soft_clock();
                if (dt > sleep_us * 1e-6)
                    dt = sleep_us * 1e-6;
                if (se->b && dt > se->b->max_sleep_us * 1e-6)
                    dt = se->b->max_sleep_us * 1e-6;
            } else if (shared) {
                dt = deadline - sdma_soft_clock(); /* report the POLL that ran out */
            }
            if (dt > 0) {
                int op = shared && cfg->wake_shared ? FUTEX_WAIT : FUTEX_WAIT_PRIVATE;
                pthread_mutex_unlock(&se->lock);
                sleep_for(word, op, seq, dt);
                pthread_mutex_lock(&se->lock);
            }
            if (__atomic_load_n(word, __ATOMIC_RELAXED) != seq)
                sleep_us = SOFT_MIN_SLEEP_US; /* woken */
            else if (sleep_us < SOFT_MAX_SLEEP_US)
                sleep_us *= 2; /* nothing came: re-check less often, up to 1 ms */
        }
        if (shared)
            __atomic_fetch_sub(cfg->wake_sleepers, 1, __ATOMIC_RELAXED);
        __atomic_store_n(&se->sleeping, AWAKE, __ATOMIC_RELAXED);
    }
    pthread_mutex_unlock(&se->lock);
    return NULL;
}

/* A thread that waits for the engine can run its packets itself while the engine thread is
 * not running them (asleep, about to sleep, or not started): no hand-off between threads,
 * which on a busy node costs a scheduling round per wait. Parked polls are re-checked at
 * once. */
int sdma_soft_progress(struct sdma_engine *e) {
    struct soft_engine *se = e->priv;
    int progress = 0;
    size_t i;

    if (pthread_mutex_trylock(&se->lock))
        return 0; /* the engine thread is at work */
    for (i = 0; i < se->nq; i++) {
        int n = run_queue(se, se->qs[i], 1e300);
        if (n > 0)
            after_batch(se, se->qs[i]);
        progress += n;
    }
    pthread_mutex_unlock(&se->lock);
    return progress;
}

/* Sleep until the thread ran a batch: only while it is at work (holds the lock); an idle
 * or absent thread runs nothing, and the caller runs the packets itself instead. */
int sdma_soft_block(struct sdma_engine *e, int (*done)(void *), void *arg, double timeout_s) {
    struct soft_engine *se = e->priv;
    if (!__atomic_load_n(&se->started, __ATOMIC_ACQUIRE) ||
        __atomic_load_n(&se->sleeping, __ATOMIC_ACQUIRE) != AWAKE)
        return 0;
    __atomic_fetch_add(&se->done_waiters, 1, __ATOMIC_SEQ_CST);
    uint32_t seq = __atomic_load_n(&se->done_seq, __ATOMIC_SEQ_CST);
    if (!done(arg) && __atomic_load_n(&se->sleeping, __ATOMIC_SEQ_CST) == AWAKE)
        sleep_for(&se->done_seq, FUTEX_WAIT_PRIVATE, seq, timeout_s);
    __atomic_fetch_sub(&se->done_waiters, 1, __ATOMIC_RELAXED);
    return 1;
}

static int soft_start(struct soft_engine *se) {
    int rc = 0;
    pthread_mutex_lock(&se->start_lock);
    if (!se->started) {
        /* The thread may run on every CPU the process had at open, whichever thread
         * (pinned to one CPU, maybe) starts it. */
        pthread_attr_t at;
        pthread_attr_init(&at);
        if (se->cpus_valid)
            pthread_attr_setaffinity_np(&at, sizeof se->cpus, &se->cpus);
        rc = pthread_create(&se->thread, &at, soft_main, se);
        pthread_attr_destroy(&at);
        if (!rc) {
            pthread_setname_np(se->thread, se->b ? "sdma-proxy" : "sdma-soft");
            /* Release: the thread exists before anyone relies on it. */
            __atomic_store_n(&se->started, 1, __ATOMIC_RELEASE);
        }
    }
    pthread_mutex_unlock(&se->start_lock);
    return rc;
}

static void soft_wake(struct soft_engine *se) {
    const struct sdma_engine_config *cfg = &se->e->cfg;
    /* Pairs with the sleeper's announcement in soft_main (see there). */
    __atomic_fetch_add(&se->wake_seq, 1, __ATOMIC_SEQ_CST);
    switch (__atomic_load_n(&se->sleeping, __ATOMIC_SEQ_CST)) {
    case SLEEP_IDLE: futex(&se->wake_seq, FUTEX_WAKE_PRIVATE, 1, NULL); break;
    case SLEEP_SHARED:
        __atomic_fetch_add(cfg->wake_seq, 1, __ATOMIC_SEQ_CST);
        futex(cfg->wake_seq, cfg->wake_shared ? FUTEX_WAKE : FUTEX_WAKE_PRIVATE, INT_MAX, NULL);
        break;
    default: break;
    }
}

static void soft_lock(struct soft_engine *se) {
    __atomic_fetch_add(&se->want_lock, 1, __ATOMIC_ACQ_REL);
    soft_wake(se);
    pthread_mutex_lock(&se->lock);
    __atomic_fetch_sub(&se->want_lock, 1, __ATOMIC_ACQ_REL);
}

int sdma_soft_open_backend(struct sdma_engine *e, const struct sdma_soft_backend *b, char *err,
                           size_t errlen) {
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
    pthread_mutex_init(&se->start_lock, NULL);
    /* The thread starts with the first submit (sdma_soft_kick). */
    se->cpus_valid = sched_getaffinity(0, sizeof se->cpus, &se->cpus) == 0;
    e->priv = se;
    return SDMA_OK;
}

static int soft_open(struct sdma_engine *e, char *err, size_t errlen) {
    return sdma_soft_open_backend(e, NULL, err, errlen);
}

void *sdma_soft_backend_state(struct sdma_engine *e) {
    return ((struct soft_engine *)e->priv)->bstate;
}

void sdma_soft_close(struct sdma_engine *e) {
    struct soft_engine *se = e->priv;
    __atomic_store_n(&se->stop, 1, __ATOMIC_RELEASE);
    pthread_mutex_lock(&se->start_lock);
    int started = se->started;
    pthread_mutex_unlock(&se->start_lock);
    if (started) {
        soft_wake(se);
        pthread_join(se->thread, NULL);
    }
    pthread_mutex_destroy(&se->lock);
    pthread_mutex_destroy(&se->start_lock);
    if (se->b)
        se->b->close(se->bstate);
    free(se->qs);
    free(se);
}

int sdma_soft_queue_open(struct sdma_queue *q, const struct sdma_queue_attr *a) {
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
            return sdma_seterr(SDMA_ERR_INVAL,
                               "soft: queue '%s': a caller ring needs ring, "
                               "ctl, rptr, wptr and doorbell, equal at start",
                               q->label);
        }
        if (b) {
            /* The ring is the caller's; the quiet word must still be the hardware's. */
            sq->owned_ring = b->alloc(se->bstate, sizeof *w);
            if (!sq->owned_ring) {
                free(sq);
                return sdma_seterr(SDMA_ERR_NOMEM, "%s: out of memory for queue words", b->name);
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
        rc = sdma_ring_init(&q->ring, sq->owned_ring, rb, &w->ctl, &w->rptr, &w->wptr, &w->doorbell,
                            rflags);
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
    /* GPU producers never kick: the thread serves their queue from now on. */
    if ((q->flags & (SDMA_QUEUE_TAGGED | SDMA_QUEUE_GPU_PRODUCER | SDMA_QUEUE_GPU_WRITES)) &&
        (rc = soft_start(se))) {
        sdma_soft_queue_close(q);
        return sdma_seterr(SDMA_ERR_SYSTEM,
                           "soft: queue '%s': cannot start the engine "
                           "thread: %s",
                           q->label, strerror(rc));
    }
    return SDMA_OK;
}

void sdma_soft_queue_close(struct sdma_queue *q) {
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

void sdma_soft_kick(struct sdma_queue *q) {
    struct soft_engine *se = q->eng->priv;
    /* The first submit starts the thread; if it cannot start, waiters run the packets
     * (sdma_engine_progress) and nothing is lost. */
    if (!__atomic_load_n(&se->started, __ATOMIC_ACQUIRE) &&
        !__atomic_load_n(&se->stop, __ATOMIC_ACQUIRE))
        soft_start(se);
    soft_wake(se);
}

const struct sdma_engine_ops sdma_soft_ops = {
    .name = "soft",
    .open = soft_open,
    .close = sdma_soft_close,
    .queue_open = sdma_soft_queue_open,
    .queue_close = sdma_soft_queue_close,
    .kick = sdma_soft_kick,
    .progress = sdma_soft_progress,
    .block = sdma_soft_block,
    .caps = SDMA_CAP_TAGGED,
};
