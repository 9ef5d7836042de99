/* The copy-engine layer's front: engine selection, queues, convenience operations,
 * completion marks and the status convention. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sched.h>
#include <string.h>
#include <time.h>

#include "sdma/sdma_internal.h"

static _Thread_local char tls_msg[512];

int sdma_seterr(int code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tls_msg, sizeof tls_msg, fmt, ap);
    va_end(ap);
    return code;
}

const char *sdma_last_error(void) { return tls_msg; }

const char *sdma_strerror(int code) {
    switch (code) {
    case SDMA_OK: return "success";
    case SDMA_ERR_INVAL: return "invalid argument";
    case SDMA_ERR_NO_RESOURCE: return "no resource (ring full)";
    case SDMA_ERR_NOMEM: return "out of memory";
    case SDMA_ERR_UNAVAILABLE: return "copy engine unavailable on this system";
    case SDMA_ERR_DISABLED: return "copy engine disabled";
    case SDMA_ERR_NOT_BUILT: return "copy engine not available in this build";
    case SDMA_ERR_TIMEOUT: return "timed out";
    case SDMA_ERR_QUEUE: return "queue in error state";
    case SDMA_ERR_UNSUPPORTED: return "operation not supported by this engine";
    case SDMA_ERR_SYSTEM: return "system or driver call failed";
    case SDMA_ERR_UNMAPPED: return "memory not mapped for the copy engine";
    default: return "unknown status";
    }
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void nap(unsigned *backoff_us) {
    struct timespec ts = {0, (long)*backoff_us * 1000};
    nanosleep(&ts, NULL);
    if (*backoff_us < 1000)
        *backoff_us *= 2;
}

/* ------------------------------------------------------------------ engines */

int sdma_config_set_pci(struct sdma_engine_config *cfg, const char *bus_id) {
    unsigned dom = 0, bus, dev, fn;
    char extra;
    if (!cfg || !bus_id)
        return SDMA_ERR_INVAL;
    if (sscanf(bus_id, "%x:%x:%x.%x%c", &dom, &bus, &dev, &fn, &extra) != 4) {
        dom = 0;
        if (sscanf(bus_id, "%x:%x.%x%c", &bus, &dev, &fn, &extra) != 3)
            return SDMA_ERR_INVAL;
    }
    if (bus > 0xFF || dev > 0x1F || fn > 7)
        return SDMA_ERR_INVAL;
    cfg->pci_domain = dom;
    cfg->pci_bdf = (bus << 8) | (dev << 3) | fn;
    cfg->pci_valid = 1;
    return SDMA_OK;
}

