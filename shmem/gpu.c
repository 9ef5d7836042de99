/* The device heap and the device path (GPU builds).
 *
 * One GPU per PE: the PE's local rank modulo the node's GPU count, or
 * SHMEM_DEVICE_ID. The device heap is one allocation on it (fine-grained
 * memory on AMD so that system-scope atomics and copy engines see coherent
 * data while kernels run; cudaMalloc on NVIDIA), zeroed, exported to the
 * node's other PEs by an IPC handle of the allocation's base exchanged over
 * the bootstrap, and opened by each of them with lazy peer access.
 *
 * The host reaches device-heap memory through the GPU runtime: copies with
 * the "default" kind (unified addressing: host, local GPU and IPC-mapped
 * peer memory alike) queued on one library stream, blocking operations
 * synchronizing it, non-blocking ones completed at quiet; atomics through a
 * one-thread kernel (shmem/gpu_amo.cu) on the same stream, so that a signal
 * follows the data it signals. */
#include "shmem/shmemi.h"

#include "device/gpu.h"
#include "shmem/gpu_amo.h"

#include <pthread.h>
#include <stdlib.h>
#include <strings.h>

static struct {
    int device;           /* this PE's GPU */
    hipStream_t stream;   /* every copy and AMO of the device path */
    uint64_t *amo_old;    /* device word the AMO kernel stores the old value in */
    pthread_mutex_t amo_lock;
    int pending;          /* nbi operations queued since the last quiet */
    char *const *peer_table; /* device array of the peers' heaps (device state) */
} gpu = {.device = -1, .amo_lock = PTHREAD_MUTEX_INITIALIZER};

/* The runtime's current device is per host thread: make this PE's GPU
 * current in every thread that uses the device path. */
static __thread int current = -1;

static void check(hipError_t e, const char *fn, const char *what) {
    if (SHMEMI_UNLIKELY(e != hipSuccess))
        shmemi_fatal("%s: %s failed on GPU %d: %s", fn, what, gpu.device, hipGetErrorString(e));
}

static inline void enter(const char *fn) {
    if (SHMEMI_UNLIKELY(current != gpu.device)) {
        check(hipSetDevice(gpu.device), fn, SHMEMI_GPU_VENDOR " set device");
        current = gpu.device;
    }
}

static void sync_stream(const char *fn) {
    check(hipStreamSynchronize(gpu.stream), fn, "stream synchronize");
}

/* ------------------------------------------------------------------ setup */

/* What each PE tells the others about its device heap. */
struct gpu_card {
    hipIpcMemHandle_t handle; /* of the heap allocation's base */
    uint64_t bytes;
    uint64_t align; /* the largest power of two dividing the base address */
    int32_t device;
    int32_t pad;
};

static int choose_device(void) {
    int n = 0;
    hipError_t e = hipGetDeviceCount(&n);
    if (e != hipSuccess || n <= 0)
        shmemi_fatal("no GPU: the " SHMEMI_GPU_VENDOR " runtime finds none (%s) (SHMEM_HEAP=host "
                     "runs on the CPU)",
                     e != hipSuccess ? hipGetErrorString(e) : "0 devices");
    long want = shmemi.cfg.DEVICE_ID;
    if (want >= n)
        shmemi_fatal("SHMEM_DEVICE_ID=%ld: this PE sees %d GPU%s (0..%d)", want, n,
                     n == 1 ? "" : "s", n - 1);
    return want >= 0 ? (int)want : shmemi.boot->local_rank % n;
}

