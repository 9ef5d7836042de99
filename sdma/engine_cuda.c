/* The cuda engine: NVIDIA copy engines behind the soft engine's proxy thread.
 *
 * The thread reads each queue's packets exactly as the soft engine does and turns them
 * into operations on one CUDA stream per queue, so the copy engines move the bytes while
 * the packets keep their order:
 *   COPY (linear)   cudaMemcpyAsync; copies queued back to back are merged when they are
 *                   adjacent (sorted by destination when no copy reads what another writes)
 *   COPY (2D)       cudaMemcpy2DAsync per slice
 *   POLL            a word the host can read (host memory, mapped or not): the proxy
 *                   reads it and issues nothing behind it until it holds (the safe
 *                   default); GPU memory, or any registered word with stream waits on:
 *                   cuStreamWaitValue32, at most half of CUDA_DEVICE_MAX_CONNECTIONS
 *                   streams blocked at once (more starve kernel launches)
 *   FENCE           cuStreamWriteValue32 (a host function for unregistered host words)
 *   ATOMIC, CONST_FILL, TIMESTAMP
 *                   one small kernel (engine_cuda_ops.cu), or a host function
 *   TRAP            a host function, in stream order
 * After each run of packets the queue's completion index is written in stream order
 * (cuStreamWriteValue64 to sdma_queue_attr.complete), and stream errors put the queue in
 * its error state. The stream-memory calls come from the driver through the runtime's
 * entry-point query, so the library links the runtime only.
 *
 * Stream waits deadlock when a kernel's module loads lazily while one is armed: they need
 * CUDA_MODULE_LOADING=EAGER (the engine refuses them otherwise). */
#define _GNU_SOURCE
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "sdma/engine_cuda_ops.h"
#include "sdma/soft_backend.h"

#define MERGE_MAX 1024 /* copies batched per queue before they are issued */
#define REACH_CACHE 16 /* granules whose reach a queue remembers (FENCE/ATOMIC targets) */
/* While the copies issued last are still running, new ones wait (up to this long
 * and this many bytes) for neighbours to merge with: the engine is busy anyway, and a
 * kernel's workgroups publish their adjacent slices in no particular order. */
#define HOLD_MAX_S 200e-6
#define HOLD_MAX_BYTES ((uint64_t)64 << 20)

typedef CUresult (*write32_fn)(CUstream, CUdeviceptr, cuuint32_t, unsigned int);
typedef CUresult (*write64_fn)(CUstream, CUdeviceptr, cuuint64_t, unsigned int);
typedef CUresult (*wait32_fn)(CUstream, CUdeviceptr, cuuint32_t, unsigned int);
typedef CUresult (*batch_fn)(CUstream, unsigned int, CUstreamBatchMemOpParams *, unsigned int);

#define MOPS_MAX 32 /* stream writes batched per queue before they are issued */

struct cuda_engine {
    int device;
    int batch;        /* cudaMemcpyBatchAsync works here */
    int stream_waits; /* 1: registered host words are waited on in the stream as well */
    int lazy;         /* module loading is lazy: stream waits refused */
    int max_blocked;  /* streams blocked in waits at once, at most */
    int blocked;      /* now (proxy thread only) */
    write32_fn write32;
    write64_fn write64;
    wait32_fn wait32;
    batch_fn batch_memop; /* NULL: one call per write */
};

enum reach { REACH_HOST, REACH_MAPPED, REACH_DEVICE };

struct pending_copy {
    uint64_t dst, src, n;
};

struct cuda_queue {
    struct cuda_engine *ce;
    struct sdma_queue *q;
    cudaStream_t stream;
    cudaEvent_t wait_done; /* recorded behind the latest stream wait */
    uint64_t poll_addr;    /* the POLL at the head, and who can read its word */
    enum reach poll_reach;
    uint64_t reach_key[REACH_CACHE]; /* 64 KiB granules (+1) known to be GPU-reachable */
    enum reach reach_val[REACH_CACHE];
    int wait_armed;          /* counted in ce->blocked until wait_done completes */
    cudaEvent_t issued;      /* recorded behind the latest issued batch */
    int inflight;            /* that batch may still run */
    double first_at;         /* when the oldest pending copy came */
    double inflight_checked; /* when `issued` was last queried */
    uint64_t pend_bytes;
    struct pending_copy pend[MERGE_MAX], scratch[MERGE_MAX];
    void *bdst[MERGE_MAX];
    const void *bsrc[MERGE_MAX];
    size_t blen[MERGE_MAX];
    size_t npend;
    /* Stream writes (FENCEs, the completion index) not issued yet: one driver call
     * for a run of them. Copies and writes are never both pending. */
    CUstreamBatchMemOpParams mops[MOPS_MAX];
    unsigned nmops;
    uint64_t published; /* completion index last written */
    double last_check;  /* when the stream was last queried for errors */
};