int sdma_engine_open(const char *kind, const struct sdma_engine_config *cfg,
                     struct sdma_engine **out, char *err, size_t errlen) {
    const struct sdma_engine_ops *ops = NULL;
    struct sdma_engine *e;
    char tmp[256];
    int rc;

    if (!err || errlen == 0) {
        err = tmp;
        errlen = sizeof tmp;
    }
    err[0] = '\0';
    if (!out)
        return SDMA_ERR_INVAL;
    if (!kind || !kind[0])
        kind = "auto";
    if (!strcmp(kind, "none")) {
        snprintf(err, errlen, "copy engine disabled (kind \"none\")");
        return SDMA_ERR_DISABLED;
    } else if (!strcmp(kind, "soft")) {
        ops = &sdma_soft_ops;
    } else if (!strcmp(kind, "hsakmt")) {
#ifdef SDMA_HAVE_HSAKMT
        ops = &sdma_hsakmt_ops;
#else
        snprintf(err, errlen,
                 "hsakmt: not available in this build (libhsakmt was not found "
                 "when it was configured)");
        return SDMA_ERR_NOT_BUILT;
#endif
    } else if (!strcmp(kind, "cuda")) {
#ifdef SDMA_HAVE_CUDA
        ops = &sdma_cuda_ops;
#else
        snprintf(err, errlen, "cuda: not available in this build (built without SHMEM_GPU=cuda)");
        return SDMA_ERR_NOT_BUILT;
#endif
    } else if (!strcmp(kind, "auto")) {
        /* hsakmt when it opens here (one open, no separate probe: the driver's topology is
         * process-wide state that only the real user should take), else soft. */
#ifdef SDMA_HAVE_HSAKMT
        ops = &sdma_hsakmt_ops;
#else
        ops = &sdma_soft_ops;
#endif
    } else {
        snprintf(err, errlen,
                 "unknown copy engine \"%s\" (expected auto, soft, hsakmt, cuda or "
                 "none)",
                 kind);
        return SDMA_ERR_INVAL;
    }

    e = calloc(1, sizeof *e);
    if (!e) {
        snprintf(err, errlen, "%s: out of memory", ops->name);
        return SDMA_ERR_NOMEM;
    }
    e->ops = ops;
    e->caps = ops->caps;
    e->host_atomics = 1;
    snprintf(e->target, sizeof e->target, "%s", ops->name);
    if (cfg)
        e->cfg = *cfg;
    if (e->cfg.poll_timeout_s <= 0)
        e->cfg.poll_timeout_s = 60.0;
    if (e->cfg.full_wait_s <= 0)
        e->cfg.full_wait_s = 10.0;
    if (e->cfg.max_copy_bytes == 0 || e->cfg.max_copy_bytes > SDMA_COPY_LINEAR_MAX)
        e->cfg.max_copy_bytes = SDMA_COPY_LINEAR_MAX;
    snprintf(e->ring_setting, sizeof e->ring_setting, "%s",
             e->cfg.ring_setting ? e->cfg.ring_setting : "the ring size (ring_bytes)");
    e->cfg.ring_setting = e->ring_setting;
    /* The soft and cuda engines decode both 2D forms; hardware engines resolve AUTO by
     * target in their open. */
    e->copy_2d = e->cfg.copy_2d == SDMA_COPY_2D_SW13 ? SDMA_COPY_2D_SW13 : SDMA_COPY_2D_LARGE;

    rc = ops->open(e, err, errlen);
#ifdef SDMA_HAVE_HSAKMT
    if (rc == SDMA_ERR_UNAVAILABLE && !strcmp(kind, "auto")) {
        e->ops = ops = &sdma_soft_ops;
        e->caps = ops->caps;
        e->host_atomics = 1;
        snprintf(e->target, sizeof e->target, "%s", ops->name);
        e->copy_2d = e->cfg.copy_2d == SDMA_COPY_2D_SW13 ? SDMA_COPY_2D_SW13 : SDMA_COPY_2D_LARGE;
        err[0] = '\0';
        rc = ops->open(e, err, errlen);
    }
#endif
    if (rc) {
        free(e);
        return rc;
    }
    *out = e;
    return SDMA_OK;
}

void sdma_engine_close(struct sdma_engine *e) {
    if (!e)
        return;
    e->ops->close(e);
    free(e);
}

int sdma_engine_block(struct sdma_engine *e, int (*done)(void *), void *arg, double timeout_s) {
    return e && e->ops->block ? e->ops->block(e, done, arg, timeout_s) : 0;
}

int sdma_engine_progress(struct sdma_engine *e) {
    if (!e)
        return 0;
    if (e->ops->progress)
        return e->ops->progress(e);
    /* A hardware engine runs by itself; its waiters look for faults now and then (a queue
     * that faulted stops, and the driver tells only when asked). */
    if (e->ops->health) {
        uint64_t t = (uint64_t)(now_s() * 1e6);
        if (t - __atomic_load_n(&e->health_at_us, __ATOMIC_RELAXED) > 1000) {
            __atomic_store_n(&e->health_at_us, t, __ATOMIC_RELAXED);
            e->ops->health(e);
        }
    }
    return 0;
}

int sdma_engine_copy_2d_format(const struct sdma_engine *e) {
    return e ? e->copy_2d : SDMA_COPY_2D_LARGE;
}

unsigned sdma_engine_caps(const struct sdma_engine *e) { return e ? e->caps : 0; }

const char *sdma_engine_target(const struct sdma_engine *e) { return e ? e->target : "none"; }

int sdma_engine_reaches(struct sdma_engine *e, const void *addr, size_t len) {
    if (!e || !addr)
        return 0;
    return !e->ops->classify || e->ops->classify(e, addr, len) != SDMA_MEM_UNREACHABLE;
}

int sdma_engine_check(struct sdma_engine *e) { return e && e->ops->health ? e->ops->health(e) : 0; }

