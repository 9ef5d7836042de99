/* The core's copy engine: non-blocking transfers that proceed beside the
 * caller.
 *
 * One engine per process; its queues belong to shmem/queues.c. A context
 * counts, per peer, the operations it queued on that peer's RMA queue
 * (`issued`) and the count the last finished quiet completed (`done`); quiet
 * fences each queue with work outstanding and then raises `done` to the
 * count it saw before the fence. A thread that quiets while another is
 * already waiting on the same queue therefore still waits for its own
 * transfers. Ordinary RMA never shares a queue with chains that POLL (plans
 * use queues of their own), so quiet never waits on a gate. */
#define _GNU_SOURCE
#include "shmem/engine.h"

#include "sdma/sdma.h"

#include <sched.h>
#include <stdlib.h>

static struct sdma_engine *engine;
int shmemi_engine_offload_on; /* shmemi_engine_offload() */
static uint64_t *rma_idle_at; /* per peer: write index of the last quiet_all's fence */
static const char *engine_name = "none";

/* Engine work of a context, per peer. `used` only grows: the peers whose
 * counts quiet looks at. */
struct shmemi_ctx_pending {
    uint64_t *used;     /* bitmap */
    uint64_t *deferred; /* bitmap: copies queued without a doorbell (a batch session) */
    uint64_t *issued;   /* operations queued for the context */
    uint64_t *done;     /* operations a finished quiet completed */
};

/* Every address the engine is handed must be mapped for its GPU (a hardware engine runs in
 * the GPU's virtual memory): each PE's host heap and data segment as mapped in this process
 * (registered once here, until finalize), and on a device heap every PE's heap as the GPU
 * runtime mapped it for this PE's GPU. Other memory (a caller's private buffer) is checked
 * per transfer: one the engine does not reach is copied by the caller. */
static void map_symmetric(void) {
    const char *what = "host heap";
    int rc = 0, pe;
    for (pe = 0; pe < shmemi.n_pes && !rc; pe++) {
        if (!shmemi.peers[pe].heap)
            continue; /* a PE the fabric reaches: nothing of it is mapped here */
        rc = sdma_engine_map(engine, shmemi.peers[pe].heap, shmemi.heap_size);
        if (!rc && shmemi.data_size && shmemi.peers[pe].data) {
            what = "global and static variables";
            rc = sdma_engine_map(engine, shmemi.peers[pe].data, shmemi.data_size);
        }
        if (!rc && shmemi.heap_kind == SHMEMI_HEAP_DEVICE && shmemi.peers[pe].dev) {
            what = "device heap";
            rc = sdma_engine_declare(engine, shmemi.peers[pe].dev, shmemi.dev_size, 1);
        }
    }
    if (rc)
        shmemi_fatal("SHMEM_COPY_ENGINE=%s: cannot map PE %d's %s for the copy engine (%s): %s",
                     shmemi.cfg.COPY_ENGINE, pe - 1, what, sdma_engine_target(engine),
                     sdma_last_error());
}

/* SHMEM_NBI_ENGINE. The soft engine's thread copies on a CPU: handing it a
 * transfer gains only where a CPU is free for it. Where every CPU the PE may
 * run on has a PE of the job (2 PEs on 2 cores), the thread takes its core
 * from a PE's computation and every hand-off costs a scheduling round: the
 * caller copies at once instead, and the _nbi put is never slower than the
 * blocking one. A hardware engine costs no CPU: always. */
static void choose_offload(const char *kind) {
    const char *m = shmemi.cfg.NBI_ENGINE;
    if (!strcmp(m, "always") || !strcmp(m, "never")) {
        shmemi_engine_offload_on = !strcmp(m, "always");
        return;
    }
    if (strcmp(kind, "soft")) { /* hardware, or its proxy */
        shmemi_engine_offload_on = 1;
        return;
    }
    cpu_set_t set;
    int cpus = sched_getaffinity(0, sizeof(set), &set) ? 1 : CPU_COUNT(&set);
    shmemi_engine_offload_on = cpus > shmemi.boot->local_size;
}

