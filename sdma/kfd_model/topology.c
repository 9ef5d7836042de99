/* The KFD model: opening the driver and the topology.
 *
 * As libhsakmt does (ROCm/ROCT-Thunk-Interface src/openclose.c, src/topology.c; the same
 * files under ROCm/ROCR-Runtime libhsakmt/src):
 *  - hsaKmtOpenKFD counts references: the first open answers SUCCESS, every later one
 *    HSAKMT_STATUS_KERNEL_ALREADY_OPENED; hsaKmtCloseKFD counts down, and with no reference
 *    left every call answers HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED (CHECK_KFD_OPEN);
 *  - hsaKmtAcquireSystemProperties takes the process's one topology snapshot, or returns the
 *    one already taken; hsaKmtReleaseSystemProperties drops it with no reference count, and
 *    the process's doorbell mappings with it (destroy_process_doorbells): until someone
 *    acquires again, every call that names a node fails with
 *    HSAKMT_STATUS_INVALID_NODE_UNIT (validate_nodeid), for every user of the library, and
 *    the doorbells of queues created before are no longer mapped in the process;
 *  - nodes: CPU nodes first, then GPU nodes with their PCI location (LocationId =
 *    bus << 8 | device << 3 | function, Domain), EngineId (gfx major.minor.stepping), SDMA
 *    engine counts (NumSdmaEngines PCIe-optimised, NumSdmaXgmiEngines, queues per engine) and
 *    io links, whose Flags say whether 64-bit PCIe atomics cross them (NoAtomics64bit; KFD
 *    sets it where the root port lacks AtomicOps).
 *
 * KFD_MODEL_TOPOLOGY (or kfdm_set_topology) describes the GPUs, ';' between them, each a
 * list of key=value: gfx=9.0.10 | gfx90a, pci=dddd:bb:dd.f, sdma=N, xgmi=N, qpe=N (queues
 * per engine), atomics=0|1 (64-bit atomics on the link to the CPU), burst_nop=0|1,
 * reserved=N (queue slots other users hold), uid=hex. Default: two GPUs, a gfx90a and a
 * gfx942, both with PCIe atomics to the CPU (ROCm's requirement for dGPUs; atomics=0 models
 * a root port without them). KFD_MODEL_ABSENT=1: no driver.
 * KFD_MODEL_STATS=1: a line of counts on stderr at exit. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sdma/kfd_model/model.h"

struct kfdm_state kfdm = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .q_lock = PTHREAD_MUTEX_INITIALIZER,
    .ev_cond = PTHREAD_COND_INITIALIZER,
    .next_qid = 1,
};

static const char *const default_topology =
    "gfx=9.0.10,pci=0000:29:00.0,sdma=2,xgmi=3,qpe=8,atomics=1,uid=1a2b3c4d00000001;"
    "gfx=9.4.2,pci=0000:a9:00.0,sdma=2,xgmi=6,qpe=8,atomics=1,uid=1a2b3c4d00000002";
static char *topology_spec; /* kfdm_set_topology's */

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(kfdm.err, sizeof kfdm.err, fmt, ap);
    va_end(ap);
    return -1;
}

const char *kfdm_last_error(void) { return kfdm.err; }

/* "9.0.10", or a gfx name: hex digits, the last the stepping, the one before the minor. */
static int parse_gfx(const char *v, unsigned *maj, unsigned *min, unsigned *step) {
    size_t n;
    if (sscanf(v, "%u.%u.%u", maj, min, step) == 3)
        return 0;
    if (!strncmp(v, "gfx", 3))
        v += 3;
    n = strlen(v);
    if (n < 3 || strspn(v, "0123456789abcdefABCDEF") != n)
        return -1;
    *step = (unsigned)strtoul(v + n - 1, NULL, 16);
    {
        char m[2] = {v[n - 2], 0}, mj[8];
        if (n - 2 >= sizeof mj)
            return -1;
        *min = (unsigned)strtoul(m, NULL, 16);
        memcpy(mj, v, n - 2);
        mj[n - 2] = 0;
        *maj = (unsigned)strtoul(mj, NULL, 10);
    }
    return 0;
}