static __thread int cur_device = -1;

static int cu_fail(struct sdma_soft_ctx *x, cudaError_t e, const char *what) {
    (void)cudaGetLastError();
    return sdma_exec_fail(x, "cuda: %s failed: %s", what, cudaGetErrorString(e));
}

/* The engine's GPU is current on the calling thread (the proxy, or a waiter). */
static int enter(struct cuda_engine *ce) {
    if (cur_device == ce->device)
        return 0;
    if (cudaSetDevice(ce->device) != cudaSuccess)
        return -1;
    cur_device = ce->device;
    return 0;
}

/* Who can touch a word: only the host (unregistered host memory), both (pinned or
 * registered host memory), or only the GPU (device memory, IPC-mapped peers). */
static enum reach reach_of(uint64_t addr) {
    struct cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, (const void *)(uintptr_t)addr) != cudaSuccess) {
        (void)cudaGetLastError();
        return REACH_HOST;
    }
    if (a.type == cudaMemoryTypeDevice)
        return REACH_DEVICE;
    if (a.type == cudaMemoryTypeHost || a.type == cudaMemoryTypeManaged)
        return REACH_MAPPED;
    return REACH_HOST;
}

/* reach_of for the targets of FENCE and ATOMIC, which a queue names again and again
 * (its quiet word, a plan's words): the lookup takes the driver's lock, which the
 * application's launches need too. Only GPU-reachable answers are kept (host memory
 * may be registered later). */
static enum reach reach_cached(struct cuda_queue *cq, uint64_t addr) {
    uint64_t key = (addr >> 16) + 1;
    unsigned slot = (unsigned)(key % REACH_CACHE);
    enum reach r;
    if (cq->reach_key[slot] == key)
        return cq->reach_val[slot];
    r = reach_of(addr);
    if (r != REACH_HOST) {
        cq->reach_key[slot] = key;
        cq->reach_val[slot] = r;
    }
    return r;
}

/* ---------------------------------------------------------------- copies */

static double mono_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_dst(const void *a, const void *b) {
    const struct pending_copy *x = a, *y = b;
    return x->dst < y->dst ? -1 : x->dst > y->dst;
}

/* Sort the batch by destination when that is safe: destinations disjoint and no source
 * overlapping the span the destinations cover, so no copy's result depends on another's.
 * Otherwise the batch keeps ring order. */
static int sort_if_safe(struct pending_copy *p, struct pending_copy *tmp, size_t n) {
    uint64_t lo = UINT64_MAX, hi = 0;
    size_t i;
    for (i = 0; i < n; i++) {
        if (p[i].dst < lo)
            lo = p[i].dst;
        if (p[i].dst + p[i].n > hi)
            hi = p[i].dst + p[i].n;
    }
    for (i = 0; i < n; i++)
        if (p[i].src < hi && p[i].src + p[i].n > lo)
            return 0;
    memcpy(tmp, p, n * sizeof *p);
    qsort(tmp, n, sizeof *tmp, cmp_dst);
    for (i = 1; i < n; i++)
        if (tmp[i - 1].dst + tmp[i - 1].n > tmp[i].dst)
            return 0;
    memcpy(p, tmp, n * sizeof *p);
    return 1;
}

/* Issue the batch: adjacent copies merged; when their order cannot matter, all of
 * them in one call (cudaMemcpyBatchAsync: one driver entry for the batch, which is
 * what a kernel's many workgroup puts need), else one call each, in ring order. */
