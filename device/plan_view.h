/* The producer's view of one round of a triggered plan, and the view
 * functions: one body for host threads (CPU builds) and GPU kernels.
 *
 * Words (all in symmetric memory, never reset; see PLANS.md):
 *   marks[c]   64-bit, counts every writer's mark of own chunk c over all rounds:
 *              round r is fully marked when marks[c] == r * writers[c]
 *   gates[c]   32-bit, own chunk c: the engine's POLL waits for gates[c] >= r
 *   arrival[c] 32-bit, other PEs' chunk c: the owner's engine writes the round
 *              after the chunk's copies (a FENCE: one writer, rounds in order)
 *   error      first error wins: SHMEMX_PLAN_E* code; error_chunk names the chunk */
#ifndef SHMEM_DEVICE_PLAN_VIEW_H
#define SHMEM_DEVICE_PLAN_VIEW_H

#include <stdint.h>

#include "shmemx.h"
#include "../sdma/atomic.h"

#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define SHMEMI_VIEW_DEVICE 1
#define SHMEMI_VIEW_FN static __device__ inline
#else
#define SHMEMI_VIEW_FN static inline
#endif

struct shmemx_plan_view {
    uint32_t round;
    int me;
    int nchunks;              /* global chunk count */
    int own_first, own_count; /* this PE's chunks: [own_first, own_first + own_count) */
    const int *writers;       /* per global chunk */
    uint64_t *marks;          /* per global chunk (own ones used) */
    uint32_t *gates;          /* per global chunk (own ones used) */
    const uint32_t *arrival;  /* per global chunk (others' used) */
    uint32_t *error;          /* first error wins */
    uint32_t *error_chunk;
    uint64_t timeout_ns;
};

SHMEMI_VIEW_FN uint64_t shmemi_view_now_ns(void) { return sdma_now_ns(); }

/* One turn of a wait loop; *n counts the turns (callers read the clock every
 * 256 of them). Kernels spin hot: a round's latency is what a plan is for, and
 * the engine's copies do not compete with the waiting threads. */
SHMEMI_VIEW_FN void shmemi_view_relax(unsigned *n) {
    ++*n;
#ifndef SHMEMI_VIEW_DEVICE
#ifdef SHMEMI_VIEW_PROGRESS
    if (SHMEMI_VIEW_PROGRESS()) /* host build: run the engine's ready packets here */
        return;
#endif
    sdma_spin_pause(*n); /* let the PE or engine we wait for run */
#endif
}

SHMEMI_VIEW_FN void shmemi_view_error(const shmemx_plan_view_t *v, int code, int c) {
    uint32_t expected = 0;
    /* First error wins (acquire-release at system scope: the host thread that
     * reports it, or another PE's watchdog, may read it); the chunk is written
     * by the winner only, released for whoever reads the code. */
    if (sdma_cas_u32(v->error, &expected, (uint32_t)-code))
        sdma_store_release_u32(v->error_chunk, (uint32_t)c);
}

SHMEMI_VIEW_FN int shmemi_view_owns(const shmemx_plan_view_t *v, int c) {
    return c >= v->own_first && c < v->own_first + v->own_count;
}

SHMEMI_VIEW_FN int shmemi_view_arrived(const shmemx_plan_view_t *v, int c) {
    if (c < 0 || c >= v->nchunks)
        return 0;
    /* Own chunk: acquire (system) pairs with every writer's release in
     * mark_ready: their stores to the chunk are visible once all marked. */
    if (shmemi_view_owns(v, c))
        return sdma_load_acquire_u64(&v->marks[c]) >= (uint64_t)v->round * (uint64_t)v->writers[c];
    /* Acquire at system scope: the data the engine copied before its fence
     * on arrival[c] is visible once the new round is. */
    return sdma_load_acquire_u32(&v->arrival[c]) >= v->round;
}

/* Returns 1 when this call opened the chunk's gate. */
SHMEMI_VIEW_FN int shmemi_view_mark_ready(shmemx_plan_view_t *v, int c) {
    if (!shmemi_view_owns(v, c)) {
        shmemi_view_error(v, SHMEMX_PLAN_EINVAL, c);
        return 0;
    }
    uint64_t target = (uint64_t)v->round * (uint64_t)v->writers[c];
    /* Release: this writer's stores to the chunk happen before its mark;
     * acquire: the last writer sees every earlier writer's stores before it
     * opens the gate, with a release the engine's POLL acquires. */
    uint64_t now = sdma_fetch_add_acq_rel_u64(&v->marks[c], 1) + 1;
    if (now == target) {
        /* Release (system) of the gate: the engine's POLL acquires it. */
        sdma_store_release_u32(&v->gates[c], v->round);
        return 1;
    }
    if (now > target)
        shmemi_view_error(v, SHMEMX_PLAN_EMARKS, c);
    return 0;
}

SHMEMI_VIEW_FN int shmemi_view_wait_chunk(const shmemx_plan_view_t *v, int c) {
    uint64_t deadline = shmemi_view_now_ns() + v->timeout_ns;
    unsigned n = 0;
    while (!shmemi_view_arrived(v, c)) {
        /* Acquire (system): pairs with the winner's CAS in shmemi_view_error. */
        uint32_t err = sdma_load_acquire_u32(v->error);
        if (err)
            return -(int)err;
        if ((n & 255) == 255 && shmemi_view_now_ns() > deadline)
            return SHMEMX_PLAN_ETIMEDOUT;
        shmemi_view_relax(&n);
    }
    return SHMEMX_PLAN_OK;
}

#endif
