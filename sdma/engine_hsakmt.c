/* The hsakmt engine: user-mode SDMA queues of an AMD GPU created through libhsakmt
 * (shared/docs/SDMA.md, "Creating queues on AMD"). The producers are the same ring protocol
 * (sdma/ring.h) as everywhere else, and the doorbell store itself starts the engine.
 *
 * What the engine must get right, each from AMD's own code:
 *  - the GPU: the PE's own, matched by PCI location (a HIP device ordinal and a KFD node index
 *    differ once HIP_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES renumber; ROCm/mori anvil.cpp
 *    gpuAgentIndexForHipDevice matches by BDF for that reason);
 *  - memory: a queue runs in its GPU's virtual memory, so every address a packet names must be
 *    registered and mapped for that node (hsaKmtRegisterMemoryToNodes +
 *    hsaKmtMapMemoryToGPUNodes); anything else is a GPU VM fault;
 *  - ring placement: host-written rings and every word the host polls in system memory (ROCr
 *    amd_blit_sdma.cpp Initialize: system_allocator; kfdtest BaseQueue.cpp: a non-local,
 *    executable, uncached buffer), kernel-written rings in the GPU's memory (ROCm/mori
 *    anvil.cpp: NonPaged on the GPU node, which libhsakmt memory.c hsaKmtAllocMemory turns
 *    into VRAM: "GPU allocated VRAM");
 *  - process-wide thunk state: hsaKmtOpenKFD and hsaKmtCloseKFD count references
 *    (openclose.c; a second open answers HSAKMT_STATUS_KERNEL_ALREADY_OPENED), but
 *    hsaKmtReleaseSystemProperties drops the one topology snapshot for everybody (topology.c
 *    topology_drop_snapshot, after which validate_nodeid fails): never called here;
 *  - faults: a VM fault stops the device's queues (KFD kfd_dqm_evict_pasid) and sets every
 *    HSA_EVENTTYPE_MEMORY event of the process with the address (kfd_events.c
 *    kfd_signal_vm_fault_event); ROCr watches one such event (runtime.cpp, vm_fault_event_),
 *    and so does this engine, so a fault is reported at once, with its address;
 *  - generations: only SDMA 4.x (gfx9) packet forms are encoded; gfx10+ is refused.
 *
 * Older libhsakmt (Debian's 5.2.3) lacks hsaKmtCreateQueueExt, HSA_QUEUE_SDMA_BY_ENG_ID and
 * hsaKmtRegisterGraphicsHandleToNodesExt: configure-time checks say what the headers have;
 * the newer calls are looked up at run time (dlsym) so a newer library is used when present.
 * With -DSHMEM_HSAKMT_MODEL=ON the same code runs against sdma/kfd_model/ instead. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hsakmt.h>

#include "sdma/hsakmt_node.h"
#include "sdma/sdma_internal.h"
#ifdef SDMA_HSAKMT_MODEL
#include "sdma/kfd_model/kfd_model.h" /* hsaKmtCreateQueueExt, absent from 5.2.3's hsakmt.h */
#endif

#define HSAKMT_QUEUE_SDMA_BY_ENG_ID 6 /* HSA_QUEUE_SDMA_BY_ENG_ID in newer hsakmttypes.h */
#define HK_PAGE 4096ull

typedef HSAKMT_STATUS (*create_queue_ext_fn)(HSAuint32, HSA_QUEUE_TYPE, HSAuint32,
                                             HSA_QUEUE_PRIORITY, HSAuint32, void *, HSAuint64,
                                             HsaEvent *, HsaQueueResource *);
typedef HSAKMT_STATUS (*register_gfx_ext_fn)(HSAuint64, HsaGraphicsResourceInfo *, HSAuint64,
                                             HSAuint32 *, HSAuint32 /* HSA_REGISTER_MEM_FLAGS */);

/* Memory reachable for the node: registered and mapped by this engine (sdma_engine_map), or
 * declared mapped by its owner (sdma_engine_declare: e.g. HIP's device heap, which a
 * libhsakmt of ROCr's own cannot be asked about). */
struct hk_range {
    void *key;        /* the address the caller named (sdma_engine_unmap's argument) */
    uintptr_t lo, hi; /* the pages */
    int owned;        /* registered here: unmapped and deregistered at unmap/close */
    int kind;         /* SDMA_MEM_HOST or _DEVICE */
};