int shmemi_engine_init(void) {
    const char *kind = shmemi.cfg.COPY_ENGINE;
    if (!strcmp(kind, "none"))
        return 0;
#ifdef SHMEM_GPU_CUDA
    /* A device heap is reached by NVIDIA's copy engines, not by host threads. */
    if (!strcmp(kind, "auto") && shmemi.heap_kind == SHMEMI_HEAP_DEVICE)
        kind = "cuda";
#endif
    /* A host heap (every CPU build) gets the soft engine unless a hardware one is asked for:
     * auto never picks an engine whose GPU would need mappings nobody asked to make. */
    if (!strcmp(kind, "auto") && shmemi.heap_kind != SHMEMI_HEAP_DEVICE)
        kind = "soft";
    struct sdma_engine_config cfg = {0};
    cfg.stream_waits = shmemi.cfg.CUDA_STREAM_WAITS;
    cfg.poll_timeout_s = shmemi.cfg.ENGINE_TIMEOUT;
    cfg.ring_setting = "SHMEM_ENGINE_RING_SIZE";
    cfg.max_copy_bytes = shmemi.cfg.ENGINE_COPY_CHUNK;
    cfg.burst_nop = shmemi.cfg.ENGINE_BURST_NOP;
    /* The soft engine carries packets to PEs of other nodes through the fabric. */
    cfg.foreign = shmemi_fabric_foreign();
    /* A POLL waits on words of this PE's memory that peers and its own threads store
     * (plan gates and fences, wait flags). Where a CPU is free for the engine's thread, it
     * sleeps on this PE's wake word, where those writers look for sleepers (shmem/wait.c),
     * and runs the chains as soon as they may go. Where none is, waking it would take a
     * PE's core (and, preempted while it holds the queues, stall the PEs that wait): the
     * PE's own waits run the chains instead. Peers of other nodes store through the
     * fabric, which wakes no one: with such peers the thread re-checks on a timer. */
    choose_offload(kind);
    if (shmemi_engine_offload_on && !cfg.foreign) {
        struct shmemi_wake *w = &shmemi_ctl_of(shmemi.my_pe)->wake;
        cfg.wake_seq = &w->seq;
        cfg.wake_sleepers = &w->any; /* it waits for any store */
        cfg.wake_shared = 1;
        cfg.wake_fence = shmemi_wake_fence;
    } else if (!shmemi_engine_offload_on) {
        cfg.polls_by_callers = 1;
    }
    if (!strcmp(shmemi.cfg.ENGINE_COPY_2D, "large"))
        cfg.copy_2d = SDMA_COPY_2D_LARGE;
    else if (!strcmp(shmemi.cfg.ENGINE_COPY_2D, "sw13"))
        cfg.copy_2d = SDMA_COPY_2D_SW13;
    /* hsakmt: this PE's GPU. In a GPU build the one its heap is on, by PCI location (KFD
     * numbers nodes otherwise than the runtime numbers devices); else the same spread as GPU
     * builds (SHMEM_DEVICE_ID, or the local rank) over the visible GPUs. Host memory goes
     * over PCIe-optimised queues, GPU memory over XGMI ones. */
    cfg.gpu = shmemi.cfg.DEVICE_ID >= 0 ? (int)shmemi.cfg.DEVICE_ID : shmemi.boot->local_rank;
    cfg.queue_link = shmemi.heap_kind == SHMEMI_HEAP_DEVICE ? SDMA_LINK_AUTO : SDMA_LINK_PCIE;
#ifdef SHMEM_GPU_HIP
    char bus[32];
    if (shmemi.heap_kind == SHMEMI_HEAP_DEVICE && !shmemi_gpu_bus_id(bus, sizeof(bus)) &&
        sdma_config_set_pci(&cfg, bus))
        shmemi_debug("GPU PCI location \"%s\" not understood: the copy engine takes GPU %d of "
                     "the visible ones",
                     bus, cfg.gpu);
#endif
    char err[512] = "";
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
    map_symmetric();
    size_t ring = shmemi.cfg.ENGINE_RING_SIZE;
    if (ring < 4096 || (ring & (ring - 1)))
        shmemi_fatal("SHMEM_ENGINE_RING_SIZE=%zu must be a power of two of at least 4096", ring);
    rma_idle_at = calloc((size_t)shmemi.n_pes, sizeof(*rma_idle_at));
    if (!rma_idle_at)
        return -1;
    shmemi_debug("copy engine: %s; large non-blocking transfers %s", sdma_engine_target(engine),
                 shmemi_engine_offload_on ? "go to it" : "are copied by the caller");
    return 0;
}

void shmemi_engine_fini(void) {
    if (!engine)
        return;
    shmemi_queues_fini();
    free(rma_idle_at);
    rma_idle_at = NULL;
    sdma_engine_close(engine);
    engine = NULL;
    engine_name = "none";
}

static struct shmemi_ctx_pending *pending(struct shmemi_ctx *c) {
    struct shmemi_ctx_pending *p = __atomic_load_n(&c->pending, __ATOMIC_ACQUIRE);
    if (SHMEMI_LIKELY(p))
        return p;
    size_t n = (size_t)shmemi.n_pes, words = (n + 63) / 64;
    p = calloc(1, sizeof(*p) + (2 * words + 2 * n) * sizeof(uint64_t));
    if (!p)
        shmemi_fatal("out of memory");
    p->used = (uint64_t *)(p + 1);
    p->deferred = p->used + words;
    p->issued = p->deferred + words;
    p->done = p->issued + n;
    struct shmemi_ctx_pending *expected = NULL;
    /* Release: the arrays are zeroed before another thread sees them. */
    if (!__atomic_compare_exchange_n(&c->pending, &expected, p, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE)) {
        free(p);
        return expected;
    }
    return p;
}

