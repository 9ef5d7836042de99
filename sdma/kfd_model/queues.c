/* The KFD model: SDMA user queues and the engines that execute them.
 *
 * Creation follows libhsakmt (src/queues.c hsaKmtCreateQueue) and KFD
 * (amdkfd/kfd_chardev.c set_queue_properties_from_user, kfd_queue.c kfd_queue_buffer_get):
 *  - SDMA queues only (HSA_QUEUE_SDMA, HSA_QUEUE_SDMA_XGMI; HSA_QUEUE_SDMA_BY_ENG_ID through
 *    hsaKmtCreateQueueExt only, as newer libhsakmt refuses it in hsaKmtCreateQueue);
 *  - percentage at most 100, a priority within HSA_QUEUE_PRIORITY_*; a ring size that is a
 *    power of two ("Ring size must be a power of 2 or 0") and at least 1 KiB (KFD raises
 *    smaller ones to KFD_MIN_QUEUE_RING_SIZE, which no longer matches the buffer);
 *  - the ring is one GPU mapping of this node that starts at the ring and spans exactly its
 *    size (kfd_queue_buffer_get: "expected size ... not equal to mapping");
 *  - queues per engine are limited (NumSdmaQueuesPerEngine; ROCm/mori measured 8 per engine,
 *    and the kernel refuses beyond with a plain error: HSAKMT_STATUS_ERROR);
 *  - the resource gives 64-bit read and write pointers and a 64-bit doorbell in byte units,
 *    starting at 0 (gfx9 and later: ROCr BlitSdmaV4 = BlitSdma<uint64_t, true, -1>).
 *
 * The engines (one thread stands for all of them) behave as the hardware does, where AMD's
 * code tells, and fail where it would:
 *  - only a store to the doorbell starts a queue; the write pointer in memory is read by the
 *    scheduler when it maps a queue again, not to start one;
 *  - the engine compares wrapped ring offsets: a doorbell exactly one ring ahead of the read
 *    pointer reads as an empty ring and the queue idles (every AMD producer keeps the write
 *    pointer strictly less than a ring ahead: ROCr CanWriteUpto, kfdtest BaseQueue.cpp,
 *    ROCm/mori anvil_device.hpp); more than a ring ahead, or backwards, stops the queue;
 *  - a packet never straddles the ring end (ROCr pads with NOPs, PadRingToEnd; kfdtest
 *    PlacePacket): one that does stops the queue;
 *  - packets are decoded by the soft engine's decoder (sdma/soft_exec.c) after the rules of
 *    the node's SDMA generation: the opcode and sub-op sets (LINEAR_SUB_WINDOW_LARGE, 0x24, is
 *    not in Linux's vega10_sdma_pkt_open.h that SDMA 4.4 uses; gfx12 lays the 13-dword
 *    sub-window out differently, ROCr SDMA_PKT_COPY_LINEAR_RECT_GFX12), field widths
 *    (CONST_FILL count 22 bits on SDMA 4.x, SDMA_PKT_CONSTANT_FILL_COUNT_count_mask
 *    0x003FFFFF, bits above it ignored; COPY_LINEAR 30 bits from SDMA 4.4, 22 before), the
 *    sub-window's dword rules (ROCr SubmitCopyRectCommand: "Hardware requires DWORD alignment
 *    for base address, pitches"), burst NOPs only with firmware that has them (Linux
 *    amdgpu_sdma.c: feature_version >= 20); an illegal packet stops the queue;
 *  - every address is checked against the node's GPU VM (memory.c): a miss is a VM fault
 *    (events.c); an ATOMIC on system memory over a link without 64-bit PCIe atomics fails
 *    the same way. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "sdma/kfd_model/model.h"
#include "sdma/packets.h"

void kfdm_stop_queue(struct kfdm_queue *q, const char *fmt, ...) {
    va_list ap;
    if (q->stopped)
        return;
    va_start(ap, fmt);
    vsnprintf(q->why, sizeof q->why, fmt, ap);
    va_end(ap);
    __atomic_store_n(&q->stopped, 1, __ATOMIC_RELEASE);
    if (getenv("KFD_MODEL_VERBOSE"))
        fprintf(stderr, "kfd-model: queue %llu on node %u stopped: %s\n", (unsigned long long)q->id,
                (unsigned)q->node, q->why);
}

static void count(uint64_t *c, uint64_t n) {
    pthread_mutex_lock(&kfdm.lock);
    *c += n;
    pthread_mutex_unlock(&kfdm.lock);
}

/* ------------------------------------------------------------------ the executor */

