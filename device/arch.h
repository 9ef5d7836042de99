/* The device API's primitives: its names for the ordering vocabulary
 * (sdma/atomic.h: loads, stores, AMOs, fences, back-off, the clock, each for
 * the host, HIP and CUDA with its scope explicit), and the workgroup and wave
 * queries. Every body in shmem_device.h is written once on top of them:
 *
 *   HIP device pass   (__HIP_DEVICE_COMPILE__): __hip_atomic_*, __ballot, __shfl
 *   CUDA device pass  (__CUDA_ARCH__ >= 700):   PTX ld.acquire.sys / st.release.sys,
 *                                               atomic*_system, __shfl_sync
 *   host pass of a GPU compile: the same __device__ functions, parsed and never emitted
 *   plain C (CPU builds, unit tests): GNU __atomic builtins; a "workgroup" and a
 *                                     "wave" are the calling thread alone
 *
 * Scope: everything here that a peer, an engine or the host may observe is at
 * system scope (peer heaps are other GPUs' memory mapped here; rings live in
 * host memory); the _dev names are for words only this GPU's threads share.
 * This is the runtime-free half; device/gpu.h maps host runtime calls. */
#ifndef SHMEM_DEVICE_ARCH_H
#define SHMEM_DEVICE_ARCH_H

#include <stddef.h>
#include <stdint.h>

#include "../sdma/atomic.h"

#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define SHMEMI_DEV_PASS 1 /* compiling device code */
#endif
#if defined(__HIPCC__)
#define SHMEMI_DEV_HIP 1 /* HIP compile (AMD), either pass */
#elif defined(__CUDACC__)
#define SHMEMI_DEV_CUDA 1 /* CUDA compile, either pass */
#endif
#if defined(__CUDACC__) || defined(__HIPCC__)
#define SHMEMI_DEV_GPU 1 /* a GPU compile, either pass */
#if defined(__HIPCC__)
#include <hip/hip_runtime.h>
#else
#include <cuda_runtime.h>
#endif
/* Internal device functions: one copy per translation unit, no relocatable code. */
#define SHMEMI_DFN static __device__ inline
#else
#define SHMEMI_DFN static inline
#endif

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 700
#error "shmem_device.h needs sm_70 or newer (acquire/release at system scope, __nanosleep)"
#endif

/* Lane masks: 64 bits hold a wave of either vendor. */
typedef uint64_t shmemi_lanemask_t;

/* ------------------------------------------------ loads, stores and AMOs */
/* The device API's names for the ordering vocabulary (sdma/atomic.h), on
 * untyped pointers. System scope unless the name ends in _dev. */
SHMEMI_DFN unsigned short shmemi_arch_ld_acq16(const void *p) {
    return sdma_load_acquire_u16((const uint16_t *)p);
}
SHMEMI_DFN uint32_t shmemi_arch_ld_acq32(const void *p) {
    return sdma_load_acquire_u32((const uint32_t *)p);
}
SHMEMI_DFN uint64_t shmemi_arch_ld_acq64(const void *p) {
    return sdma_load_acquire_u64((const uint64_t *)p);
}
SHMEMI_DFN uint32_t shmemi_arch_ld_rlx32(const void *p) {
    return sdma_load_relaxed_u32((const uint32_t *)p);
}
SHMEMI_DFN uint64_t shmemi_arch_ld_rlx64(const void *p) {
    return sdma_load_relaxed_u64((const uint64_t *)p);
}
SHMEMI_DFN void shmemi_arch_st_rel32(void *p, uint32_t v) {
    sdma_store_release_u32((uint32_t *)p, v);
}
SHMEMI_DFN void shmemi_arch_st_rel64(void *p, uint64_t v) {
    sdma_store_release_u64((uint64_t *)p, v);
}
SHMEMI_DFN void shmemi_arch_st_rlx32(void *p, uint32_t v) {
    sdma_store_relaxed_u32((uint32_t *)p, v);
}
SHMEMI_DFN void shmemi_arch_st_rlx64(void *p, uint64_t v) {
    sdma_store_relaxed_u64((uint64_t *)p, v);
}
/* Device (GPU) scope: for words only this GPU's threads share. */
SHMEMI_DFN uint64_t shmemi_arch_ld_acq64_dev(const void *p) {
    return sdma_load_acquire_dev_u64((const uint64_t *)p);
}
SHMEMI_DFN void shmemi_arch_st_rel64_dev(void *p, uint64_t v) {
    sdma_store_release_dev_u64((uint64_t *)p, v);
}

