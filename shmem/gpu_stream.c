/* The stream-ordered host API of GPU builds (include/shmemx.h):
 * shmemx_*_on_stream and shmemx_collective_launch. Each call queues its work
 * on the caller's stream -- runtime copies between a local buffer and the
 * peer's mapped device heap, and the one-thread kernels of
 * shmem/gpu_stream.cu -- and returns at once; stream order does the rest.
 * The device heap and the library stream are shmem/gpu.c's (gpu_core.h);
 * shmem/stream.c is the CPU build's side, which refuses every call. */
#include "shmem/shmemi.h"

#include "device/gpu.h"
#include "shmem/engine.h"
#include "shmem/gpu_core.h"
#include "shmem/gpu_stream.h"

#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

/* shmemx_*_on_stream (include/shmemx.h): the same copies and the kernels of
 * shmem/gpu_stream.cu, queued on the caller's stream; the host never waits.
 * A wait that runs past SHMEM_ENGINE_TIMEOUT leaves a fault record in pinned
 * host memory, which shmem_barrier_all and shmem_finalize turn into a fatal
 * message (shmemi_stream_check). Set up at the first call. */
static struct {
    pthread_mutex_t lock;
    int device; /* this PE's GPU (set up with the rest) */
    int ready;  /* 1: set up; read without the lock once set (release/acquire) */
    struct shmemi_stream_fault *fault; /* host view of the record */
    struct shmemi_stream_sink sink;    /* device views, timeout */
    hipEvent_t lib_done;               /* recorded on the library stream */
    pthread_mutex_t event_lock;
    struct shmemi_stream_barrier bar;
} sq = {.lock = PTHREAD_MUTEX_INITIALIZER, .event_lock = PTHREAD_MUTEX_INITIALIZER};

/* A runtime error of the stream API: reported, never fatal. */
static int stream_rt(hipError_t e, const char *fn, const char *what) {
    if (SHMEMI_LIKELY(e == hipSuccess))
        return SHMEMX_STREAM_OK;
    (void)hipGetLastError(); /* clear a non-sticky error */
    shmemi_debug("%s: %s failed on GPU %d: %s", fn, what, sq.device, hipGetErrorString(e));
    return SHMEMX_STREAM_ERUNTIME;
}

static int stream_setup(const char *fn) {
    pthread_mutex_lock(&sq.lock);
    int rc = SHMEMX_STREAM_OK;
    void *host = NULL, *dev = NULL, *claim = NULL;
    if (sq.ready)
        goto out;
    /* Its kernels write into the peers' device heaps as mapped here. */
    for (int pe = 0; pe < shmemi.n_pes; pe++)
        if (!shmemi.peers[pe].dev) {
            shmemi_debug("%s: PE %d is reached through the fabric: the stream-ordered API "
                         "needs every PE on this node",
                         fn, pe);
            rc = SHMEMX_STREAM_EUNSUPPORTED;
            goto out;
        }
    sq.device = shmemi_gpu_enter(fn);
    rc = stream_rt(hipHostMalloc(&host, sizeof(*sq.fault), hipHostMallocMapped), fn,
                   "allocation of the fault record");
    if (!rc) {
        memset(host, 0, sizeof(*sq.fault));
        rc = stream_rt(hipHostGetDevicePointer(&dev, host, 0), fn, "mapping of the fault record");
    }
    if (!rc)
        rc = stream_rt(hipMalloc(&claim, sizeof(unsigned int)), fn, "allocation of the fault word");
    if (!rc)
        rc = stream_rt(hipMemset(claim, 0, sizeof(unsigned int)), fn, "zeroing the fault word");
    if (!rc)
        rc = stream_rt(hipEventCreateWithFlags(&sq.lib_done, hipEventDisableTiming), fn,
                       "event create");
    if (!rc)
        rc = stream_rt(hipDeviceSynchronize(), fn, "device synchronize");
    if (rc) {
        if (claim)
            (void)hipFree(claim);
        if (host)
            (void)hipHostFree(host);
        goto out;
    }
    sq.fault = host;
    sq.sink.fault = dev;
    sq.sink.claim = claim;
    double t = shmemi.cfg.ENGINE_TIMEOUT;
    sq.sink.timeout_ns = t > 0 && t < 1.8e10 ? (uint64_t)(t * 1e9) : UINT64_MAX;
    /* The barrier's rounds: PE me + 2^k's control area as mapped here. */
    int n = shmemi.n_pes, me = shmemi.my_pe;
    size_t ctl = shmemi.dev_size - SHMEMI_DEV_CTL_SIZE;
    sq.bar.mine = (struct shmemi_dev_ctl *)(shmemi.dev_base + ctl);
    sq.bar.rounds = 0;
    for (int k = 0, d = 1; d < n && k < SHMEMI_DEV_ROUNDS; ++k, d <<= 1) {
        sq.bar.to[k] = (struct shmemi_dev_ctl *)(shmemi.peers[(me + d) % n].dev + ctl);
        sq.bar.from[k] = (me - d + n) % n;
        sq.bar.rounds = k + 1;
    }
    __atomic_store_n(&sq.ready, 1, __ATOMIC_RELEASE);
out:
    pthread_mutex_unlock(&sq.lock);
    return rc;
}

