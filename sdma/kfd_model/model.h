/* Private to the KFD model: its state, shared by topology.c, memory.c, queues.c and events.c.
 *
 * One model per process, as libhsakmt and KFD's per-process state are. Locks, taken in this
 * order: kfdm.q_lock (queues; the engine thread holds it while it executes packets, so that
 * memory is never unmapped under a running packet), then kfdm.lock (everything else). */
#ifndef KFDM_MODEL_H
#define KFDM_MODEL_H

#include <pthread.h>
#include <stdint.h>

#include "sdma/kfd_model/kfd_model.h"
#include "sdma/soft_exec.h"

#define KFDM_MAX_NODES 16
#define KFDM_MAX_ENGINES 32
#define KFDM_PAGE 4096ull
#define KFDM_DOORBELLS 512 /* 8-byte doorbells in a node's doorbell page */

/* SDMA generations: what a node's engines decode. */
enum kfdm_gen {
    KFDM_SDMA40, /* gfx900..gfx908: 22-bit copy and fill counts */
    KFDM_SDMA44, /* gfx90a, gfx94x, gfx950: 30-bit copy count, 22-bit fill count */
    KFDM_SDMA5,  /* gfx10/gfx11: LINEAR_SUB_WINDOW_LARGE exists from SDMA 5.2 */
    KFDM_SDMA7   /* gfx12: 30-bit fill, its own sub-window layout */
};

struct kfdm_node {
    HsaNodeProperties props;
    HsaIoLinkProperties links[KFDM_MAX_NODES];
    int gpu;
    enum kfdm_gen gen;
    int burst_nop;              /* firmware takes burst NOPs (feature_version >= 20) */
    int reserved;               /* queue slots held by others (ROCr's blit queues) */
    int used[KFDM_MAX_ENGINES]; /* queues per engine */
    uint64_t *doorbells;        /* the process's mapping of its doorbell page on this node */
    uint64_t *engine_doorbells; /* the same page as the engine sees it */
    int next_doorbell;
};

/* Memory the driver knows: allocations (hsaKmtAllocMemory) and registrations of user
 * memory (hsaKmtRegisterMemory*), each with the nodes whose VM maps it. */
struct kfdm_obj {
    uintptr_t lo, hi;
    HSA_POINTER_TYPE type;
    HSAuint32 node; /* allocation node, or the first registered one */
    HsaMemFlags flags;
    int vram;                    /* NonPaged on a GPU node: the GPU's local memory */
    int internal;                /* doorbell or queue-pointer page */
    int owned;                   /* the model's mmap: unmapped at free */
    uint64_t registered, mapped; /* node bitmasks */
    int regcount;
    HSAuint32 reg_list[KFDM_MAX_NODES], map_list[KFDM_MAX_NODES];
    struct kfdm_obj *next;
};

struct kfdm_queue {
    HSA_QUEUEID id;
    HSAuint32 node;
    int engine;
    HSA_QUEUE_TYPE type;
    uint32_t *ring;
    uint64_t size;
    volatile uint64_t *rptr, *wptr;
    volatile uint64_t *doorbell; /* the engine's view of the queue's doorbell */
    uint64_t *ptr_page;
    uint64_t rd;   /* the engine's read index (published to *rptr) */
    uint64_t seen; /* the last doorbell value taken */
    int full_noted;
    int stopped;
    char why[256];
    int faulted; /* the address check refused: a VM fault */
    uint64_t fault_addr;
    int atomic_fault; /* ...by a PCIe atomic the link lacks */
    struct sdma_soft_ctx x;
    struct kfdm_queue *next;
};

struct kfdm_event {
    HsaEvent pub; /* first: the HsaEvent* callers hold */
    int manual;
    int signaled;
    HsaMemoryAccessFault fault;
    struct kfdm_event *next;
};

struct kfdm_state {
    pthread_mutex_t lock, q_lock;
    pthread_cond_t ev_cond;
    int configured;
    int open_count;
    int snapshot; /* topology acquired (hsaKmtAcquireSystemProperties) and not released */
    int nnodes;
    struct kfdm_node nodes[KFDM_MAX_NODES];
    struct kfdm_obj *objs;
    struct kfdm_queue *queues;
    struct kfdm_event *events;
    HSA_QUEUEID next_qid;
    int engine_running;
    pthread_t engine;
    struct kfdm_stats stats;
    char err[256];
};

extern struct kfdm_state kfdm;

/* topology.c */
int kfdm_configure_locked(void);     /* the default or KFD_MODEL_TOPOLOGY, once */
int kfdm_valid_node(HSAuint32 node); /* snapshot taken and node exists */
int kfdm_valid_gpu(HSAuint32 node);
#define KFDM_CHECK_OPEN()                                                                          \
    do {                                                                                           \
        if (kfdm.open_count <= 0)                                                                  \
            return HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED;                                     \
    } while (0)

/* memory.c (kfdm.lock held) */
struct kfdm_obj *kfdm_obj_at(uintptr_t a); /* the object containing a */
struct kfdm_obj *kfdm_obj_add(uintptr_t lo, uintptr_t hi, HSA_POINTER_TYPE type, HSAuint32 node);
void kfdm_obj_map(struct kfdm_obj *o, HSAuint32 node);
void kfdm_obj_del(struct kfdm_obj *o);
/* 1 when node's VM maps every byte of [a, a+len); else 0 and *at: the first address not. */
int kfdm_vm_covers(HSAuint32 node, uint64_t a, uint64_t len, uint64_t *at);
/* 1 when [a, a+len) is system memory (not any GPU's VRAM). */
int kfdm_is_system(uint64_t a, uint64_t len);

/* events.c: a VM fault on node at addr: the node's queues stop, memory events fire. */
void kfdm_vm_fault(HSAuint32 node, uint64_t addr, int atomic);

/* queues.c */
void kfdm_stop_queue(struct kfdm_queue *q, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