void shmemi_engine_ctx_free(struct shmemi_ctx *c) {
    free(c->pending);
    c->pending = NULL;
}

void shmemi_engine_note(struct shmemi_ctx *c, int pe) {
    struct shmemi_ctx_pending *p = pending(c);
    /* Release: the operation is in the queue before a quiet that reads this
     * count (acquire) fences the queue, so the fence lies behind it. */
    __atomic_fetch_add(&p->issued[pe], 1, __ATOMIC_RELEASE);
    uint64_t bit = 1ull << (pe % 64);
    if (!(__atomic_load_n(&p->used[pe / 64], __ATOMIC_RELAXED) & bit))
        __atomic_fetch_or(&p->used[pe / 64], bit, __ATOMIC_RELEASE);
}

static void queue_failed(int pe, int rc, const char *fn) {
    char msg[512] = "";
    struct sdma_queue *q = shmemi_rma_queue_peek(pe);
    if (q && sdma_queue_error(q, msg, sizeof(msg)))
        shmemi_fatal("%s: copy engine queue to PE %d failed: %s", fn, pe, msg);
    shmemi_fatal("%s: copy engine transfer to PE %d failed: %s (%s)", fn, pe, sdma_strerror(rc),
                 sdma_last_error());
}

/* Inside a batch session (shmem_ctx_session_start with SHMEM_CTX_SESSION_BATCH) a
 * context's copies go into the ring without the doorbell: one doorbell (a futex wake of
 * the soft engine's thread, an MMIO write on hardware queues) starts a whole batch, at
 * the session's end or at the first quiet, whichever comes first. Completion and
 * ordering do not change: quiet's fence rings the doorbell before it waits, and the
 * engine finds a ring's new packets by itself in time. */
int shmemi_engine_copy(struct shmemi_ctx *c, void *dst, const void *src, size_t bytes, int pe,
                       const char *fn) {
    if (!engine)
        return 0;
    struct sdma_queue *q = shmemi_rma_queue(pe);
    int batch = (__atomic_load_n(&c->session, __ATOMIC_RELAXED) & SHMEM_CTX_SESSION_BATCH) != 0;
    int rc = sdma_copy_flags(q, dst, src, bytes, batch ? SDMA_SUBMIT_NO_KICK : 0);
    /* Ring full, or memory the engine's GPU does not map: the caller copies itself. */
    if (rc == SDMA_ERR_NO_RESOURCE || rc == SDMA_ERR_UNMAPPED)
        return 0;
    if (rc)
        queue_failed(pe, rc, fn);
    shmemi_engine_note(c, pe);
    if (batch) {
        struct shmemi_ctx_pending *p = pending(c);
        __atomic_fetch_or(&p->deferred[pe / 64], 1ull << (pe % 64), __ATOMIC_RELAXED);
    }
    return 1;
}

void shmemi_engine_session_flush(struct shmemi_ctx *c) {
    struct shmemi_ctx_pending *p = __atomic_load_n(&c->pending, __ATOMIC_ACQUIRE);
    for (int w = 0; p && w < (shmemi.n_pes + 63) / 64; w++) {
        uint64_t bits = __atomic_exchange_n(&p->deferred[w], 0, __ATOMIC_ACQ_REL);
        while (bits) {
            struct sdma_queue *q = shmemi_rma_queue_peek(w * 64 + __builtin_ctzll(bits));
            if (q)
                sdma_queue_kick(q);
            bits &= bits - 1;
        }
    }
}

int shmemi_engine_copy_signal(struct shmemi_ctx *c, void *dst, const void *src, size_t bytes,
                              const struct shmemi_route *sig, uint64_t signal, int sig_op,
                              const char *fn) {
    if (!engine)
        return 0;
    int pe = sig->pe;
    struct sdma_queue *q = shmemi_rma_queue(pe);
    /* The copy and the signal go on one queue: the engine completes the copy
     * before it executes the atomic that publishes it. Copy and signal are
     * one reservation each; a full ring between them would leave the copy
     * queued without its signal, so on failure the signal is applied by its
     * path after a quiet. */
    int rc = bytes ? sdma_copy(q, dst, src, bytes) : 0;
    /* Ring full, or memory the engine's GPU does not map: the caller copies itself. */
    if (rc == SDMA_ERR_NO_RESOURCE || rc == SDMA_ERR_UNMAPPED)
        return 0;
    if (rc)
        queue_failed(pe, rc, fn);
    rc =
        sdma_atomic(q, sig->addr,
                    sig_op == SHMEM_SIGNAL_SET ? SDMA_ATOMIC_SWAP64 : SDMA_ATOMIC_ADD64, signal, 0);
    /* Also when the engine cannot apply it (an ADD on host memory without PCIe atomics). */
    if (rc == SDMA_ERR_NO_RESOURCE || rc == SDMA_ERR_UNSUPPORTED || rc == SDMA_ERR_UNMAPPED) {
        rc = sdma_queue_quiet(q, shmemi.cfg.ENGINE_TIMEOUT);
        if (rc)
            queue_failed(pe, rc, fn);
        sig->path->signal(c, sig, signal, sig_op, 0, fn);
        return 1;
    }
    if (rc)
        queue_failed(pe, rc, fn);
    shmemi_engine_note(c, pe);
    return 1;
}

