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
 * follows the data it signals. The stream-ordered host API, which queues
 * its work on the caller's streams, is shmem/gpu_stream.c's (gpu_core.h). */
#include "shmem/shmemi.h"

#include "device/gpu.h"
#include "shmem/engine.h"
#include "shmem/gpu_amo.h"
#include "shmem/gpu_core.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static struct {
    int device;         /* this PE's GPU */
    hipStream_t stream; /* every copy and AMO of the device path */
    uint64_t *amo_old;  /* device word the AMO kernel stores the old value in */
    pthread_mutex_t amo_lock;
    /* nbi operations queued on the stream, and the count a finished quiet
     * completed: a quiet that finds another one synchronizing still waits
     * for its own operations. */
    uint64_t issued, done;
    char *const *peer_table; /* device array of the peers' heaps (device state) */
    /* The device-driven queues' memory, freed at finalize once the engine
     * closed the queues: rings (our own, per peer), producers' ctl, indices,
     * the table of queues. */
    char **dq_rings;
    void *dq_ctl, *dq_lines, *dq_table;
} gpu = {.device = -1, .amo_lock = PTHREAD_MUTEX_INITIALIZER};

/* The runtime's current device is per host thread: make this PE's GPU
 * current in every thread that uses the device path. */
static __thread int current = -1;

static void check(hipError_t e, const char *fn, const char *what) {
    if (SHMEMI_UNLIKELY(e != hipSuccess))
        shmemi_fatal("%s: %s failed on GPU %d: %s", fn, what, gpu.device, hipGetErrorString(e));
}

/* Making the PE's context fails where the GPU takes no more processes: say
 * how many PEs of the node share it. Measured on an H100 under CUDA MPS: 48
 * PEs on the GPU start, 64 do not ("busy or unavailable"). */
static void set_device_failed(hipError_t e, const char *fn) {
    int per_gpu = shmemi_pes_per_gpu_from_env();
    if (per_gpu <= 1)
        check(e, fn, SHMEMI_GPU_VENDOR " set device");
    shmemi_fatal("%s: " SHMEMI_GPU_VENDOR " set device failed on GPU %d: %s (%d PEs of this node "
                 "share each GPU%s)",
                 fn, gpu.device, hipGetErrorString(e), per_gpu,
                 SHMEMI_GPU_HAS_MPS ? "; a GPU in exclusive-process mode takes them only through "
                                      "CUDA MPS, whose server takes a limited number of clients a "
                                      "GPU (48 on Volta and later): run fewer PEs a GPU"
                                    : "");
}

static inline void enter(const char *fn) {
    if (SHMEMI_UNLIKELY(current != gpu.device)) {
        hipError_t e = hipSetDevice(gpu.device);
        if (SHMEMI_UNLIKELY(e != hipSuccess))
            set_device_failed(e, fn);
        current = gpu.device;
    }
}

static void sync_stream(const char *fn) {
    check(hipStreamSynchronize(gpu.stream), fn, "stream synchronize");
}

int shmemi_gpu_enter(const char *fn) {
    enter(fn);
    return gpu.device;
}

hipStream_t shmemi_gpu_lib_pending(void) {
    return __atomic_load_n(&gpu.done, __ATOMIC_ACQUIRE) <
                   __atomic_load_n(&gpu.issued, __ATOMIC_ACQUIRE)
               ? gpu.stream
               : NULL;
}

/* ------------------------------------------------------------------ setup */

/* What each PE tells the others about its device heap. */
struct gpu_card {
    hipIpcMemHandle_t handle; /* of the heap allocation's base */
    uint64_t bytes;
    uint64_t align; /* the largest power of two dividing the base address */
    int32_t device;
    int32_t mps;            /* shmemi_gpu_mps(), or 0 where there is no such server */
    unsigned char uuid[16]; /* the GPU's (zeros if the runtime has none) */
    char pci[32];           /* its PCI location, "0000:19:00.0" */
    char host[64];          /* this node's name */
};

/* Whether PEs a and b use the same GPU: the same UUID (unique per GPU, and per
 * MIG instance), or without UUIDs the same PCI location on the same node. */
static int same_gpu(const struct gpu_card *a, const struct gpu_card *b) {
    static const unsigned char none[16];
    if (memcmp(a->uuid, none, 16) && memcmp(b->uuid, none, 16))
        return !memcmp(a->uuid, b->uuid, 16);
    return a->pci[0] && !strcmp(a->pci, b->pci) && !strcmp(a->host, b->host);
}