static int issue_batch(struct cuda_queue *cq, struct sdma_soft_ctx *x) {
    struct pending_copy *p = cq->pend;
    size_t n = cq->npend, i, j, m = 0;
    int unordered = n > 1 && sort_if_safe(p, cq->scratch, n);
    cudaError_t e;
    cq->npend = 0;
    for (i = 0; i < n; i = j) {
        uint64_t len = p[i].n;
        for (j = i + 1; j < n && p[j].dst == p[i].dst + len && p[j].src == p[i].src + len; j++)
            len += p[j].n;
        cq->bdst[m] = (void *)(uintptr_t)p[i].dst;
        cq->bsrc[m] = (const void *)(uintptr_t)p[i].src;
        cq->blen[m++] = (size_t)len;
    }
    if (unordered && m > 1 && cq->ce->batch) {
        struct cudaMemcpyAttributes attr;
        size_t zero = 0;
        memset(&attr, 0, sizeof attr);
        attr.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
        e = cudaMemcpyBatchAsync(cq->bdst, cq->bsrc, cq->blen, m, &attr, &zero, 1, cq->stream);
        if (e == cudaSuccess)
            return SDMA_EXEC_DONE;
        (void)cudaGetLastError();
        cq->ce->batch = 0; /* not in this driver: one call each from now on */
    }
    for (i = 0; i < m; i++) {
        e = cudaMemcpyAsync(cq->bdst[i], cq->bsrc[i], cq->blen[i], cudaMemcpyDefault, cq->stream);
        if (e != cudaSuccess)
            return cu_fail(x, e, "cudaMemcpyAsync");
    }
    return SDMA_EXEC_DONE;
}

/* The pending stream writes, in one call. */
static int issue_mops(struct cuda_queue *cq, struct sdma_soft_ctx *x) {
    unsigned n = cq->nmops;
    CUresult cr;
    if (!n)
        return SDMA_EXEC_DONE;
    cq->nmops = 0;
    cr = cq->ce->batch_memop(cq->stream, n, cq->mops, 0);
    if (cr != CUDA_SUCCESS)
        return sdma_exec_fail(x,
                              "cuda: cuStreamBatchMemOp of %u stream writes failed "
                              "(CUresult %d)",
                              n, (int)cr);
    return SDMA_EXEC_DONE;
}

/* *addr = value (32 or 64 bits) in stream order, after a fence; batched with the
 * writes next to it when the driver can. */
static int stream_write(struct cuda_queue *cq, struct sdma_soft_ctx *x, uint64_t addr,
                        uint64_t value, int is64) {
    CUresult cr;
    if (cq->ce->batch_memop) {
        CUstreamBatchMemOpParams *op;
        if (cq->nmops == MOPS_MAX && issue_mops(cq, x) != SDMA_EXEC_DONE)
            return SDMA_EXEC_ERROR;
        op = &cq->mops[cq->nmops++];
        memset(op, 0, sizeof *op);
        op->writeValue.operation =
            is64 ? CU_STREAM_MEM_OP_WRITE_VALUE_64 : CU_STREAM_MEM_OP_WRITE_VALUE_32;
        op->writeValue.address = (CUdeviceptr)addr;
        if (is64)
            op->writeValue.value64 = value;
        else
            op->writeValue.value = (cuuint32_t)value;
        op->writeValue.flags = CU_STREAM_WRITE_VALUE_DEFAULT; /* a fence first */
        return SDMA_EXEC_DONE;
    }
    cr = is64 ? cq->ce->write64(cq->stream, (CUdeviceptr)addr, value, CU_STREAM_WRITE_VALUE_DEFAULT)
              : cq->ce->write32(cq->stream, (CUdeviceptr)addr, (cuuint32_t)value,
                                CU_STREAM_WRITE_VALUE_DEFAULT);
    if (cr != CUDA_SUCCESS)
        return sdma_exec_fail(x, "cuda: cuStreamWriteValue%d on 0x%llx failed (CUresult %d)",
                              is64 ? 64 : 32, (unsigned long long)addr, (int)cr);
    return SDMA_EXEC_DONE;
}

/* mark: remember when this batch is done (later copies may wait for it to merge,
 * cuda_flush); not needed when an ordering point follows at once. */
