/* Private to sdma/: the engine ops table and the engine/queue objects. */
#ifndef SDMA_INTERNAL_H
#define SDMA_INTERNAL_H

#include <stdarg.h>

#include "sdma/sdma.h"

struct sdma_engine_ops {
    const char *name;
    /* Fill e->priv; on failure write a message naming the engine to err. */
    int (*open)(struct sdma_engine *e, char *err, size_t errlen);
    void (*close)(struct sdma_engine *e);
    /* Set up q->ring, q->seq_word (or keep the default) and q->priv. */
    int (*queue_open)(struct sdma_queue *q, const struct sdma_queue_attr *a);
    void (*queue_close)(struct sdma_queue *q);
    /* Called after a doorbell store made through this API. */
    void (*kick)(struct sdma_queue *q);
    /* Run ready packets on the calling thread; NULL when the engine runs by itself. */
    int (*progress)(struct sdma_engine *e);
    int (*map)(struct sdma_engine *e, void *addr, size_t len);
    int (*unmap)(struct sdma_engine *e, void *addr);
    int (*import_dmabuf)(struct sdma_engine *e, int fd, size_t len, void **addr);
    /* Record memory its owner mapped for the engine's GPU (sdma_engine_declare). */
    int (*declare)(struct sdma_engine *e, void *addr, size_t len, int device);
    /* Where [addr, addr+len) is for the engine: SDMA_MEM_*. NULL: reachable host memory. */
    int (*classify)(struct sdma_engine *e, const void *addr, size_t len);
    /* Notice hardware failures, put the queues they stopped in the error state; returns how
     * many failed. NULL: none to notice. */
    int (*health)(struct sdma_engine *e);
    /* sdma_engine_block; NULL: 0 (the caller polls). */
    int (*block)(struct sdma_engine *e, int (*done)(void *), void *arg, double timeout_s);
    unsigned caps; /* SDMA_CAP_*: the default of sdma_engine.caps */
};

#define SDMA_MEM_UNREACHABLE 0
#define SDMA_MEM_HOST 1   /* system memory (host heap, registered user memory) */
#define SDMA_MEM_DEVICE 2 /* GPU memory */

struct sdma_engine {
    const struct sdma_engine_ops *ops;
    struct sdma_engine_config cfg; /* defaults applied */
    char ring_setting[64];
    int copy_2d;           /* resolved SDMA_COPY_2D_LARGE or _SW13 */
    unsigned caps;         /* SDMA_CAP_*, set by open */
    int host_atomics;      /* ATOMIC packets may target host memory (PCIe atomics on the link) */
    char target[128];      /* sdma_engine_target() */
    uint64_t health_at_us; /* when sdma_engine_progress last asked ops->health */
    void *priv;
};

/* Queue states (q->state, read with acquire, written with release). */
#define SDMA_QSTATE_RUN 0
#define SDMA_QSTATE_ERROR 1

/* Words a queue owns when the caller does not provide them; each on its own line. */
struct sdma_queue_words {
    struct sdma_ring_ctl ctl;
    volatile uint64_t rptr;
    uint64_t pad0[7];
    volatile uint64_t wptr;
    uint64_t pad1[7];
    volatile uint64_t doorbell;
    uint64_t pad2[7];
    volatile uint32_t seq;
    uint32_t pad3[15];
};

struct sdma_queue {
    struct sdma_queue_words words; /* first: 64-byte aligned allocation */
    struct sdma_engine *eng;
    struct sdma_ring ring;
    volatile uint32_t *seq_word; /* quiet/mark fence target: low 32 bits of (index / 4) */
    volatile uint64_t *complete; /* sdma_queue_attr.complete, or NULL */
    void (*stored)(void *arg);   /* sdma_queue_attr.stored, or NULL */
    void *stored_arg;
    unsigned flags;      /* as opened */
    unsigned late_flags; /* added since (sdma_queue_gpu_writes); atomic */
    int state;
    char label[64];
    char errmsg[512]; /* written before state is released as SDMA_QSTATE_ERROR */
    void *priv;
};

/* Record this thread's message (sdma_last_error). Returns code. */
int sdma_seterr(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Put q into the error state once, with a message. */
void sdma_queue_set_error(struct sdma_queue *q, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

extern const struct sdma_engine_ops sdma_soft_ops;
#ifdef SDMA_HAVE_CUDA
extern const struct sdma_engine_ops sdma_cuda_ops;
#endif
#ifdef SDMA_HAVE_HSAKMT
extern const struct sdma_engine_ops sdma_hsakmt_ops;
#endif

#endif