struct hk_engine {
    HSAuint32 node;
    HsaNodeProperties props;
    create_queue_ext_fn create_queue_ext;
    register_gfx_ext_fn register_gfx_ext;
    HsaEvent *fault_ev;   /* HSA_EVENTTYPE_MEMORY: the driver's VM-fault report */
    pthread_mutex_t lock; /* ranges, queues, fault */
    struct hk_range *ranges;
    size_t nranges, rcap;
    struct sdma_queue **queues;
    size_t nq, qcap;
    char fault[480]; /* set once a fault on this node was seen */
};

struct hk_queue {
    HsaQueueResource res;
    void *ring;
    size_t ring_bytes;
    void *ctl_page; /* producers' ring_ctl and the quiet word: system memory */
};

#define CTL_PAGE 4096

/* ------------------------------------------------------------------ open */

static int open_kfd(char *err, size_t errlen) {
    HSAKMT_STATUS st = hsaKmtOpenKFD();
    /* A second open (HIP's runtime got there first, sharing this libhsakmt) is a reference. */
    if (st == HSAKMT_STATUS_SUCCESS || st == HSAKMT_STATUS_KERNEL_ALREADY_OPENED)
        return SDMA_OK;
    if (access("/dev/kfd", F_OK) != 0)
        snprintf(err, errlen, "hsakmt: /dev/kfd not present (no AMD GPU driver)");
    else if (access("/dev/kfd", R_OK | W_OK) != 0)
        snprintf(err, errlen,
                 "hsakmt: no permission to open /dev/kfd (%s); the user needs the "
                 "render/video group",
                 strerror(errno));
    else
        snprintf(err, errlen, "hsakmt: hsaKmtOpenKFD failed (status %d)", (int)st);
    return SDMA_ERR_UNAVAILABLE;
}

/* The io link to the CPU: can ATOMIC packets reach host memory (PCIe 64-bit atomics)? ROCr
 * takes link.info.atomic_support_64bit for its SDMA signals (amd_blit_sdma.cpp Initialize). */
static int host_atomics(const struct hk_engine *he) {
    HsaIoLinkProperties links[32];
    HSAuint32 n = he->props.NumIOLinks < 32 ? he->props.NumIOLinks : 32, i;
    if (n == 0 || hsaKmtGetNodeIoLinkProperties(he->node, n, links) != HSAKMT_STATUS_SUCCESS)
        return 1;
    for (i = 0; i < n; i++) {
        HsaNodeProperties to;
        if (hsaKmtGetNodeProperties(links[i].NodeTo, &to) != HSAKMT_STATUS_SUCCESS ||
            to.NumFComputeCores != 0)
            continue; /* a GPU peer */
        return !links[i].Flags.ui32.NoAtomics64bit;
    }
    return 1;
}