const char *sdma_engine_name(const struct sdma_engine *e) { return e ? e->ops->name : "none"; }

int sdma_engine_map(struct sdma_engine *e, void *addr, size_t len) {
    if (!e || !addr)
        return SDMA_ERR_INVAL;
    return e->ops->map ? e->ops->map(e, addr, len) : SDMA_OK;
}

int sdma_engine_declare(struct sdma_engine *e, void *addr, size_t len, int device) {
    if (!e || !addr)
        return SDMA_ERR_INVAL;
    return e->ops->declare && len ? e->ops->declare(e, addr, len, device) : SDMA_OK;
}

int sdma_engine_unmap(struct sdma_engine *e, void *addr) {
    if (!e || !addr)
        return SDMA_ERR_INVAL;
    return e->ops->unmap ? e->ops->unmap(e, addr) : SDMA_OK;
}

int sdma_engine_import_dmabuf(struct sdma_engine *e, int fd, size_t len, void **addr) {
    if (!e || fd < 0 || !addr)
        return SDMA_ERR_INVAL;
    if (!e->ops->import_dmabuf)
        return sdma_seterr(SDMA_ERR_UNSUPPORTED, "%s: dma-buf import not supported", e->ops->name);
    return e->ops->import_dmabuf(e, fd, len, addr);
}

/* ------------------------------------------------------------------ queues */

void sdma_queue_attr_init(struct sdma_queue_attr *a) {
    memset(a, 0, sizeof *a);
    a->engine_id = -1;
}

int sdma_queue_open_attr(struct sdma_engine *e, const struct sdma_queue_attr *a,
                         struct sdma_queue **out) {
    struct sdma_queue *q;
    int rc;
    size_t rb;

    if (!e || !a || !out)
        return SDMA_ERR_INVAL;
    rb = a->ring_bytes ? a->ring_bytes : SDMA_RING_DEFAULT_BYTES;
    if ((a->flags & SDMA_QUEUE_TAGGED) && !(e->ops->caps & SDMA_CAP_TAGGED))
        return sdma_seterr(SDMA_ERR_UNSUPPORTED,
                           "%s: tagged queues are not supported (the "
                           "hardware reads a doorbell)",
                           e->ops->name);
    if (rb < 4096 || (rb & (rb - 1)))
        return sdma_seterr(SDMA_ERR_INVAL,
                           "sdma: ring size %zu is not a power of two >= 4096 "
                           "(%s)",
                           rb, e->ring_setting);
    q = aligned_alloc(64, (sizeof *q + 63) & ~(size_t)63);
    if (!q)
        return sdma_seterr(SDMA_ERR_NOMEM, "sdma: out of memory for a queue");
    memset(q, 0, sizeof *q);
    q->eng = e;
    q->flags = a->flags;
    q->seq_word = &q->words.seq;
    q->complete = a->complete;
    q->stored = a->stored;
    q->stored_arg = a->stored_arg;
    snprintf(q->label, sizeof q->label, "%s", a->label ? a->label : "sdma");
    rc = e->ops->queue_open(q, a);
    if (rc) {
        free(q);
        return rc;
    }
    if (e->cfg.burst_nop)
        q->ring.flags |= SDMA_RING_BURST_NOP;
    *out = q;
    return SDMA_OK;
}

int sdma_queue_open(struct sdma_engine *e, size_t ring_bytes, const char *label,
                    struct sdma_queue **out) {
    struct sdma_queue_attr a;
    sdma_queue_attr_init(&a);
    a.ring_bytes = ring_bytes;
    a.label = label;
    return sdma_queue_open_attr(e, &a, out);
}

void sdma_queue_close(struct sdma_queue *q) {
    if (!q)
        return;
    q->eng->ops->queue_close(q);
    free(q);
}

int sdma_queue_idle(const struct sdma_queue *q) {
    const struct sdma_ring *r = &q->ring;
    uint64_t rp = sdma_load_acquire_u64(r->rptr);
    if (q->flags & SDMA_QUEUE_TAGGED)
        return sdma_load_acquire_u32(&sdma_ring_at(r, rp)[SDMA_SLOT_DW - 1]) != sdma_slot_tag(rp);
    /* The write pointer, not the doorbell: a hardware doorbell is a register that the
     * host may not read back; producers store the write pointer first. */
    return rp == sdma_load_acquire_u64(r->wptr);
}

