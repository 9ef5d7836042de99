/* The KFD model: a stand-in for libhsakmt (and behind it KFD and the SDMA hardware) for
 * machines without an AMD GPU. Built and linked instead of libhsakmt with
 * -DSHMEM_HSAKMT_MODEL=ON; never part of a normal build. See sdma/kfd_model/README.md.
 *
 * It offers the hsaKmt* calls the hsakmt engine makes, with the declarations of the
 * installed <hsakmt.h>, plus the newer ones below, and a few kfdm_* calls for tests. */
#ifndef SDMA_KFD_MODEL_H
#define SDMA_KFD_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include <hsakmt.h>

#ifdef __cplusplus
extern "C" {
#endif

/* libhsakmt >= 5.7 (absent from Debian's 5.2.3 headers): a queue on a given SDMA engine. */
#define KFDM_QUEUE_SDMA_BY_ENG_ID 6
HSAKMT_STATUS HSAKMTAPI hsaKmtCreateQueueExt(HSAuint32 NodeId, HSA_QUEUE_TYPE Type,
                                             HSAuint32 QueuePercentage, HSA_QUEUE_PRIORITY Priority,
                                             HSAuint32 SdmaEngineId, void *QueueAddress,
                                             HSAuint64 QueueSizeInBytes, HsaEvent *Event,
                                             HsaQueueResource *QueueResource);

/* ---- for tests ---- */

/* The topology, before the first hsaKmtOpenKFD of the process (KFD_MODEL_TOPOLOGY in the
 * environment says the same; README.md gives the syntax). 0, or -1 with kfdm_last_error(). */
int kfdm_set_topology(const char *spec);
const char *kfdm_last_error(void);

struct kfdm_stats {
    uint64_t queues;      /* queues created */
    uint64_t doorbells;   /* doorbell values the engines took */
    uint64_t packets;     /* packets executed */
    uint64_t bytes;       /* bytes copied or filled */
    uint64_t faults;      /* GPU VM faults */
    uint64_t illegal;     /* queues stopped on a packet their generation does not take */
    uint64_t full_stalls; /* doorbells one whole ring ahead of the read pointer (seen empty) */
};
void kfdm_get_stats(struct kfdm_stats *s);

/* 1 when the queue stopped (a VM fault on its GPU, an illegal packet, a bad doorbell), with
 * the reason; 0 while it runs; -1 for an unknown queue. */
int kfdm_queue_stopped(HSA_QUEUEID id, char *why, size_t len);

#ifdef __cplusplus
}
#endif

#endif