static int hk_open(struct sdma_engine *e, char *err, size_t errlen) {
    struct hk_engine *he;
    struct sdma_hsakmt_gpu g;
    HsaEventDescriptor ed;
    int rc = open_kfd(err, errlen);
    if (rc)
        return rc;
    rc = sdma_hsakmt_pick_gpu(&e->cfg, &g, err, errlen);
    if (rc) {
        hsaKmtCloseKFD();
        return rc;
    }
    he = calloc(1, sizeof *he);
    if (!he) {
        hsaKmtCloseKFD();
        snprintf(err, errlen, "hsakmt: out of memory");
        return SDMA_ERR_NOMEM;
    }
    he->node = g.node;
    he->props = g.props;
    pthread_mutex_init(&he->lock, NULL);
#if defined(SDMA_HAVE_HSAKMT_CREATE_QUEUE_EXT) || defined(SDMA_HSAKMT_MODEL)
    he->create_queue_ext = (create_queue_ext_fn)hsaKmtCreateQueueExt;
#else
    he->create_queue_ext = (create_queue_ext_fn)dlsym(RTLD_DEFAULT, "hsaKmtCreateQueueExt");
#endif
    he->register_gfx_ext =
        (register_gfx_ext_fn)dlsym(RTLD_DEFAULT, "hsaKmtRegisterGraphicsHandleToNodesExt");
    /* The VM-fault report (ROCr runtime.cpp: CreateEvent(HSA_EVENTTYPE_MEMORY, ...)). */
    memset(&ed, 0, sizeof ed);
    ed.EventType = HSA_EVENTTYPE_MEMORY;
    ed.NodeId = he->node;
    if (hsaKmtCreateEvent(&ed, true, false, &he->fault_ev) != HSAKMT_STATUS_SUCCESS)
        he->fault_ev = NULL; /* faults then surface as timeouts */

    /* Limits and packet forms of the node's SDMA generation. */
    if (!g.sdma44 &&
        (e->cfg.max_copy_bytes == 0 || e->cfg.max_copy_bytes > SDMA_COPY_LINEAR_MAX_SDMA40))
        e->cfg.max_copy_bytes = SDMA_COPY_LINEAR_MAX_SDMA40;
    /* LINEAR_SUB_WINDOW_LARGE is unverified on SDMA 4.4 (packets.h): the 13-dword form
     * unless asked for, as ROCr's rectangular copy on every gfx9. */
    e->copy_2d = e->cfg.copy_2d == SDMA_COPY_2D_LARGE ? SDMA_COPY_2D_LARGE : SDMA_COPY_2D_SW13;
    e->host_atomics = host_atomics(he);
    /* Kernels producing with the doorbell protocol: the rings are GPU-mapped on every part;
     * a doorbell stored by a shader is known to work on gfx94x/gfx950 (ROCm/mori), not shown
     * on gfx90a: there only on request (SHMEM_DEVICE_QUEUES=doorbell). Pre-SDMA-4.4 parts
     * copy 4 MiB per packet, which kernels do not split for: no device queues there. */
    e->caps = SDMA_CAP_DEVICE_MEMORY;
    if (g.sdma44)
        e->caps |= SDMA_CAP_GPU_RINGS;
    if (g.sdma44 && g.props.EngineId.ui32.Minor >= 4)
        e->caps |= SDMA_CAP_GPU_DOORBELL;
    snprintf(e->target, sizeof e->target, "hsakmt: %s", g.name);
    e->priv = he;
    return SDMA_OK;
}

static void hk_close(struct sdma_engine *e) {
    struct hk_engine *he = e->priv;
    size_t i;
    /* Queues are destroyed already (sdma_engine_close's contract): nothing runs that could
     * still touch these pages. */
    for (i = 0; i < he->nranges; i++)
        if (he->ranges[i].owned) {
            hsaKmtUnmapMemoryToGPU((void *)he->ranges[i].lo);
            hsaKmtDeregisterMemory((void *)he->ranges[i].lo);
        }
    free(he->ranges);
    free(he->queues);
    if (he->fault_ev)
        hsaKmtDestroyEvent(he->fault_ev);
    pthread_mutex_destroy(&he->lock);
    free(he);
    /* Reference-counted; the topology snapshot stays for whoever else uses the thunk. */
    hsaKmtCloseKFD();
}

/* ------------------------------------------------------------------ faults */

static const char *fault_reason(const HsaMemoryAccessFault *f) {
    if (f->Failure.NotPresent)
        return "page not present for this GPU";
    if (f->Failure.ReadOnly)
        return "write to a read-only page";
    if (f->Failure.NoExecute)
        return "execute access to a page marked NX";
    if (f->Failure.GpuAccess)
        return "host access only";
    if (f->Failure.ECC || f->Failure.ErrorType)
        return "memory error (ECC/RAS)";
    return "unknown reason";
}

static void fail_queues_locked(struct hk_engine *he) {
    size_t i;
    for (i = 0; i < he->nq; i++)
        sdma_queue_set_error(he->queues[i], "sdma: queue '%s': %s", he->queues[i]->label,
                             he->fault);
}

static int hk_health(struct sdma_engine *e) {
    struct hk_engine *he = e->priv;
    const HsaMemoryAccessFault *f;
    int n;
    if (!he->fault_ev)
        return 0;
    pthread_mutex_lock(&he->lock);
    if (!he->fault[0]) {
        if (hsaKmtWaitOnEvent(he->fault_ev, 0) != HSAKMT_STATUS_SUCCESS) {
            pthread_mutex_unlock(&he->lock);
            return 0;
        }
        f = &he->fault_ev->EventData.EventData.MemoryAccessFault;
        if (f->NodeId != he->node) {
            /* Another GPU's fault (the event is per process): its owner reports it. */
            hsaKmtResetEvent(he->fault_ev);
            pthread_mutex_unlock(&he->lock);
            return 0;
        }
        snprintf(he->fault, sizeof he->fault,
                 "GPU node %u reported a memory access fault at address 0x%llx%s (%s); the "
                 "driver stopped this process's queues on it. Every address a packet names must "
                 "be registered and mapped for that GPU (%s)",
                 (unsigned)f->NodeId, (unsigned long long)f->VirtualAddress,
                 f->Failure.Imprecise ? " (may not be exact)" : "", fault_reason(f), e->target);
    }
    fail_queues_locked(he);
    n = (int)he->nq;
    pthread_mutex_unlock(&he->lock);
    return n;
}

