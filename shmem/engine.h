/* The core's use of the copy engine (sdma/): non-blocking transfers that
 * proceed beside the caller and complete at quiet. */
#ifndef SHMEMI_ENGINE_H
#define SHMEMI_ENGINE_H

#include "shmem/shmemi.h"

#include "sdma/sdma.h"

/* Queue a copy of `bytes` from src to dst (dst or src is a peer mapping).
 * Returns 1 when the engine took it, 0 when the caller must copy itself. */
int shmemi_engine_copy(struct shmemi_ctx *c, void *dst, const void *src, size_t bytes, int pe);
/* The same, followed on the same queue by the signal update. */
int shmemi_engine_copy_signal(struct shmemi_ctx *c, void *dst, const void *src, size_t bytes,
                              uint64_t *sig, int sig_device, uint64_t signal, int sig_op,
                              int pe);
/* 1 when the engine's copies and words may be in GPU memory (the device
 * heap's non-blocking transfers go to it). */
int shmemi_engine_reaches_device(void);
/* Open the device-driven queue to pe (its ring given in a); closed at
 * finalize once the engine has taken everything kernels queued. */
struct sdma_queue *shmemi_engine_device_queue(int pe, const struct sdma_queue_attr *a);
/* Work for pe was queued on its RMA queue on behalf of ctx: quiet completes it. */
void shmemi_engine_note(struct shmemi_ctx *c, int pe);
/* Wait until the engine work of ctx (all PEs, or one PE when pe >= 0) is
 * complete and visible. */
void shmemi_engine_quiet(struct shmemi_ctx *c, int pe);

/* Complete every RMA queue's work, whichever context queued it (queues idle
 * since the last call are skipped). */
void shmemi_engine_quiet_all(void);

/* 1 when no RMA queue holds work the engine has not finished. */
int shmemi_engine_idle(void);

/* The engine itself (NULL when none runs): triggered plans build their own
 * queues on it. */
struct sdma_engine *shmemi_engine(void);
/* The RMA queue to pe, and the queue to pe that may block on POLLs. */
struct sdma_queue *shmemi_rma_queue(int pe);
struct sdma_queue *shmemi_poll_queue(int pe);

#endif