static int issue_copies(struct cuda_queue *cq, struct sdma_soft_ctx *x, int mark) {
    int rc = issue_batch(cq, x);
    cq->inflight =
        mark && rc == SDMA_EXEC_DONE && cudaEventRecord(cq->issued, cq->stream) == cudaSuccess;
    return rc;
}

static int ex_copy(struct sdma_soft_ctx *x, uint64_t dst, uint64_t dpitch, uint64_t dslice,
                   uint64_t src, uint64_t spitch, uint64_t sslice, uint64_t width, uint64_t rows,
                   uint64_t depth) {
    struct cuda_queue *cq = x->ops_arg;
    uint64_t z, y;
    if (enter(cq->ce))
        return sdma_exec_fail(x, "cuda: cannot make GPU %d current", cq->ce->device);
    if (issue_mops(cq, x) != SDMA_EXEC_DONE) /* the writes before this copy */
        return SDMA_EXEC_ERROR;
    if (rows == 1 && depth == 1) {
        if (cq->npend == MERGE_MAX && issue_copies(cq, x, 1) != SDMA_EXEC_DONE)
            return SDMA_EXEC_ERROR;
        if (!cq->npend) {
            cq->first_at = mono_s();
            cq->pend_bytes = 0;
        }
        cq->pend_bytes += width;
        cq->pend[cq->npend++] = (struct pending_copy){dst, src, width};
        return SDMA_EXEC_DONE;
    }
    if (cq->npend && issue_copies(cq, x, 0) != SDMA_EXEC_DONE)
        return SDMA_EXEC_ERROR;
    for (z = 0; z < depth; z++) {
        void *d = (void *)(uintptr_t)(dst + z * dslice);
        const void *s = (const void *)(uintptr_t)(src + z * sslice);
        cudaError_t e = cudaMemcpy2DAsync(d, (size_t)dpitch, s, (size_t)spitch, (size_t)width,
                                          (size_t)rows, cudaMemcpyDefault, cq->stream);
        if (e == cudaSuccess)
            continue;
        /* A pitch beyond the runtime's limit: row by row. */
        (void)cudaGetLastError();
        for (y = 0; y < rows; y++) {
            e = cudaMemcpyAsync((char *)d + y * dpitch, (const char *)s + y * spitch, (size_t)width,
                                cudaMemcpyDefault, cq->stream);
            if (e != cudaSuccess)
                return cu_fail(x, e, "cudaMemcpyAsync (2D row)");
        }
    }
    return SDMA_EXEC_DONE;
}

/* Everything before an ordering point is queued first. */
static int before_op(struct sdma_soft_ctx *x, struct cuda_queue *cq) {
    if (enter(cq->ce))
        return sdma_exec_fail(x, "cuda: cannot make GPU %d current", cq->ce->device);
    if (cq->npend && issue_copies(cq, x, 0) != SDMA_EXEC_DONE)
        return SDMA_EXEC_ERROR;
    return issue_mops(cq, x);
}

/* ----------------------------------------------- host functions, in order */

enum host_kind { HOST_FENCE, HOST_ATOMIC, HOST_FILL, HOST_TIMESTAMP };
struct host_op {
    enum host_kind kind;
    uint64_t addr, a, b, n;
    unsigned base, unit;
    int is64;
};

static void run_host_op(void *arg) {
    struct host_op *h = arg;
    struct sdma_soft_ctx x;
    const struct sdma_exec_ops *o = &sdma_host_exec;
    memset(&x, 0, sizeof x);
    switch (h->kind) {
    case HOST_FENCE: (void)o->fence(&x, h->addr, (uint32_t)h->a); break;
    case HOST_ATOMIC: (void)o->atomic(&x, h->addr, h->base, h->is64, h->a, h->b); break;
    case HOST_FILL: (void)o->fill(&x, h->addr, h->n, (uint32_t)h->a, h->unit); break;
    case HOST_TIMESTAMP: (void)o->timestamp(&x, h->addr); break;
    }
    free(h);
}

