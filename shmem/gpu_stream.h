/* The kernels of the stream-ordered host API (shmemx_*_on_stream): a signal
 * update, a bounded signal wait and a bounded device barrier, each one
 * thread on the caller's stream. Shared by the C side (shmem/gpu_stream.c,
 * shmem/plan/stream.c) and the GPU source shmem/gpu_stream.cu. */
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
 * the plan's host words (shmem/plan/plan.h), reached by the GPU at their host
 * addresses. Errors: the first one wins (*error = -code, then where). */
struct shmemi_plan_gpu {
    uint32_t round;
    int me, n, nchunks, own_first, own_count;
    const uint32_t *sent;    /* [c * n + q]: own chunk c left for PE q */
    const uint32_t *arrival; /* [c]: other PEs' chunk c arrived here */
    const uint32_t *fence;   /* [q]: the last round whose next_round PE q passed */
    const uint32_t *abortw;  /* [q]: r when PE q could not prepare round r + 1 */
    uint32_t *error, *error_chunk, *error_round, *error_peer;
    uint64_t timeout_ns;
};
/* wait: until every chunk of the round is delivered (own chunks at every
 * peer, the others here), or the plan's recorded error. Records EPEER for a
 * peer that could not prepare the round, and on a timeout ETIMEDOUT naming a
 * peer that has not passed the previous round's next_round (chunk
 * UINT32_MAX, the previous round), else the chunk. */
int shmemi_gpu_plan_wait_launch(const struct shmemi_plan_gpu *a, void *stream);
/* *addr = value in stream order, after everything before it on the stream
 * (a stream memory operation: no kernel). Runtime status, 0 on success. */
int shmemi_gpu_stream_write32(void *stream, uint32_t *addr, uint32_t value);
/* The same for n words, in as few runtime calls as the runtime allows. */
int shmemi_gpu_stream_write32_n(void *stream, uint32_t *const *addr, int n, uint32_t value);
/* The stream waits until *addr >= value (unsigned; a stream memory wait: it
 * never times out by itself, and needs eager module loading). */
int shmemi_gpu_stream_wait32(void *stream, uint32_t *addr, uint32_t value);

#ifdef __cplusplus
}
#endif

#endif
