/* The fabric's completion, progress and waits (shmem/fabric.h).
 *
 * Progress: most providers over sockets or shared memory (net, tcp;ofi_rxm, shm)
 * move data only inside libfabric calls, on both sides of a transfer: a
 * target that computes outside the library never serves a peer's get. So a
 * thread of each PE runs the main endpoint's progress (SHMEM_OFI_PROGRESS):
 * polling with a back-off up to SHMEM_OFI_PROGRESS_INTERVAL, or (wait) asleep
 * in the provider's wait object, woken by the sockets -- which the provider
 * then signals on every completion, a write and a read of a pipe per
 * transfer (a quarter of an 8-byte put's latency over tcp). By default
 * (auto) a look that finds nothing to do puts the thread to sleep on its
 * doorbell (fabric_bell.c), which a peer rings when it waits for this PE: an
 * idle PE's thread never wakes, nor does a PE's that computes while
 * transfers nobody waits for reach it; without a doorbell (an endpoint
 * without an IP address) it sleeps in the provider's wait object where that
 * watches the sockets (net, tcp), else polls. Threads waiting
 * inside the library run the progress themselves (shmemi_spin_slow), and
 * meanwhile the thread stays out of their way. */
#define _GNU_SOURCE
#include "shmem/fabric.h"

#include <errno.h>
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static struct {
    pthread_t thread;
    int running;
    int stop;
    int wait; /* 1: asleep in fi_cq_sread */
    long interval_us;
    uint64_t app_calls;         /* progress calls and posts of the application's threads (atomic) */
    uint64_t app_ns;            /* when an application's thread last ran the progress (atomic) */
    uint64_t rings, rings_moot; /* rings heard, and those the application served (the thread's) */
} prog;

/* While the application's threads run the progress themselves (waiting in
 * the library), the thread stays out of their way: two threads in the
 * provider's progress at once cost each a lock hand-over per look. It looks
 * again after PROG_STEP_ASIDE_US, twice as late each time it finds them
 * still at it, up to PROG_STEP_ASIDE_MAX_US: on a node whose cores all run
 * PEs each look preempts the PE's own thread, and the round trip it was
 * waiting for then waits behind it (every 2 ms, twice the 8-byte gets over
 * 50 us of a PE without the thread, over tcp). A peer's transfer into a PE
 * that stopped calling the library waits at most twice the longest step. */
#define PROG_STEP_ASIDE_US 2000
#define PROG_STEP_ASIDE_MAX_US 8000

/* A ring finds the application's threads running the progress themselves
 * when one did within this: they serve the waiting peer at their next look,
 * and the thread goes back to sleep (the peer rings again, BELL_EVERY_NS
 * later, if it still waits). Serving beside them, the thread wakes for
 * every message that reaches the PE and takes a core from them: of the
 * 96-115 rings 66,000 fetching AMOs over net brought a PE that waited in a
 * barrier, 40-65 came while its own thread ran the progress. Short: a
 * thread that has just left the library to compute must not cost a peer
 * that second ring. */
#define APP_SERVES_NS 10000ull
/* Or within APP_WAITS_NS while one of them is in a wait that runs the
 * progress (shmemi_waits_serving): it lost its core for a while, and serves
 * the peer as soon as it has it again. A thread woken to serve in its stead
 * takes a core too, on a node whose cores all run PEs another PE's, whose
 * waits then outlast BELL_AFTER_NS and ring in turn: fetching AMOs over net
 * from a PE that waited in a barrier, on 2 CPUs, woke its thread 450 times a
 * second and took the initiator's core 530 times a second (OSHMEM's PEs
 * lost theirs 60 times). Beyond it, the thread serves: the waiting thread
 * has not had a core for a time slice or more. */
#define APP_WAITS_NS 4000000ull

/* Rounds of messages carried out and queue read again in one progress call. */
#define AM_ROUNDS 64

static double now_s(void) { return (double)shmemi_now_ns() * 1e-9; }