static int host_fn(struct sdma_soft_ctx *x, struct cuda_queue *cq, struct host_op h) {
    struct host_op *p = malloc(sizeof *p);
    cudaError_t e;
    if (!p)
        return sdma_exec_fail(x, "cuda: out of memory");
    *p = h;
    e = cudaLaunchHostFunc(cq->stream, run_host_op, p);
    if (e != cudaSuccess) {
        free(p);
        return cu_fail(x, e, "cudaLaunchHostFunc");
    }
    return SDMA_EXEC_DONE;
}

/* --------------------------------------------------------- the other ops */

static void reap_wait(struct cuda_queue *cq) {
    if (cq->wait_armed && cudaEventQuery(cq->wait_done) == cudaSuccess) {
        cq->wait_armed = 0;
        cq->ce->blocked--;
    }
}

static int ex_poll(struct sdma_soft_ctx *x, uint64_t addr, uint32_t ref, uint32_t mask,
                   unsigned func, uint32_t *seen) {
    struct cuda_queue *cq = x->ops_arg;
    struct cuda_engine *ce = cq->ce;
    enum reach r;
    unsigned flags;
    /* Who can read the word is looked up once per POLL: the lookup takes the driver's
     * lock, which the application's launches need too. */
    if (x->poll_checks <= 1 || addr != cq->poll_addr) {
        cq->poll_addr = addr;
        cq->poll_reach = reach_of(addr);
    }
    r = cq->poll_reach;
    CUresult cr;
    cudaError_t e;

    if (r == REACH_HOST || (r == REACH_MAPPED && !ce->stream_waits)) {
        /* Acquire pairs with the release that opens the gate (see the soft executor). */
        *seen = __atomic_load_n((const uint32_t *)(uintptr_t)addr, __ATOMIC_ACQUIRE);
        return sdma_poll_holds(*seen & mask, ref, func);
    }
    /* A stream wait: >=, == and "(word & mask) != 0" are what the hardware compares. */
    if (func == SDMA_POLL_GE && mask == UINT32_MAX)
        flags = CU_STREAM_WAIT_VALUE_GEQ;
    else if (func == SDMA_POLL_EQ && mask == UINT32_MAX)
        flags = CU_STREAM_WAIT_VALUE_EQ;
    else if (func == SDMA_POLL_NE && ref == 0)
        flags = CU_STREAM_WAIT_VALUE_AND, ref = mask;
    else
        return sdma_exec_fail(x,
                              "cuda: POLL (func %u, mask 0x%08x) on GPU memory at 0x%llx: "
                              "stream waits compare >=, == or (word & mask) != 0 only",
                              func, mask, (unsigned long long)addr),
               -1;
    if (ce->lazy)
        return sdma_exec_fail(x,
                              "cuda: POLL on GPU memory at 0x%llx needs a stream wait, and "
                              "stream waits deadlock with lazy module loading: set "
                              "CUDA_MODULE_LOADING=EAGER before CUDA starts",
                              (unsigned long long)addr),
               -1;
    if (before_op(x, cq) != SDMA_EXEC_DONE)
        return -1;
    reap_wait(cq);
    if (!cq->wait_armed && ce->blocked >= ce->max_blocked) {
        *seen = 0;
        return 0; /* too many streams blocked: park until one drains */
    }
    cr = ce->wait32(cq->stream, (CUdeviceptr)addr, ref, flags);
    if (cr != CUDA_SUCCESS)
        return sdma_exec_fail(x, "cuda: cuStreamWaitValue32 on 0x%llx failed (CUresult %d)",
                              (unsigned long long)addr, (int)cr),
               -1;
    e = cudaEventRecord(cq->wait_done, cq->stream);
    if (e != cudaSuccess)
        return cu_fail(x, e, "cudaEventRecord"), -1;
    if (!cq->wait_armed) {
        cq->wait_armed = 1;
        ce->blocked++;
    }
    return 1;
}

static int ex_fence(struct sdma_soft_ctx *x, uint64_t addr, uint32_t value) {
    struct cuda_queue *cq = x->ops_arg;
    if (enter(cq->ce))
        return sdma_exec_fail(x, "cuda: cannot make GPU %d current", cq->ce->device);
    /* Copies before the write are queued first; writes before it stay batched. */
    if (cq->npend && issue_copies(cq, x, 0) != SDMA_EXEC_DONE)
        return SDMA_EXEC_ERROR;
    if (reach_cached(cq, addr) == REACH_HOST) {
        if (issue_mops(cq, x) != SDMA_EXEC_DONE)
            return SDMA_EXEC_ERROR;
        return host_fn(x, cq, (struct host_op){.kind = HOST_FENCE, .addr = addr, .a = value});
    }
    /* The write's fence: the copies before it are visible to whoever sees the value. */
    return stream_write(cq, x, addr, value, 0);
}

