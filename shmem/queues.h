/* Every copy-engine queue of the core, owned by shmem/queues.c: opened on
 * first use, looked up by peer, closed at finalize. Per (this PE, peer):
 *   rma     ordinary non-blocking transfers and copy-engine puts without a
 *           wait flag; quiet completes them (never blocks on a POLL)
 *   poll    queues that may block on a POLL: triggered plans' chains and
 *           flag-waiting copy-engine puts
 *   device  GPU builds: written by kernels (device-driven _nbi puts)
 * All of them run on the one engine of the process (shmemi_engine()). */
#ifndef SHMEMI_QUEUES_H
#define SHMEMI_QUEUES_H

#include "sdma/sdma.h"

/* The RMA queue to pe, opened on first use (ends the job when it cannot be
 * opened); needs an engine. */
struct sdma_queue *shmemi_rma_queue(int pe);
/* The RMA queue to pe if it is open, else NULL. */
struct sdma_queue *shmemi_rma_queue_peek(int pe);
/* The queue to pe that may block on POLLs (SHMEM_PLAN_RING_SIZE), opened on
 * first use; needs an engine. */
struct sdma_queue *shmemi_poll_queue(int pe);
/* Open the device-driven queue to pe with its ring given in a (ends the job
 * on failure). */
struct sdma_queue *shmemi_device_queue_open(int pe, const struct sdma_queue_attr *a);

/* Close the poll queues (at finalize, once no plan is open: the packets
 * they still hold are dropped). */
void shmemi_poll_queues_close(void);
/* Device code has come: kernels may open the gates of the open plan queues. */
void shmemi_poll_queues_gpu_writes(void);
/* At finalize, before the engine closes: the device-driven queues once the
 * engine took what kernels queued, the RMA queues once quiet. */
void shmemi_queues_fini(void);

#endif