/* ------------------------------------------------------------------ memory */

/* Rings and control pages. Host-written: system memory on the GPU's node (NonPaged 0:
 * libhsakmt allocates host memory), uncached for the GPU; kernel-written rings: VRAM (NonPaged
 * on the GPU node), ROCm/mori's flags. Mapped for the node before use. */
static void *hk_alloc(struct hk_engine *he, size_t bytes, int vram) {
    HsaMemFlags f;
    HsaMemMapFlags mf;
    HSAuint64 alt = 0;
    void *p = NULL;
    memset(&f, 0, sizeof f);
    memset(&mf, 0, sizeof mf);
    f.ui32.NonPaged = vram ? 1 : 0;
    f.ui32.HostAccess = 1;
    f.ui32.PageSize = HSA_PAGE_SIZE_4KB;
    f.ui32.NoNUMABind = 1;
    f.ui32.ExecuteAccess = 1;
    f.ui32.Uncached = 1;
    if (hsaKmtAllocMemory(he->node, bytes, f, &p) != HSAKMT_STATUS_SUCCESS)
        return NULL;
    if (hsaKmtMapMemoryToGPUNodes(p, bytes, &alt, mf, 1, &he->node) != HSAKMT_STATUS_SUCCESS) {
        hsaKmtFreeMemory(p, bytes);
        return NULL;
    }
    memset(p, 0, bytes);
    return p;
}

static void hk_free(void *p, size_t bytes) {
    if (!p)
        return;
    hsaKmtUnmapMemoryToGPU(p);
    hsaKmtFreeMemory(p, bytes);
}

/* Our mapping covering [a, a+len), or NULL. Lock held. */
static const struct hk_range *find_range(const struct hk_engine *he, uintptr_t a, size_t len) {
    size_t i;
    for (i = 0; i < he->nranges; i++)
        if (he->ranges[i].lo <= a && a + len <= he->ranges[i].hi)
            return &he->ranges[i];
    return NULL;
}

/* What the driver knows of [a, a+len): mapped for our node in one allocation or registration
 * (someone else's, e.g. HIP's on a shared libhsakmt), and whether it is VRAM. */
static int driver_kind(const struct hk_engine *he, uintptr_t a, size_t len) {
    HsaPointerInfo pi;
    HSAuint32 i;
    uintptr_t lo;
    memset(&pi, 0, sizeof pi);
    if (hsaKmtQueryPointerInfo((const void *)a, &pi) != HSAKMT_STATUS_SUCCESS ||
        pi.Type == HSA_POINTER_UNKNOWN)
        return SDMA_MEM_UNREACHABLE;
    lo = (uintptr_t)pi.CPUAddress;
    if (a < lo || a + len > lo + pi.SizeInBytes)
        return SDMA_MEM_UNREACHABLE;
    for (i = 0; i < pi.NMappedNodes; i++)
        if (pi.MappedNodes && pi.MappedNodes[i] == he->node) {
            HsaNodeProperties np;
            int gpu_owner = hsaKmtGetNodeProperties(pi.Node, &np) == HSAKMT_STATUS_SUCCESS &&
                            np.NumFComputeCores > 0;
            return pi.Type == HSA_POINTER_ALLOCATED && pi.MemFlags.ui32.NonPaged && gpu_owner
                       ? SDMA_MEM_DEVICE
                       : SDMA_MEM_HOST;
        }
    return SDMA_MEM_UNREACHABLE;
}

static int hk_classify(struct sdma_engine *e, const void *addr, size_t len) {
    struct hk_engine *he = e->priv;
    uintptr_t a = (uintptr_t)addr;
    const struct hk_range *r;
    int kind;
    pthread_mutex_lock(&he->lock);
    r = find_range(he, a, len);
    kind = r ? r->kind : SDMA_MEM_UNREACHABLE;
    pthread_mutex_unlock(&he->lock);
    return r ? kind : driver_kind(he, a, len);
}