static int vm_check(void *arg, uint64_t a, uint64_t len, int write) {
    struct kfdm_queue *q = arg;
    uint64_t at = a;
    int ok;
    (void)write;
    pthread_mutex_lock(&kfdm.lock);
    ok = kfdm_vm_covers(q->node, a, len, &at);
    pthread_mutex_unlock(&kfdm.lock);
    if (!ok) {
        q->faulted = 1;
        q->fault_addr = at;
    }
    return ok;
}

static int m_copy(struct sdma_soft_ctx *x, uint64_t dst, uint64_t dpitch, uint64_t dslice,
                  uint64_t src, uint64_t spitch, uint64_t sslice, uint64_t width, uint64_t rows,
                  uint64_t depth) {
    count(&kfdm.stats.bytes, width * rows * depth);
    return sdma_host_exec.copy(x, dst, dpitch, dslice, src, spitch, sslice, width, rows, depth);
}

static int m_poll(struct sdma_soft_ctx *x, uint64_t addr, uint32_t ref, uint32_t mask,
                  unsigned func, uint32_t *seen) {
    return sdma_host_exec.poll(x, addr, ref, mask, func, seen);
}

static int m_fence(struct sdma_soft_ctx *x, uint64_t addr, uint32_t value) {
    return sdma_host_exec.fence(x, addr, value);
}

static int m_atomic(struct sdma_soft_ctx *x, uint64_t addr, unsigned base, int is64, uint64_t src,
                    uint64_t cmp) {
    struct kfdm_queue *q = x->ops_arg;
    const struct kfdm_node *n = &kfdm.nodes[q->node];
    int sys;
    pthread_mutex_lock(&kfdm.lock);
    sys = kfdm_is_system(addr, is64 ? 8 : 4);
    pthread_mutex_unlock(&kfdm.lock);
    /* System memory: a PCIe AtomicOp, which a root port without them does not complete. */
    if (sys &&
        (is64 ? n->links[0].Flags.ui32.NoAtomics64bit : n->links[0].Flags.ui32.NoAtomics32bit)) {
        q->faulted = 1;
        q->atomic_fault = 1;
        q->fault_addr = addr;
        return sdma_exec_fail(x,
                              "ATOMIC on system memory at 0x%llx: the link to the CPU has no "
                              "%d-bit PCIe atomics",
                              (unsigned long long)addr, is64 ? 64 : 32);
    }
    return sdma_host_exec.atomic(x, addr, base, is64, src, cmp);
}

static int m_fill(struct sdma_soft_ctx *x, uint64_t dst, uint64_t bytes, uint32_t pattern,
                  unsigned unit) {
    count(&kfdm.stats.bytes, bytes);
    return sdma_host_exec.fill(x, dst, bytes, pattern, unit);
}

static int m_timestamp(struct sdma_soft_ctx *x, uint64_t addr) {
    return sdma_host_exec.timestamp(x, addr);
}

static const struct sdma_exec_ops model_exec = {m_copy,   m_poll, m_fence,
                                                m_atomic, m_fill, m_timestamp};

static const char *gen_name(enum kfdm_gen g) {
    switch (g) {
    case KFDM_SDMA40: return "4.0";
    case KFDM_SDMA44: return "4.4";
    case KFDM_SDMA5: return "5.x";
    default: return "7.0";
    }
}