/* The fault record, when a stream wait timed out: ends the job. */
static void stream_fault(const char *fn) {
    if (!__atomic_load_n(&sq.ready, __ATOMIC_ACQUIRE))
        return;
    const struct shmemi_stream_fault *f = sq.fault;
    uint64_t kind = __atomic_load_n(&f->kind, __ATOMIC_ACQUIRE);
    if (SHMEMI_LIKELY(!kind))
        return;
    double t = shmemi.cfg.ENGINE_TIMEOUT;
    if (kind == SHMEMI_STREAM_FAULT_WAIT) {
        static const char *const cmp[] = {"==", "!=", ">", ">=", "<", "<="};
        shmemi_fatal("%s: an earlier shmemx_signal_wait_until_on_stream timed out after %g s "
                     "(SHMEM_ENGINE_TIMEOUT): the signal at %p was %llu, waiting for %s %llu",
                     fn, t, (void *)(uintptr_t)f->where, (unsigned long long)f->seen,
                     f->cmp < 6 ? cmp[f->cmp] : "?", (unsigned long long)f->want);
    }
    shmemi_fatal("%s: an earlier shmemx_barrier_all_on_stream timed out after %g s "
                 "(SHMEM_ENGINE_TIMEOUT) in round %llu waiting for PE %llu (epoch %llu, "
                 "its word holds %llu): every PE must queue the same number of stream barriers",
                 fn, t, (unsigned long long)f->where, (unsigned long long)f->cmp,
                 (unsigned long long)f->want, (unsigned long long)f->seen);
}

void shmemi_stream_check(int drain, const char *fn) {
    if (!__atomic_load_n(&sq.ready, __ATOMIC_ACQUIRE))
        return;
    if (drain) {
        /* Every stream wait of this PE ends (met or timed out) before the
         * final barrier, after which peers unmap this PE's heap. */
        int dev = shmemi_gpu_enter(fn);
        hipError_t e = hipDeviceSynchronize();
        if (e != hipSuccess)
            shmemi_debug("%s: device synchronize on GPU %d: %s", fn, dev, hipGetErrorString(e));
    }
    stream_fault(fn);
}

/* Common entry: the device heap, this PE's GPU current, the API set up, no
 * earlier fault. */
static int stream_enter(const char *fn) {
    if (SHMEMI_UNLIKELY(shmemi.heap_kind != SHMEMI_HEAP_DEVICE)) {
        shmemi_debug("%s: the stream-ordered API needs the device heap (SHMEM_HEAP=host puts "
                     "the symmetric heap in host memory)",
                     fn);
        return SHMEMX_STREAM_EUNSUPPORTED;
    }
    (void)shmemi_gpu_enter(fn);
    if (SHMEMI_UNLIKELY(!__atomic_load_n(&sq.ready, __ATOMIC_ACQUIRE))) {
        int rc = stream_setup(fn);
        if (rc)
            return rc;
    }
    stream_fault(fn);
    return SHMEMX_STREAM_OK;
}

/* Route a symmetric address (fatal when invalid); *out: pe's copy on the
 * device heap, else SHMEMX_STREAM_EINVAL. */