/* ------------------------------------------------------------- errors */

void shmemi_fab_fail(int rc, const char *what, int pe, const char *fn) {
    if (pe >= 0)
        shmemi_fatal("%s: %s to PE %d failed on the fabric (%s): %s", fn, what, pe,
                     shmemi_fab.prov ? shmemi_fab.prov : "libfabric", fi_strerror(-rc));
    shmemi_fatal("%s: %s failed (%s): %s", fn, what,
                 shmemi_fab.prov ? shmemi_fab.prov : "libfabric", fi_strerror(-rc));
}

/* A failed transfer shows in the counter's error count and as an error entry
 * of the endpoint's queue, whose context is the PE (FAB_CTX). */
static void report(struct fab_ep *e, const char *fn) __attribute__((noreturn));
static void report(struct fab_ep *e, const char *fn) {
    struct fi_cq_err_entry err = {0};
    char prov_msg[256] = "";
    int pe = -1, code = FI_EIO;
    if (fi_cq_readerr(e->cq, &err, 0) > 0) {
        uintptr_t ctx = (uintptr_t)err.op_context;
        if (ctx && ctx < FAB_CTX_MAX)
            pe = (int)ctx - 1;
        else if (ctx && ((struct fab_req *)err.op_context)->kind == FAB_KIND_REQ)
            pe = ((struct fab_req *)err.op_context)->pe;
        code = err.err;
        const char *m =
            fi_cq_strerror(e->cq, err.prov_errno, err.err_data, prov_msg, sizeof(prov_msg));
        if (m && m != prov_msg)
            snprintf(prov_msg, sizeof(prov_msg), "%s", m);
    }
    /* A failed transfer most often means the peer ended: its launcher ends
     * the job with the better message (the PE's status or signal). Give it
     * that turn, as the liveness record gives a PE that exited. */
    struct timespec grace = {0, 300 * 1000000L};
    nanosleep(&grace, NULL);
    if (pe < 0 || pe >= shmemi.n_pes)
        shmemi_fatal("%s: a transfer failed on the fabric (%s): %s%s%s", fn, shmemi_fab.prov,
                     fi_strerror(code), prov_msg[0] ? ": " : "", prov_msg);
    shmemi_fatal("%s: a transfer to PE %d failed on the fabric (%s): %s%s%s (PE %d may have "
                 "ended)",
                 fn, pe, shmemi_fab.prov, fi_strerror(code), prov_msg[0] ? ": " : "", prov_msg, pe);
}

void shmemi_fab_check(struct fab_ep *e, const char *fn) {
    uint64_t errs = fi_cntr_readerr(e->cntr);
    if (SHMEMI_UNLIKELY(errs != __atomic_load_n(&e->errors, __ATOMIC_RELAXED))) {
        __atomic_store_n(&e->errors, errs, __ATOMIC_RELAXED);
        report(e, fn);
    }
}

/* ------------------------------------------------ threads that wait together */

/* Several application threads that wait on one endpoint would each run the
 * provider's progress, queueing on its lock; where the CPUs are all taken,
 * they also take turns on them with the threads their transfers depend on
 * (the one reading the queue, the peers). So the first thread that waits
 * keeps the endpoint's queue until its own transfer completes, reading every
 * thread's completions, while the others sleep until theirs completes or the
 * keeper leaves and hands the queue to one of them. Only where a waiting
 * thread would yield its core anyway (shmemi_spin_yields): on a core of its
 * own, a spin sees its completion at once, where a sleeper is woken later. */
struct doze {
    const struct fab_req *q;
    const struct fab_ep *e;
    uint32_t bell; /* futex word: rung by q's completion or a hand-over */
    struct doze *next;
};
static struct {
    pthread_mutex_t mu;
    int n; /* threads listed (atomic): none, and completions look no further */
    struct doze *head;
    uint64_t slept, rung; /* sleeps, and those a completion or a hand-over ended (atomic) */
} dozing = {PTHREAD_MUTEX_INITIALIZER, 0, NULL, 0, 0};