static int ex_atomic(struct sdma_soft_ctx *x, uint64_t addr, unsigned base, int is64, uint64_t src,
                     uint64_t cmp) {
    struct cuda_queue *cq = x->ops_arg;
    int e;
    if (before_op(x, cq) != SDMA_EXEC_DONE)
        return SDMA_EXEC_ERROR;
    if (reach_cached(cq, addr) == REACH_HOST)
        return host_fn(
            x, cq,
            (struct host_op){
                .kind = HOST_ATOMIC, .addr = addr, .a = src, .b = cmp, .base = base, .is64 = is64});
    e = sdma_cuda_atomic_launch(cq->stream, addr,
                                base == SDMA_ATOMIC_ADD32    ? SDMA_CUDA_ADD
                                : base == SDMA_ATOMIC_SWAP32 ? SDMA_CUDA_SWAP
                                                             : SDMA_CUDA_CAS,
                                is64, src, cmp);
    return e ? cu_fail(x, (cudaError_t)e, "the atomic kernel's launch") : SDMA_EXEC_DONE;
}

static int ex_fill(struct sdma_soft_ctx *x, uint64_t dst, uint64_t bytes, uint32_t pattern,
                   unsigned unit) {
    struct cuda_queue *cq = x->ops_arg;
    int e;
    if (before_op(x, cq) != SDMA_EXEC_DONE)
        return SDMA_EXEC_ERROR;
    if (reach_cached(cq, dst) == REACH_HOST)
        return host_fn(x, cq,
                       (struct host_op){
                           .kind = HOST_FILL, .addr = dst, .a = pattern, .n = bytes, .unit = unit});
    e = sdma_cuda_fill_launch(cq->stream, dst, bytes, pattern, unit);
    return e ? cu_fail(x, (cudaError_t)e, "the fill kernel's launch") : SDMA_EXEC_DONE;
}

static int ex_timestamp(struct sdma_soft_ctx *x, uint64_t addr) {
    struct cuda_queue *cq = x->ops_arg;
    int e;
    if (before_op(x, cq) != SDMA_EXEC_DONE)
        return SDMA_EXEC_ERROR;
    if (reach_cached(cq, addr) == REACH_HOST)
        return host_fn(x, cq, (struct host_op){.kind = HOST_TIMESTAMP, .addr = addr});
    e = sdma_cuda_timestamp_launch(cq->stream, addr);
    return e ? cu_fail(x, (cudaError_t)e, "the timestamp kernel's launch") : SDMA_EXEC_DONE;
}

static const struct sdma_exec_ops cuda_exec = {ex_copy,   ex_poll, ex_fence,
                                               ex_atomic, ex_fill, ex_timestamp};

/* ---------------------------------------------------------------- flush */