/* Read-modify-write AMOs: relaxed at system scope. An AMO is atomic with
 * every other AMO on the word from any PE or thread; ordering against other
 * accesses comes from the fences around it (shmem_fence/quiet, put_signal's
 * release). */
enum {
    SHMEMI_AMO_ADD,
    SHMEMI_AMO_AND,
    SHMEMI_AMO_OR,
    SHMEMI_AMO_XOR,
    SHMEMI_AMO_SWAP,
    SHMEMI_AMO_CAS
};

/* op is a constant at every call site: the switch folds away. Returns the old value. */
#define SHMEMI_AMO_BODY(W)                                                                         \
    switch (op) {                                                                                  \
    case SHMEMI_AMO_ADD: return sdma_fetch_add_relaxed_u##W((uint##W##_t *)p, v);                  \
    case SHMEMI_AMO_AND: return sdma_fetch_and_relaxed_u##W((uint##W##_t *)p, v);                  \
    case SHMEMI_AMO_OR: return sdma_fetch_or_relaxed_u##W((uint##W##_t *)p, v);                    \
    case SHMEMI_AMO_XOR: return sdma_fetch_xor_relaxed_u##W((uint##W##_t *)p, v);                  \
    case SHMEMI_AMO_SWAP: return sdma_exchange_relaxed_u##W((uint##W##_t *)p, v);                  \
    default: return sdma_compare_swap_relaxed_u##W((uint##W##_t *)p, cond, v);                     \
    }
SHMEMI_DFN uint32_t shmemi_arch_amo32(int op, void *p, uint32_t v,
                                      uint32_t cond){SHMEMI_AMO_BODY(32)} SHMEMI_DFN uint64_t
    shmemi_arch_amo64(int op, void *p, uint64_t v, uint64_t cond) {
    SHMEMI_AMO_BODY(64)
}
#undef SHMEMI_AMO_BODY

/* *p = max(*p, v), relaxed, at device scope: for words only this GPU's
 * threads update and read. */
SHMEMI_DFN void shmemi_arch_max64(uint64_t *p, uint64_t v) { sdma_fetch_max_relaxed_dev_u64(p, v); }

/* ------------------------------------------------------------------ fences */
/* Every earlier access of this thread (and, by cumulativity, everything it has
 * acquired or synchronized with through a workgroup barrier) is ordered before
 * every later one, at system scope: the release half of quiet/fence/put_signal. */
SHMEMI_DFN void shmemi_arch_fence_sys(void) { sdma_fence_seq_cst(); }

/* Acquire and release at system scope in one fence, lighter than fence_sys:
 * earlier loads and stores before later ones. */
SHMEMI_DFN void shmemi_arch_fence_acq_rel(void) { sdma_fence_acq_rel(); }

/* Drain this thread's outstanding stores before a workgroup barrier after
 * which one thread releases for the whole group. AMD: a wave's stores are
 * only counted by its own vmcnt; the workgroup-scope release inside
 * __syncthreads does not wait for them (measured on MI300X: peers saw stale
 * data without it), so every wave waits here (a device-scope release fence =
 * s_waitcnt vmcnt(0)). CUDA: bar.sync plus the releasing thread's fence.sc.sys
 * is cumulative in the PTX memory model; nothing to do. */
SHMEMI_DFN void shmemi_arch_drain(void) {
#if defined(__HIPCC__)
    sdma_fence_release_dev();
#endif
}

/* One turn of a spin loop; *n counts the turns (sdma_spin_pause: hot first,
 * then back-off, so the peer, or the host thread running the soft engine in
 * CPU builds, gets the memory system or the core). */
