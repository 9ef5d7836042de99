// The kernels of the stream-ordered host API (include/shmemx.h): one thread
// each, queued on the caller's stream. Compiled by nvcc or hipcc -x hip. The
// memory-model primitives are the device API's (device/arch.h), so the wait
// and the barrier pair with kernels that use shmem_device.h.
#include "device/gpu.h"
#if !defined(__HIPCC__)
#include <cuda.h>
#endif

#include "device/arch.h"
#include "shmem/gpu_stream.h"
#include "shmemx.h"

// The values of SHMEM_CMP_* (shmem.h).
enum { CMP_EQ, CMP_NE, CMP_GT, CMP_GE, CMP_LT, CMP_LE };

__device__ static bool holds(uint64_t a, int cmp, uint64_t b) {
    switch (cmp) {
    case CMP_EQ: return a == b;
    case CMP_NE: return a != b;
    case CMP_GT: return a > b;
    case CMP_GE: return a >= b;
    case CMP_LT: return a < b;
    default: return a <= b;
    }
}

// Bounded spinning: the clock is read every 256 turns.
struct deadline {
    uint64_t start, limit;
    unsigned turns, backoff;
};

__device__ static deadline deadline_start(uint64_t timeout_ns) {
    deadline d;
    d.start = shmemi_arch_now_ns();
    d.limit = timeout_ns;
    d.turns = 0;
    d.backoff = 0;
    return d;
}

// Back off once; true when the deadline has passed.
__device__ static bool deadline_wait(deadline *d) {
    shmemi_arch_pause(&d->backoff);
    if (d->backoff > 4096)
        d->backoff = 1025; // stay on the long sleep, never wrap to the hot spin
    if ((++d->turns & 255) != 0)
        return false;
    return shmemi_arch_now_ns() - d->start > d->limit;
}

// The first fault of the job claims the record; the host reads `kind` last.
__device__ static void fault(const shmemi_stream_sink &s, uint64_t kind, uint64_t where,
                             uint64_t seen, uint64_t want, uint64_t cmp) {
    if (atomicCAS(s.claim, 0u, 1u) != 0u)
        return;
    shmemi_stream_fault *f = s.fault;
    shmemi_arch_st_rlx64(&f->where, where);
    shmemi_arch_st_rlx64(&f->seen, seen);
    shmemi_arch_st_rlx64(&f->want, want);
    shmemi_arch_st_rlx64(&f->cmp, cmp);
    shmemi_arch_st_rel64(&f->kind, kind);
    shmemi_arch_fence_sys();
}

__global__ static void signal_kernel(uint64_t *p, uint64_t value, int add) {
    // Release: the data copied before this kernel on the stream (and
    // anything else ordered before it) is visible before the signal; the
    // waiter acquires the signal (shmemi_dev_signal_update's order).
    shmemi_arch_fence_sys();
    if (add)
        (void)shmemi_arch_amo64(SHMEMI_AMO_ADD, p, value, 0);
    else
        shmemi_arch_st_rlx64(p, value);
    shmemi_arch_fence_sys();
}

__global__ static void wait_kernel(const uint64_t *p, int cmp, uint64_t value,
                                   shmemi_stream_sink sink) {
    deadline d = deadline_start(sink.timeout_ns);
    for (;;) {
        // Acquire (system): pairs with the putter's fence before the signal,
        // so the stream's later work sees the data put before it.
        uint64_t v = shmemi_arch_ld_acq64(p);
        if (holds(v, cmp, value))
            return;
        if (deadline_wait(&d)) {
            fault(sink, SHMEMI_STREAM_FAULT_WAIT, (uint64_t)(uintptr_t)p, v, value, (uint64_t)cmp);
            return;
        }
    }
}