/* Complete the engine work of c to pe: everything c queued there before this
 * call (its count, read first) is done once a fence queued after it is. */
static void quiet_peer(struct shmemi_ctx_pending *p, int pe, const char *fn) {
    uint64_t want = __atomic_load_n(&p->issued[pe], __ATOMIC_ACQUIRE);
    uint64_t done = __atomic_load_n(&p->done[pe], __ATOMIC_ACQUIRE);
    if (done >= want)
        return;
    int rc = sdma_queue_quiet(shmemi_rma_queue(pe), shmemi.cfg.ENGINE_TIMEOUT);
    if (rc)
        queue_failed(pe, rc, fn);
    /* Raise done to want (others may have raised it further meanwhile).
     * Release: a thread that sees the count sees the transfers done. */
    while (done < want && !__atomic_compare_exchange_n(&p->done[pe], &done, want, 1,
                                                       __ATOMIC_RELEASE, __ATOMIC_ACQUIRE))
        ;
}

void shmemi_engine_quiet(struct shmemi_ctx *c, int pe, const char *fn) {
    struct shmemi_ctx_pending *p = __atomic_load_n(&c->pending, __ATOMIC_ACQUIRE);
    if (!p)
        return;
    if (pe >= 0) {
        quiet_peer(p, pe, fn);
        return;
    }
    for (int w = 0; w < (shmemi.n_pes + 63) / 64; w++) {
        uint64_t bits = __atomic_load_n(&p->used[w], __ATOMIC_ACQUIRE);
        while (bits) {
            quiet_peer(p, w * 64 + __builtin_ctzll(bits), fn);
            bits &= bits - 1;
        }
    }
}

void shmemi_engine_quiet_all(const char *fn) {
    for (int pe = 0; engine && pe < shmemi.n_pes; pe++) {
        struct sdma_queue *q = shmemi_rma_queue_peek(pe);
        /* A queue whose write index still sits on its last quiet's fence is idle. */
        if (!q || __atomic_load_n(sdma_queue_ring(q)->wptr, __ATOMIC_ACQUIRE) ==
                      __atomic_load_n(&rma_idle_at[pe], __ATOMIC_RELAXED))
            continue;
        uint64_t w = __atomic_load_n(sdma_queue_ring(q)->wptr, __ATOMIC_ACQUIRE);
        int rc = sdma_queue_quiet(q, shmemi.cfg.ENGINE_TIMEOUT);
        if (rc)
            queue_failed(pe, rc, fn);
        /* Everything up to w and the fence after it completed. */
        if (w + 4 * SDMA_FENCE_DW == __atomic_load_n(sdma_queue_ring(q)->wptr, __ATOMIC_ACQUIRE))
            __atomic_store_n(&rma_idle_at[pe], w + 4 * SDMA_FENCE_DW, __ATOMIC_RELAXED);
    }
}

int shmemi_engine_idle(void) {
    for (int pe = 0; engine && pe < shmemi.n_pes; pe++) {
        struct sdma_queue *q = shmemi_rma_queue_peek(pe);
        if (q && !sdma_queue_idle(q))
            return 0;
    }
    return 1;
}

const char *shmemi_copy_engine_name(void) { return engine_name; }
/* The soft engine's thread runs its packets on the host and calls back after them
 * (shmemi_engine_stored): its stores wake sleepers. A hardware engine's do not. */
int shmemi_engine_wakes(void) { return !engine || !strcmp(engine_name, "soft"); }

void shmemi_engine_stored(void *arg) {
    int pe = (int)(intptr_t)arg;
    /* The queue to pe copies into pe's memory (puts, signals, plan arrivals) and into this
     * PE's (gets, plan sent-words). */
    shmemi_wake(pe);
    if (pe != shmemi.my_pe)
        shmemi_wake(shmemi.my_pe);
}
int shmemi_engine_reaches_device(void) {
    return engine && (sdma_engine_caps(engine) & SDMA_CAP_DEVICE_MEMORY);
}
struct sdma_engine *shmemi_engine(void) {
    return engine;
}

const char *shmemx_copy_engine_name(void) { return shmemi_copy_engine_name(); }
