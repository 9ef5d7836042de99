/* The device state: everything GPU-side routines need, built by the host
 * library at shmem_init and copied into each translation unit that includes
 * shmem_device.h (no relocatable device code: see DESIGN §5).
 *
 * Plain C, no runtime headers: the host library (C) fills it, device code
 * (HIP or CUDA) reads it. Every pointer in it is a device pointer valid on
 * this PE's GPU. */
#ifndef SHMEM_DEVICE_STATE_H
#define SHMEM_DEVICE_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "../sdma/ring.h"

#define SHMEMI_DEVICE_STATE_VERSION 6
/* Peers whose heap base sits in the state itself (one constant-cache load on
 * the RMA fast path); PEs beyond go through peer_heap. */
#define SHMEMI_DEV_INLINE_PEERS 16

/* Words of a PE's device heap control area (the last SHMEMI_DEV_CTL_SIZE
 * bytes of its device heap), written by peers' kernels. Each on its own
 * 128-byte line. */
#define SHMEMI_DEV_LINE 128
#define SHMEMI_DEV_ROUNDS 32
struct shmemi_dev_line {
    uint64_t v;
    uint64_t pad[SHMEMI_DEV_LINE / 8 - 1];
};
struct shmemi_dev_ctl {
    /* Dissemination barrier of the device API over WORLD: round k of PE i
     * is signalled by PE i - 2^k storing the epoch here. */
    struct shmemi_dev_line barrier[SHMEMI_DEV_ROUNDS];
    /* This PE's barrier epoch (only this PE's kernels touch it; one
     * barrier_all at a time per PE). */
    struct shmemi_dev_line epoch;
    /* Scratch for device collectives (broadcast/fcollect/reduce staging
     * flags), one line per peer slot. */
    struct shmemi_dev_line coll[SHMEMI_DEV_ROUNDS];
};
#define SHMEMI_DEV_CTL_SIZE ((size_t)64 * 1024)

/* A device-driven copy-engine queue to one peer: kernels write COPY packets
 * into its ring (device/ring_dev.h), the engine moves the bytes. The ring,
 * rptr, wptr and doorbell are host memory mapped into the GPU (a proxy thread
 * reads them, or the hardware queue does); the producers' ctl and the two
 * indices below are GPU memory. Two ways to publish:
 *  - tagged slots (engines with a proxy thread): no producer waits for
 *    another; the engine stores the completion index itself;
 *  - the doorbell protocol (hardware queues): producers commit in turn and
 *    ring the doorbell; each copy is followed by a FENCE that stores the low
 *    32 bits of the completion index. */
struct shmemi_dev_queue {
    struct sdma_ring ring;
    uint64_t *published;      /* highest ring index a producer committed (atomic max) */
    const uint64_t *complete; /* the engine's index below which all packets completed
                                    (compare the low 32 bits, modulo 2^32) */
    int doorbell;             /* 1: the doorbell protocol; 0: tagged slots */
};
/* The two indices of the queue to one peer share a line, so that quiet reads
 * both in one round trip. */
struct shmemi_dev_ce_line {
    uint64_t published;
    uint64_t complete;
    uint64_t pad[SHMEMI_DEV_LINE / 8 - 2];
};

struct shmemi_device_state {
    int version; /* SHMEMI_DEVICE_STATE_VERSION */
    int my_pe;
    int n_pes;
    int ready;                                /* 0 until shmem_init filled it */
    char *heap_base;                          /* this PE's device heap */
    size_t heap_size;                         /* user heap + control area */
    char *const *peer_heap;                   /* device array [n_pes]: each PE's heap mapped here
                                (peer_heap[my_pe] == heap_base) */
    struct shmemi_dev_ctl *ctl;               /* this PE's control area (end of its heap) */
    char *peer_base[SHMEMI_DEV_INLINE_PEERS]; /* peer_heap[pe] for pe < 16 */
    /* Device array [n_pes] (entry my_pe unused), or NULL: no copy engine
     * reaches the device heap, and every device put is stores. */
    const struct shmemi_dev_queue *queues;
    const struct shmemi_dev_ce_line *ce_lines; /* [n_pes]: queues[pe]'s indices */
    size_t ce_min_bytes;    /* workgroup/wave _nbi puts of at least this use the queues */
    uint64_t ce_timeout_ns; /* a full ring after this long: the put is done by stores */
};

#endif