/* Dwords of the packet whose header is h, by the node's rules; 0: not a packet it knows. */
static size_t packet_dwords(const struct kfdm_node *n, uint32_t h) {
    unsigned op = h & 0xFF, sub = (h >> 8) & 0xFF;
    switch (op) {
    case SDMA_OP_NOP: return n->burst_nop ? ((h >> 16) & 0x3FFF) + 1 : 1;
    case SDMA_OP_COPY:
        if (sub == SDMA_SUBOP_COPY_LINEAR)
            return SDMA_COPY_LINEAR_DW;
        if (sub == SDMA_SUBOP_COPY_LINEAR_SUB_WINDOW && n->gen != KFDM_SDMA7)
            return SDMA_COPY_2D_SW13_DW;
        if (sub == SDMA_SUBOP_COPY_LINEAR_SUB_WINDOW_LARGE &&
            (n->gen == KFDM_SDMA5 || n->gen == KFDM_SDMA7))
            return SDMA_COPY_2D_DW;
        return 0;
    case SDMA_OP_FENCE: return SDMA_FENCE_DW;
    case SDMA_OP_TRAP: return SDMA_TRAP_DW;
    case SDMA_OP_POLL_REGMEM: return SDMA_POLL_DW;
    case SDMA_OP_ATOMIC: return SDMA_ATOMIC_DW;
    case SDMA_OP_CONST_FILL: return SDMA_CONST_FILL_DW;
    case SDMA_OP_TIMESTAMP: return SDMA_TIMESTAMP_DW;
    default: return 0;
    }
}

/* The sub-window's dword rules on a copy p (13 dwords); NULL when it keeps them. */
static const char *sw13_rules(const uint32_t *p) {
    unsigned e = p[0] >> 29;
    uint64_t sp = ((uint64_t)(p[4] >> 13) + 1) << e, dp = ((uint64_t)(p[9] >> 13) + 1) << e;
    uint64_t sx = (p[3] & 0x3FFF), dx = (p[8] & 0x3FFF), w = (p[11] & 0x3FFF) + 1;
    if ((p[1] & 3) || (p[6] & 3))
        return "sub-window base address not dword aligned";
    if ((sp & 3) || (dp & 3))
        return "sub-window pitch not a multiple of 4 bytes";
    if (((sx + w) << e) > sp || ((dx + w) << e) > dp)
        return "sub-window row (x offset + width) wider than its pitch";
    return NULL;
}

/* Execute the packet at the read pointer. 1: executed; 0: waits (POLL); -1: the queue
 * stopped. */
static int run_one(struct kfdm_queue *q) {
    const struct kfdm_node *n = &kfdm.nodes[q->node];
    uint64_t off = q->rd & (q->size - 1), pending = q->seen - q->rd;
    const uint32_t *dw = q->ring + off / 4;
    uint32_t p[SDMA_PKT_MAX_DW];
    size_t ndw = packet_dwords(n, dw[0]), used = 0;
    int rc;

    if (ndw == 0) {
        count(&kfdm.stats.illegal, 1);
        kfdm_stop_queue(q,
                        "illegal packet at ring offset %llu: header 0x%08x (opcode %u, "
                        "sub-op 0x%x) is not an SDMA %s packet",
                        (unsigned long long)off, dw[0], dw[0] & 0xFF, (dw[0] >> 8) & 0xFF,
                        gen_name(n->gen));
        return -1;
    }
    if (off + 4 * ndw > q->size) {
        kfdm_stop_queue(q, "packet at ring offset %llu (%zu dwords) straddles the ring end",
                        (unsigned long long)off, ndw);
        return -1;
    }
    if (4 * ndw > pending) {
        kfdm_stop_queue(q,
                        "packet at ring offset %llu (%zu dwords) extends past the doorbell "
                        "(%llu bytes published)",
                        (unsigned long long)off, ndw, (unsigned long long)pending);
        return -1;
    }
    if ((dw[0] & 0xFF) == SDMA_OP_NOP) {
        used = ndw;
        goto done;
    }
    memcpy(p, dw, ndw * 4);
    /* Field widths of this generation: bits above a count field are reserved and ignored. */
    if ((p[0] & 0xFF) == SDMA_OP_COPY && ((p[0] >> 8) & 0xFF) == SDMA_SUBOP_COPY_LINEAR)
        p[1] &= n->gen == KFDM_SDMA40 ? 0x3FFFFFu : 0x3FFFFFFFu;
    if ((p[0] & 0xFF) == SDMA_OP_CONST_FILL)
        p[4] &= n->gen == KFDM_SDMA7 ? 0x3FFFFFFFu : 0x3FFFFFu;
    if ((p[0] & 0xFF) == SDMA_OP_COPY &&
        ((p[0] >> 8) & 0xFF) == SDMA_SUBOP_COPY_LINEAR_SUB_WINDOW) {
        const char *why = sw13_rules(p);
        if (why) {
            count(&kfdm.stats.illegal, 1);
            kfdm_stop_queue(q,
                            "illegal packet at ring offset %llu: %s (src 0x%08x%08x, dst "
                            "0x%08x%08x)",
                            (unsigned long long)off, why, p[2], p[1], p[7], p[6]);
            return -1;
        }
    }
    q->faulted = 0;
    rc = sdma_soft_exec(&q->x, p, ndw, &used);
    if (rc == SDMA_EXEC_WAIT)
        return 0;
    if (rc == SDMA_EXEC_ERROR) {
        if (q->faulted) {
            kfdm_vm_fault(q->node, q->fault_addr, q->atomic_fault);
        } else {
            count(&kfdm.stats.illegal, 1);
            kfdm_stop_queue(q, "illegal packet at ring offset %llu: %s", (unsigned long long)off,
                            q->x.msg);
        }
        return -1;
    }
done:
    q->rd += 4 * used;
    /* Release: the engine's reads of the consumed ring bytes are done before a producer that
     * acquires the read pointer writes over them. */
    __atomic_store_n(q->rptr, q->rd, __ATOMIC_RELEASE);
    count(&kfdm.stats.packets, 1);
    return 1;
}

