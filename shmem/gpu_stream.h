/* The kernels of the stream-ordered host API (shmemx_*_on_stream): a signal
 * update, a bounded signal wait and a bounded device barrier, each one
 * thread on the caller's stream. Shared by the C side (shmem/gpu.c) and the
 * GPU source shmem/gpu_stream.cu. */
#ifndef SHMEMI_GPU_STREAM_H
#define SHMEMI_GPU_STREAM_H

#include <stdint.h>

#include "device/state.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a wait that ran past its timeout leaves for the host, in pinned host
 * memory mapped on the GPU: the first fault of the job only (a device word
 * elects it); `kind` is stored last, with release. */
enum { SHMEMI_STREAM_FAULT_WAIT = 1, SHMEMI_STREAM_FAULT_BARRIER = 2 };
struct shmemi_stream_fault {
    uint64_t kind;  /* 0: none */
    uint64_t where; /* wait: the signal word (device address); barrier: the round */
    uint64_t seen;  /* wait: its last value; barrier: the round's word */
    uint64_t want;  /* wait: the comparison value; barrier: the epoch awaited */
    uint64_t cmp;   /* wait: SHMEM_CMP_*; barrier: the PE that did not arrive */
};

/* Where a fault goes: the host record as the GPU sees it and the device
 * word the first fault claims. */
struct shmemi_stream_sink {
    struct shmemi_stream_fault *fault;
    unsigned int *claim;
    uint64_t timeout_ns; /* UINT64_MAX: unbounded */
};

/* The device barrier's view of the control areas (device/state.h): this
 * PE's, and the one of PE me + 2^k for each round k. */
struct shmemi_stream_barrier {
    struct shmemi_dev_ctl *mine;
    struct shmemi_dev_ctl *to[SHMEMI_DEV_ROUNDS];
    int rounds;
    int from[SHMEMI_DEV_ROUNDS]; /* PE me - 2^k: the one round k waits for */
};

/* Each launches one thread on `stream` (the runtime's stream type) and
 * returns the launch's runtime status (0 on success).
 * signal: after a system-scope fence, *p += value (add) or *p = value, p a
 *   peer's mapped word. */
int shmemi_gpu_signal_launch(uint64_t *p, uint64_t value, int add, void *stream);
/* wait: until *p cmp value (SHMEM_CMP_*), acquire at system scope. */
int shmemi_gpu_wait_launch(const uint64_t *p, int cmp, uint64_t value,
                           const struct shmemi_stream_sink *sink, void *stream);
/* barrier: shmemi_dev_barrier_all of shmem_device.h, with a timeout. */
int shmemi_gpu_barrier_launch(const struct shmemi_stream_barrier *bar,
                              const struct shmemi_stream_sink *sink, void *stream);

/* A triggered plan's round as its stream-ordered kernels see it: words in
 * the plan's host words (shmem/plan.c), reached by the GPU at their host
 * addresses. Errors: the first one wins (*error = -code, then where). */
struct shmemi_plan_gpu {
    uint32_t round;
    int me, n, nchunks, own_first, own_count;
    const uint32_t *sent;    /* [c * n + q]: own chunk c left for PE q */
    const uint32_t *arrival; /* [c]: other PEs' chunk c arrived here */
    const uint32_t *fence;   /* [q]: PE q passed next_round of this round */
    const uint32_t *abortw;  /* [q]: PE q could not prepare the next round */
    uint32_t *const *peer_fence; /* [q]: fence[me] on PE q */
    uint32_t *error, *error_chunk, *error_round, *error_peer;
    uint32_t *done; /* the last round whose fence passed */
    uint64_t timeout_ns;
};
/* wait: until every chunk of the round is delivered (own chunks at every
 * peer, the others here), or the plan's recorded error; a timeout records
 * ETIMEDOUT with the chunk. */
int shmemi_gpu_plan_wait_launch(const struct shmemi_plan_gpu *a, void *stream);
/* fence: tell every peer this PE passed next_round, wait for theirs (a
 * timeout records ETIMEDOUT with the peer, an aborting peer EPEER), then
 * done = round. After a recorded error it signals the peers and returns. */
int shmemi_gpu_plan_fence_launch(const struct shmemi_plan_gpu *a, void *stream);

#ifdef __cplusplus
}
#endif

#endif