const char *sdma_queue_label(const struct sdma_queue *q) { return q->label; }

const struct sdma_ring *sdma_queue_ring(const struct sdma_queue *q) { return &q->ring; }

void sdma_queue_set_error(struct sdma_queue *q, const char *fmt, ...) {
    va_list ap;
    if (__atomic_load_n(&q->state, __ATOMIC_ACQUIRE) != SDMA_QSTATE_RUN)
        return;
    va_start(ap, fmt);
    vsnprintf(q->errmsg, sizeof q->errmsg, fmt, ap);
    va_end(ap);
    /* Release: the message is complete before anyone acquires the error state. */
    __atomic_store_n(&q->state, SDMA_QSTATE_ERROR, __ATOMIC_RELEASE);
}

int sdma_queue_error(const struct sdma_queue *q, char *msg, size_t len) {
    /* Acquire pairs with the release in sdma_queue_set_error: errmsg is complete. */
    if (__atomic_load_n(&q->state, __ATOMIC_ACQUIRE) == SDMA_QSTATE_RUN) {
        if (msg && len)
            msg[0] = '\0';
        return 0;
    }
    if (msg && len)
        snprintf(msg, len, "%s", q->errmsg);
    return 1;
}

static int queue_failed(const struct sdma_queue *q) {
    char m[512];
    if (!sdma_queue_error(q, m, sizeof m))
        return 0;
    sdma_seterr(SDMA_ERR_QUEUE, "%s", m);
    return 1;
}

void sdma_queue_kick(struct sdma_queue *q) {
    if (q->eng->ops->kick)
        q->eng->ops->kick(q);
}

void sdma_queue_gpu_writes(struct sdma_queue *q) {
    if ((q->flags | __atomic_fetch_or(&q->late_flags, SDMA_QUEUE_GPU_WRITES, __ATOMIC_RELEASE)) &
        SDMA_QUEUE_GPU_WRITES)
        return;
    /* The engine looks at its parked POLLs again, now on its timer. */
    sdma_queue_kick(q);
}

int sdma_queue_reserve(struct sdma_queue *q, size_t ndw, struct sdma_ring_slot *slot) {
    if (q && (q->flags & SDMA_QUEUE_TAGGED))
        return sdma_seterr(SDMA_ERR_INVAL,
                           "sdma: queue '%s' takes tagged slots from GPU "
                           "producers only",
                           q->label);
    if (!q || !slot || ndw == 0 || ndw > q->ring.size / 8)
        return SDMA_ERR_INVAL;
    return sdma_ring_reserve(&q->ring, (uint32_t)ndw, slot);
}

void sdma_queue_commit(struct sdma_queue *q, const struct sdma_ring_slot *slot) {
    sdma_ring_commit(&q->ring, slot);
    sdma_queue_kick(q);
}

void sdma_queue_commit_nops(struct sdma_queue *q, const struct sdma_ring_slot *slot) {
    sdma_ring_commit_nops(&q->ring, slot);
    sdma_queue_kick(q);
}

/* Reserve with a bounded wait on a full ring: give up once the engine has consumed
 * nothing for full_wait_s (while it makes progress, other producers may simply be
 * winning the space; that is not a stuck queue). */
static int reserve_wait(struct sdma_queue *q, size_t ndw, struct sdma_ring_slot *slot) {
    double t0 = 0;
    uint64_t seen = 0;
    unsigned backoff = 1, spins = 0;
    int rc;

    if (queue_failed(q))
        return SDMA_ERR_QUEUE;
    for (;;) {
        uint64_t rp;
        rc = sdma_queue_reserve(q, ndw, slot);
        if (rc != SDMA_ERR_NO_RESOURCE)
            break;
        if (queue_failed(q))
            return SDMA_ERR_QUEUE;
        sdma_queue_kick(q);
        if (++spins < 64) {
            sdma_spin_pause(spins);
            continue;
        }
        /* A stalled hardware queue may have faulted: ask the engine. */
        if (sdma_engine_check(q->eng) && queue_failed(q))
            return SDMA_ERR_QUEUE;
        rp = sdma_load_relaxed_u64(q->ring.rptr);
        if (t0 == 0 || rp != seen) {
            t0 = now_s();
            seen = rp;
            backoff = 1;
        } else if (now_s() - t0 > q->eng->cfg.full_wait_s)
            return sdma_seterr(
                SDMA_ERR_NO_RESOURCE,
                "sdma: queue '%s': ring of %llu bytes full and not drained for %.1f s; "
                "raise %s",
                q->label, (unsigned long long)q->ring.size, q->eng->cfg.full_wait_s,
                q->eng->ring_setting);
        if (!sdma_engine_progress(q->eng))
            nap(&backoff);
    }
    if (rc)
        return sdma_seterr(rc,
                           "sdma: queue '%s': cannot reserve %zu dwords in a ring of %llu "
                           "bytes",
                           q->label, ndw, (unsigned long long)q->ring.size);
    return SDMA_OK;
}