static int cuda_flush(void *qstate, uint64_t rd, int ran) {
    struct cuda_queue *cq = qstate;
    struct sdma_queue *q = cq->q;
    struct sdma_soft_ctx x;
    double t = mono_s();
    cudaError_t e;
    (void)ran;
    if (cq->npend && cq->inflight && t - cq->first_at < HOLD_MAX_S &&
        cq->pend_bytes < HOLD_MAX_BYTES) {
        if (t - cq->inflight_checked >= 5e-6) {
            cq->inflight_checked = t;
            if (enter(cq->ce) == 0 && cudaEventQuery(cq->issued) != cudaErrorNotReady)
                cq->inflight = 0;
        }
        if (cq->inflight)
            return 1; /* the engine is busy: let more copies come to merge with */
    }
    if (cq->npend || cq->nmops || rd != cq->published) {
        memset(&x, 0, sizeof x);
        if (enter(cq->ce))
            return sdma_seterr(SDMA_ERR_SYSTEM, "cuda: cannot make GPU %d current", cq->ce->device);
        if (cq->npend && issue_copies(cq, &x, 1) != SDMA_EXEC_DONE)
            return sdma_seterr(SDMA_ERR_SYSTEM, "%s", x.msg), -1;
        if (q->complete && rd != cq->published &&
            stream_write(cq, &x, (uint64_t)(uintptr_t)q->complete, rd, 1) != SDMA_EXEC_DONE)
            return sdma_seterr(SDMA_ERR_SYSTEM, "%s (the completion word)", x.msg), -1;
        if (issue_mops(cq, &x) != SDMA_EXEC_DONE)
            return sdma_seterr(SDMA_ERR_SYSTEM, "%s", x.msg), -1;
        cq->published = rd;
    }
    /* Failed copies surface in the stream: look every millisecond (a query costs ~1 us). */
    if (t - cq->last_check < 1e-3)
        return 0;
    cq->last_check = t;
    reap_wait(cq);
    if (enter(cq->ce) == 0 && (e = cudaStreamQuery(cq->stream)) != cudaSuccess &&
        e != cudaErrorNotReady) {
        (void)cudaGetLastError();
        return sdma_seterr(SDMA_ERR_SYSTEM,
                           "cuda: an operation on the queue's stream failed: "
                           "%s",
                           cudaGetErrorString(e)),
               -1;
    }
    return 0;
}

/* ------------------------------------------------------ engine and queues */

static int entry(const char *sym, void **fn, char *err, size_t errlen) {
    enum cudaDriverEntryPointQueryResult st;
    cudaError_t e = cudaGetDriverEntryPointByVersion(sym, fn, 12000, cudaEnableDefault, &st);
    if (e != cudaSuccess || st != cudaDriverEntryPointSuccess || !*fn) {
        (void)cudaGetLastError();
        snprintf(err, errlen, "cuda: the driver has no %s (%s)", sym,
                 e != cudaSuccess ? cudaGetErrorString(e) : "symbol not found");
        return SDMA_ERR_UNAVAILABLE;
    }
    return 0;
}

static int cuda_backend_open(struct sdma_engine *e, void **state, char *err, size_t errlen) {
    struct cuda_engine *ce = calloc(1, sizeof *ce);
    const char *loading = getenv("CUDA_MODULE_LOADING");
    const char *conn = getenv("CUDA_DEVICE_MAX_CONNECTIONS");
    int n = 0, rc;
    cudaError_t ce_rc;
    if (!ce) {
        snprintf(err, errlen, "cuda: out of memory");
        return SDMA_ERR_NOMEM;
    }
    ce_rc = cudaGetDevice(&ce->device);
    if (ce_rc == cudaSuccess)
        ce_rc = cudaGetDeviceCount(&n);
    if (ce_rc != cudaSuccess || n <= 0) {
        (void)cudaGetLastError();
        snprintf(err, errlen, "cuda: no GPU (%s)",
                 ce_rc != cudaSuccess ? cudaGetErrorString(ce_rc) : "0 devices");
        free(ce);
        return SDMA_ERR_UNAVAILABLE;
    }
    if ((rc = entry("cuStreamWriteValue32", (void **)&ce->write32, err, errlen)) ||
        (rc = entry("cuStreamWriteValue64", (void **)&ce->write64, err, errlen)) ||
        (rc = entry("cuStreamWaitValue32", (void **)&ce->wait32, err, errlen))) {
        free(ce);
        return rc;
    }
    ce->batch = 1;
    {
        char ignored[160]; /* an older driver: one call per stream write */
        if (entry("cuStreamBatchMemOp", (void **)&ce->batch_memop, ignored, sizeof ignored))
            ce->batch_memop = NULL;
    }
    ce->lazy = !loading || strcasecmp(loading, "EAGER") != 0;
    ce->stream_waits = e->cfg.stream_waits;
    if (ce->stream_waits && ce->lazy) {
        snprintf(err, errlen,
                 "cuda: stream waits were asked for, but CUDA_MODULE_LOADING is "
                 "%s: the first launch of a kernel while a wait is armed "
                 "deadlocks; set CUDA_MODULE_LOADING=EAGER before CUDA starts",
                 loading ? loading : "unset (lazy)");
        free(ce);
        return SDMA_ERR_INVAL;
    }
    /* Streams blocked in waits hold hardware connections: keep half of them free. */
    ce->max_blocked = (conn && atoi(conn) > 0 ? atoi(conn) : 8) / 2;
    if (ce->max_blocked < 1)
        ce->max_blocked = 1;
    *state = ce;
    return 0;
}

