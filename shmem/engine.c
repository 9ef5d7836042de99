/* The core's copy engine: non-blocking transfers that proceed beside the
 * caller.
 *
 * One RMA queue per peer, opened on first use. A context remembers which
 * queues it used since its last quiet (one bit per peer); quiet fences each of
 * those queues and waits for the fence. Ordinary RMA never shares a queue with
 * chains that POLL (plans use queues of their own), so quiet never waits on a
 * gate. */
#include "shmem/engine.h"

#include "sdma/sdma.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static struct sdma_engine *engine;
static struct sdma_queue **rma_q; /* per peer, NULL until first use */
static struct sdma_queue **dev_q; /* per peer: device-driven queues (GPU builds) */
static uint64_t *rma_idle_at;     /* per peer: write index of the last quiet_all's fence */
static pthread_mutex_t open_lock = PTHREAD_MUTEX_INITIALIZER;
static const char *engine_name = "none";

/* Contexts' dirty bits: a bitmap of peers per context, allocated lazily. */
struct ctx_dirty {
    uint64_t *bits;
};

int shmemi_engine_init(void) {
    const char *kind = shmemi.cfg.COPY_ENGINE;
    if (!strcmp(kind, "none"))
        return 0;
#ifdef SHMEM_GPU_CUDA
    /* A device heap is reached by NVIDIA's copy engines, not by host threads. */
    if (!strcmp(kind, "auto") && shmemi.heap_kind == SHMEMI_HEAP_DEVICE)
        kind = "cuda";
#endif
    struct sdma_engine_config cfg = {0};
    cfg.stream_waits = shmemi.cfg.CUDA_STREAM_WAITS;
    cfg.poll_timeout_s = shmemi.cfg.ENGINE_TIMEOUT;
    cfg.ring_setting = "SHMEM_ENGINE_RING_SIZE";
    if (!strcmp(shmemi.cfg.ENGINE_COPY_2D, "large"))
        cfg.copy_2d = SDMA_COPY_2D_LARGE;
    else if (!strcmp(shmemi.cfg.ENGINE_COPY_2D, "sw13"))
        cfg.copy_2d = SDMA_COPY_2D_SW13;
    char err[256] = "";
    int rc = sdma_engine_open(kind, &cfg, &engine, err, sizeof(err));
    if (rc) {
        if (!strcmp(kind, "auto")) {
            /* auto: run without an engine rather than fail. */
            shmemi_debug("no copy engine (%s): non-blocking transfers complete at once", err);
            return 0;
        }
        shmemi_fatal("SHMEM_COPY_ENGINE=%s cannot be used: %s", kind, err);
    }
    engine_name = sdma_engine_name(engine);
    size_t ring = shmemi.cfg.ENGINE_RING_SIZE;
    if (ring < 4096 || (ring & (ring - 1)))
        shmemi_fatal("SHMEM_ENGINE_RING_SIZE=%zu must be a power of two of at least 4096", ring);
    rma_q = calloc((size_t)shmemi.n_pes, sizeof(*rma_q));
    rma_idle_at = calloc((size_t)shmemi.n_pes, sizeof(*rma_idle_at));
    if (!rma_q || !rma_idle_at)
        return -1;
    shmemi_debug("copy engine: %s", engine_name);
    return 0;
}

struct sdma_queue *shmemi_engine_device_queue(int pe, const struct sdma_queue_attr *a) {
    if (!dev_q && !(dev_q = calloc((size_t)shmemi.n_pes, sizeof(*dev_q))))
        shmemi_fatal("out of memory");
    int rc = sdma_queue_open_attr(engine, a, &dev_q[pe]);
    if (rc)
        shmemi_fatal("cannot open the device-driven copy-engine queue to PE %d: %s (%s)", pe,
                     sdma_strerror(rc), sdma_last_error());
    return dev_q[pe];
}