static int gpu_heap_init(size_t bytes) {
    const char *fn = "shmem_init";
    const char *loading = getenv("CUDA_MODULE_LOADING");
    if (shmemi.my_pe == 0 && loading && strcasecmp(loading, "EAGER"))
        shmemi_warn("CUDA_MODULE_LOADING=%s: the first launch of a kernel while a stream waits "
                    "on a value can deadlock; the library's stream waits need EAGER",
                    loading);
    gpu.device = choose_device();
    /* Initialize the runtime on this PE's GPU before any other call. */
    enter(fn);
    void *base = NULL;
    hipError_t e = shmemi_gpu_malloc_coherent(&base, bytes);
    if (e != hipSuccess)
        shmemi_fatal("cannot allocate the device heap (%zu bytes) on GPU %d: %s (lower "
                     "SHMEM_SYMMETRIC_SIZE)",
                     bytes, gpu.device, hipGetErrorString(e));
    check(hipMemset(base, 0, bytes), fn, "zeroing the device heap");
    check(hipStreamCreateWithFlags(&gpu.stream, hipStreamNonBlocking), fn, "stream create");
    check(hipMalloc((void **)&gpu.amo_old, sizeof(uint64_t)), fn, "allocation of the AMO word");
    check(hipDeviceSynchronize(), fn, "device synchronize");

    struct gpu_card me = {.bytes = bytes, .device = gpu.device};
    uintptr_t b = (uintptr_t)base;
    me.align = b ? (b & -b) : SHMEMI_HEAP_ALIGN;
    check(hipIpcGetMemHandle(&me.handle, base), fn, "IPC handle of the device heap");

    int n = shmemi.n_pes;
    struct gpu_card *cards = calloc((size_t)n, sizeof(*cards));
    if (!cards)
        return -1;
    struct boot *boot = shmemi.boot;
    if (boot->allgather(boot, &me, cards, sizeof(me)))
        shmemi_fatal("bootstrap allgather failed during init");
    size_t align = SHMEMI_HEAP_ALIGN;
    for (int pe = 0; pe < n; pe++) {
        if (cards[pe].bytes != bytes)
            shmemi_fatal("PE %d has a device heap of %llu bytes and PE %d one of %zu: every PE "
                         "must see the same SHMEM_SYMMETRIC_SIZE",
                         pe, (unsigned long long)cards[pe].bytes, shmemi.my_pe, bytes);
        if (cards[pe].align < align)
            align = cards[pe].align;
        if (pe == shmemi.my_pe) {
            shmemi.peers[pe].dev = base;
            continue;
        }
        /* Kernels of this GPU reach the peer's GPU directly when they can;
         * the IPC mapping below enables that lazily as well. */
        int other = cards[pe].device, can = 0;
        if (other != gpu.device && hipDeviceCanAccessPeer(&can, gpu.device, other) == hipSuccess &&
            can) {
            e = hipDeviceEnablePeerAccess(other, 0);
            if (e != hipSuccess && e != hipErrorPeerAccessAlreadyEnabled)
                shmemi_debug("peer access from GPU %d to GPU %d: %s", gpu.device, other,
                             hipGetErrorString(e));
            (void)hipGetLastError(); /* not sticky: clear it */
        }
        void *p = NULL;
        e = hipIpcOpenMemHandle(&p, cards[pe].handle, hipIpcMemLazyEnablePeerAccess);
        if (e != hipSuccess)
            shmemi_fatal("cannot map PE %d's device heap (GPU %d) on GPU %d: %s", pe, other,
                         gpu.device, hipGetErrorString(e));
        shmemi.peers[pe].dev = p;
    }
    free(cards);

    shmemi.dev_base = base;
    shmemi.dev_size = bytes;
    /* Offsets are the same on every PE; addresses keep an alignment only up
     * to the least aligned base. */
    shmemi.heap_align = align;
    shmemi_debug("device heap %zu bytes at %p on GPU %d (aligned to %zu)", bytes, base,
                 gpu.device, align);
    return 0;
}

static int gpu_state(struct shmemi_device_state *st) {
    const char *fn = "shmem_init";
    enter(fn);
    size_t n = (size_t)shmemi.n_pes;
    char **host = calloc(n, sizeof(*host));
    if (!host)
        return -1;
    for (size_t pe = 0; pe < n; pe++) {
        host[pe] = shmemi.peers[pe].dev;
        if (pe < SHMEMI_DEV_INLINE_PEERS)
            st->peer_base[pe] = host[pe];
    }
    void *table = NULL;
    check(hipMalloc(&table, n * sizeof(*host)), fn, "allocation of the peer table");
    check(hipMemcpy(table, host, n * sizeof(*host), hipMemcpyHostToDevice), fn,
          "copy of the peer table");
    free(host);
    gpu.peer_table = table;
    st->heap_base = shmemi.dev_base;
    st->heap_size = shmemi.dev_size;
    st->peer_heap = gpu.peer_table;
    st->ctl = (struct shmemi_dev_ctl *)(shmemi.dev_base + shmemi.dev_size - SHMEMI_DEV_CTL_SIZE);
    return 0;
}