static enum kfdm_gen gen_of(unsigned maj, unsigned min, unsigned step) {
    if (maj >= 12)
        return KFDM_SDMA7;
    if (maj >= 10)
        return KFDM_SDMA5;
    return min >= 4 || (min == 0 && step >= 10) ? KFDM_SDMA44 : KFDM_SDMA40;
}

static void set_name(HsaNodeProperties *p, const char *s) {
    size_t i;
    for (i = 0; s[i] && i + 1 < HSA_PUBLIC_NAME_SIZE; i++) {
        p->MarketingName[i] = (HSAuint16)s[i];
        p->AMDName[i] = (HSAuint8)s[i];
    }
}

static int add_gpu(const char *desc) {
    struct kfdm_node *n = &kfdm.nodes[kfdm.nnodes];
    HsaNodeProperties *p = &n->props;
    unsigned maj = 9, min = 4, step = 2, dom = 0, bus = 0x10 + (unsigned)kfdm.nnodes, dev = 0,
             fn = 0;
    unsigned sdma = 2, xgmi = 0, qpe = 8;
    int atomics = 1;
    char buf[512], *save = NULL, *kv;

    if (kfdm.nnodes >= KFDM_MAX_NODES)
        return fail("kfd-model: more than %d nodes", KFDM_MAX_NODES);
    memset(n, 0, sizeof *n);
    n->burst_nop = 1;
    snprintf(buf, sizeof buf, "%s", desc);
    for (kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(kv, '=');
        const char *k = kv, *v;
        if (!eq)
            return fail("kfd-model: \"%s\" is not key=value", kv);
        *eq = 0;
        v = eq + 1;
        if (!strcmp(k, "gfx")) {
            if (parse_gfx(v, &maj, &min, &step))
                return fail("kfd-model: gfx=%s is not M.m.s nor a gfx name", v);
        } else if (!strcmp(k, "pci")) {
            if (sscanf(v, "%x:%x:%x.%x", &dom, &bus, &dev, &fn) != 4 || bus > 255 || dev > 31 ||
                fn > 7)
                return fail("kfd-model: pci=%s is not dddd:bb:dd.f", v);
        } else if (!strcmp(k, "sdma")) {
            sdma = (unsigned)atoi(v);
        } else if (!strcmp(k, "xgmi")) {
            xgmi = (unsigned)atoi(v);
        } else if (!strcmp(k, "qpe")) {
            qpe = (unsigned)atoi(v);
        } else if (!strcmp(k, "atomics")) {
            atomics = atoi(v) != 0;
        } else if (!strcmp(k, "burst_nop")) {
            n->burst_nop = atoi(v) != 0;
        } else if (!strcmp(k, "reserved")) {
            n->reserved = atoi(v);
        } else if (!strcmp(k, "uid")) {
            p->UniqueID = strtoull(v, NULL, 16);
        } else {
            return fail("kfd-model: unknown key \"%s\"", k);
        }
    }
    if (sdma + xgmi == 0 || sdma + xgmi > KFDM_MAX_ENGINES || qpe == 0 || qpe > 255)
        return fail("kfd-model: engine counts sdma=%u xgmi=%u qpe=%u out of range", sdma, xgmi,
                    qpe);
    n->gpu = 1;
    n->gen = gen_of(maj, min, step);
    p->NumFComputeCores = 304;
    p->NumMemoryBanks = 1;
    p->EngineId.ui32.Major = maj;
    p->EngineId.ui32.Minor = min;
    p->EngineId.ui32.Stepping = step;
    p->VendorId = 0x1002;
    p->DeviceId = maj >= 12 ? 0x7551 : (min >= 4 ? 0x74a1 : 0x740c);
    p->LocationId = (bus << 8) | (dev << 3) | fn;
    p->Domain = dom;
    p->LocalMemSize = 64ull << 30;
    p->NumSdmaEngines = sdma;
    p->NumSdmaXgmiEngines = xgmi;
    p->NumSdmaQueuesPerEngine = (HSAuint8)qpe;
    p->WaveFrontSize = maj >= 10 ? 32 : 64;
    p->Capability.ui32.QueueSizePowerOfTwo = 1;
    p->DrmRenderMinor = 128 + kfdm.nnodes;
    if (!p->UniqueID)
        p->UniqueID = 0x5eed000000000000ull | (unsigned)kfdm.nnodes;
    set_name(p, maj >= 12 ? "AMD Radeon (model, gfx12)" : "AMD Instinct (model)");
    /* The link to CPU node 0; flags as KFD reports a root port without AtomicOps. */
    n->links[0].IoLinkType = HSA_IOLINKTYPE_PCIEXPRESS;
    n->links[0].NodeFrom = (HSAuint32)kfdm.nnodes;
    n->links[0].NodeTo = 0;
    n->links[0].Weight = 20;
    n->links[0].Flags.ui32.Override = 1;
    n->links[0].Flags.ui32.NoAtomics32bit = !atomics;
    n->links[0].Flags.ui32.NoAtomics64bit = !atomics;
    kfdm.nnodes++;
    return 0;
}