int sdma_queue_submit_flags(struct sdma_queue *q, const uint32_t *dw, size_t ndw, unsigned flags) {
    struct sdma_ring_slot s = {0};
    int rc;
    if (!q || !dw)
        return SDMA_ERR_INVAL;
    rc = reserve_wait(q, ndw, &s);
    if (rc)
        return rc;
    memcpy(s.dw, dw, ndw * 4);
    sdma_ring_commit(&q->ring, &s);
    if (!(flags & SDMA_SUBMIT_NO_KICK))
        sdma_queue_kick(q);
    return SDMA_OK;
}

int sdma_queue_submit(struct sdma_queue *q, const uint32_t *dw, size_t ndw) {
    return sdma_queue_submit_flags(q, dw, ndw, 0);
}

/* ------------------------------------------------------------------ operations */

#define PTR(p) ((uint64_t)(uintptr_t)(p))

/* SDMA_OK when the engine reaches [p, p+len) (*kind: SDMA_MEM_HOST or _DEVICE), else
 * SDMA_ERR_UNMAPPED with a message: nothing of the operation is queued. */
static int reach(struct sdma_queue *q, const void *p, uint64_t len, int *kind) {
    struct sdma_engine *e = q->eng;
    int k = SDMA_MEM_HOST;
    if (e->ops->classify && len)
        k = e->ops->classify(e, p, (size_t)len);
    if (kind)
        *kind = k;
    if (k != SDMA_MEM_UNREACHABLE)
        return SDMA_OK;
    return sdma_seterr(SDMA_ERR_UNMAPPED,
                       "%s: %p (+%llu bytes) is not mapped for the copy "
                       "engine (%s): map it first (sdma_engine_map)",
                       e->ops->name, p, (unsigned long long)len, e->target);
}

int sdma_copy(struct sdma_queue *q, void *dst, const void *src, size_t bytes) {
    return sdma_copy_flags(q, dst, src, bytes, 0);
}

int sdma_copy_flags(struct sdma_queue *q, void *dst, const void *src, size_t bytes,
                    unsigned flags) {
    uint32_t dw[SDMA_COPY_LINEAR_DW];
    uint64_t max;
    int rc;
    if (!q || (bytes && (!dst || !src)))
        return SDMA_ERR_INVAL;
    if (bytes && ((rc = reach(q, src, bytes, NULL)) || (rc = reach(q, dst, bytes, NULL))))
        return rc;
    max = q->eng->cfg.max_copy_bytes;
    while (bytes > 0) {
        uint32_t n = (uint32_t)(bytes > max ? max : bytes);
        sdma_pkt_copy_linear(dw, PTR(dst), PTR(src), n);
        rc = sdma_queue_submit_flags(q, dw, SDMA_COPY_LINEAR_DW, flags);
        if (rc)
            return rc;
        dst = (char *)dst + n;
        src = (const char *)src + n;
        bytes -= n;
    }
    return SDMA_OK;
}

/* 2D with the 13-dword format (packets.h: ROCr's rules): tiles of at most 16384 rows x 16384
 * elements, one element size for the whole window (tile edges are dword multiples, so each
 * tile keeps the bases' remainders); rows one by one when a pitch is not a dword multiple,
 * a row does not fit its pitch past the remainder, or a pitch is too wide. */