/* Run what the queue's doorbell published, up to a budget. Returns the packets executed. */
static int run_queue(struct kfdm_queue *q) {
    uint64_t db;
    int n = 0, rc;
    if (q->stopped)
        return 0;
    /* Acquire pairs with the producer's release of the doorbell: the packets are visible. */
    db = __atomic_load_n(q->doorbell, __ATOMIC_ACQUIRE);
    if (db != q->seen) {
        if (db < q->seen || (db & 3)) {
            kfdm_stop_queue(q,
                            "doorbell value %llu after %llu: doorbells carry monotonic dword "
                            "byte indices",
                            (unsigned long long)db, (unsigned long long)q->seen);
            return 0;
        }
        q->seen = db;
        q->full_noted = 0;
        count(&kfdm.stats.doorbells, 1);
    }
    while (q->rd != q->seen && n < 64) {
        uint64_t pending = q->seen - q->rd;
        if (pending > q->size) {
            kfdm_stop_queue(q,
                            "doorbell %llu is more than a ring (%llu bytes) ahead of the read "
                            "pointer %llu",
                            (unsigned long long)q->seen, (unsigned long long)q->size,
                            (unsigned long long)q->rd);
            break;
        }
        if (((q->seen ^ q->rd) & (q->size - 1)) == 0) {
            /* Write offset == read offset: the engine sees an empty ring and idles. */
            if (!q->full_noted) {
                q->full_noted = 1;
                count(&kfdm.stats.full_stalls, 1);
                if (getenv("KFD_MODEL_VERBOSE"))
                    fprintf(stderr,
                            "kfd-model: queue %llu: doorbell %llu is one whole ring "
                            "ahead of the read pointer: the ring reads as empty\n",
                            (unsigned long long)q->id, (unsigned long long)q->seen);
            }
            break;
        }
        rc = run_one(q);
        if (rc <= 0)
            break;
        n++;
    }
    return n;
}

static void *engine_main(void *arg) {
    unsigned idle = 0;
    (void)arg;
    for (;;) {
        struct kfdm_queue *q;
        int progress = 0;
        pthread_mutex_lock(&kfdm.q_lock);
        for (q = kfdm.queues; q; q = q->next)
            progress += run_queue(q);
        pthread_mutex_unlock(&kfdm.q_lock);
        if (progress) {
            idle = 0;
            continue;
        }
        if (++idle < 200) {
            sched_yield();
        } else {
            struct timespec ts = {0, idle < 2000 ? 20000 : 200000};
            nanosleep(&ts, NULL);
        }
    }
    return NULL;
}