static void cuda_backend_close(void *state) { free(state); }

static void *cuda_alloc(void *state, size_t bytes) {
    void *p = NULL;
    if (enter(state) ||
        cudaHostAlloc(&p, bytes, cudaHostAllocMapped | cudaHostAllocPortable) != cudaSuccess) {
        (void)cudaGetLastError();
        return NULL;
    }
    return p;
}

static void cuda_free(void *state, void *p) {
    (void)state;
    (void)cudaFreeHost(p);
}

static void cuda_queue_release(struct cuda_queue *cq) {
    if (enter(cq->ce) == 0) {
        if (cq->stream) {
            (void)cudaStreamSynchronize(cq->stream);
            (void)cudaStreamDestroy(cq->stream);
        }
        if (cq->wait_done)
            (void)cudaEventDestroy(cq->wait_done);
        if (cq->issued)
            (void)cudaEventDestroy(cq->issued);
    }
    free(cq);
}

static int cuda_queue_open(void *state, struct sdma_queue *q, void **qstate) {
    struct cuda_engine *ce = state;
    struct cuda_queue *cq = calloc(1, sizeof *cq);
    cudaError_t e;
    if (!cq)
        return sdma_seterr(SDMA_ERR_NOMEM, "cuda: out of memory for queue '%s'", q->label);
    cq->ce = ce;
    cq->q = q;
    cq->published = *q->ring.rptr;
    if (enter(ce)) {
        free(cq);
        return sdma_seterr(SDMA_ERR_SYSTEM, "cuda: cannot make GPU %d current", ce->device);
    }
    e = cudaEventCreateWithFlags(&cq->wait_done, cudaEventDisableTiming);
    if (e == cudaSuccess)
        e = cudaEventCreateWithFlags(&cq->issued, cudaEventDisableTiming);
    if (e == cudaSuccess)
        e = cudaStreamCreateWithFlags(&cq->stream, cudaStreamNonBlocking);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        cuda_queue_release(cq);
        return sdma_seterr(SDMA_ERR_SYSTEM, "cuda: queue '%s': stream create failed: %s", q->label,
                           cudaGetErrorString(e));
    }
    *qstate = cq;
    return 0;
}

static void cuda_queue_close(void *state, void *qstate) {
    struct cuda_queue *cq = qstate;
    (void)state;
    if (cq->wait_armed)
        cq->ce->blocked--;
    cuda_queue_release(cq);
}

static const struct sdma_soft_backend cuda_backend = {
    .name = "cuda",
    .exec = &cuda_exec,
    .max_sleep_us = 50,
    .spin_us = 2000,
    /* A plan's gates and peer words open within microseconds of each other: a
     * packet's 10 us interval would add up to 10 us per POLL to every round. */
    .poll_interval_us = 1,
    .open = cuda_backend_open,
    .close = cuda_backend_close,
    .alloc = cuda_alloc,
    .free = cuda_free,
    .queue_open = cuda_queue_open,
    .queue_close = cuda_queue_close,
    .flush = cuda_flush,
};

static int cuda_open(struct sdma_engine *e, char *err, size_t errlen) {
    return sdma_soft_open_backend(e, &cuda_backend, err, errlen);
}

/* Peer memory reaches the engine through CUDA IPC (opened by the caller): nothing to map. */
const struct sdma_engine_ops sdma_cuda_ops = {
    .name = "cuda",
    .open = cuda_open,
    .close = sdma_soft_close,
    .queue_open = sdma_soft_queue_open,
    .queue_close = sdma_soft_queue_close,
    .kick = sdma_soft_kick,
    .progress = sdma_soft_progress,
    .block = sdma_soft_block,
    .caps = SDMA_CAP_DEVICE_MEMORY | SDMA_CAP_TAGGED,
};