static int stream_route(const void *addr, size_t len, int pe, const char *fn, void **out) {
    struct shmemi_route r;
    shmemi_route_pe(&r, addr, len, pe, fn);
    *out = r.addr;
    if (r.region == SHMEMI_REGION_DEVICE)
        return SHMEMX_STREAM_OK;
    if (shmemi.heap_kind != SHMEMI_HEAP_DEVICE)
        return SHMEMX_STREAM_OK; /* stream_enter reports it */
    shmemi_debug("%s: %p is symmetric but not on the device heap (global and static variables "
                 "are host memory): the stream-ordered API reaches the device heap only",
                 fn, addr);
    return SHMEMX_STREAM_EINVAL;
}

/* The stream waits for this PE's non-blocking host-API operations on the
 * device heap: those on the copy engine complete here (the host waits), those
 * on the library stream through an event, when there are any. */
static int stream_after_library(hipStream_t s, const char *fn) {
    shmemi_engine_quiet_all(fn);
    hipStream_t lib = shmemi_gpu_lib_pending();
    if (!lib)
        return SHMEMX_STREAM_OK;
    pthread_mutex_lock(&sq.event_lock);
    int rc = stream_rt(hipEventRecord(sq.lib_done, lib), fn, "event record");
    if (!rc)
        rc = stream_rt(hipStreamWaitEvent(s, sq.lib_done, 0), fn, "stream wait for an event");
    pthread_mutex_unlock(&sq.event_lock);
    return rc;
}

int shmemx_putmem_on_stream(void *dest, const void *src, size_t nbytes, int pe, void *stream) {
    const char *fn = __func__;
    void *r;
    int rc = stream_route(dest, nbytes, pe, fn, &r);
    if (!rc)
        rc = stream_enter(fn);
    if (rc || !nbytes)
        return rc;
    /* The copy engine moves the bytes into the peer's mapped heap. */
    return stream_rt(hipMemcpyAsync(r, src, nbytes, hipMemcpyDefault, (hipStream_t)stream), fn,
                     "copy");
}

int shmemx_getmem_on_stream(void *dest, const void *src, size_t nbytes, int pe, void *stream) {
    const char *fn = __func__;
    void *r;
    int rc = stream_route(src, nbytes, pe, fn, &r);
    if (!rc)
        rc = stream_enter(fn);
    if (rc || !nbytes)
        return rc;
    return stream_rt(hipMemcpyAsync(dest, r, nbytes, hipMemcpyDefault, (hipStream_t)stream), fn,
                     "copy");
}

int shmemx_putmem_signal_on_stream(void *dest, const void *src, size_t nbytes, uint64_t *sig_addr,
                                   uint64_t signal, int sig_op, int pe, void *stream) {
    const char *fn = __func__;
    void *r, *rs;
    int rc = stream_route(dest, nbytes, pe, fn, &r);
    if (!rc)
        rc = stream_route(sig_addr, sizeof(*sig_addr), pe, fn, &rs);
    if (!rc)
        rc = stream_enter(fn);
    if (rc)
        return rc;
    if (sig_op != SHMEM_SIGNAL_SET && sig_op != SHMEM_SIGNAL_ADD) {
        shmemi_debug("%s: signal operation %d is neither SHMEM_SIGNAL_SET nor SHMEM_SIGNAL_ADD", fn,
                     sig_op);
        return SHMEMX_STREAM_EINVAL;
    }
    hipStream_t s = (hipStream_t)stream;
    if (nbytes) {
        rc = stream_rt(hipMemcpyAsync(r, src, nbytes, hipMemcpyDefault, s), fn, "copy");
        if (rc)
            return rc;
    }
    /* After the copy on the same stream: the signal follows the data. */
    return stream_rt(
        (hipError_t)shmemi_gpu_signal_launch(rs, signal, sig_op == SHMEM_SIGNAL_ADD, stream), fn,
        "signal kernel launch");
}

