/* The owner of every copy-engine queue of the core (shmem/queues.h).
 *
 * Queues are opened lazily, one kind at a time per peer, under one lock;
 * lookups of an open queue take no lock (the pointer is published with a
 * release store once the queue is set up). */
#include "shmem/queues.h"

#include "shmem/engine.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { Q_RMA, Q_POLL, Q_DEVICE, Q_KINDS };

static struct sdma_queue **queues[Q_KINDS]; /* per kind, per peer; NULL until first use */
static pthread_mutex_t open_lock = PTHREAD_MUTEX_INITIALIZER;

/* The table of `kind`, made under open_lock. Release: peek sees it zeroed. */
static struct sdma_queue **table(int kind) {
    struct sdma_queue **t = queues[kind];
    if (t)
        return t;
    if (!(t = calloc((size_t)shmemi.n_pes, sizeof(*t))))
        shmemi_fatal("out of memory for the copy-engine queue table");
    __atomic_store_n(&queues[kind], t, __ATOMIC_RELEASE);
    return t;
}

static struct sdma_queue *peek(int kind, int pe) {
    struct sdma_queue **t = __atomic_load_n(&queues[kind], __ATOMIC_ACQUIRE);
    return t ? __atomic_load_n(&t[pe], __ATOMIC_ACQUIRE) : NULL;
}

/* Open the queue of `kind` to pe unless it is open: a ring of `ring` bytes,
 * or the attributes given. */
static struct sdma_queue *open_queue(int kind, int pe, size_t ring, const char *what,
                                     const struct sdma_queue_attr *given) {
    struct sdma_queue *q = peek(kind, pe);
    if (SHMEMI_LIKELY(q))
        return q;
    pthread_mutex_lock(&open_lock);
    struct sdma_queue **t = table(kind);
    q = t[pe];
    if (!q) {
        char label[48];
        snprintf(label, sizeof(label), "%s to PE %d", what, pe);
        struct sdma_queue_attr a;
        if (given) {
            a = *given;
        } else {
            sdma_queue_attr_init(&a);
            a.ring_bytes = ring;
            a.label = label;
            a.stored = shmemi_engine_stored;
            a.stored_arg = (void *)(intptr_t)pe;
            /* Kernels may open plan gates: nothing wakes the engine for them.
             * Device code that comes later marks the queue then
             * (shmemi_poll_queues_gpu_writes). */
            if (kind == Q_POLL && shmemi_gpu_may_store())
                a.flags |= SDMA_QUEUE_GPU_WRITES;
        }
        int rc = sdma_queue_open_attr(shmemi_engine(), &a, &q);
        if (rc)
            shmemi_fatal("cannot open the %s copy-engine queue to PE %d: %s (%s)", what, pe,
                         sdma_strerror(rc), sdma_last_error());
        /* Release: the queue is fully set up before another thread sees it. */
        __atomic_store_n(&t[pe], q, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&open_lock);
    return q;
}

struct sdma_queue *shmemi_rma_queue(int pe) {
    return open_queue(Q_RMA, pe, shmemi.cfg.ENGINE_RING_SIZE, "rma", NULL);
}

struct sdma_queue *shmemi_rma_queue_peek(int pe) {
    return peek(Q_RMA, pe);
}

struct sdma_queue *shmemi_poll_queue(int pe) {
    size_t ring = shmemi.cfg.PLAN_RING_SIZE;
    if (ring < 4096 || (ring & (ring - 1)))
        shmemi_fatal("SHMEM_PLAN_RING_SIZE=%zu must be a power of two of at least 4096", ring);
    return open_queue(Q_POLL, pe, ring, "plans", NULL);
}

struct sdma_queue *shmemi_device_queue_open(int pe, const struct sdma_queue_attr *a) {
    return open_queue(Q_DEVICE, pe, 0, "device-driven", a);
}

static void close_kind(int kind) {
    pthread_mutex_lock(&open_lock);
    struct sdma_queue **t = queues[kind];
    for (int pe = 0; t && pe < shmemi.n_pes; pe++)
        if (t[pe])
            sdma_queue_close(t[pe]);
    free(t);
    queues[kind] = NULL;
    pthread_mutex_unlock(&open_lock);
}

void shmemi_poll_queues_close(void) { close_kind(Q_POLL); }

void shmemi_poll_queues_gpu_writes(void) {
    pthread_mutex_lock(&open_lock);
    for (int pe = 0; queues[Q_POLL] && pe < shmemi.n_pes; pe++)
        if (queues[Q_POLL][pe])
            sdma_queue_gpu_writes(queues[Q_POLL][pe]);
    pthread_mutex_unlock(&open_lock);
}

/* Kernels are done when finalize runs: let the engine take what they queued. */
static void drain_device_queues(void) {
    for (int pe = 0; queues[Q_DEVICE] && pe < shmemi.n_pes; pe++) {
        struct sdma_queue *q = queues[Q_DEVICE][pe];
        if (!q)
            continue;
        struct timespec t0, t;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        while (!sdma_queue_idle(q)) {
            sdma_engine_progress(shmemi_engine());
            clock_gettime(CLOCK_MONOTONIC, &t);
            if ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) * 1e-9 >
                shmemi.cfg.ENGINE_TIMEOUT) {
                shmemi_warn("the device-driven queue to PE %d still holds packets at finalize", pe);
                break;
            }
            sched_yield();
        }
    }
}

void shmemi_queues_fini(void) {
    drain_device_queues();
    close_kind(Q_DEVICE);
    for (int pe = 0; queues[Q_RMA] && pe < shmemi.n_pes; pe++)
        if (queues[Q_RMA][pe])
            sdma_queue_quiet(queues[Q_RMA][pe], shmemi.cfg.ENGINE_TIMEOUT);
    close_kind(Q_RMA);
    close_kind(Q_POLL);
}
