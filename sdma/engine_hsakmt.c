/* The hsakmt engine: user-mode SDMA queues of an AMD GPU created through libhsakmt
 * (shared/docs/SDMA.md, "Creating queues on AMD"). The ring and the queue's control words
 * live in host memory mapped into the GPU; the producers are the same ring protocol
 * (sdma/ring.h) as everywhere else, and the doorbell store itself starts the engine.
 *
 * Older libhsakmt (Debian's 5.2.3) lacks hsaKmtCreateQueueExt, HSA_QUEUE_SDMA_BY_ENG_ID and
 * hsaKmtRegisterGraphicsHandleToNodesExt: configure-time checks say what the headers have;
 * the newer calls are looked up at run time (dlsym) so a newer library is used when present. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hsakmt.h>

#include "sdma/sdma_internal.h"

#define HSAKMT_QUEUE_SDMA_BY_ENG_ID 6 /* HSA_QUEUE_SDMA_BY_ENG_ID in newer hsakmttypes.h */

typedef HSAKMT_STATUS (*create_queue_ext_fn)(HSAuint32, HSA_QUEUE_TYPE, HSAuint32,
                                             HSA_QUEUE_PRIORITY, HSAuint32, void *, HSAuint64,
                                             HsaEvent *, HsaQueueResource *);
typedef HSAKMT_STATUS (*register_gfx_ext_fn)(HSAuint64, HsaGraphicsResourceInfo *, HSAuint64,
                                             HSAuint32 *, HSAuint32 /* HSA_REGISTER_MEM_FLAGS */);

struct hk_engine {
    HSAuint32 node;
    HsaNodeProperties props;
    create_queue_ext_fn create_queue_ext;
    register_gfx_ext_fn register_gfx_ext;
};

struct hk_queue {
    HsaQueueResource res;
    void *ring;
    size_t ring_bytes;
    void *ctl_page; /* producers' ring_ctl and the quiet word, GPU-mapped */
};

#define CTL_PAGE 4096

static int find_gpu(int want, HSAuint32 *node, HsaNodeProperties *props, char *err,
                    size_t errlen)
{
    HsaSystemProperties sys;
    HSAuint32 i;
    int seen = 0;
    if (hsaKmtAcquireSystemProperties(&sys) != HSAKMT_STATUS_SUCCESS) {
        snprintf(err, errlen, "hsakmt: cannot read the GPU topology");
        return SDMA_ERR_UNAVAILABLE;
    }
    for (i = 0; i < sys.NumNodes; i++) {
        HsaNodeProperties p;
        if (hsaKmtGetNodeProperties(i, &p) != HSAKMT_STATUS_SUCCESS || p.NumFComputeCores == 0 ||
            p.NumSdmaEngines + p.NumSdmaXgmiEngines == 0)
            continue;
        if (seen++ == want) {
            *node = i;
            *props = p;
            return SDMA_OK;
        }
    }
    if (seen == 0)
        snprintf(err, errlen, "hsakmt: no AMD GPU with SDMA engines found");
    else
        snprintf(err, errlen, "hsakmt: GPU %d requested, %d found", want, seen);
    return SDMA_ERR_UNAVAILABLE;
}

static int open_kfd(char *err, size_t errlen)
{
    if (access("/dev/kfd", F_OK) != 0) {
        snprintf(err, errlen, "hsakmt: /dev/kfd not present (no AMD GPU driver)");
        return SDMA_ERR_UNAVAILABLE;
    }
    if (access("/dev/kfd", R_OK | W_OK) != 0) {
        snprintf(err, errlen, "hsakmt: no permission to open /dev/kfd (%s); the user needs the "
                              "render/video group", strerror(errno));
        return SDMA_ERR_UNAVAILABLE;
    }
    if (hsaKmtOpenKFD() != HSAKMT_STATUS_SUCCESS) {
        snprintf(err, errlen, "hsakmt: hsaKmtOpenKFD failed");
        return SDMA_ERR_UNAVAILABLE;
    }
    return SDMA_OK;
}

int sdma_hsakmt_probe(char *err, size_t errlen)
{
    HSAuint32 node;
    HsaNodeProperties props;
    int rc = open_kfd(err, errlen);
    if (rc)
        return 0;
    rc = find_gpu(0, &node, &props, err, errlen);
    hsaKmtReleaseSystemProperties();
    hsaKmtCloseKFD();
    return rc == SDMA_OK;
}