static int copy_2d_sw13(struct sdma_queue *q, char *dst, size_t dp, const char *src, size_t sp,
                        size_t w, size_t rows) {
    uint32_t dw[SDMA_COPY_2D_SW13_DW];
    size_t r, c, maxw;
    int rc;
    unsigned e = sdma_sw13_elem_log2(PTR(dst), (uint32_t)dp, PTR(src), (uint32_t)sp, (uint32_t)w);
    if ((dp & 3) || (sp & 3) || (PTR(dst) & 3) + w > dp || (PTR(src) & 3) + w > sp ||
        (sp >> e) > SDMA_SW13_MAX_PITCH || (dp >> e) > SDMA_SW13_MAX_PITCH) {
        for (r = 0; r < rows; r++)
            if ((rc = sdma_copy(q, dst + r * dp, src + r * sp, w)))
                return rc;
        return SDMA_OK;
    }
    maxw = (size_t)SDMA_SW13_MAX_RECT << e;
    for (r = 0; r < rows; r += SDMA_SW13_MAX_RECT) {
        size_t nr = rows - r < SDMA_SW13_MAX_RECT ? rows - r : SDMA_SW13_MAX_RECT;
        for (c = 0; c < w; c += maxw) {
            size_t nc = w - c < maxw ? w - c : maxw;
            sdma_pkt_copy_2d_sw13_elem(dw, PTR(dst + r * dp + c), (uint32_t)dp,
                                       PTR(src + r * sp + c), (uint32_t)sp, (uint32_t)nc,
                                       (uint32_t)nr, e);
            if ((rc = sdma_queue_submit(q, dw, SDMA_COPY_2D_SW13_DW)))
                return rc;
        }
    }
    return SDMA_OK;
}

int sdma_copy_2d(struct sdma_queue *q, void *dst, size_t dst_pitch, const void *src,
                 size_t src_pitch, size_t row_bytes, size_t rows) {
    uint32_t dw[SDMA_COPY_2D_DW];
    int rc;
    if (!q || !dst || !src)
        return SDMA_ERR_INVAL;
    if (row_bytes == 0 || rows == 0)
        return SDMA_OK;
    if (dst_pitch < row_bytes || src_pitch < row_bytes || dst_pitch > UINT32_MAX ||
        src_pitch > UINT32_MAX || row_bytes > UINT32_MAX || rows > UINT32_MAX)
        return sdma_seterr(SDMA_ERR_INVAL,
                           "sdma: 2D window %zux%zu with pitches %zu/%zu does "
                           "not fit 32-bit fields",
                           row_bytes, rows, dst_pitch, src_pitch);
    if ((rc = reach(q, src, (uint64_t)(rows - 1) * src_pitch + row_bytes, NULL)) ||
        (rc = reach(q, dst, (uint64_t)(rows - 1) * dst_pitch + row_bytes, NULL)))
        return rc;
    if (q->eng->copy_2d == SDMA_COPY_2D_SW13)
        return copy_2d_sw13(q, dst, dst_pitch, src, src_pitch, row_bytes, rows);
    sdma_pkt_copy_2d(dw, PTR(dst), (uint32_t)dst_pitch, PTR(src), (uint32_t)src_pitch,
                     (uint32_t)row_bytes, (uint32_t)rows);
    return sdma_queue_submit(q, dw, SDMA_COPY_2D_DW);
}

int sdma_poll(struct sdma_queue *q, const uint32_t *addr, uint32_t ref, uint32_t mask, int func) {
    uint32_t dw[SDMA_POLL_DW];
    int rc;
    if (!q || !addr || ((uintptr_t)addr & 3) || func < SDMA_POLL_ALWAYS || func > SDMA_POLL_GT)
        return SDMA_ERR_INVAL;
    if ((rc = reach(q, addr, 4, NULL)))
        return rc;
    sdma_pkt_poll(dw, PTR(addr), ref, mask, func, 10, SDMA_POLL_RETRY_FOREVER);
    return sdma_queue_submit(q, dw, SDMA_POLL_DW);
}

/* An ATOMIC on host memory crosses the GPU's link to the CPU as a PCIe AtomicOp. Without
 * them (KFD's io-link flag NoAtomics64bit), ROCr completes its signals with FENCEs instead
 * (amd_blit_sdma.cpp SubmitCommand: "On agent that does not support platform atomic, we
 * replace it with one or two fence packet(s)", the high word first): a SWAP can be written
 * that way; an ADD or a compare-swap cannot. */