/* PEs sharing a GPU: said once per GPU, by the first PE on it. Without MPS
 * the processes' contexts take turns on the GPU (time slices of about a
 * millisecond), so anything a kernel waits for from another PE's kernel --
 * a device barrier, a signal -- costs slices instead of microseconds
 * (measured on an H200: a device barrier round 2.2 ms instead of 2 us). The
 * device API stays correct there: its waits back off and never assume the
 * other side runs at the same time. */
static void report_sharing(const struct gpu_card *cards, int n) {
    int me = shmemi.my_pe, count = 0;
    char list[160] = "";
    size_t at = 0;
    for (int pe = 0; pe < n; pe++) {
        if (!same_gpu(&cards[pe], &cards[me]))
            continue;
        if (pe < me && !count)
            return; /* a lower PE on this GPU says it */
        if (count < 8 && at < sizeof(list))
            at += (size_t)snprintf(list + at, sizeof(list) - at, "%s%d", count ? ", " : "", pe);
        count++;
    }
    if (count < 2)
        return;
    if (count > 8 && at < sizeof(list))
        snprintf(list + at, sizeof(list) - at, " and %d more", count - 8);
    const char *gpu_name = cards[me].pci[0] ? cards[me].pci : "?";
    if (SHMEMI_GPU_HAS_MPS && cards[me].mps != 1)
        shmemi_warn("PEs %s share GPU %s%s: without MPS their kernels take turns on it (time "
                    "slices), so a device barrier or a kernel's wait for another PE takes "
                    "milliseconds instead of microseconds. Start CUDA MPS before the job "
                    "(nvidia-cuda-mps-control -d), or run one PE per GPU",
                    list, gpu_name,
                    cards[me].mps == 0
                        ? " without CUDA MPS"
                        : " (this CUDA runtime cannot tell whether MPS serves them)");
    else
        shmemi_debug("PEs %s share GPU %s%s", list, gpu_name,
                     SHMEMI_GPU_HAS_MPS ? " through CUDA MPS" : "");
}

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
    hipError_t e;
#if defined(SHMEM_GPU_HIP) && defined(hipDeviceMallocUncached)
    /* ROCm/mori allocates its symmetric heap uncached once SDMA writes into it; whether the
     * fine-grained default needs that on MI300 is for hardware to show (README). */
    if (shmemi.cfg.HEAP_UNCACHED)
        e = hipExtMallocWithFlags(&base, bytes, hipDeviceMallocUncached);
    else
#else
    if (shmemi.cfg.HEAP_UNCACHED && shmemi.my_pe == 0)
        shmemi_warn("SHMEM_HEAP_UNCACHED: this build's runtime has no uncached device memory "
                    "(hipDeviceMallocUncached): the device heap stays as it is");
#endif
        e = shmemi_gpu_malloc_coherent(&base, bytes);
    if (e != hipSuccess)
        shmemi_fatal("cannot allocate the device heap (%zu bytes) on GPU %d: %s (lower "
                     "SHMEM_SYMMETRIC_SIZE)",
                     bytes, gpu.device, hipGetErrorString(e));
    check(hipMemset(base, 0, bytes), fn, "zeroing the device heap");
    check(hipStreamCreateWithFlags(&gpu.stream, hipStreamNonBlocking), fn, "stream create");
    check(hipMalloc((void **)&gpu.amo_old, sizeof(uint64_t)), fn, "allocation of the AMO word");
    check(hipDeviceSynchronize(), fn, "device synchronize");

    struct gpu_card me = {.bytes = bytes, .device = gpu.device};
#if SHMEMI_GPU_HAS_MPS
    me.mps = shmemi_gpu_mps(gpu.device);
#endif
    if (shmemi_gpu_uuid(gpu.device, me.uuid) != hipSuccess)
        (void)hipGetLastError(); /* zeros: compared by PCI location */
    if (hipDeviceGetPCIBusId(me.pci, (int)sizeof(me.pci), gpu.device) != hipSuccess) {
        (void)hipGetLastError();
        me.pci[0] = '\0';
    }
    if (gethostname(me.host, sizeof(me.host) - 1))
        me.host[0] = '\0';
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
        if (!shmemi.peers[pe].heap)
            continue; /* on another node (or SHMEM_FORCE_FABRIC): the fabric reaches it */
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
    report_sharing(cards, n);
    free(cards);

    /* Every PE's host heap (its words area: plans' gates, counters and views)
     * is reached by kernels and copy engines too, at the host address. */
    for (int pe = 0; pe < n; pe++) {
        void *h = shmemi.peers[pe].heap, *d = NULL;
        if (!h)
            continue;
        e = hipHostRegister(h, shmemi.heap_size, hipHostRegisterMapped | hipHostRegisterPortable);
        if (e == hipSuccess)
            e = hipHostGetDevicePointer(&d, h, 0);
        if (e != hipSuccess || d != h) {
            shmemi_debug("PE %d's host heap is not usable by GPU %d at its host address (%s): "
                         "no triggered plans on the device heap",
                         pe, gpu.device, e != hipSuccess ? hipGetErrorString(e) : "other address");
            (void)hipGetLastError();
            shmemi.words_gpu = 0;
            break;
        }
        shmemi.words_gpu = 1;
    }

    shmemi.dev_base = base;
    shmemi.dev_size = bytes;
    /* Offsets are the same on every PE; addresses keep an alignment only up
     * to the least aligned base. */
    shmemi.heap_align = align;
    shmemi_debug("device heap %zu bytes at %p on GPU %d (aligned to %zu)", bytes, base, gpu.device,
                 align);
    return 0;
}

