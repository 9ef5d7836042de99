/* Private to sdma/: the soft engine's thread as the proxy of another engine.
 *
 * The thread (engine_soft.c) reads each queue's packets in order and decodes them
 * (soft_exec.c); a backend gives the executor that turns them into hardware operations,
 * the memory its hardware can reach, and a flush called after every run of packets of a
 * queue. The cuda engine (engine_cuda.c) is one. */
#ifndef SDMA_SOFT_BACKEND_H
#define SDMA_SOFT_BACKEND_H

#include "sdma/sdma_internal.h"
#include "sdma/soft_exec.h"

struct sdma_soft_backend {
    const char *name;
    const struct sdma_exec_ops *exec; /* ctx->ops_arg is the queue's backend state */
    unsigned max_sleep_us;            /* longest idle sleep (producers that cannot kick) */
    unsigned spin_us;                 /* keep polling this long after the last work */
    unsigned poll_interval_us;        /* >0: check unsatisfied POLLs at least this often
                                         (the thread spins anyway; a check is a load) */
    int (*open)(struct sdma_engine *e, void **state, char *err, size_t errlen);
    void (*close)(void *state);
    /* Memory for rings and queue words that the hardware and GPU producers reach. */
    void *(*alloc)(void *state, size_t bytes);
    void (*free)(void *state, void *p);
    int (*queue_open)(void *state, struct sdma_queue *q, void **qstate);
    void (*queue_close)(void *state, void *qstate);
    /* After a run of packets (ran: some were executed): issue what they batched, publish
     * completion of everything below rd to q->complete, notice failures. 0: done; 1: work
     * held back on purpose (call again soon); -1: the queue failed (message in
     * sdma_last_error()). */
    int (*flush)(void *qstate, uint64_t rd, int ran);
};

int sdma_soft_open_backend(struct sdma_engine *e, const struct sdma_soft_backend *b, char *err,
                           size_t errlen);
void *sdma_soft_backend_state(struct sdma_engine *e);
/* The soft engine's ops, shared by backends. */
void sdma_soft_close(struct sdma_engine *e);
int sdma_soft_queue_open(struct sdma_queue *q, const struct sdma_queue_attr *a);
void sdma_soft_queue_close(struct sdma_queue *q);
void sdma_soft_kick(struct sdma_queue *q);
int sdma_soft_progress(struct sdma_engine *e);
int sdma_soft_block(struct sdma_engine *e, int (*done)(void *), void *arg, double timeout_s);

#endif