static int parse_topology(const char *spec) {
    char *copy = strdup(spec), *save = NULL, *gpu;
    int i, j, rc = 0;
    if (!copy)
        return fail("kfd-model: out of memory");
    memset(kfdm.nodes, 0, sizeof kfdm.nodes);
    /* Node 0: the CPU. */
    kfdm.nodes[0].props.NumCPUCores = 64;
    kfdm.nodes[0].props.NumMemoryBanks = 1;
    set_name(&kfdm.nodes[0].props, "CPU (model)");
    kfdm.nnodes = 1;
    for (gpu = strtok_r(copy, ";", &save); gpu && !rc; gpu = strtok_r(NULL, ";", &save))
        if (*gpu)
            rc = add_gpu(gpu);
    free(copy);
    if (rc)
        return rc;
    if (kfdm.nnodes == 1)
        return fail("kfd-model: a topology without GPUs");
    /* Links: CPU <-> each GPU over PCIe (added above from the GPU side), GPU <-> GPU XGMI. */
    for (i = 1; i < kfdm.nnodes; i++) {
        struct kfdm_node *n = &kfdm.nodes[i];
        HsaIoLinkProperties *c = &kfdm.nodes[0].links[i - 1];
        int k = 1;
        *c = n->links[0];
        c->NodeFrom = 0;
        c->NodeTo = (HSAuint32)i;
        for (j = 1; j < kfdm.nnodes; j++) {
            if (j == i)
                continue;
            n->links[k].IoLinkType = HSA_IOLINK_TYPE_XGMI;
            n->links[k].NodeFrom = (HSAuint32)i;
            n->links[k].NodeTo = (HSAuint32)j;
            n->links[k].Weight = 15;
            k++;
        }
        n->props.NumIOLinks = (HSAuint32)k;
    }
    kfdm.nodes[0].props.NumIOLinks = (HSAuint32)(kfdm.nnodes - 1);
    return 0;
}

int kfdm_configure_locked(void) {
    const char *spec;
    if (kfdm.configured)
        return 0;
    spec = topology_spec ? topology_spec : getenv("KFD_MODEL_TOPOLOGY");
    if (parse_topology(spec && *spec ? spec : default_topology))
        return -1;
    kfdm.configured = 1;
    return 0;
}

int kfdm_set_topology(const char *spec) {
    int rc;
    pthread_mutex_lock(&kfdm.lock);
    if (kfdm.configured) {
        pthread_mutex_unlock(&kfdm.lock);
        return fail("kfd-model: the topology is fixed once the driver is opened");
    }
    free(topology_spec);
    topology_spec = strdup(spec);
    rc = parse_topology(spec); /* report errors now */
    pthread_mutex_unlock(&kfdm.lock);
    return rc;
}