static int atomic_as_fences(struct sdma_queue *q, void *addr, int op, uint64_t src) {
    uint32_t dw[2 * SDMA_FENCE_DW];
    size_t n = 0;
    int base = op & 0x1F;
    if (base != SDMA_ATOMIC_SWAP32)
        return sdma_seterr(SDMA_ERR_UNSUPPORTED,
                           "%s: an SDMA atomic (operation 0x%02x) on host "
                           "memory at %p needs PCIe 64-bit atomics, which "
                           "the link of %s lacks",
                           q->eng->ops->name, op, addr, q->eng->target);
    if (op & SDMA_ATOMIC_FLAG_64)
        n += sdma_pkt_fence(dw, PTR((uint32_t *)addr + 1), (uint32_t)(src >> 32));
    n += sdma_pkt_fence(dw + n, PTR(addr), (uint32_t)src);
    return sdma_queue_submit(q, dw, n);
}

int sdma_atomic(struct sdma_queue *q, void *addr, int op, uint64_t src, uint64_t cmp) {
    uint32_t dw[SDMA_ATOMIC_DW];
    int base = op & 0x1F, kind, rc;
    if (!q || !addr || (op & ~0x7F) ||
        (base != SDMA_ATOMIC_ADD32 && base != SDMA_ATOMIC_CMPSWAP32 &&
         base != SDMA_ATOMIC_SWAP32) ||
        ((uintptr_t)addr & ((op & SDMA_ATOMIC_FLAG_64) ? 7 : 3)))
        return SDMA_ERR_INVAL;
    if ((rc = reach(q, addr, (op & SDMA_ATOMIC_FLAG_64) ? 8 : 4, &kind)))
        return rc;
    if (kind == SDMA_MEM_HOST && !q->eng->host_atomics)
        return atomic_as_fences(q, addr, op, src);
    sdma_pkt_atomic(dw, PTR(addr), op, src, cmp);
    return sdma_queue_submit(q, dw, SDMA_ATOMIC_DW);
}

int sdma_fence(struct sdma_queue *q, uint32_t *addr, uint32_t value) {
    uint32_t dw[SDMA_FENCE_DW];
    int rc;
    if (!q || !addr || ((uintptr_t)addr & 3))
        return SDMA_ERR_INVAL;
    if ((rc = reach(q, addr, 4, NULL)))
        return rc;
    sdma_pkt_fence(dw, PTR(addr), value);
    return sdma_queue_submit(q, dw, SDMA_FENCE_DW);
}

int sdma_const_fill(struct sdma_queue *q, void *dst, uint32_t value, size_t bytes) {
    uint32_t dw[SDMA_CONST_FILL_DW];
    int rc;
    if (!q || (bytes && !dst))
        return SDMA_ERR_INVAL;
    if (bytes && (rc = reach(q, dst, bytes, NULL)))
        return rc;
    while (bytes > 0) {
        /* Chunks stay multiples of 4 so the dword pattern keeps its phase. */
        uint32_t n = (uint32_t)(bytes > SDMA_CONST_FILL_MAX ? SDMA_CONST_FILL_MAX : bytes);
        sdma_pkt_const_fill(dw, PTR(dst), value, n);
        if ((rc = sdma_queue_submit(q, dw, SDMA_CONST_FILL_DW)))
            return rc;
        dst = (char *)dst + n;
        bytes -= n;
    }
    return SDMA_OK;
}

int sdma_trap(struct sdma_queue *q, uint32_t context) {
    uint32_t dw[SDMA_TRAP_DW];
    if (!q)
        return SDMA_ERR_INVAL;
    sdma_pkt_trap(dw, context);
    return sdma_queue_submit(q, dw, SDMA_TRAP_DW);
}

int sdma_timestamp(struct sdma_queue *q, uint64_t *addr) {
    uint32_t dw[SDMA_TIMESTAMP_DW];
    int rc;
    if (!q || !addr || ((uintptr_t)addr & 31))
        return SDMA_ERR_INVAL;
    if ((rc = reach(q, addr, 8, NULL)))
        return rc;
    sdma_pkt_timestamp(dw, PTR(addr));
    return sdma_queue_submit(q, dw, SDMA_TIMESTAMP_DW);
}