/* Room for one more range. Lock held. */
static int grow_ranges(struct hk_engine *he) {
    if (he->nranges == he->rcap) {
        size_t cap = he->rcap ? 2 * he->rcap : 16;
        struct hk_range *n = realloc(he->ranges, cap * sizeof *n);
        if (!n)
            return sdma_seterr(SDMA_ERR_NOMEM, "hsakmt: out of memory");
        he->ranges = n;
        he->rcap = cap;
    }
    return SDMA_OK;
}

static int hk_declare(struct sdma_engine *e, void *addr, size_t len, int device) {
    struct hk_engine *he = e->priv;
    int rc;
    pthread_mutex_lock(&he->lock);
    rc = grow_ranges(he);
    if (!rc) {
        struct hk_range *r = &he->ranges[he->nranges++];
        r->key = addr;
        r->lo = (uintptr_t)addr;
        r->hi = (uintptr_t)addr + len;
        r->owned = 0;
        r->kind = device ? SDMA_MEM_DEVICE : SDMA_MEM_HOST;
    }
    pthread_mutex_unlock(&he->lock);
    return rc;
}

static int hk_map(struct sdma_engine *e, void *addr, size_t len) {
    struct hk_engine *he = e->priv;
    uintptr_t lo = (uintptr_t)addr & ~(HK_PAGE - 1);
    uintptr_t hi = ((uintptr_t)addr + len + HK_PAGE - 1) & ~(HK_PAGE - 1);
    HsaMemMapFlags mf;
    HSAuint64 alt = 0;
    HSAKMT_STATUS st;
    int rc = SDMA_OK;

    if (len == 0)
        return SDMA_OK;
    pthread_mutex_lock(&he->lock);
    if (find_range(he, (uintptr_t)addr, len) ||
        driver_kind(he, (uintptr_t)addr, len) != SDMA_MEM_UNREACHABLE)
        goto out; /* reachable already */
    if ((rc = grow_ranges(he)))
        goto out;
    st = hsaKmtRegisterMemoryToNodes((void *)lo, hi - lo, 1, &he->node);
    if (st != HSAKMT_STATUS_SUCCESS) {
        rc = sdma_seterr(SDMA_ERR_SYSTEM,
                         "hsakmt: cannot register %p (+%zu bytes) with GPU node "
                         "%u (status %d)",
                         addr, len, he->node, (int)st);
        goto out;
    }
    memset(&mf, 0, sizeof mf);
    st = hsaKmtMapMemoryToGPUNodes((void *)lo, hi - lo, &alt, mf, 1, &he->node);
    if (st != HSAKMT_STATUS_SUCCESS || (alt && alt != lo)) {
        if (st == HSAKMT_STATUS_SUCCESS)
            hsaKmtUnmapMemoryToGPU((void *)lo);
        hsaKmtDeregisterMemory((void *)lo);
        rc = sdma_seterr(SDMA_ERR_SYSTEM,
                         st != HSAKMT_STATUS_SUCCESS
                             ? "hsakmt: cannot map %p (+%zu bytes) to GPU node %u"
                             : "hsakmt: %p (+%zu bytes) got a GPU address other than its host "
                               "address on GPU node %u (packets name host addresses)",
                         addr, len, he->node);
        goto out;
    }
    he->ranges[he->nranges].key = addr;
    he->ranges[he->nranges].lo = lo;
    he->ranges[he->nranges].hi = hi;
    he->ranges[he->nranges].owned = 1;
    he->ranges[he->nranges].kind = SDMA_MEM_HOST;
    he->nranges++;
out:
    pthread_mutex_unlock(&he->lock);
    return rc;
}

static int hk_unmap(struct sdma_engine *e, void *addr) {
    struct hk_engine *he = e->priv;
    size_t i;
    pthread_mutex_lock(&he->lock);
    for (i = 0; i < he->nranges; i++)
        if (he->ranges[i].key == addr) {
            if (he->ranges[i].owned) {
                hsaKmtUnmapMemoryToGPU((void *)he->ranges[i].lo);
                hsaKmtDeregisterMemory((void *)he->ranges[i].lo);
            }
            he->ranges[i] = he->ranges[--he->nranges];
            break;
        }
    pthread_mutex_unlock(&he->lock);
    return SDMA_OK;
}