// shmemi_dev_barrier_all (shmem_device.h): a system-scope release of
// everything before it, then the dissemination rounds on the control words
// with this PE's epoch, one fence per round; with a timeout on each wait.
__global__ static void barrier_kernel(shmemi_stream_barrier bar, shmemi_stream_sink sink) {
    struct shmemi_dev_ctl *ctl = bar.mine;
    shmemi_arch_fence_sys(); // quiet: every earlier access visible first
    uint64_t e = shmemi_arch_ld_rlx64(&ctl->epoch.v) + 1;
    shmemi_arch_st_rlx64(&ctl->epoch.v, e);
    deadline d = deadline_start(sink.timeout_ns);
    for (int k = 0; k < bar.rounds; ++k) {
        // Released by the fence above or by the previous round's fence.
        shmemi_arch_st_rlx64(&bar.to[k]->barrier[k].v, e);
        uint64_t v;
        while ((v = shmemi_arch_ld_rlx64(&ctl->barrier[k].v)) < e) {
            if (deadline_wait(&d)) {
                fault(sink, SHMEMI_STREAM_FAULT_BARRIER, (uint64_t)k, v, e, (uint64_t)bar.from[k]);
                return;
            }
        }
        shmemi_arch_fence_acq_rel(); // acquire this round, release the next
    }
}

// ---------------------------------------------------- triggered plans

// The first error of the plan wins; the host formats the message.
__device__ static void plan_error(const shmemi_plan_gpu &a, int code, uint32_t chunk, uint32_t peer,
                                  uint32_t round) {
    if (atomicCAS(a.error, 0u, (uint32_t)-code) != 0u)
        return;
    shmemi_arch_st_rlx32(a.error_chunk, chunk);
    shmemi_arch_st_rlx32(a.error_round, round);
    shmemi_arch_st_rlx32(a.error_peer, peer);
    shmemi_arch_fence_sys();
}

__device__ static bool plan_failed(const shmemi_plan_gpu &a) {
    return shmemi_arch_ld_acq32(a.error) != 0u;
}

// A peer that could not prepare this round, or (after a timeout) one that has
// not passed the previous round's next_round, named as the error.
__device__ static bool plan_peer_trouble(const shmemi_plan_gpu &a, bool timed_out) {
    for (int q = 0; q < a.n; ++q) {
        if (q == a.me)
            continue;
        if (a.round >= 2 && shmemi_arch_ld_acq32(&a.abortw[q]) == a.round - 1) {
            plan_error(a, SHMEMX_PLAN_EPEER, UINT32_MAX, (uint32_t)q, a.round - 1);
            return true;
        }
        if (timed_out && shmemi_arch_ld_acq32(&a.fence[q]) < a.round - 1) {
            plan_error(a, SHMEMX_PLAN_ETIMEDOUT, UINT32_MAX, (uint32_t)q, a.round - 1);
            return true;
        }
    }
    return false;
}

__global__ static void plan_wait_kernel(shmemi_plan_gpu a) {
    deadline d = deadline_start(a.timeout_ns);
    for (int c = 0; c < a.nchunks; ++c) {
        bool own = c >= a.own_first && c < a.own_first + a.own_count;
        for (int q = own ? 0 : a.me; q < (own ? a.n : a.me + 1); ++q) {
            if (own && q == a.me)
                continue;
            // Acquire (system): the engine's fences (sent here for own chunks,
            // arrival from the owner for the others) follow the copies; later
            // work on the stream sees the bytes once the word is seen.
            const uint32_t *w = own ? &a.sent[(size_t)c * a.n + q] : &a.arrival[c];
            while (shmemi_arch_ld_acq32(w) < a.round) {
                if (plan_failed(a))
                    return;
                if (deadline_wait(&d)) {
                    if (!plan_peer_trouble(a, true))
                        plan_error(a, SHMEMX_PLAN_ETIMEDOUT, (uint32_t)c, (uint32_t)q, a.round);
                    return;
                }
                if ((d.turns & 1023) == 0 && plan_peer_trouble(a, false))
                    return;
            }
        }
    }
}

extern "C" int shmemi_gpu_plan_wait_launch(const struct shmemi_plan_gpu *a, void *stream) {
    plan_wait_kernel<<<1, 1, 0, (hipStream_t)stream>>>(*a);
    return (int)hipGetLastError();
}