SHMEMI_DFN void shmemi_arch_pause(unsigned *n) { sdma_spin_pause(++*n); }

/* Nanoseconds of a clock that all threads of the device share. */
SHMEMI_DFN uint64_t shmemi_arch_now_ns(void) { return sdma_now_ns(); }

/* --------------------------------------------------- workgroups and waves */
SHMEMI_DFN unsigned shmemi_arch_wg_rank(void) {
#if defined(SHMEMI_DEV_GPU)
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
#else
    return 0;
#endif
}
SHMEMI_DFN unsigned shmemi_arch_wg_size(void) {
#if defined(SHMEMI_DEV_GPU)
    return blockDim.x * blockDim.y * blockDim.z;
#else
    return 1;
#endif
}
/* Every thread of the workgroup, uniformly. Workgroup-scope acquire/release:
 * cross-scope publication is the caller's fence after it. */
SHMEMI_DFN void shmemi_arch_wg_sync(void) {
#if defined(SHMEMI_DEV_GPU)
    __syncthreads();
#endif
}
/* Wave size: warpSize on both vendors (never a literal). */
SHMEMI_DFN unsigned shmemi_arch_wave_size(void) {
#if defined(SHMEMI_DEV_GPU)
    return (unsigned)warpSize;
#else
    return 1;
#endif
}
SHMEMI_DFN unsigned shmemi_arch_lane(void) {
    return shmemi_arch_wg_rank() % shmemi_arch_wave_size();
}
/* Threads of the caller's wave (the last wave of a workgroup may be partial). */
SHMEMI_DFN unsigned shmemi_arch_wave_threads(void) {
    unsigned ws = shmemi_arch_wave_size(), base = shmemi_arch_wg_rank() - shmemi_arch_lane();
    unsigned left = shmemi_arch_wg_size() - base;
    return left < ws ? left : ws;
}
/* Lanes of this wave executing the call (bit i = lane i). */
SHMEMI_DFN shmemi_lanemask_t shmemi_arch_active(void) {
#if defined(SHMEMI_DEV_CUDA)
    return (shmemi_lanemask_t)__activemask();
#elif defined(SHMEMI_DEV_GPU)
    return (shmemi_lanemask_t)__ballot(1);
#else
    return 1;
#endif
}
/* Converge the lanes of `mask` (a memory barrier among them on CUDA; AMD
 * waves execute in lock-step and the compiler barrier keeps the order). */
SHMEMI_DFN void shmemi_arch_wave_sync(shmemi_lanemask_t mask) {
#if defined(SHMEMI_DEV_CUDA)
    __syncwarp((unsigned)mask);
#elif defined(SHMEMI_DEV_GPU)
    (void)mask;
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront");
    __builtin_amdgcn_wave_barrier();
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");
#else
    (void)mask;
#endif
}
/* Value of v in lane `src` (an active lane of mask). */
SHMEMI_DFN uint64_t shmemi_arch_bcast64(shmemi_lanemask_t mask, uint64_t v, unsigned src) {
#if defined(SHMEMI_DEV_CUDA)
    return __shfl_sync((unsigned)mask, (unsigned long long)v, (int)src);
#elif defined(SHMEMI_DEV_GPU)
    (void)mask;
    return (uint64_t)__shfl((unsigned long long)v, (int)src);
#else
    (void)mask;
    (void)src;
    return v;
#endif
}
SHMEMI_DFN unsigned shmemi_arch_popc(shmemi_lanemask_t m) {
#if defined(SHMEMI_DEV_GPU)
    return (unsigned)__popcll((unsigned long long)m);
#else
    return (unsigned)__builtin_popcountll((unsigned long long)m);
#endif
}
/* Lowest set lane of a nonzero mask. */
SHMEMI_DFN unsigned shmemi_arch_lowest(shmemi_lanemask_t m) {
#if defined(SHMEMI_DEV_GPU)
    return (unsigned)(__ffsll((long long)m) - 1);
#else
    return (unsigned)__builtin_ctzll((unsigned long long)m);
#endif
}

#endif