static int hk_import_dmabuf(struct sdma_engine *e, int fd, size_t len, void **addr) {
    struct hk_engine *he = e->priv;
    HsaGraphicsResourceInfo info;
    HsaMemMapFlags mf;
    HSAuint64 alt = 0;
    HSAKMT_STATUS st;
    memset(&info, 0, sizeof info);
    memset(&mf, 0, sizeof mf);
    if (he->register_gfx_ext)
        st = he->register_gfx_ext((HSAuint64)fd, &info, 1, &he->node, 0);
    else
        st = hsaKmtRegisterGraphicsHandleToNodes((HSAuint64)fd, &info, 1, &he->node);
    if (st != HSAKMT_STATUS_SUCCESS)
        return sdma_seterr(SDMA_ERR_SYSTEM, "hsakmt: cannot import dma-buf fd %d", fd);
    if (len && info.SizeInBytes < len) {
        hsaKmtDeregisterMemory(info.MemoryAddress);
        return sdma_seterr(SDMA_ERR_INVAL, "hsakmt: dma-buf fd %d holds %llu bytes, %zu wanted", fd,
                           (unsigned long long)info.SizeInBytes, len);
    }
    if (hsaKmtMapMemoryToGPUNodes(info.MemoryAddress, info.SizeInBytes, &alt, mf, 1, &he->node) !=
        HSAKMT_STATUS_SUCCESS) {
        hsaKmtDeregisterMemory(info.MemoryAddress);
        return sdma_seterr(SDMA_ERR_SYSTEM, "hsakmt: cannot map dma-buf fd %d to GPU node %u", fd,
                           he->node);
    }
    *addr = info.MemoryAddress;
    return SDMA_OK;
}

/* ------------------------------------------------------------------ queues */

static HSAKMT_STATUS create(struct hk_engine *he, HSA_QUEUE_TYPE t, struct hk_queue *hq) {
    return hsaKmtCreateQueue(he->node, t, 100, HSA_QUEUE_PRIORITY_MAXIMUM, hq->ring, hq->ring_bytes,
                             NULL, &hq->res);
}

