/* The core's use of the copy engine (sdma/): non-blocking transfers that
 * proceed beside the caller and complete at quiet. The queues themselves
 * belong to shmem/queues.c. */
#ifndef SHMEMI_ENGINE_H
#define SHMEMI_ENGINE_H

#include "shmem/shmemi.h"

#include "sdma/sdma.h"
#include "shmem/queues.h"

/* Queue a copy of `bytes` from src to dst (dst or src is pe's memory as
 * mapped here) for ctx. Returns 1 when the engine took it, 0 when the caller
 * must copy itself. fn names the routine for errors. */
int shmemi_engine_copy(struct shmemi_ctx *c, void *dst, const void *src, size_t bytes, int pe,
                       const char *fn);
/* The same, followed on the same queue by the signal update of sig (a route
 * with a mapping: sig->addr is what the engine writes). */
int shmemi_engine_copy_signal(struct shmemi_ctx *c, void *dst, const void *src, size_t bytes,
                              const struct shmemi_route *sig, uint64_t signal, int sig_op,
                              const char *fn);
/* 1 when the engine's copies and words may be in GPU memory (the device
 * heap's non-blocking transfers go to it). */
int shmemi_engine_reaches_device(void);
/* Whether large _nbi transfers go to the engine (SHMEM_NBI_ENGINE; shmem/engine.c):
 * 0 without an engine, or when its thread would have no CPU of its own. */
extern int shmemi_engine_offload_on;
static inline int shmemi_engine_offload(void) { return shmemi_engine_offload_on; }
/* 1 when every store the engine makes wakes the threads that sleep for it (soft, or none). */
int shmemi_engine_wakes(void);
/* sdma_queue_attr.stored of the core's queues; arg: the peer, (void *)(intptr_t)pe. */
void shmemi_engine_stored(void *arg);
/* Work for pe was queued on its RMA queue on behalf of ctx: quiet completes it. */
void shmemi_engine_note(struct shmemi_ctx *c, int pe);
/* Wait until the engine work ctx queued (to every PE, or to world PE pe when
 * pe >= 0) before this call is complete and visible, whichever other threads
 * quiet the same context meanwhile. */
void shmemi_engine_quiet(struct shmemi_ctx *c, int pe, const char *fn);
/* Ring the doorbell of every queue that holds copies ctx queued without one
 * (the end of a batch session). */
void shmemi_engine_session_flush(struct shmemi_ctx *c);
/* Free what the engine keeps for a context (shmem_ctx_destroy). */
void shmemi_engine_ctx_free(struct shmemi_ctx *c);

/* Complete every RMA queue's work, whichever context queued it (queues idle
 * since the last call are skipped). */
void shmemi_engine_quiet_all(const char *fn);

/* 1 when no RMA queue holds work the engine has not finished. */
int shmemi_engine_idle(void);

/* The engine itself (NULL when none runs): the queues and triggered plans
 * are built on it. */
struct sdma_engine *shmemi_engine(void);
/* GPU builds (AMD): the PCI location of this PE's GPU, "dddd:bb:dd.f" (shmem/gpu.c);
 * 0, or -1. */
int shmemi_gpu_bus_id(char *buf, int len);

#endif