int kfdm_valid_node(HSAuint32 node) { return kfdm.snapshot && node < (HSAuint32)kfdm.nnodes; }

int kfdm_valid_gpu(HSAuint32 node) { return kfdm_valid_node(node) && kfdm.nodes[node].gpu; }

void kfdm_get_stats(struct kfdm_stats *s) {
    pthread_mutex_lock(&kfdm.lock);
    *s = kfdm.stats;
    pthread_mutex_unlock(&kfdm.lock);
}

static void print_stats(void) {
    struct kfdm_stats s;
    kfdm_get_stats(&s);
    fprintf(stderr,
            "kfd-model: pid %d: %llu queues, %llu doorbells, %llu packets, %llu bytes, "
            "%llu VM faults, %llu illegal packets, %llu full-ring stalls\n",
            (int)getpid(), (unsigned long long)s.queues, (unsigned long long)s.doorbells,
            (unsigned long long)s.packets, (unsigned long long)s.bytes,
            (unsigned long long)s.faults, (unsigned long long)s.illegal,
            (unsigned long long)s.full_stalls);
}

/* ------------------------------------------------------------------ hsaKmt* */

HSAKMT_STATUS HSAKMTAPI hsaKmtOpenKFD(void) {
    static int stats_registered;
    HSAKMT_STATUS st;
    const char *absent = getenv("KFD_MODEL_ABSENT");
    if (absent && *absent && strcmp(absent, "0"))
        return HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED; /* no /dev/kfd */
    pthread_mutex_lock(&kfdm.lock);
    if (kfdm_configure_locked()) {
        fprintf(stderr, "%s\n", kfdm.err);
        pthread_mutex_unlock(&kfdm.lock);
        return HSAKMT_STATUS_ERROR;
    }
    st = kfdm.open_count++ ? HSAKMT_STATUS_KERNEL_ALREADY_OPENED : HSAKMT_STATUS_SUCCESS;
    if (!stats_registered) {
        const char *v = getenv("KFD_MODEL_STATS");
        stats_registered = 1;
        if (v && *v && strcmp(v, "0"))
            atexit(print_stats);
    }
    pthread_mutex_unlock(&kfdm.lock);
    return st;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtCloseKFD(void) {
    HSAKMT_STATUS st = HSAKMT_STATUS_SUCCESS;
    pthread_mutex_lock(&kfdm.lock);
    if (kfdm.open_count > 0)
        kfdm.open_count--;
    else
        st = HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED;
    pthread_mutex_unlock(&kfdm.lock);
    return st;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtGetVersion(HsaVersionInfo *v) {
    KFDM_CHECK_OPEN();
    if (!v)
        return HSAKMT_STATUS_INVALID_PARAMETER;
    v->KernelInterfaceMajorVersion = 1;
    v->KernelInterfaceMinorVersion = 17; /* engine-id queues (HSA_QUEUE_SDMA_BY_ENG_ID) */
    return HSAKMT_STATUS_SUCCESS;
}

/* A node's doorbell page, as two views of one memfd page: the process's mapping (what
 * queues' Queue_DoorBell point into; gone once the topology is released) and the engine's
 * (the hardware's side, which a process mapping does not affect). */
static uint64_t *doorbell_page(uint64_t **engine_view) {
    int fd = memfd_create("kfd-model-doorbells", MFD_CLOEXEC);
    void *a, *b;
    if (fd < 0)
        return NULL;
    if (ftruncate(fd, (off_t)KFDM_PAGE)) {
        close(fd);
        return NULL;
    }
    a = mmap(NULL, KFDM_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    b = mmap(NULL, KFDM_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (a == MAP_FAILED || b == MAP_FAILED) {
        if (a != MAP_FAILED)
            munmap(a, KFDM_PAGE);
        if (b != MAP_FAILED)
            munmap(b, KFDM_PAGE);
        return NULL;
    }
    *engine_view = b;
    return a;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtAcquireSystemProperties(HsaSystemProperties *sys) {
    int i;
    KFDM_CHECK_OPEN();
    if (!sys)
        return HSAKMT_STATUS_INVALID_PARAMETER;
    pthread_mutex_lock(&kfdm.lock);
    if (!kfdm.snapshot) {
        for (i = 1; i < kfdm.nnodes; i++) {
            struct kfdm_node *n = &kfdm.nodes[i];
            uint64_t *engine_view = NULL;
            n->doorbells = doorbell_page(&engine_view);
            if (!n->doorbells) {
                pthread_mutex_unlock(&kfdm.lock);
                return HSAKMT_STATUS_NO_MEMORY;
            }
            n->engine_doorbells = engine_view;
            n->next_doorbell = 0;
            /* Mapped for the GPU too: kernels ring their queues' doorbells. */
            {
                struct kfdm_obj *o =
                    kfdm_obj_add((uintptr_t)n->doorbells, (uintptr_t)n->doorbells + KFDM_PAGE,
                                 HSA_POINTER_ALLOCATED, (HSAuint32)i);
                if (o) {
                    o->internal = 1;
                    kfdm_obj_map(o, (HSAuint32)i);
                }
            }
        }
        kfdm.snapshot = 1;
    }
    memset(sys, 0, sizeof *sys);
    sys->NumNodes = (HSAuint32)kfdm.nnodes;
    sys->PlatformOem = 0x414D44; /* "AMD" */
    pthread_mutex_unlock(&kfdm.lock);
    return HSAKMT_STATUS_SUCCESS;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtReleaseSystemProperties(void) {
    int i;
    pthread_mutex_lock(&kfdm.lock);
    for (i = 1; kfdm.snapshot && i < kfdm.nnodes; i++) {
        struct kfdm_node *n = &kfdm.nodes[i];
        struct kfdm_obj *o = kfdm_obj_at((uintptr_t)n->doorbells);
        if (o)
            kfdm_obj_del(o);
        /* The process's doorbell mapping goes (libhsakmt munmaps it); left inaccessible here
         * rather than unmapped, so the address is not reused. */
        mprotect(n->doorbells, KFDM_PAGE, PROT_NONE);
        n->doorbells = NULL;
    }
    kfdm.snapshot = 0;
    pthread_mutex_unlock(&kfdm.lock);
    return HSAKMT_STATUS_SUCCESS;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtGetNodeProperties(HSAuint32 node, HsaNodeProperties *p) {
    HSAKMT_STATUS st = HSAKMT_STATUS_SUCCESS;
    if (!p)
        return HSAKMT_STATUS_INVALID_PARAMETER;
    KFDM_CHECK_OPEN();
    pthread_mutex_lock(&kfdm.lock);
    if (!kfdm_valid_node(node))
        st = HSAKMT_STATUS_INVALID_NODE_UNIT;
    else
        *p = kfdm.nodes[node].props;
    pthread_mutex_unlock(&kfdm.lock);
    return st;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtGetNodeIoLinkProperties(HSAuint32 node, HSAuint32 num,
                                                      HsaIoLinkProperties *links) {
    HSAKMT_STATUS st = HSAKMT_STATUS_SUCCESS;
    if (!links)
        return HSAKMT_STATUS_INVALID_PARAMETER;
    KFDM_CHECK_OPEN();
    pthread_mutex_lock(&kfdm.lock);
    if (!kfdm_valid_node(node))
        st = HSAKMT_STATUS_INVALID_NODE_UNIT;
    else if (num > kfdm.nodes[node].props.NumIOLinks)
        st = HSAKMT_STATUS_INVALID_PARAMETER;
    else
        memcpy(links, kfdm.nodes[node].links, num * sizeof *links);
    pthread_mutex_unlock(&kfdm.lock);
    return st;
}