static int hk_open(struct sdma_engine *e, char *err, size_t errlen)
{
    struct hk_engine *he;
    int rc = open_kfd(err, errlen);
    if (rc)
        return rc;
    he = calloc(1, sizeof *he);
    if (!he) {
        hsaKmtCloseKFD();
        snprintf(err, errlen, "hsakmt: out of memory");
        return SDMA_ERR_NOMEM;
    }
    rc = find_gpu(e->cfg.gpu, &he->node, &he->props, err, errlen);
    if (rc) {
        free(he);
        hsaKmtCloseKFD();
        return rc;
    }
#ifdef SDMA_HAVE_HSAKMT_CREATE_QUEUE_EXT
    he->create_queue_ext = (create_queue_ext_fn)hsaKmtCreateQueueExt;
#else
    he->create_queue_ext = (create_queue_ext_fn)dlsym(RTLD_DEFAULT, "hsaKmtCreateQueueExt");
#endif
    he->register_gfx_ext =
        (register_gfx_ext_fn)dlsym(RTLD_DEFAULT, "hsaKmtRegisterGraphicsHandleToNodesExt");
    if (e->cfg.copy_2d == SDMA_COPY_2D_AUTO) {
        /* LINEAR_SUB_WINDOW_LARGE on MI300-class parts (gfx94x, gfx950), else 13 dwords. */
        unsigned major = he->props.EngineId.ui32.Major, minor = he->props.EngineId.ui32.Minor;
        e->copy_2d = (major == 9 && minor >= 4) ? SDMA_COPY_2D_LARGE : SDMA_COPY_2D_SW13;
    }
    e->priv = he;
    return SDMA_OK;
}

static void hk_close(struct sdma_engine *e)
{
    free(e->priv);
    hsaKmtReleaseSystemProperties();
    hsaKmtCloseKFD();
}

static void *hk_alloc(struct hk_engine *he, size_t bytes)
{
    HsaMemFlags f;
    void *p = NULL;
    memset(&f, 0, sizeof f);
    f.ui32.NonPaged = 1;
    f.ui32.HostAccess = 1;
    f.ui32.PageSize = HSA_PAGE_SIZE_4KB;
    f.ui32.NoNUMABind = 1;
    f.ui32.ExecuteAccess = 1;
    f.ui32.Uncached = 1;
    if (hsaKmtAllocMemory(he->node, bytes, f, &p) != HSAKMT_STATUS_SUCCESS)
        return NULL;
    if (hsaKmtMapMemoryToGPU(p, bytes, NULL) != HSAKMT_STATUS_SUCCESS) {
        hsaKmtFreeMemory(p, bytes);
        return NULL;
    }
    memset(p, 0, bytes);
    return p;
}

static void hk_free(void *p, size_t bytes)
{
    if (!p)
        return;
    hsaKmtUnmapMemoryToGPU(p);
    hsaKmtFreeMemory(p, bytes);
}