int shmemx_signal_wait_until_on_stream(uint64_t *sig_addr, int cmp, uint64_t cmp_value,
                                       void *stream) {
    const char *fn = __func__;
    void *r;
    shmemi_check_init(fn);
    int rc = stream_route(sig_addr, sizeof(*sig_addr), shmemi.my_pe, fn, &r);
    if (!rc)
        rc = stream_enter(fn);
    if (rc)
        return rc;
    if (cmp < SHMEM_CMP_EQ || cmp > SHMEM_CMP_LE) {
        shmemi_debug("%s: comparison %d is not one of SHMEM_CMP_EQ..SHMEM_CMP_LE", fn, cmp);
        return SHMEMX_STREAM_EINVAL;
    }
    if ((uintptr_t)sig_addr & 7) {
        shmemi_debug("%s: signal word %p is not 8-byte aligned", fn, (void *)sig_addr);
        return SHMEMX_STREAM_EINVAL;
    }
    return stream_rt((hipError_t)shmemi_gpu_wait_launch(r, cmp, cmp_value, &sq.sink, stream), fn,
                     "wait kernel launch");
}

/* Stream order completes this API's operations: a copy is done (its bytes
 * visible at the peer) before the stream starts its next operation, and the
 * signal and barrier kernels end with a system-scope fence. What is left is
 * the library stream's non-blocking host-API work, which the stream now
 * waits for. */
int shmemx_quiet_on_stream(void *stream) {
    const char *fn = __func__;
    shmemi_check_init(fn);
    int rc = stream_enter(fn);
    if (rc)
        return rc;
    return stream_after_library((hipStream_t)stream, fn);
}

int shmemx_barrier_all_on_stream(void *stream) {
    const char *fn = __func__;
    shmemi_check_init(fn);
    int rc = stream_enter(fn);
    if (!rc)
        rc = stream_after_library((hipStream_t)stream, fn);
    if (rc || shmemi.n_pes == 1)
        return rc;
    return stream_rt((hipError_t)shmemi_gpu_barrier_launch(&sq.bar, &sq.sink, stream), fn,
                     "barrier kernel launch");
}

int shmemx_collective_launch(const void *func, unsigned grid[3], unsigned block[3], void **args,
                             size_t shared_bytes, void *stream) {
    const char *fn = __func__;
    shmemi_check_init(fn);
    int rc = stream_enter(fn);
    if (rc)
        return rc;
    if (!func || !grid || !block) {
        shmemi_debug("%s: NULL %s", fn, !func ? "kernel" : !grid ? "grid" : "block");
        return SHMEMX_STREAM_EINVAL;
    }
    unsigned long long blocks = (unsigned long long)grid[0] * grid[1],
                       threads = (unsigned long long)block[0] * block[1] * block[2];
    if (__builtin_mul_overflow(blocks, (unsigned long long)grid[2], &blocks) || !blocks ||
        !threads || threads > INT_MAX) {
        shmemi_debug("%s: invalid launch shape: grid %u x %u x %u, workgroup %u x %u x %u", fn,
                     grid[0], grid[1], grid[2], block[0], block[1], block[2]);
        return SHMEMX_STREAM_EINVAL;
    }
    int per_mp = 0, mps = 0;
    rc = stream_rt(
        hipOccupancyMaxActiveBlocksPerMultiprocessor(&per_mp, func, (int)threads, shared_bytes), fn,
        "occupancy query (is func a kernel of a program on the shared runtime?)");
    if (!rc)
        rc =
            stream_rt(hipDeviceGetAttribute(&mps, hipDeviceAttributeMultiprocessorCount, sq.device),
                      fn, "multiprocessor count");
    if (rc)
        return rc;
    unsigned long long room = (unsigned long long)per_mp * (unsigned long long)mps;
    if (blocks > room) {
        shmemi_debug("%s: a grid of %llu workgroups of %llu threads (%zu bytes of dynamic "
                     "shared memory) cannot be resident at once on GPU %d: at most %d per "
                     "multiprocessor x %d multiprocessors = %llu",
                     fn, blocks, threads, shared_bytes, sq.device, per_mp, mps, room);
        return SHMEMX_STREAM_ENOTRESIDENT;
    }
    dim3 g = {grid[0], grid[1], grid[2]}, b = {block[0], block[1], block[2]};
    return stream_rt(hipLaunchKernel(func, g, b, args, shared_bytes, (hipStream_t)stream), fn,
                     "kernel launch");
}