/* The device-driven queues (device/state.h): per peer, a ring with its rptr,
 * wptr and doorbell in mapped host memory (the engine's proxy reads them),
 * and in GPU memory the producers' ctl and the published/complete indices.
 * The engine's own view of the ring gets a host ctl it never uses. */
struct dev_queue_host {
    volatile uint64_t rptr;
    uint64_t pad0[15];
    volatile uint64_t wptr;
    uint64_t pad1[15];
    volatile uint64_t doorbell;
    uint64_t pad2[15];
    struct sdma_ring_ctl unused_ctl;
};
struct dev_queue_dev {
    struct sdma_ring_ctl ctl;
};

/* How kernels publish on the device-driven queues (SHMEM_DEVICE_QUEUES):
 * tagged slots where the engine takes them (a proxy thread reads the ring),
 * else the doorbell protocol where the engine's queues are mapped into the
 * GPU (hardware queues) and a doorbell stored by a kernel is known to start
 * the engine (AMD: gfx94x and later, as ROCm/mori runs it; on gfx90a only on
 * request); none (device _nbi puts stay stores) otherwise. Doorbell on a
 * proxy engine runs the hardware queues' protocol against the proxy (how it
 * is tested without AMD GPUs). */
enum { DQ_NONE, DQ_TAGGED, DQ_DOORBELL };
static int device_queue_mode(unsigned caps) {
    const char *want = shmemi.cfg.DEVICE_QUEUES;
    int tagged = (caps & SDMA_CAP_TAGGED) != 0, gpu_rings = (caps & SDMA_CAP_GPU_RINGS) != 0;
    if (!strcmp(want, "tagged") && !tagged)
        shmemi_fatal("SHMEM_DEVICE_QUEUES=tagged: the %s copy engine does not take tagged "
                     "slots (use auto or doorbell)",
                     shmemi_copy_engine_name());
    if (!strcmp(want, "doorbell"))
        return DQ_DOORBELL;
    if (tagged)
        return DQ_TAGGED;
    return gpu_rings && (caps & SDMA_CAP_GPU_DOORBELL) ? DQ_DOORBELL : DQ_NONE;
}