/* ------------------------------------------------------------------- path */

static void gpu_copy(void *dst, const void *src, size_t n, int nbi, const char *fn) {
    if (!n)
        return;
    enter(fn);
    check(hipMemcpyAsync(dst, src, n, hipMemcpyDefault, gpu.stream), fn, "copy");
    /* A device-to-device copy returns before it is done even without
     * "Async": blocking operations always wait for the stream. */
    if (nbi)
        __atomic_store_n(&gpu.pending, 1, __ATOMIC_RELEASE);
    else
        sync_stream(fn);
}

static void gpu_copy_2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                        size_t rows, const char *fn) {
    if (!rows || !width)
        return;
    enter(fn);
    hipError_t e =
        hipMemcpy2DAsync(dst, dpitch, src, spitch, width, rows, hipMemcpyDefault, gpu.stream);
    if (e != hipSuccess) {
        /* A pitch beyond the runtime's limit: one copy per element. */
        (void)hipGetLastError();
        for (size_t i = 0; i < rows; i++)
            check(hipMemcpyAsync((char *)dst + i * dpitch, (const char *)src + i * spitch, width,
                                 hipMemcpyDefault, gpu.stream),
                  fn, "strided copy");
    }
    sync_stream(fn);
}

static void gpu_fill(void *dst, int byte, size_t n, const char *fn) {
    if (!n)
        return;
    enter(fn);
    check(hipMemsetAsync(dst, byte, n, gpu.stream), fn, "memset");
    sync_stream(fn);
}

static void gpu_amo(void *p, enum shmemi_amo_op op, size_t size, uint64_t value, uint64_t cond,
                    uint64_t *old, int nbi, const char *fn) {
    enter(fn);
    pthread_mutex_lock(&gpu.amo_lock);
    int rc = shmemi_gpu_amo_launch(p, (int)op, (int)size, value, cond, gpu.amo_old,
                                   (void *)gpu.stream);
    if (rc != 0) {
        pthread_mutex_unlock(&gpu.amo_lock);
        check((hipError_t)rc, fn, "atomic kernel launch");
    }
    uint64_t v = 0;
    if (old) {
        hipError_t e = hipMemcpyAsync(&v, gpu.amo_old, sizeof(v), hipMemcpyDeviceToHost,
                                      gpu.stream);
        if (e == hipSuccess)
            e = hipStreamSynchronize(gpu.stream);
        pthread_mutex_unlock(&gpu.amo_lock);
        check(e, fn, "atomic");
        *old = v;
        return;
    }
    pthread_mutex_unlock(&gpu.amo_lock);
    if (nbi)
        __atomic_store_n(&gpu.pending, 1, __ATOMIC_RELEASE);
    else
        sync_stream(fn);
}

static void gpu_quiet(const char *fn) {
    if (!__atomic_exchange_n(&gpu.pending, 0, __ATOMIC_ACQ_REL))
        return;
    enter(fn);
    sync_stream(fn);
}

/* Peers may still read this PE's heap until they pass the final barrier,
 * and nothing is reused after it: the heap, the mappings and the stream go
 * with the process. */
static void gpu_fini(void) { gpu_quiet("shmem_finalize"); }

static const struct shmemi_dev_ops gpu_ops = {
    .name = SHMEMI_GPU_VENDOR,
    .heap_init = gpu_heap_init,
    .state = gpu_state,
    .copy = gpu_copy,
    .copy_2d = gpu_copy_2d,
    .fill = gpu_fill,
    .amo = gpu_amo,
    .quiet = gpu_quiet,
    .fini = gpu_fini,
};

const struct shmemi_dev_ops *shmemi_gpu_path(void) { return &gpu_ops; }

/* ---------------------------------------------------------- environment */

/* Before any GPU runtime starts in this process (DESIGN §4): kernels loaded
 * eagerly (with lazy loading, the first launch of a kernel while a stream
 * waits on a value can deadlock), and enough hardware queues that streams
 * blocked in waits do not starve kernel launches. Only where the user did
 * not choose; oshrun sets the same. Harmless for HIP. */
__attribute__((constructor)) static void gpu_environment(void) {
    setenv("CUDA_MODULE_LOADING", "EAGER", 0);
    setenv("CUDA_DEVICE_MAX_CONNECTIONS", "32", 0);
}