static int hk_queue_open(struct sdma_queue *q, const struct sdma_queue_attr *a) {
    struct hk_engine *he = q->eng->priv;
    struct hk_queue *hq;
    size_t rb = a->ring_bytes ? a->ring_bytes : SDMA_RING_DEFAULT_BYTES;
    HSAKMT_STATUS st = HSAKMT_STATUS_ERROR;
    HSA_QUEUE_TYPE first, second;
    struct sdma_ring_ctl *ctl;
    int link = a->link ? a->link : q->eng->cfg.queue_link, rc;

    if (a->ring || a->ctl || a->rptr || a->wptr || a->doorbell)
        return sdma_seterr(SDMA_ERR_UNSUPPORTED,
                           "hsakmt: queue '%s': caller-provided rings "
                           "are a soft-engine feature",
                           q->label);
    hq = calloc(1, sizeof *hq);
    if (!hq)
        return sdma_seterr(SDMA_ERR_NOMEM, "hsakmt: out of memory");
    pthread_mutex_lock(&he->lock);
    if (he->nq == he->qcap) {
        size_t cap = he->qcap ? 2 * he->qcap : 16;
        struct sdma_queue **n = realloc(he->queues, cap * sizeof *n);
        if (n) {
            he->queues = n;
            he->qcap = cap;
        }
    }
    pthread_mutex_unlock(&he->lock);
    if (he->nq == he->qcap) {
        free(hq);
        return sdma_seterr(SDMA_ERR_NOMEM, "hsakmt: out of memory");
    }
    hq->ring_bytes = rb;
    hq->ring = hk_alloc(he, rb, (a->flags & SDMA_QUEUE_GPU_PRODUCER) != 0);
    hq->ctl_page = hk_alloc(he, CTL_PAGE, 0);
    if (!hq->ring || !hq->ctl_page) {
        rc = sdma_seterr(SDMA_ERR_NOMEM,
                         "hsakmt: queue '%s': cannot allocate and map a "
                         "%zu-byte ring for GPU node %u",
                         q->label, rb, he->node);
        goto err_free;
    }
    /* Queue type: a given engine when the driver can (newer libhsakmt and KFD); else ROCr's
     * rule: PCIe-optimised queues for host memory, XGMI-optimised ones between GPUs
     * (amd_blit_sdma.cpp Initialize's use_xgmi), each falling back to the other. */
    if (link == SDMA_LINK_AUTO)
        link = he->props.NumSdmaXgmiEngines > 0 ? SDMA_LINK_XGMI : SDMA_LINK_PCIE;
    first = link == SDMA_LINK_XGMI ? HSA_QUEUE_SDMA_XGMI : HSA_QUEUE_SDMA;
    second = first == HSA_QUEUE_SDMA ? HSA_QUEUE_SDMA_XGMI : HSA_QUEUE_SDMA;
    if (a->engine_id >= 0 && he->create_queue_ext)
        st = he->create_queue_ext(he->node, (HSA_QUEUE_TYPE)HSAKMT_QUEUE_SDMA_BY_ENG_ID, 100,
                                  HSA_QUEUE_PRIORITY_MAXIMUM, (HSAuint32)a->engine_id, hq->ring, rb,
                                  NULL, &hq->res);
    if (st != HSAKMT_STATUS_SUCCESS && (first == HSA_QUEUE_SDMA || he->props.NumSdmaXgmiEngines))
        st = create(he, first, hq);
    if (st != HSAKMT_STATUS_SUCCESS && (second == HSA_QUEUE_SDMA || he->props.NumSdmaXgmiEngines))
        st = create(he, second, hq);
    if (st != HSAKMT_STATUS_SUCCESS) {
        rc = sdma_seterr(SDMA_ERR_SYSTEM,
                         "hsakmt: queue '%s': SDMA queue creation failed on GPU "
                         "node %u (status %d; %u PCIe + %u XGMI engines, %u "
                         "queues each; this process holds %zu)",
                         q->label, he->node, (int)st, he->props.NumSdmaEngines,
                         he->props.NumSdmaXgmiEngines, (unsigned)he->props.NumSdmaQueuesPerEngine,
                         he->nq);
        goto err_free;
    }
    ctl = (struct sdma_ring_ctl *)hq->ctl_page;
    q->seq_word = (volatile uint32_t *)((char *)hq->ctl_page + sizeof *ctl);
    rc = sdma_ring_init(&q->ring, hq->ring, rb, ctl, hq->res.Queue_read_ptr_aql,
                        hq->res.Queue_write_ptr_aql, hq->res.Queue_DoorBell_aql,
                        (a->flags & SDMA_QUEUE_SINGLE_PRODUCER) ? SDMA_RING_SINGLE_PRODUCER : 0);
    if (rc) {
        hsaKmtDestroyQueue(hq->res.QueueId);
        rc = sdma_seterr(rc, "hsakmt: queue '%s': bad ring", q->label);
        goto err_free;
    }
    *q->seq_word = (uint32_t)(*q->ring.wptr >> 2);
    q->priv = hq;
    pthread_mutex_lock(&he->lock);
    he->queues[he->nq++] = q;
    if (he->fault[0]) /* the node faulted already: this queue would not run either */
        fail_queues_locked(he);
    pthread_mutex_unlock(&he->lock);
    return SDMA_OK;

err_free:
    hk_free(hq->ctl_page, CTL_PAGE);
    hk_free(hq->ring, rb);
    free(hq);
    return rc;
}

static void hk_queue_close(struct sdma_queue *q) {
    struct hk_engine *he = q->eng->priv;
    struct hk_queue *hq = q->priv;
    size_t i;
    pthread_mutex_lock(&he->lock);
    for (i = 0; i < he->nq; i++)
        if (he->queues[i] == q) {
            he->queues[i] = he->queues[--he->nq];
            break;
        }
    pthread_mutex_unlock(&he->lock);
    /* Destroy first: a stopped queue may still hold packets naming its ring and pages. */
    hsaKmtDestroyQueue(hq->res.QueueId);
    hk_free(hq->ctl_page, CTL_PAGE);
    hk_free(hq->ring, hq->ring_bytes);
    free(hq);
}

const struct sdma_engine_ops sdma_hsakmt_ops = {
    .name = "hsakmt",
    .open = hk_open,
    .close = hk_close,
    .queue_open = hk_queue_open,
    .queue_close = hk_queue_close,
    .kick = NULL,
    .map = hk_map,
    .unmap = hk_unmap,
    .import_dmabuf = hk_import_dmabuf,
    .declare = hk_declare,
    .classify = hk_classify,
    .health = hk_health,
    /* Refined by open from the GPU's generation. */
    .caps = SDMA_CAP_DEVICE_MEMORY,
};