/* Kernels are done when finalize runs: let the engine take what they queued. */
static void close_device_queues(void) {
    for (int pe = 0; dev_q && pe < shmemi.n_pes; pe++) {
        struct sdma_queue *q = dev_q[pe];
        if (!q)
            continue;
        struct timespec t0, t;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        while (!sdma_queue_idle(q)) {
            sdma_engine_progress(engine);
            clock_gettime(CLOCK_MONOTONIC, &t);
            if ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) * 1e-9 >
                shmemi.cfg.ENGINE_TIMEOUT) {
                shmemi_warn("the device-driven queue to PE %d still holds packets at finalize",
                            pe);
                break;
            }
            sched_yield();
        }
        sdma_queue_close(q);
    }
    free(dev_q);
    dev_q = NULL;
}

void shmemi_engine_fini(void) {
    if (!engine)
        return;
    close_device_queues();
    for (int pe = 0; pe < shmemi.n_pes; pe++)
        if (rma_q[pe]) {
            sdma_queue_quiet(rma_q[pe], shmemi.cfg.ENGINE_TIMEOUT);
            sdma_queue_close(rma_q[pe]);
        }
    free(rma_q);
    rma_q = NULL;
    free(rma_idle_at);
    rma_idle_at = NULL;
    sdma_engine_close(engine);
    engine = NULL;
    engine_name = "none";
}