/* ------------------------------------------------------------------ completion */

/* The mark of a FENCE is the ring index just past it; the fence writes the low 32 bits of
 * (index / 4). Fences run in ring order, so the word only moves forward (modulo 2^32
 * dwords = 16 GiB of ring traffic; a mark compares correctly within half of that). */
uint64_t sdma_queue_mark(struct sdma_queue *q) {
    struct sdma_ring_slot s = {0};
    if (!q || reserve_wait(q, SDMA_FENCE_DW, &s))
        return 0;
    sdma_pkt_fence(s.dw, PTR(q->seq_word), (uint32_t)(s.end >> 2));
    sdma_queue_commit(q, &s);
    return s.end;
}

int sdma_queue_test(struct sdma_queue *q, uint64_t mark) {
    /* Acquire pairs with the engine's release of the fence value: every write of the
     * packets before the fence is visible to the caller once this returns 1. */
    uint32_t v = sdma_load_acquire_u32(q->seq_word);
    return (int32_t)(v - (uint32_t)(mark >> 2)) >= 0;
}

/* Where a queue that does not finish stands: the engine's read pointer, and the packet
 * header it stopped at (what a user sends back from a stuck hardware queue). */
static int quiet_timeout(struct sdma_queue *q, double timeout_s) {
    const struct sdma_ring *r = &q->ring;
    uint64_t rp = sdma_load_acquire_u64(r->rptr), wp = sdma_load_acquire_u64(r->wptr);
    if (rp == wp || (q->flags & SDMA_QUEUE_TAGGED))
        return sdma_seterr(SDMA_ERR_TIMEOUT,
                           "sdma: queue '%s': quiet timed out after %.3g s "
                           "(%s; read pointer at the write pointer %llu)",
                           q->label, timeout_s, q->eng->target, (unsigned long long)wp);
    return sdma_seterr(SDMA_ERR_TIMEOUT,
                       "sdma: queue '%s': quiet timed out after %.3g s (%s): "
                       "the engine stands at byte %llu of %llu published, ring "
                       "offset %llu, packet header 0x%08x",
                       q->label, timeout_s, q->eng->target, (unsigned long long)rp,
                       (unsigned long long)wp, (unsigned long long)(rp & (r->size - 1)),
                       *sdma_ring_at(r, rp));
}

struct quiet_arg {
    struct sdma_queue *q;
    uint64_t mark;
};

static int quiet_done(void *arg) {
    struct quiet_arg *a = arg;
    return sdma_queue_test(a->q, a->mark) || queue_failed(a->q);
}

int sdma_queue_quiet(struct sdma_queue *q, double timeout_s) {
    uint64_t mark;
    double t0 = 0, block_s = 50e-6;
    unsigned spins = 0, backoff = 2;

    if (!q)
        return SDMA_ERR_INVAL;
    mark = sdma_queue_mark(q);
    if (!mark)
        return queue_failed(q) ? SDMA_ERR_QUEUE : SDMA_ERR_NO_RESOURCE;
    while (!sdma_queue_test(q, mark)) {
        if (queue_failed(q))
            return SDMA_ERR_QUEUE;
        /* Run the packets here if the engine thread is not at them. */
        if (sdma_engine_progress(q->eng))
            continue;
        if (++spins < 256) {
            sdma_spin_pause(spins);
            continue;
        }
        /* A hardware queue that faulted stops; the driver says so at once. */
        if ((spins & 63) == 0 && sdma_engine_check(q->eng) && queue_failed(q))
            return SDMA_ERR_QUEUE;
        double t = now_s();
        if (t0 == 0)
            t0 = t;
        else if (t - t0 > timeout_s)
            return quiet_timeout(q, timeout_s);
        /* Yield for the first 20 us (the engine's thread may share our core); then sleep
         * until its thread ran a batch, or, where nothing wakes us (hardware), nap. */
        if (t - t0 < 20e-6) {
            sched_yield();
            continue;
        }
        struct quiet_arg a = {q, mark};
        if (sdma_engine_block(q->eng, quiet_done, &a, block_s)) {
            if (block_s < 1e-3)
                block_s *= 2;
            continue;
        }
        nap(&backoff);
        if (backoff > 200)
            backoff = 200;
    }
    return SDMA_OK;
}
