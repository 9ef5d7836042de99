/* The KFD model: memory and each GPU's virtual memory.
 *
 * As libhsakmt and KFD do (ROCm/ROCT-Thunk-Interface src/memory.c, src/fmm.c; Linux amdkfd):
 *  - hsaKmtAllocMemory: the size a multiple of the page size the flags ask for;
 *    "if (!gpu_id || !MemFlags.ui32.NonPaged || zfb_support)" system memory
 *    (fmm_allocate_host), else "GPU allocated VRAM" (fmm_allocate_device): NonPaged on a GPU
 *    node is that GPU's local memory. An allocation is registered to its node and mapped
 *    nowhere until hsaKmtMapMemoryToGPU(Nodes);
 *  - hsaKmtRegisterMemory(ToNodes): user memory becomes a userptr object (page-granular);
 *    registering the same range again counts (fmm_register_user_memory:
 *    ++registration_count), hsaKmtDeregisterMemory counts down; the pages must be mapped in
 *    the process (KFD pins them when mapping for the GPU); a range registered to some nodes
 *    maps only for those;
 *  - hsaKmtMapMemoryToGPU maps an object for the nodes it is registered to,
 *    hsaKmtMapMemoryToGPUNodes for the nodes named; hsaKmtUnmapMemoryToGPU unmaps it from
 *    every node; these and the frees take the object's start address;
 *  - hsaKmtQueryPointerInfo: the object containing an address (allocated, registered user
 *    memory), its nodes; HSA_POINTER_UNKNOWN and an error status for memory the driver does
 *    not know (fmm_get_mem_info);
 *  - a GPU's VM maps exactly what was mapped for its node: a packet naming anything else is a
 *    VM fault (queues.c). GPU addresses equal host addresses (the SVM aperture of dGPUs).
 * Not modelled: GPU-only VRAM (HostAccess 0), HDP flushes of host writes to VRAM, eviction. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "sdma/kfd_model/model.h"

static uint64_t bit(HSAuint32 node) { return 1ull << node; }

struct kfdm_obj *kfdm_obj_at(uintptr_t a) {
    struct kfdm_obj *o;
    for (o = kfdm.objs; o; o = o->next)
        if (a >= o->lo && a < o->hi)
            return o;
    return NULL;
}

static struct kfdm_obj *obj_start(uintptr_t a) {
    struct kfdm_obj *o;
    for (o = kfdm.objs; o; o = o->next)
        if (o->lo == a)
            return o;
    return NULL;
}

struct kfdm_obj *kfdm_obj_add(uintptr_t lo, uintptr_t hi, HSA_POINTER_TYPE type, HSAuint32 node) {
    struct kfdm_obj *o = calloc(1, sizeof *o);
    if (!o)
        return NULL;
    o->lo = lo;
    o->hi = hi;
    o->type = type;
    o->node = node;
    o->registered = bit(node);
    o->regcount = 1;
    o->next = kfdm.objs;
    kfdm.objs = o;
    return o;
}

void kfdm_obj_map(struct kfdm_obj *o, HSAuint32 node) {
    if (o)
        o->mapped |= bit(node);
}

void kfdm_obj_del(struct kfdm_obj *o) {
    struct kfdm_obj **pp;
    for (pp = &kfdm.objs; *pp; pp = &(*pp)->next)
        if (*pp == o) {
            *pp = o->next;
            if (o->owned)
                munmap((void *)o->lo, o->hi - o->lo);
            free(o);
            return;
        }
}

int kfdm_vm_covers(HSAuint32 node, uint64_t a, uint64_t len, uint64_t *at) {
    uint64_t end = a + len;
    if (len == 0)
        return 1;
    if (end < a) {
        *at = a;
        return 0;
    }
    while (a < end) {
        struct kfdm_obj *o, *best = NULL;
        /* The mapped object containing a that reaches furthest. */
        for (o = kfdm.objs; o; o = o->next)
            if (a >= o->lo && a < o->hi && (o->mapped & bit(node)) && (!best || o->hi > best->hi))
                best = o;
        if (!best) {
            *at = a;
            return 0;
        }
        a = best->hi;
    }
    return 1;
}