static void device_queues(struct shmemi_device_state *st, const char *fn) {
    size_t n = (size_t)shmemi.n_pes, rb = shmemi.cfg.ENGINE_RING_SIZE;
    if (!shmemi_engine_reaches_device() || shmemi.cfg.DEVICE_NBI_THRESHOLD == 0 || n < 2)
        return;
    unsigned caps = sdma_engine_caps(shmemi_engine());
    int mode = device_queue_mode(caps);
    if (mode == DQ_NONE)
        return;
    int doorbell = mode == DQ_DOORBELL;
    /* Hardware queues own their rings (GPU-mapped already); proxy engines take
     * ours, in host memory mapped into the GPU. */
    int own_ring = !(caps & SDMA_CAP_GPU_RINGS);
    struct shmemi_dev_queue *view = calloc(n, sizeof(*view));
    struct dev_queue_dev *dw = NULL, *dw_init = calloc(n, sizeof(*dw_init));
    if (!view || !dw_init)
        shmemi_fatal("out of memory");
    /* published, complete (my_pe's stays zero); a doorbell queue's FENCE
     * writes `complete` from the engine, kernels poll it: coherent memory, and
     * on AMD uncached where the runtime offers it (ROCm/mori allocates its SDMA
     * words so: an SDMA write does not pass the GFX L2 kernels read through). */
    struct shmemi_dev_ce_line *lines = NULL;
    if (own_ring && !(gpu.dq_rings = calloc(n, sizeof(*gpu.dq_rings))))
        shmemi_fatal("out of memory");
    check(hipMalloc((void **)&dw, n * sizeof(*dw)), fn, "allocation of the device queues");
#if defined(SHMEM_GPU_HIP) && defined(hipDeviceMallocUncached)
    check(hipExtMallocWithFlags((void **)&lines, n * sizeof(*lines), hipDeviceMallocUncached), fn,
          "allocation of the queue indices");
#else
    check(shmemi_gpu_malloc_coherent((void **)&lines, n * sizeof(*lines)), fn,
          "allocation of the queue indices");
#endif
    check(hipMemset(lines, 0, n * sizeof(*lines)), fn, "zeroing the queue indices");
    for (size_t pe = 0; pe < n; pe++) {
        if ((int)pe == shmemi.my_pe)
            continue;
        char label[48];
        snprintf(label, sizeof(label), "device puts to PE %zu", pe);
        struct sdma_queue_attr a;
        sdma_queue_attr_init(&a);
        a.ring_bytes = rb;
        a.label = label;
        if (own_ring) {
            char *mem = NULL;
            check(hipHostMalloc((void **)&mem, rb + sizeof(struct dev_queue_host),
                                hipHostMallocMapped | hipHostMallocPortable),
                  fn, "allocation of a device queue's ring");
            memset(mem, 0, rb + sizeof(struct dev_queue_host));
            gpu.dq_rings[pe] = mem;
            struct dev_queue_host *hw = (struct dev_queue_host *)(mem + rb);
            a.ring = mem;
            a.ctl = &hw->unused_ctl;
            a.rptr = &hw->rptr;
            a.wptr = &hw->wptr;
            a.doorbell = &hw->doorbell;
        }
        if (!doorbell) {
            a.complete = &lines[pe].complete;
            a.flags = SDMA_QUEUE_TAGGED; /* kernels publish tagged slots (sdma/ring.h) */
        } else {
            /* Kernels write the packets and ring the doorbell; nobody kicks the
             * engine for them (and a hardware ring of its own goes in the
             * GPU's memory). */
            a.flags = SDMA_QUEUE_GPU_PRODUCER;
        }
        struct sdma_queue *q = shmemi_device_queue_open((int)pe, &a);
        view[pe].ring = *sdma_queue_ring(q);
        view[pe].ring.ctl = &dw[pe].ctl;
        view[pe].published = &lines[pe].published;
        view[pe].complete = &lines[pe].complete;
        view[pe].doorbell = doorbell;
        /* The producers start where the queue is (0 for a fresh one). */
        uint64_t at = *sdma_queue_ring(q)->wptr;
        dw_init[pe].ctl.reserve = dw_init[pe].ctl.committed = dw_init[pe].ctl.cached_rptr = at;
    }
    check(hipMemcpy(dw, dw_init, n * sizeof(*dw), hipMemcpyHostToDevice), fn,
          "initialization of the device queues");
    free(dw_init);
    void *table = NULL;
    check(hipMalloc(&table, n * sizeof(*view)), fn, "allocation of the device queue table");
    check(hipMemcpy(table, view, n * sizeof(*view), hipMemcpyHostToDevice), fn,
          "copy of the device queue table");
    free(view);
    gpu.dq_ctl = dw;
    gpu.dq_lines = lines;
    gpu.dq_table = table;
    st->queues = table;
    st->ce_lines = lines;
    st->ce_min_bytes = shmemi.cfg.DEVICE_NBI_THRESHOLD;
    st->ce_timeout_ns = (uint64_t)(shmemi.cfg.ENGINE_TIMEOUT * 1e9);
    shmemi_debug("device _nbi puts of at least %zu bytes go to the %s engine's queues (%s)",
                 (size_t)shmemi.cfg.DEVICE_NBI_THRESHOLD, shmemi_copy_engine_name(),
                 doorbell ? "doorbell protocol" : "tagged slots");
}

#if defined(SHMEM_GPU_HIP)
int shmemi_gpu_bus_id(char *buf, int len) {
    return gpu.device >= 0 && hipDeviceGetPCIBusId(buf, len, gpu.device) == hipSuccess ? 0 : -1;
}
#endif

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