/* ------------------------------------------------------------------ hsaKmt* */

static uint64_t bit(HSAuint32 node) { return 1ull << node; }

static HSAKMT_STATUS create_queue(HSAuint32 node, HSA_QUEUE_TYPE type, HSAuint32 pct,
                                  HSA_QUEUE_PRIORITY prio, int engine_id, void *ring,
                                  HSAuint64 size, HsaQueueResource *res) {
    struct kfdm_node *n;
    struct kfdm_queue *q;
    struct kfdm_obj *o;
    HSAKMT_STATUS st = HSAKMT_STATUS_SUCCESS;
    int lo, hi, e, best = -1;
    void *page;

    KFDM_CHECK_OPEN();
    if (!res || !ring)
        return HSAKMT_STATUS_INVALID_PARAMETER;
    if (prio < HSA_QUEUE_PRIORITY_MINIMUM || prio > HSA_QUEUE_PRIORITY_MAXIMUM)
        return HSAKMT_STATUS_INVALID_PARAMETER;
    if (type != HSA_QUEUE_SDMA && type != HSA_QUEUE_SDMA_XGMI &&
        type != (HSA_QUEUE_TYPE)KFDM_QUEUE_SDMA_BY_ENG_ID)
        return HSAKMT_STATUS_NOT_SUPPORTED; /* the model runs SDMA queues only */
    page = mmap(NULL, KFDM_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    q = calloc(1, sizeof *q);
    if (page == MAP_FAILED || !q) {
        if (page != MAP_FAILED)
            munmap(page, KFDM_PAGE);
        free(q);
        return HSAKMT_STATUS_NO_MEMORY;
    }
    pthread_mutex_lock(&kfdm.q_lock);
    pthread_mutex_lock(&kfdm.lock);
    if (!kfdm_valid_gpu(node)) {
        st = HSAKMT_STATUS_INVALID_NODE_UNIT;
        goto out;
    }
    n = &kfdm.nodes[node];
    if (pct > 100 || (size & (size - 1)) || size < 1024 || !n->doorbells) {
        st = HSAKMT_STATUS_ERROR;
        goto out;
    }
    o = kfdm_obj_at((uintptr_t)ring);
    if (!o || o->lo != (uintptr_t)ring || o->hi - o->lo != size || !(o->mapped & bit(node))) {
        st = HSAKMT_STATUS_ERROR; /* kfd_queue_buffer_get */
        goto out;
    }
    if (type == HSA_QUEUE_SDMA) {
        lo = 0;
        hi = (int)n->props.NumSdmaEngines;
    } else if (type == HSA_QUEUE_SDMA_XGMI) {
        lo = (int)n->props.NumSdmaEngines;
        hi = lo + (int)n->props.NumSdmaXgmiEngines;
    } else {
        lo = engine_id;
        hi = engine_id + 1;
        if (engine_id < 0 ||
            engine_id >= (int)(n->props.NumSdmaEngines + n->props.NumSdmaXgmiEngines)) {
            st = HSAKMT_STATUS_ERROR;
            goto out;
        }
    }
    for (e = lo; e < hi; e++) {
        int held = n->used[e] + (e == 0 ? n->reserved : 0);
        if (held < (int)n->props.NumSdmaQueuesPerEngine && (best < 0 || n->used[e] < n->used[best]))
            best = e;
    }
    if (best < 0 || n->next_doorbell >= KFDM_DOORBELLS) {
        st = HSAKMT_STATUS_ERROR; /* no queue slot left on those engines */
        goto out;
    }
    o = kfdm_obj_add((uintptr_t)page, (uintptr_t)page + KFDM_PAGE, HSA_POINTER_ALLOCATED, node);
    if (!o) {
        st = HSAKMT_STATUS_NO_MEMORY;
        goto out;
    }
    o->internal = 1;
    o->owned = 1;
    kfdm_obj_map(o, node);
    n->used[best]++;
    q->id = kfdm.next_qid++;
    q->node = node;
    q->engine = best;
    q->type = type;
    q->ring = ring;
    q->size = size;
    q->ptr_page = page;
    q->rptr = (volatile uint64_t *)page;
    q->wptr = (volatile uint64_t *)page + 8; /* own cache line */
    q->doorbell = (volatile uint64_t *)&n->engine_doorbells[n->next_doorbell];
    q->x.ops = &model_exec;
    q->x.ops_arg = q;
    q->x.check = vm_check;
    q->x.check_arg = q;
    q->x.poll_timeout_s = 1e18; /* hardware polls forever */
    memset(res, 0, sizeof *res);
    res->QueueId = q->id;
    res->Queue_DoorBell_aql = (HSAuint64 *)&n->doorbells[n->next_doorbell];
    res->Queue_write_ptr_aql = (HSAuint64 *)q->wptr;
    res->Queue_read_ptr_aql = (HSAuint64 *)q->rptr;
    n->next_doorbell++;
    q->next = kfdm.queues;
    kfdm.queues = q;
    kfdm.stats.queues++;
    if (!kfdm.engine_running) {
        pthread_attr_t a;
        pthread_attr_init(&a);
        pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
        if (pthread_create(&kfdm.engine, &a, engine_main, NULL) == 0)
            kfdm.engine_running = 1;
        pthread_attr_destroy(&a);
    }
    q = NULL;
    page = NULL;
out:
    pthread_mutex_unlock(&kfdm.lock);
    pthread_mutex_unlock(&kfdm.q_lock);
    if (page)
        munmap(page, KFDM_PAGE);
    free(q);
    return st;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtCreateQueue(HSAuint32 node, HSA_QUEUE_TYPE type, HSAuint32 pct,
                                          HSA_QUEUE_PRIORITY prio, void *ring, HSAuint64 size,
                                          HsaEvent *ev, HsaQueueResource *res) {
    (void)ev;
    if (type == (HSA_QUEUE_TYPE)KFDM_QUEUE_SDMA_BY_ENG_ID)
        return HSAKMT_STATUS_INVALID_PARAMETER; /* hsaKmtCreateQueueExt's */
    return create_queue(node, type, pct, prio, -1, ring, size, res);
}

HSAKMT_STATUS HSAKMTAPI hsaKmtCreateQueueExt(HSAuint32 node, HSA_QUEUE_TYPE type, HSAuint32 pct,
                                             HSA_QUEUE_PRIORITY prio, HSAuint32 engine, void *ring,
                                             HSAuint64 size, HsaEvent *ev, HsaQueueResource *res) {
    (void)ev;
    return create_queue(node, type, pct, prio, (int)engine, ring, size, res);
}

HSAKMT_STATUS HSAKMTAPI hsaKmtDestroyQueue(HSA_QUEUEID id) {
    struct kfdm_queue **pp, *q = NULL;
    KFDM_CHECK_OPEN();
    pthread_mutex_lock(&kfdm.q_lock);
    pthread_mutex_lock(&kfdm.lock);
    for (pp = &kfdm.queues; *pp; pp = &(*pp)->next)
        if ((*pp)->id == id) {
            q = *pp;
            *pp = q->next;
            break;
        }
    if (q) {
        struct kfdm_obj *o = kfdm_obj_at((uintptr_t)q->ptr_page);
        kfdm.nodes[q->node].used[q->engine]--;
        if (o)
            kfdm_obj_del(o); /* unmaps the pointer page */
    }
    pthread_mutex_unlock(&kfdm.lock);
    pthread_mutex_unlock(&kfdm.q_lock);
    if (!q)
        return HSAKMT_STATUS_INVALID_PARAMETER;
    free(q);
    return HSAKMT_STATUS_SUCCESS;
}

int kfdm_queue_stopped(HSA_QUEUEID id, char *why, size_t len) {
    struct kfdm_queue *q;
    int rc = -1;
    pthread_mutex_lock(&kfdm.q_lock);
    for (q = kfdm.queues; q; q = q->next)
        if (q->id == id) {
            rc = q->stopped;
            if (why && len)
                snprintf(why, len, "%s", q->stopped ? q->why : "");
            break;
        }
    pthread_mutex_unlock(&kfdm.q_lock);
    return rc;
}