int kfdm_is_system(uint64_t a, uint64_t len) {
    struct kfdm_obj *o;
    for (o = kfdm.objs; o; o = o->next)
        if (o->vram && a < o->hi && a + len > o->lo)
            return 0;
    return 1;
}

static uint64_t page_size(unsigned flag) {
    switch (flag) {
    case HSA_PAGE_SIZE_64KB: return 64ull << 10;
    case HSA_PAGE_SIZE_2MB: return 2ull << 20;
    case HSA_PAGE_SIZE_1GB: return 1ull << 30;
    default: return KFDM_PAGE;
    }
}

HSAKMT_STATUS HSAKMTAPI hsaKmtAllocMemory(HSAuint32 node, HSAuint64 size, HsaMemFlags flags,
                                          void **addr) {
    struct kfdm_obj *o;
    void *p;
    KFDM_CHECK_OPEN();
    pthread_mutex_lock(&kfdm.lock);
    if (!kfdm_valid_node(node)) {
        pthread_mutex_unlock(&kfdm.lock);
        return HSAKMT_STATUS_INVALID_NODE_UNIT;
    }
    pthread_mutex_unlock(&kfdm.lock);
    if (!addr || !size || (size & (page_size(flags.ui32.PageSize) - 1)) ||
        flags.ui32.FixedAddress || flags.ui32.Scratch || flags.ui32.GDSMemory)
        return HSAKMT_STATUS_INVALID_PARAMETER;
    p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return HSAKMT_STATUS_NO_MEMORY;
    pthread_mutex_lock(&kfdm.lock);
    o = kfdm_obj_add((uintptr_t)p, (uintptr_t)p + size, HSA_POINTER_ALLOCATED, node);
    if (!o) {
        pthread_mutex_unlock(&kfdm.lock);
        munmap(p, size);
        return HSAKMT_STATUS_NO_MEMORY;
    }
    o->flags = flags;
    o->owned = 1;
    o->vram = kfdm.nodes[node].gpu && flags.ui32.NonPaged;
    pthread_mutex_unlock(&kfdm.lock);
    *addr = p;
    return HSAKMT_STATUS_SUCCESS;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtFreeMemory(void *addr, HSAuint64 size) {
    struct kfdm_obj *o;
    HSAKMT_STATUS st = HSAKMT_STATUS_SUCCESS;
    (void)size;
    KFDM_CHECK_OPEN();
    if (!addr)
        return HSAKMT_STATUS_ERROR;
    /* Not under a packet the engine is executing. */
    pthread_mutex_lock(&kfdm.q_lock);
    pthread_mutex_lock(&kfdm.lock);
    o = obj_start((uintptr_t)addr);
    if (!o || o->type != HSA_POINTER_ALLOCATED || o->internal)
        st = HSAKMT_STATUS_INVALID_PARAMETER;
    else
        kfdm_obj_del(o);
    pthread_mutex_unlock(&kfdm.lock);
    pthread_mutex_unlock(&kfdm.q_lock);
    return st;
}

static HSAKMT_STATUS register_user(void *addr, HSAuint64 size, HSAuint64 n,
                                   const HSAuint32 *nodes) {
    uintptr_t lo = (uintptr_t)addr & ~(KFDM_PAGE - 1);
    uintptr_t hi = ((uintptr_t)addr + size + KFDM_PAGE - 1) & ~(KFDM_PAGE - 1);
    struct kfdm_obj *o;
    uint64_t mask = 0;
    HSAuint64 i;
    KFDM_CHECK_OPEN();
    if (!addr || !size)
        return HSAKMT_STATUS_INVALID_PARAMETER;
    /* Pages not mapped in the process cannot be pinned for the GPU. */
    if (msync((void *)lo, hi - lo, MS_ASYNC) != 0)
        return HSAKMT_STATUS_ERROR;
    pthread_mutex_lock(&kfdm.lock);
    if (!kfdm.snapshot) {
        pthread_mutex_unlock(&kfdm.lock);
        return HSAKMT_STATUS_INVALID_NODE_UNIT;
    }
    for (i = 0; i < n; i++) {
        if (!kfdm_valid_gpu(nodes[i])) {
            pthread_mutex_unlock(&kfdm.lock);
            return HSAKMT_STATUS_INVALID_NODE_UNIT;
        }
        mask |= bit(nodes[i]);
    }
    if (!n) /* hsaKmtRegisterMemory: every GPU */
        for (i = 1; i < (HSAuint64)kfdm.nnodes; i++)
            if (kfdm.nodes[i].gpu)
                mask |= bit((HSAuint32)i);
    for (o = kfdm.objs; o; o = o->next)
        if (o->type == HSA_POINTER_REGISTERED_USER && o->lo == lo && o->hi == hi) {
            o->regcount++;
            o->registered |= mask;
            pthread_mutex_unlock(&kfdm.lock);
            return HSAKMT_STATUS_SUCCESS;
        }
    o = kfdm_obj_add(lo, hi, HSA_POINTER_REGISTERED_USER, n ? nodes[0] : 0);
    if (!o) {
        pthread_mutex_unlock(&kfdm.lock);
        return HSAKMT_STATUS_NO_MEMORY;
    }
    o->registered = mask;
    o->flags.ui32.HostAccess = 1;
    pthread_mutex_unlock(&kfdm.lock);
    return HSAKMT_STATUS_SUCCESS;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtRegisterMemory(void *addr, HSAuint64 size) {
    return register_user(addr, size, 0, NULL);
}

HSAKMT_STATUS HSAKMTAPI hsaKmtRegisterMemoryToNodes(void *addr, HSAuint64 size, HSAuint64 n,
                                                    HSAuint32 *nodes) {
    if (n == 0 || !nodes)
        return HSAKMT_STATUS_INVALID_PARAMETER;
    return register_user(addr, size, n, nodes);
}

HSAKMT_STATUS HSAKMTAPI hsaKmtDeregisterMemory(void *addr) {
    struct kfdm_obj *o;
    HSAKMT_STATUS st = HSAKMT_STATUS_SUCCESS;
    KFDM_CHECK_OPEN();
    pthread_mutex_lock(&kfdm.q_lock);
    pthread_mutex_lock(&kfdm.lock);
    o = obj_start((uintptr_t)addr & ~(KFDM_PAGE - 1));
    if (!o || o->internal)
        st = HSAKMT_STATUS_MEMORY_NOT_REGISTERED;
    else if (o->type == HSA_POINTER_REGISTERED_USER && --o->regcount == 0)
        kfdm_obj_del(o);
    pthread_mutex_unlock(&kfdm.lock);
    pthread_mutex_unlock(&kfdm.q_lock);
    return st;
}

static HSAKMT_STATUS map_nodes(void *addr, HSAuint64 size, HSAuint64 *alt, HSAuint64 n,
                               const HSAuint32 *nodes) {
    struct kfdm_obj *o;
    uint64_t want = 0;
    HSAuint64 i;
    KFDM_CHECK_OPEN();
    if (!addr)
        return HSAKMT_STATUS_ERROR;
    pthread_mutex_lock(&kfdm.lock);
    if (!kfdm.snapshot) {
        pthread_mutex_unlock(&kfdm.lock);
        return HSAKMT_STATUS_INVALID_NODE_UNIT;
    }
    o = obj_start((uintptr_t)addr);
    if (!o || (uintptr_t)addr + size > o->hi) {
        pthread_mutex_unlock(&kfdm.lock);
        return HSAKMT_STATUS_ERROR;
    }
    for (i = 0; i < n; i++) {
        if (!kfdm_valid_gpu(nodes[i])) {
            pthread_mutex_unlock(&kfdm.lock);
            return HSAKMT_STATUS_INVALID_NODE_UNIT;
        }
        want |= bit(nodes[i]);
    }
    if (!n)
        want = o->registered;
    /* User memory maps only for the nodes it was registered to. */
    if (o->type == HSA_POINTER_REGISTERED_USER && (want & ~o->registered)) {
        pthread_mutex_unlock(&kfdm.lock);
        return HSAKMT_STATUS_ERROR;
    }
    o->mapped |= want;
    pthread_mutex_unlock(&kfdm.lock);
    if (alt)
        *alt = (HSAuint64)(uintptr_t)addr; /* GPU address = host address */
    return HSAKMT_STATUS_SUCCESS;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtMapMemoryToGPU(void *addr, HSAuint64 size, HSAuint64 *alt) {
    return map_nodes(addr, size, alt, 0, NULL);
}

HSAKMT_STATUS HSAKMTAPI hsaKmtMapMemoryToGPUNodes(void *addr, HSAuint64 size, HSAuint64 *alt,
                                                  HsaMemMapFlags flags, HSAuint64 n,
                                                  HSAuint32 *nodes) {
    (void)flags;
    if (n == 0 || !nodes)
        return HSAKMT_STATUS_INVALID_PARAMETER;
    return map_nodes(addr, size, alt, n, nodes);
}

HSAKMT_STATUS HSAKMTAPI hsaKmtUnmapMemoryToGPU(void *addr) {
    struct kfdm_obj *o;
    HSAKMT_STATUS st = HSAKMT_STATUS_SUCCESS;
    KFDM_CHECK_OPEN();
    if (!addr)
        return HSAKMT_STATUS_SUCCESS;
    pthread_mutex_lock(&kfdm.q_lock);
    pthread_mutex_lock(&kfdm.lock);
    o = obj_start((uintptr_t)addr);
    if (!o || o->internal)
        st = HSAKMT_STATUS_ERROR;
    else
        o->mapped = 0;
    pthread_mutex_unlock(&kfdm.lock);
    pthread_mutex_unlock(&kfdm.q_lock);
    return st;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtQueryPointerInfo(const void *ptr, HsaPointerInfo *info) {
    struct kfdm_obj *o;
    HSAuint32 i, nr = 0, nm = 0;
    KFDM_CHECK_OPEN();
    if (!info)
        return HSAKMT_STATUS_INVALID_PARAMETER;
    memset(info, 0, sizeof *info);
    pthread_mutex_lock(&kfdm.lock);
    o = kfdm_obj_at((uintptr_t)ptr);
    if (!o) {
        pthread_mutex_unlock(&kfdm.lock);
        info->Type = HSA_POINTER_UNKNOWN;
        return HSAKMT_STATUS_ERROR;
    }
    for (i = 0; i < (HSAuint32)kfdm.nnodes; i++) {
        if (o->registered & bit(i))
            o->reg_list[nr++] = i;
        if (o->mapped & bit(i))
            o->map_list[nm++] = i;
    }
    info->Type = o->type;
    info->Node = o->node;
    info->MemFlags = o->flags;
    info->CPUAddress = (void *)o->lo;
    info->GPUAddress = o->lo;
    info->SizeInBytes = o->hi - o->lo;
    info->NRegisteredNodes = nr;
    info->NMappedNodes = nm;
    info->RegisteredNodes = o->reg_list;
    info->MappedNodes = o->map_list;
    pthread_mutex_unlock(&kfdm.lock);
    return HSAKMT_STATUS_SUCCESS;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtRegisterGraphicsHandleToNodes(HSAuint64 handle,
                                                            HsaGraphicsResourceInfo *info,
                                                            HSAuint64 n, HSAuint32 *nodes) {
    (void)handle;
    (void)info;
    (void)n;
    (void)nodes;
    return HSAKMT_STATUS_NOT_SUPPORTED; /* dma-buf import is not modelled */
}