struct sdma_queue *shmemi_rma_queue(int pe) {
    struct sdma_queue *q = __atomic_load_n(&rma_q[pe], __ATOMIC_ACQUIRE);
    if (SHMEMI_LIKELY(q))
        return q;
    pthread_mutex_lock(&open_lock);
    q = rma_q[pe];
    if (!q) {
        char label[32];
        snprintf(label, sizeof(label), "rma to PE %d", pe);
        int rc = sdma_queue_open(engine, shmemi.cfg.ENGINE_RING_SIZE, label, &q);
        if (rc)
            shmemi_fatal("cannot open a copy-engine queue to PE %d: %s (%s)", pe,
                         sdma_strerror(rc), sdma_last_error());
        /* Release: the queue is fully set up before another thread sees it. */
        __atomic_store_n(&rma_q[pe], q, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&open_lock);
    return q;
}

static uint64_t *dirty_bits(struct shmemi_ctx *c) {
    uint64_t *b = __atomic_load_n(&c->dirty, __ATOMIC_ACQUIRE);
    if (SHMEMI_LIKELY(b))
        return b;
    uint64_t *n = calloc(((size_t)shmemi.n_pes + 63) / 64, sizeof(uint64_t));
    if (!n)
        shmemi_fatal("out of memory");
    uint64_t *expected = NULL;
    if (!__atomic_compare_exchange_n(&c->dirty, &expected, n, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE)) {
        free(n);
        return expected;
    }
    return n;
}

void shmemi_engine_note(struct shmemi_ctx *c, int pe) {
    uint64_t *b = dirty_bits(c);
    __atomic_fetch_or(&b[pe / 64], 1ull << (pe % 64), __ATOMIC_RELAXED);
}

static void queue_failed(int pe, int rc) {
    char msg[512] = "";
    if (rma_q[pe] && sdma_queue_error(rma_q[pe], msg, sizeof(msg)))
        shmemi_fatal("copy engine queue to PE %d failed: %s", pe, msg);
    shmemi_fatal("copy engine transfer to PE %d failed: %s (%s)", pe, sdma_strerror(rc),
                 sdma_last_error());
}

int shmemi_engine_copy(struct shmemi_ctx *c, void *dst, const void *src, size_t bytes, int pe) {
    if (!engine)
        return 0;
    struct sdma_queue *q = shmemi_rma_queue(pe);
    int rc = sdma_copy(q, dst, src, bytes);
    if (rc == SDMA_ERR_NO_RESOURCE)
        return 0; /* ring full: the caller copies itself */
    if (rc)
        queue_failed(pe, rc);
    shmemi_engine_note(c, pe);
    return 1;
}

int shmemi_engine_copy_signal(struct shmemi_ctx *c, void *dst, const void *src, size_t bytes,
                              uint64_t *sig, int sig_device, uint64_t signal, int sig_op,
                              int pe) {
    if (!engine)
        return 0;
    struct sdma_queue *q = shmemi_rma_queue(pe);
    /* The copy and the signal go on one queue: the engine completes the copy
     * before it executes the atomic that publishes it. Copy and signal are
     * one reservation each; a full ring between them would leave the copy
     * queued without its signal, so on failure the signal is applied here
     * after a quiet. */
    int rc = sdma_copy(q, dst, src, bytes);
    if (rc == SDMA_ERR_NO_RESOURCE)
        return 0;
    if (rc)
        queue_failed(pe, rc);
    rc = sdma_atomic(q, sig, sig_op == SHMEM_SIGNAL_SET ? SDMA_ATOMIC_SWAP64 : SDMA_ATOMIC_ADD64,
                     signal, 0);
    if (rc == SDMA_ERR_NO_RESOURCE) {
        rc = sdma_queue_quiet(q, shmemi.cfg.ENGINE_TIMEOUT);
        if (rc)
            queue_failed(pe, rc);
        if (sig_device)
            shmemi.dev->amo(sig, sig_op == SHMEM_SIGNAL_SET ? SHMEMI_AMO_SET : SHMEMI_AMO_ADD,
                            sizeof(*sig), signal, 0, NULL, 0, "shmem_put_signal_nbi");
        else if (sig_op == SHMEM_SIGNAL_SET)
            __atomic_store_n(sig, signal, __ATOMIC_RELEASE);
        else
            __atomic_fetch_add(sig, signal, __ATOMIC_RELEASE);
        return 1;
    }
    if (rc)
        queue_failed(pe, rc);
    shmemi_engine_note(c, pe);
    return 1;
}

void shmemi_engine_quiet(struct shmemi_ctx *c, int pe) {
    uint64_t *b = __atomic_load_n(&c->dirty, __ATOMIC_ACQUIRE);
    if (!b)
        return;
    int lo = pe < 0 ? 0 : pe, hi = pe < 0 ? shmemi.n_pes : pe + 1;
    for (int w = lo / 64; w <= (hi - 1) / 64; w++) {
        uint64_t mask = ~0ull;
        if (pe >= 0)
            mask = 1ull << (pe % 64);
        uint64_t bits = __atomic_fetch_and(&b[w], ~mask, __ATOMIC_ACQ_REL) & mask;
        while (bits) {
            int p = w * 64 + __builtin_ctzll(bits);
            bits &= bits - 1;
            int rc = sdma_queue_quiet(rma_q[p], shmemi.cfg.ENGINE_TIMEOUT);
            if (rc)
                queue_failed(p, rc);
        }
    }
}

void shmemi_engine_quiet_all(void) {
    for (int pe = 0; rma_q && pe < shmemi.n_pes; pe++) {
        struct sdma_queue *q = __atomic_load_n(&rma_q[pe], __ATOMIC_ACQUIRE);
        /* A queue whose write index still sits on its last quiet's fence is idle. */
        if (!q || __atomic_load_n(sdma_queue_ring(q)->wptr, __ATOMIC_ACQUIRE) ==
                      __atomic_load_n(&rma_idle_at[pe], __ATOMIC_RELAXED))
            continue;
        uint64_t w = __atomic_load_n(sdma_queue_ring(q)->wptr, __ATOMIC_ACQUIRE);
        int rc = sdma_queue_quiet(q, shmemi.cfg.ENGINE_TIMEOUT);
        if (rc)
            queue_failed(pe, rc);
        /* Everything up to w and the fence after it completed. */
        if (w + 4 * SDMA_FENCE_DW == __atomic_load_n(sdma_queue_ring(q)->wptr, __ATOMIC_ACQUIRE))
            __atomic_store_n(&rma_idle_at[pe], w + 4 * SDMA_FENCE_DW, __ATOMIC_RELAXED);
    }
}

int shmemi_engine_idle(void) {
    for (int pe = 0; rma_q && pe < shmemi.n_pes; pe++) {
        struct sdma_queue *q = __atomic_load_n(&rma_q[pe], __ATOMIC_ACQUIRE);
        if (q && !sdma_queue_idle(q))
            return 0;
    }
    return 1;
}

const char *shmemi_copy_engine_name(void) { return engine_name; }
int shmemi_engine_reaches_device(void) {
    return engine && (sdma_engine_caps(engine) & SDMA_CAP_DEVICE_MEMORY);
}
struct sdma_engine *shmemi_engine(void) { return engine; }



const char *shmemx_copy_engine_name(void) { return shmemi_copy_engine_name(); }