#if defined(__HIPCC__)
extern "C" int shmemi_gpu_stream_write32(void *stream, uint32_t *addr, uint32_t value) {
    return (int)hipStreamWriteValue32((hipStream_t)stream, addr, value, 0);
}
extern "C" int shmemi_gpu_stream_wait32(void *stream, uint32_t *addr, uint32_t value) {
    return (int)hipStreamWaitValue32((hipStream_t)stream, addr, value, hipStreamWaitValueGte,
                                     0xFFFFFFFFu);
}
extern "C" int shmemi_gpu_stream_write32_n(void *stream, uint32_t *const *addr, int n,
                                           uint32_t value) {
    int e = 0;
    for (int i = 0; i < n && !e; i++)
        e = shmemi_gpu_stream_write32(stream, addr[i], value);
    return e;
}
#else
// The driver's stream memory operations, found through the runtime (the
// library links the runtime only).
static void *shmemi_driver_fn(const char *name, void **cache) {
    void *f = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
    if (!f) {
        cudaDriverEntryPointQueryResult q;
        if (cudaGetDriverEntryPointByVersion(name, &f, 12000, cudaEnableDefault, &q) !=
                cudaSuccess ||
            q != cudaDriverEntryPointSuccess || !f) {
            (void)cudaGetLastError();
            return nullptr;
        }
        __atomic_store_n(cache, f, __ATOMIC_RELEASE);
    }
    return f;
}
typedef CUresult (*shmemi_memop32_fn)(CUstream, CUdeviceptr, cuuint32_t, unsigned int);
static shmemi_memop32_fn shmemi_memop(const char *name, void **cache) {
    return (shmemi_memop32_fn)shmemi_driver_fn(name, cache);
}

// The default flags put a memory fence before the write.
extern "C" int shmemi_gpu_stream_write32(void *stream, uint32_t *addr, uint32_t value) {
    static void *fn;
    shmemi_memop32_fn f = shmemi_memop("cuStreamWriteValue32", &fn);
    if (!f)
        return (int)cudaErrorNotSupported;
    CUresult r =
        f((CUstream)stream, (CUdeviceptr)(uintptr_t)addr, value, CU_STREAM_WRITE_VALUE_DEFAULT);
    return r == CUDA_SUCCESS ? 0 : (int)cudaErrorUnknown;
}

extern "C" int shmemi_gpu_stream_wait32(void *stream, uint32_t *addr, uint32_t value) {
    static void *fn;
    shmemi_memop32_fn f = shmemi_memop("cuStreamWaitValue32", &fn);
    if (!f)
        return (int)cudaErrorNotSupported;
    CUresult r = f((CUstream)stream, (CUdeviceptr)(uintptr_t)addr, value, CU_STREAM_WAIT_VALUE_GEQ);
    return r == CUDA_SUCCESS ? 0 : (int)cudaErrorUnknown;
}

// One driver call for all the writes (each call costs microseconds of host
// time; the batch costs about one).
extern "C" int shmemi_gpu_stream_write32_n(void *stream, uint32_t *const *addr, int n,
                                           uint32_t value) {
    typedef CUresult (*batch_fn)(CUstream, unsigned int, CUstreamBatchMemOpParams *, unsigned int);
    static void *fn;
    batch_fn f = (batch_fn)shmemi_driver_fn("cuStreamBatchMemOp", &fn);
    CUstreamBatchMemOpParams op[64];
    if (!f)
        return (int)cudaErrorNotSupported;
    for (int i = 0; i < n;) {
        unsigned k = 0;
        for (; i < n && k < 64; i++, k++) {
            memset(&op[k], 0, sizeof(op[k]));
            op[k].writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_32;
            op[k].writeValue.address = (CUdeviceptr)(uintptr_t)addr[i];
            op[k].writeValue.value = value;
            op[k].writeValue.flags = CU_STREAM_WRITE_VALUE_DEFAULT;
        }
        if (f((CUstream)stream, k, op, 0) != CUDA_SUCCESS)
            return (int)cudaErrorUnknown;
    }
    return 0;
}
#endif

extern "C" int shmemi_gpu_signal_launch(uint64_t *p, uint64_t value, int add, void *stream) {
    signal_kernel<<<1, 1, 0, (hipStream_t)stream>>>(p, value, add);
    return (int)hipGetLastError();
}

extern "C" int shmemi_gpu_wait_launch(const uint64_t *p, int cmp, uint64_t value,
                                      const struct shmemi_stream_sink *sink, void *stream) {
    wait_kernel<<<1, 1, 0, (hipStream_t)stream>>>(p, cmp, value, *sink);
    return (int)hipGetLastError();
}

extern "C" int shmemi_gpu_barrier_launch(const struct shmemi_stream_barrier *bar,
                                         const struct shmemi_stream_sink *sink, void *stream) {
    barrier_kernel<<<1, 1, 0, (hipStream_t)stream>>>(*bar, *sink);
    return (int)hipGetLastError();
}