static int hk_queue_open(struct sdma_queue *q, const struct sdma_queue_attr *a)
{
    struct hk_engine *he = q->eng->priv;
    struct hk_queue *hq;
    size_t rb = a->ring_bytes ? a->ring_bytes : SDMA_RING_DEFAULT_BYTES;
    HSAKMT_STATUS st = HSAKMT_STATUS_ERROR;
    struct sdma_ring_ctl *ctl;
    int rc;

    if (a->ring || a->ctl || a->rptr || a->wptr || a->doorbell)
        return sdma_seterr(SDMA_ERR_UNSUPPORTED, "hsakmt: queue '%s': caller-provided rings "
                                                 "are a soft-engine feature", q->label);
    hq = calloc(1, sizeof *hq);
    if (!hq)
        return sdma_seterr(SDMA_ERR_NOMEM, "hsakmt: out of memory");
    hq->ring_bytes = rb;
    hq->ring = hk_alloc(he, rb);
    hq->ctl_page = hk_alloc(he, CTL_PAGE);
    if (!hq->ring || !hq->ctl_page) {
        rc = sdma_seterr(SDMA_ERR_NOMEM, "hsakmt: queue '%s': cannot allocate and map a "
                                         "%zu-byte ring for the GPU", q->label, rb);
        goto err_free;
    }
    /* Engine choice: a given engine when the driver can (newer libhsakmt and KFD); else
     * the driver's XGMI-optimised queue, then the PCIe one. */
    if (a->engine_id >= 0 && he->create_queue_ext)
        st = he->create_queue_ext(he->node, (HSA_QUEUE_TYPE)HSAKMT_QUEUE_SDMA_BY_ENG_ID, 100,
                                  HSA_QUEUE_PRIORITY_MAXIMUM, (HSAuint32)a->engine_id, hq->ring,
                                  rb, NULL, &hq->res);
    if (st != HSAKMT_STATUS_SUCCESS && he->props.NumSdmaXgmiEngines > 0)
        st = hsaKmtCreateQueue(he->node, HSA_QUEUE_SDMA_XGMI, 100, HSA_QUEUE_PRIORITY_MAXIMUM,
                               hq->ring, rb, NULL, &hq->res);
    if (st != HSAKMT_STATUS_SUCCESS)
        st = hsaKmtCreateQueue(he->node, HSA_QUEUE_SDMA, 100, HSA_QUEUE_PRIORITY_MAXIMUM,
                               hq->ring, rb, NULL, &hq->res);
    if (st != HSAKMT_STATUS_SUCCESS) {
        rc = sdma_seterr(SDMA_ERR_SYSTEM, "hsakmt: queue '%s': SDMA queue creation failed "
                                          "(status %d)", q->label, (int)st);
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
    return SDMA_OK;

err_free:
    hk_free(hq->ctl_page, CTL_PAGE);
    hk_free(hq->ring, rb);
    free(hq);
    return rc;
}

static void hk_queue_close(struct sdma_queue *q)
{
    struct hk_queue *hq = q->priv;
    hsaKmtDestroyQueue(hq->res.QueueId);
    hk_free(hq->ctl_page, CTL_PAGE);
    hk_free(hq->ring, hq->ring_bytes);
    free(hq);
}

static int hk_map(struct sdma_engine *e, void *addr, size_t len)
{
    struct hk_engine *he = e->priv;
    HsaMemMapFlags mf;
    HSAuint64 alt = 0;
    memset(&mf, 0, sizeof mf);
    if (hsaKmtRegisterMemory(addr, len) != HSAKMT_STATUS_SUCCESS)
        return sdma_seterr(SDMA_ERR_SYSTEM, "hsakmt: cannot register %p (+%zu bytes)", addr,
                           len);
    if (hsaKmtMapMemoryToGPUNodes(addr, len, &alt, mf, 1, &he->node) != HSAKMT_STATUS_SUCCESS) {
        hsaKmtDeregisterMemory(addr);
        return sdma_seterr(SDMA_ERR_SYSTEM, "hsakmt: cannot map %p (+%zu bytes) to GPU node %u",
                           addr, len, he->node);
    }
    return SDMA_OK;
}

static int hk_unmap(struct sdma_engine *e, void *addr)
{
    (void)e;
    hsaKmtUnmapMemoryToGPU(addr);
    hsaKmtDeregisterMemory(addr);
    return SDMA_OK;
}

static int hk_import_dmabuf(struct sdma_engine *e, int fd, size_t len, void **addr)
{
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
        return sdma_seterr(SDMA_ERR_INVAL, "hsakmt: dma-buf fd %d holds %llu bytes, %zu wanted",
                           fd, (unsigned long long)info.SizeInBytes, len);
    }
    if (hsaKmtMapMemoryToGPUNodes(info.MemoryAddress, info.SizeInBytes, &alt, mf, 1,
                                  &he->node) != HSAKMT_STATUS_SUCCESS) {
        hsaKmtDeregisterMemory(info.MemoryAddress);
        return sdma_seterr(SDMA_ERR_SYSTEM, "hsakmt: cannot map dma-buf fd %d to GPU node %u",
                           fd, he->node);
    }
    *addr = info.MemoryAddress;
    return SDMA_OK;
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
    /* The queues run in the process's GPU virtual memory: device allocations and IPC
     * mappings are reachable as they are; rings and control words are GPU-mapped host
     * memory, and KFD maps a dGPU queue's doorbell page into the GPU too, so kernels ring
     * the queues themselves (never run on hardware here). */
    .caps = SDMA_CAP_DEVICE_MEMORY | SDMA_CAP_GPU_RINGS,
};