/* This thread, as e->reading names it (8-byte aligned: the low bit is free
 * for KEEPS). */
static __thread uint64_t me_word;
#define ME ((uintptr_t)&me_word)
#define KEEPS ((uintptr_t)1)
/* A wait sleeps once it has found the queue kept for DOZE_AFTER_NS: most
 * round trips end sooner, and a sleeper wakes later than a spinner sees its
 * transfer complete. SOS's mt_locking test over tcp on 2 CPUs (16 threads
 * of each PE take one lock in turns): 1.1-1.4 s at 2 PEs and 21-27 s at 4
 * with it; 3.4-3.7 s and 27 s sleeping at once; 1.9-2.1 s and 78 s with
 * every waiter yielding. */
#define DOZE_AFTER_NS 100000ull
/* The longest sleep: a safety net, and the pace of a sleeper's rings. */
#define DOZE_MAX_NS 1000000ull
#define DOZE_MIN_NS 10000ull

/* Wake the thread asleep for q, or else one asleep on e. */
static void ring(const struct fab_req *q, const struct fab_ep *e) {
    pthread_mutex_lock(&dozing.mu);
    for (struct doze *d = dozing.head; d; d = d->next)
        if (q ? d->q == q : d->e == e) {
            __atomic_fetch_add(&d->bell, 1, __ATOMIC_RELAXED);
            syscall(SYS_futex, &d->bell, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
            break;
        }
    pthread_mutex_unlock(&dozing.mu);
}

/* Sequentially consistent with doze()'s count-then-look: either the sleeper
 * sees the count fall, or this sees it listed. */
void shmemi_fab_req_done(struct fab_req *q) {
    if (__atomic_sub_fetch(&q->pending, 1, __ATOMIC_SEQ_CST) <= 0 &&
        __atomic_load_n(&dozing.n, __ATOMIC_SEQ_CST))
        ring(q, NULL);
}

static int kept_by_other(const struct fab_ep *e) {
    uintptr_t r = __atomic_load_n(&e->reading, __ATOMIC_SEQ_CST);
    return (r & KEEPS) && r != (ME | KEEPS);
}

static int keep(struct fab_ep *e) {
    uintptr_t none = 0;
    return !__atomic_load_n(&e->reading, __ATOMIC_RELAXED) &&
           __atomic_compare_exchange_n(&e->reading, &none, ME | KEEPS, 0, __ATOMIC_ACQUIRE,
                                       __ATOMIC_RELAXED);
}

/* The keeper leaves: the queue goes to a sleeper, which keeps it if its
 * transfer is still on its way. A sleeper that leaves while nobody keeps
 * the queue passes it on too (the hand-over may have woken it as its own
 * transfer completed). */
static void pass_on(const struct fab_ep *e) {
    if (__atomic_load_n(&dozing.n, __ATOMIC_SEQ_CST) && !kept_by_other(e))
        ring(NULL, e);
}
static void leave(struct fab_ep *e) {
    __atomic_store_n(&e->reading, 0, __ATOMIC_SEQ_CST);
    pass_on(e);
}

/* Asleep until q completes, e's keeper leaves, or ns pass. */
static void doze(const struct fab_ep *e, const struct fab_req *q, uint64_t ns) {
    struct doze d = {q, e, 0, NULL};
    pthread_mutex_lock(&dozing.mu);
    d.next = dozing.head;
    dozing.head = &d;
    __atomic_fetch_add(&dozing.n, 1, __ATOMIC_SEQ_CST);
    pthread_mutex_unlock(&dozing.mu);
    /* Listed, look again: a completion or a leave after these loads rings. */
    if (__atomic_load_n(&q->pending, __ATOMIC_SEQ_CST) > 0 && kept_by_other(e)) {
        struct timespec ts = {0, (long)ns};
        syscall(SYS_futex, &d.bell, FUTEX_WAIT_PRIVATE, 0, &ts, NULL, 0);
        __atomic_fetch_add(&dozing.slept, 1, __ATOMIC_RELAXED);
        if (__atomic_load_n(&d.bell, __ATOMIC_RELAXED))
            __atomic_fetch_add(&dozing.rung, 1, __ATOMIC_RELAXED);
    }
    pthread_mutex_lock(&dozing.mu);
    struct doze **p = &dozing.head;
    while (*p != &d)
        p = &(*p)->next;
    *p = d.next;
    __atomic_fetch_sub(&dozing.n, 1, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&dozing.mu);
}

/* ----------------------------------------------------------- progress */

/* A completion of a queue: a transfer a thread waits for, or a message. */
static void complete(const struct fi_cq_data_entry *ent) {
    if ((uintptr_t)ent->op_context < FAB_CTX_MAX)
        return;
    struct fab_req *q = ent->op_context;
    if (q->kind == FAB_KIND_REQ)
        /* Release: the data the transfer brought is visible to the waiter. */
        shmemi_fab_req_done(q);
    else
        shmemi_fab_am_completion(ent);
}

/* Read e's queue: transfers threads wait for; on the main endpoint messages
 * and their replies (fabric_am.c). Failures end the job. */
static int drain(struct fab_ep *e, const char *fn) {
    struct fi_cq_data_entry ent[8];
    int did = 0;
    for (;;) {
        ssize_t n = fi_cq_read(e->cq, ent, 8);
        if (n == -FI_EAGAIN || n == 0)
            return did;
        if (n == -FI_EAVAIL)
            report(e, fn);
        if (n < 0)
            shmemi_fab_fail((int)n, "reading a completion queue", -1, fn);
        for (ssize_t i = 0; i < n; i++)
            complete(&ent[i]);
        did = 1;
        /* Fewer than asked for: the queue is empty, and another read would
         * only run the provider's progress again (a system call over tcp,
         * on the way back of every round trip). */
        if (n < 8)
            return did;
    }
}

/* drain(e), unless another application thread reads e's queue right now:
 * it completes every thread's transfers it finds there, and the provider
 * serializes its callers anyway. Threads that all ran the progress at once
 * took turns on the provider's lock (a futex call each) and on the CPUs: 16
 * threads of each of 4 PEs on 2 CPUs over tcp, taking a lock in turns, went
 * from 3.5 s at 4 threads a PE to 156 s. */
static void drain_alone(struct fab_ep *e) {
    uintptr_t r = __atomic_load_n(&e->reading, __ATOMIC_RELAXED);
    if (r == (ME | KEEPS)) { /* this thread's wait keeps the queue */
        drain(e, "the fabric's progress");
        return;
    }
    if (r ||
        !__atomic_compare_exchange_n(&e->reading, &r, ME, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
        return;
    drain(e, "the fabric's progress");
    __atomic_store_n(&e->reading, 0, __ATOMIC_RELEASE);
}

/* The progress of e, then of the main endpoint (messages and replies), unless
 * q is given and complete by then: its waiter returns at once (the next
 * progress call reads the rest). Out of line: inlined into
 * shmemi_fab_wait_req, GCC 13 at -O3 warns falsely that the request's atomic
 * load overflows a region of size 0 (an error under -Werror); a call costs
 * nothing beside the provider's progress. */
static __attribute__((noinline)) void progress_for(struct fab_ep *e, const struct fab_req *q) {
    uint64_t calls = prog.app_calls + 1;
    __atomic_store_n(&prog.app_calls, calls, __ATOMIC_RELAXED);
    /* Every 4th call: a look at the clock is a fifth of a look at the
     * provider's queue (a wait's calls come every microsecond or so). */
    if ((calls & 3) == 0 && __atomic_load_n(&prog.running, __ATOMIC_RELAXED))
        __atomic_store_n(&prog.app_ns, shmemi_now_ns(), __ATOMIC_RELAXED);
    drain_alone(e);
    if (e != &shmemi_fab.main && (!q || __atomic_load_n(&q->pending, __ATOMIC_RELAXED) > 0))
        drain_alone(&shmemi_fab.main);
    /* Messages carried out post their receive buffers again, which lets the
     * provider deliver those that waited for one: a stream of AMOs as
     * messages (four PEs' increments to one) went at one look's worth of
     * buffers per look of a PE waiting in a barrier. Only after the buffers
     * ran out: another look is a system call over sockets (a small
     * collective by messages took 1 us longer with it every time). */
    for (int round = 0; shmemi_fab_am_progress() && round < AM_ROUNDS; round++)
        drain_alone(&shmemi_fab.main);
}

void shmemi_fab_progress(struct fab_ep *e) { progress_for(e, NULL); }

/* A thread that posts is inside the provider too: the thread stays out of
 * its way as it does of one that runs the progress. Over net, a stream of
 * 8-byte puts (one system call each) took a quarter longer with the thread
 * looking meanwhile, each look and post handing the provider's lock over (a
 * futex call each). A PE that only posts then serves its peers' transfers
 * at the thread's next look (at most PROG_STEP_ASIDE_MAX_US). */
void shmemi_fab_posting(void) {
    __atomic_store_n(&prog.app_calls, prog.app_calls + 1, __ATOMIC_RELAXED);
}

/* Rung (fabric_bell.c): serve the main endpoint for as long as the ring
 * asks (until a little past the waiter's next ring), asleep in its wait
 * object where it has one (woken by the transfers the waiter needs moved),
 * else polling every sleep_us. */
static void serve_for(uint64_t *until, uint64_t ns) {
    uint64_t t = shmemi_now_ns() + ns;
    *until = t > *until ? t : *until;
}

/* An application's thread runs the progress (APP_SERVES_NS, APP_WAITS_NS). */
static int app_serves(void) {
    uint64_t since = shmemi_now_ns() - __atomic_load_n(&prog.app_ns, __ATOMIC_RELAXED);
    return since < APP_SERVES_NS ||
           (since < APP_WAITS_NS && __atomic_load_n(&shmemi_waits_serving, __ATOMIC_RELAXED));
}

/* A ring that asks for ns of serving: whether the thread serves (not while
 * the application's threads do). */
static int rung(uint64_t *until, uint64_t ns) {
    prog.rings++;
    if (app_serves()) {
        prog.rings_moot++;
        shmemi_fab_bell_hush();
        *until = 0;
        return 0;
    }
    serve_for(until, ns);
    return 1;
}

static void serve(uint64_t *until, long *sleep_us) {
    uint64_t ns;
    if (shmemi_fab.cq_waits) {
        if ((ns = shmemi_fab_bell_rung()) && !rung(until, ns))
            return;
        struct fi_cq_data_entry ent;
        ssize_t n = fi_cq_sread(shmemi_fab.main.cq, &ent, 1, NULL, 1);
        if (n == 1)
            complete(&ent);
        else if (n == -FI_EAVAIL)
            report(&shmemi_fab.main, "the fabric's progress thread");
        shmemi_fab_am_progress();
        return;
    }
    /* Polling, but woken by the next ring at once. */
    if ((ns = shmemi_fab_bell_sleep(*sleep_us))) {
        rung(until, ns);
        *sleep_us = 1;
    } else if (*sleep_us < prog.interval_us) {
        *sleep_us = *sleep_us * 2 < prog.interval_us ? *sleep_us * 2 : prog.interval_us;
    }
}

static void *progress_main(void *arg) {
    (void)arg;
    pthread_setname_np(pthread_self(), "shmem-fabric");
    long sleep_us = 1, aside_us = PROG_STEP_ASIDE_US;
    uint64_t serve_until = 0;
    uint64_t seen = __atomic_load_n(&prog.app_calls, __ATOMIC_RELAXED);
    while (!__atomic_load_n(&prog.stop, __ATOMIC_ACQUIRE)) {
        uint64_t now = __atomic_load_n(&prog.app_calls, __ATOMIC_RELAXED);
        if (serve_until && shmemi_fab.bell && !prog.wait && app_serves())
            serve_until = 0; /* the application serves the peer now */
        /* On a bell with nothing to serve the thread sleeps below, however
         * busy the application is: stepping aside instead, it woke every
         * PROG_STEP_ASIDE_MAX_US for as long as the application posted that
         * often (a stencil's halo exchange: 125 times a second, each taking
         * a computing thread's core). */
        int rest =
            shmemi_fab.bell && !prog.wait && shmemi_now_ns() >= serve_until && shmemi_fab_am_idle();
        if (now != seen && !rest) {
            seen = now;
            struct timespec ts = {0, aside_us * 1000};
            nanosleep(&ts, NULL);
            aside_us =
                aside_us * 2 < PROG_STEP_ASIDE_MAX_US ? aside_us * 2 : PROG_STEP_ASIDE_MAX_US;
            continue;
        }
        aside_us = PROG_STEP_ASIDE_US;
        int did = drain(&shmemi_fab.main, "the fabric's progress thread");
        shmemi_fab_am_progress();
        if (did) {
            sleep_us = 1;
            continue;
        }
        if (shmemi_fab.bell && !prog.wait) {
            if (shmemi_now_ns() < serve_until || !shmemi_fab_am_idle()) {
                serve(&serve_until, &sleep_us);
                continue;
            }
            /* Asleep until a peer that waits for this PE rings; then it
             * serves at once, whatever the application did meanwhile --
             * unless the application's threads run the progress right now. */
            uint64_t ns;
            do
                ns = shmemi_fab_bell_sleep(-1);
            while (ns && !__atomic_load_n(&prog.stop, __ATOMIC_ACQUIRE) && !rung(&serve_until, ns));
            seen = __atomic_load_n(&prog.app_calls, __ATOMIC_RELAXED);
            sleep_us = 1;
            continue;
        }
        /* Nothing to do: asleep in the provider until a socket has data
         * (which it then progresses: a peer's transfer into this PE), a
         * message arrives, or fi_cq_signal at close. At once, not after a
         * while of polling: over net a stencil's computing threads lost their
         * cores 1300 times a second to the polling looks, 550 without (and
         * the first get from a PE that computes is served as fast: 45-53
         * us). */
        if (prog.wait || (shmemi_fab.sleeps && shmemi_fab_am_idle())) {
            struct fi_cq_data_entry ent;
            ssize_t n = fi_cq_sread(shmemi_fab.main.cq, &ent, 1, NULL, prog.wait ? 100 : -1);
            if (n == 1)
                complete(&ent);
            else if (n == -FI_EAVAIL)
                report(&shmemi_fab.main, "the fabric's progress thread");
            shmemi_fab_am_progress();
            sleep_us = 1;
            continue;
        }
        /* Idle: back off (a peer's transfer waits at most this long when this
         * PE computes outside the library). */
        struct timespec ts = {0, sleep_us * 1000};
        nanosleep(&ts, NULL);
        if (sleep_us < prog.interval_us)
            sleep_us = sleep_us * 2 < prog.interval_us ? sleep_us * 2 : prog.interval_us;
    }
    return NULL;
}

/* The thread, on every CPU of the process (not only the one its main thread
 * may be pinned to). */
static void spawn(void) {
    pthread_attr_t a;
    pthread_attr_init(&a);
    shmemi_unpinned_attr(&a);
    int rc = pthread_create(&prog.thread, &a, progress_main, NULL);
    pthread_attr_destroy(&a);
    if (rc)
        shmemi_fatal("cannot start the fabric's progress thread: %s", strerror(rc));
    prog.running = 1;
}

void shmemi_fab_progress_start(void) {
    const char *mode = shmemi.cfg.OFI_PROGRESS;
    if (shmemi_fab.auto_progress && !strcmp(mode, "auto"))
        return; /* the provider progresses by itself */
    if (!strcmp(mode, "caller"))
        return;
    /* (FI_GETWAIT would say too, but writes a structure of the provider's
     * own type: net's pollfd set overran an int.) */
    prog.wait = !strcmp(mode, "wait") && shmemi_fab.cq_waits;
    prog.interval_us = shmemi.cfg.OFI_PROGRESS_INTERVAL;
    prog.stop = 0;
    spawn();
    shmemi_debug("fabric progress: a thread %s",
                 prog.wait || (shmemi_fab.sleeps && !shmemi_fab.bell)
                     ? "asleep in the provider's wait object"
                 : shmemi_fab.bell ? "asleep on its doorbell, rung by waiting peers"
                                   : "polling");
}

/* A polling thread now, whatever SHMEM_OFI_PROGRESS says (the last barrier). */
void shmemi_fab_progress_now(void) {
    if (prog.running)
        return;
    prog.wait = 0;
    prog.interval_us = 50;
    prog.stop = 0;
    spawn();
}

void shmemi_fab_progress_stop(void) {
    uint64_t slept = __atomic_load_n(&dozing.slept, __ATOMIC_RELAXED);
    if (slept)
        shmemi_debug("fabric waits slept %llu times while another thread read the queue (%llu "
                     "woken by their completion or the queue's hand-over)",
                     (unsigned long long)slept,
                     (unsigned long long)__atomic_load_n(&dozing.rung, __ATOMIC_RELAXED));
    if (!prog.running)
        return;
    __atomic_store_n(&prog.stop, 1, __ATOMIC_RELEASE);
    if (prog.wait || shmemi_fab.sleeps)
        fi_cq_signal(shmemi_fab.main.cq);
    shmemi_fab_bell_wake();
    pthread_join(prog.thread, NULL);
    prog.running = 0;
    if (prog.rings)
        shmemi_debug("fabric progress thread: rung %llu times, %llu of them while the "
                     "application's threads ran the progress",
                     (unsigned long long)prog.rings, (unsigned long long)prog.rings_moot);
}

/* ----------------------------------------------------------- waiting */

/* What every turn of a wait or a retried post runs: the peer's bell; every
 * 16 turns, an end to the job on a failed transfer (each look at the failure
 * count runs the provider's progress once more: a system call over sockets,
 * on the way of the reply a round trip waits for); every 256, when the wait
 * has run past SHMEM_OFI_TIMEOUT (pe < 0: transfers to several PEs; what:
 * a post, not yet taken). */
static void turn_checks(struct fab_ep *e, struct fab_stall *st, unsigned turn, double *deadline,
                        int pe, const char *what, const char *fn) {
    if ((turn & 7) == 0)
        shmemi_fab_stall(st, e, pe);
    if ((turn & 15) == 0)
        shmemi_fab_check(e, fn);
    if ((turn & 255) != 0)
        return;
    double t = now_s();
    if (!*deadline)
        *deadline = t + shmemi_fab.timeout_s;
    if (t <= *deadline)
        return;
    if (what)
        shmemi_fatal("%s: %s to PE %d could not be posted within %g s on the fabric (%s; "
                     "SHMEM_OFI_TIMEOUT): PE %d may have ended",
                     fn, what, pe, shmemi_fab.timeout_s, shmemi_fab.prov, pe);
    if (pe >= 0)
        shmemi_fatal("%s: a transfer to PE %d did not complete within %g s on the fabric "
                     "(%s; SHMEM_OFI_TIMEOUT): PE %d may have ended",
                     fn, pe, shmemi_fab.timeout_s, shmemi_fab.prov, pe);
    shmemi_fatal("%s: transfers did not complete within %g s on the fabric (%s; "
                 "SHMEM_OFI_TIMEOUT)",
                 fn, shmemi_fab.timeout_s, shmemi_fab.prov);
}

/* A wait that has just run the progress itself: the checks, and every
 * WAIT_SPIN_EVERY turns (each turn where waits yield) the spin's own -- the
 * liveness of the job, the other rows' progress, a yield -- whose look at
 * the fabric's queue would otherwise follow the wait's own at once. Alternated
 * with the spin on every turn every 17 ms within one run, over tcp: fetch-adds
 * and 8-byte gets took 0.12-0.17 us less (medians 10.1-10.2 us). */
#define WAIT_SPIN_EVERY 16
static void wait_turn(struct fab_ep *e, struct shmemi_spin *s, struct fab_stall *st, unsigned turn,
                      double *deadline, int pe, const char *fn) {
    turn_checks(e, st, turn, deadline, pe, NULL, fn);
    if (turn % WAIT_SPIN_EVERY == 0 || shmemi_spin_yields())
        shmemi_spin(s);
}

/* A post the provider refused for now (its queue full), tried again. The
 * transfer is counted already (shmemi_fab_count): a quiet draining e waits
 * for it. So what this thread posts meanwhile -- the gets of the liveness
 * checks of its spin -- passes the gate, or the two would wait for each
 * other for good (a helper thread's put retried while the main thread's
 * quiet drained). */
void shmemi_fab_retry(struct fab_retry *r, struct fab_ep *e, int pe, const char *what,
                      const char *fn) {
    shmemi_fab_progress(e);
    shmemi_fab_ungated++;
    turn_checks(e, &r->stall, ++r->turn, &r->deadline, pe, what, fn);
    shmemi_spin(&r->spin);
    shmemi_fab_ungated--;
}

int shmemi_fab_wait(struct fab_ep *e, uint64_t target, int pe, const char *fn) {
    if (fi_cntr_read(e->cntr) >= target)
        return 0;
    struct shmemi_spin s = {0};
    struct fab_stall st = {0};
    double deadline = 0;
    for (unsigned turn = 1;; turn++) {
        shmemi_fab_progress(e);
        if (fi_cntr_read(e->cntr) >= target)
            break;
        wait_turn(e, &s, &st, turn, &deadline, pe, fn);
    }
    shmemi_spin_end(&s);
    return 1;
}

__thread int shmemi_fab_ungated;

void shmemi_fab_gate(struct fab_ep *e) {
    struct shmemi_spin s = {0};
    shmemi_fab_ungated++;
    while (__atomic_load_n(&e->draining, __ATOMIC_SEQ_CST)) {
        shmemi_fab_progress(e);
        shmemi_spin(&s);
    }
    shmemi_spin_end(&s);
    shmemi_fab_ungated--;
}

void shmemi_fab_wait_req(struct fab_ep *e, struct fab_req *q, const char *fn) {
    struct shmemi_spin s = {0};
    struct fab_stall st = {0};
    double deadline = 0;
    int kept = 0, dozed = 0;
    uint64_t since = 0; /* when the wait first found the queue kept */
    for (unsigned turn = 1;; turn++) {
        /* Acquire: pairs with the release of complete(). */
        if (__atomic_load_n(&q->pending, __ATOMIC_ACQUIRE) <= 0)
            break;
        if (!kept)
            kept = keep(e);
        uint64_t kept_for = 0;
        if (!kept && kept_by_other(e) && shmemi_spin_yields()) {
            uint64_t t = shmemi_now_ns();
            since = since ? since : t;
            kept_for = t - since;
        } else {
            since = 0;
        }
        if (kept_for >= DOZE_AFTER_NS) {
            /* Asleep, but up when the next ring of a stalled wait is due. */
            uint64_t ns = shmemi_fab_stall_due(&st);
            doze(e, q, ns > DOZE_MAX_NS ? DOZE_MAX_NS : ns < DOZE_MIN_NS ? DOZE_MIN_NS : ns);
            dozed = 1;
        } else {
            progress_for(e, q);
        }
        if (__atomic_load_n(&q->pending, __ATOMIC_ACQUIRE) <= 0)
            break;
        wait_turn(e, &s, &st, turn, &deadline, q->pe, fn);
    }
    if (kept)
        leave(e);
    else if (dozed)
        pass_on(e);
    shmemi_spin_end(&s);
}