static void gpu_queues(struct shmemi_device_state *st, const char *fn) {
    enter(fn);
    device_queues(st, fn);
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
        __atomic_fetch_add(&gpu.issued, 1, __ATOMIC_RELEASE);
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
    int rc =
        shmemi_gpu_amo_launch(p, (int)op, (int)size, value, cond, gpu.amo_old, (void *)gpu.stream);
    if (rc != 0) {
        pthread_mutex_unlock(&gpu.amo_lock);
        check((hipError_t)rc, fn, "atomic kernel launch");
    }
    uint64_t v = 0;
    if (old) {
        hipError_t e =
            hipMemcpyAsync(&v, gpu.amo_old, sizeof(v), hipMemcpyDeviceToHost, gpu.stream);
        if (e == hipSuccess)
            e = hipStreamSynchronize(gpu.stream);
        pthread_mutex_unlock(&gpu.amo_lock);
        check(e, fn, "atomic");
        *old = v;
        return;
    }
    pthread_mutex_unlock(&gpu.amo_lock);
    if (nbi)
        __atomic_fetch_add(&gpu.issued, 1, __ATOMIC_RELEASE);
    else
        sync_stream(fn);
}

static void gpu_quiet(const char *fn) {
    uint64_t want = __atomic_load_n(&gpu.issued, __ATOMIC_ACQUIRE);
    uint64_t done = __atomic_load_n(&gpu.done, __ATOMIC_ACQUIRE);
    if (done >= want)
        return;
    enter(fn);
    sync_stream(fn); /* everything queued before it, the `want` operations included */
    while (done < want && !__atomic_compare_exchange_n(&gpu.done, &done, want, 1, __ATOMIC_RELEASE,
                                                       __ATOMIC_ACQUIRE))
        ;
}

/* Peers may still read this PE's heap until they pass the final barrier,
 * and nothing is reused after it: the heap, the mappings and the stream go
 * with the process. */
static void gpu_fini(void) {
    gpu_quiet("shmem_finalize");
    /* The engine closed the device-driven queues before this. */
    for (int pe = 0; gpu.dq_rings && pe < shmemi.n_pes; pe++)
        if (gpu.dq_rings[pe])
            (void)hipHostFree(gpu.dq_rings[pe]);
    free(gpu.dq_rings);
    gpu.dq_rings = NULL;
    void *dev[3] = {gpu.dq_ctl, gpu.dq_lines, gpu.dq_table};
    for (int i = 0; i < 3; i++)
        if (dev[i])
            (void)hipFree(dev[i]);
    gpu.dq_ctl = gpu.dq_lines = gpu.dq_table = NULL;
}

/* The device row's check (path.h). A host barrier or sync first waits for
 * everything this PE queued on its GPU -- copies, memsets and kernels on every
 * stream, the program's own included -- so that peers see it once they pass
 * the barrier (SHMEM_BARRIER_GPU_SYNC; on an idle GPU a device synchronize is
 * one driver call of a few microseconds). Then the stream-ordered API's part:
 * at finalize its waits end first, and a wait that timed out ends the job. */
static void gpu_check(int how, const char *fn) {
    if (how == SHMEMI_CHECK_SYNC && shmemi.cfg.BARRIER_GPU_SYNC) {
        enter(fn);
        hipError_t e = hipDeviceSynchronize();
        if (e != hipSuccess)
            shmemi_fatal("%s: work this PE queued on GPU %d failed: %s", fn, gpu.device,
                         hipGetErrorString(e));
    }
    shmemi_stream_check(how == SHMEMI_CHECK_DRAIN, fn);
}

static const struct shmemi_dev_ops gpu_ops = {
    .name = SHMEMI_GPU_VENDOR,
    .heap_init = gpu_heap_init,
    .state = gpu_state,
    .queues = gpu_queues,
    .copy = gpu_copy,
    .copy_2d = gpu_copy_2d,
    .fill = gpu_fill,
    .amo = gpu_amo,
    .quiet = gpu_quiet,
    .check = gpu_check,
    .fini = gpu_fini,
};

const struct shmemi_dev_ops *shmemi_gpu_path(void) { return &gpu_ops; }

/* ---------------------------------------------------------- environment */

/* Before any GPU runtime starts in this process (DESIGN §4): kernels loaded
 * eagerly (with lazy loading, the first launch of a kernel while a stream
 * waits on a value can deadlock; oshrun sets it too), and enough hardware
 * queues that streams blocked in waits do not starve kernel launches, as
 * many as the PEs sharing a GPU can have together (shmemi_gpu_connections).
 * Only where the user did not choose. Harmless for HIP. */
__attribute__((constructor)) static void gpu_environment(void) {
    setenv("CUDA_MODULE_LOADING", "EAGER", 0);
    char conns[16];
    snprintf(conns, sizeof conns, "%d", shmemi_gpu_connections(shmemi_pes_per_gpu_from_env()));
    setenv("CUDA_DEVICE_MAX_CONNECTIONS", conns, 0);
}
