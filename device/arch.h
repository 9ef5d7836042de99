/* The vendor primitives of the device API: system-scope atomics, fences,
 * back-off, workgroup and wave queries. One small table per target, so that
 * every body in shmem_device.h is written once:
 *
 *   HIP device pass   (__HIP_DEVICE_COMPILE__): __hip_atomic_* at system scope
 *   CUDA device pass  (__CUDA_ARCH__ >= 700):   PTX ld.acquire.sys / st.release.sys,
 *                                               atomic*_system
 *   host pass of a GPU compile: the same __device__ functions, parsed and never emitted
 *   plain C (CPU builds, unit tests): C11 __atomic builtins; a "workgroup" and a
 *                                     "wave" are the calling thread alone
 *
 * Scope: everything here that a peer, an engine or the host may observe is at
 * system scope (peer heaps are other GPUs' memory mapped here; rings live in
 * host memory). This is the runtime-free half; device/gpu.h maps host
 * runtime calls. */
#ifndef SHMEM_DEVICE_ARCH_H
#define SHMEM_DEVICE_ARCH_H

#include <stddef.h>
#include <stdint.h>

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
#include <sched.h>
#include <time.h>
#endif

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 700
#error "shmem_device.h needs sm_70 or newer (acquire/release at system scope, __nanosleep)"
#endif

/* Lane masks: 64 bits hold a wave of either vendor. */
typedef uint64_t shmemi_lanemask_t;

/* ------------------------------------------------------------ loads/stores */
#if defined(SHMEMI_DEV_CUDA)
/* PTX memory-model accesses on generic addresses (a peer's NVLink mapping, the
 * local heap or mapped host memory alike). */
#define SHMEMI_PTX_LD(NAME, SEM, T, BITS, C)                                                \
    SHMEMI_DFN T NAME(const void *p) {                                                      \
        T v;                                                                                \
        asm volatile("ld." SEM ".sys.b" #BITS " %0, [%1];" : "=" C(v) : "l"(p) : "memory"); \
        return v;                                                                           \
    }
#define SHMEMI_PTX_ST(NAME, SEM, T, BITS, C)                                                \
    SHMEMI_DFN void NAME(void *p, T v) {                                                    \
        asm volatile("st." SEM ".sys.b" #BITS " [%0], %1;" ::"l"(p), C(v) : "memory");      \
    }
SHMEMI_PTX_LD(shmemi_arch_ld_acq16, "acquire", unsigned short, 16, "h")
SHMEMI_PTX_LD(shmemi_arch_ld_acq32, "acquire", uint32_t, 32, "r")
SHMEMI_PTX_LD(shmemi_arch_ld_acq64, "acquire", uint64_t, 64, "l")
SHMEMI_PTX_LD(shmemi_arch_ld_rlx32, "relaxed", uint32_t, 32, "r")
SHMEMI_PTX_LD(shmemi_arch_ld_rlx64, "relaxed", uint64_t, 64, "l")
SHMEMI_PTX_ST(shmemi_arch_st_rel32, "release", uint32_t, 32, "r")
SHMEMI_PTX_ST(shmemi_arch_st_rel64, "release", uint64_t, 64, "l")
SHMEMI_PTX_ST(shmemi_arch_st_rlx32, "relaxed", uint32_t, 32, "r")
SHMEMI_PTX_ST(shmemi_arch_st_rlx64, "relaxed", uint64_t, 64, "l")
/* Device (GPU) scope: for words only this GPU's threads share. */
SHMEMI_DFN uint64_t shmemi_arch_ld_acq64_dev(const void *p) {
    uint64_t v;
    asm volatile("ld.acquire.gpu.b64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}
SHMEMI_DFN void shmemi_arch_st_rel64_dev(void *p, uint64_t v) {
    asm volatile("st.release.gpu.b64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
#undef SHMEMI_PTX_LD
#undef SHMEMI_PTX_ST
#else
#if defined(SHMEMI_DEV_GPU)
#define SHMEMI_ATOMIC_LD(p, mo, T) __hip_atomic_load((const T *)(p), mo, __HIP_MEMORY_SCOPE_SYSTEM)
#define SHMEMI_ATOMIC_ST(p, v, mo, T) __hip_atomic_store((T *)(p), v, mo, __HIP_MEMORY_SCOPE_SYSTEM)
#else
#define SHMEMI_ATOMIC_LD(p, mo, T) __atomic_load_n((const T *)(p), mo)
#define SHMEMI_ATOMIC_ST(p, v, mo, T) __atomic_store_n((T *)(p), v, mo)
#endif
SHMEMI_DFN unsigned short shmemi_arch_ld_acq16(const void *p) {
    return SHMEMI_ATOMIC_LD(p, __ATOMIC_ACQUIRE, unsigned short);
}
SHMEMI_DFN uint32_t shmemi_arch_ld_acq32(const void *p) {
    return SHMEMI_ATOMIC_LD(p, __ATOMIC_ACQUIRE, uint32_t);
}
SHMEMI_DFN uint64_t shmemi_arch_ld_acq64(const void *p) {
    return SHMEMI_ATOMIC_LD(p, __ATOMIC_ACQUIRE, uint64_t);
}
SHMEMI_DFN uint32_t shmemi_arch_ld_rlx32(const void *p) {
    return SHMEMI_ATOMIC_LD(p, __ATOMIC_RELAXED, uint32_t);
}
SHMEMI_DFN uint64_t shmemi_arch_ld_rlx64(const void *p) {
    return SHMEMI_ATOMIC_LD(p, __ATOMIC_RELAXED, uint64_t);
}
SHMEMI_DFN void shmemi_arch_st_rel32(void *p, uint32_t v) {
    SHMEMI_ATOMIC_ST(p, v, __ATOMIC_RELEASE, uint32_t);
}
SHMEMI_DFN void shmemi_arch_st_rel64(void *p, uint64_t v) {
    SHMEMI_ATOMIC_ST(p, v, __ATOMIC_RELEASE, uint64_t);
}
SHMEMI_DFN void shmemi_arch_st_rlx32(void *p, uint32_t v) {
    SHMEMI_ATOMIC_ST(p, v, __ATOMIC_RELAXED, uint32_t);
}
SHMEMI_DFN void shmemi_arch_st_rlx64(void *p, uint64_t v) {
    SHMEMI_ATOMIC_ST(p, v, __ATOMIC_RELAXED, uint64_t);
}
/* Device (GPU) scope: for words only this GPU's threads share. */
#if defined(SHMEMI_DEV_GPU)
SHMEMI_DFN uint64_t shmemi_arch_ld_acq64_dev(const void *p) {
    return __hip_atomic_load((const uint64_t *)p, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT);
}
SHMEMI_DFN void shmemi_arch_st_rel64_dev(void *p, uint64_t v) {
    __hip_atomic_store((uint64_t *)p, v, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);
}
#else
SHMEMI_DFN uint64_t shmemi_arch_ld_acq64_dev(const void *p) {
    return __atomic_load_n((const uint64_t *)p, __ATOMIC_ACQUIRE);
}
SHMEMI_DFN void shmemi_arch_st_rel64_dev(void *p, uint64_t v) {
    __atomic_store_n((uint64_t *)p, v, __ATOMIC_RELEASE);
}
#endif
#undef SHMEMI_ATOMIC_LD
#undef SHMEMI_ATOMIC_ST
#endif

/* --------------------------------------------------- read-modify-write AMOs */
/* Relaxed at system scope: an AMO is atomic with every other AMO on the word
 * from any PE or thread; ordering against other accesses comes from the
 * fences around it (shmem_fence/quiet, put_signal's release). */
enum { SHMEMI_AMO_ADD, SHMEMI_AMO_AND, SHMEMI_AMO_OR, SHMEMI_AMO_XOR, SHMEMI_AMO_SWAP,
       SHMEMI_AMO_CAS };

#if defined(SHMEMI_DEV_CUDA)
#define SHMEMI_AMO_BODY(UT)                                                                 \
    switch (op) {                                                                           \
    case SHMEMI_AMO_ADD: return atomicAdd_system((UT *)p, (UT)v);                           \
    case SHMEMI_AMO_AND: return atomicAnd_system((UT *)p, (UT)v);                           \
    case SHMEMI_AMO_OR: return atomicOr_system((UT *)p, (UT)v);                             \
    case SHMEMI_AMO_XOR: return atomicXor_system((UT *)p, (UT)v);                           \
    case SHMEMI_AMO_SWAP: return atomicExch_system((UT *)p, (UT)v);                         \
    default: return atomicCAS_system((UT *)p, (UT)cond, (UT)v);                             \
    }
#elif defined(SHMEMI_DEV_GPU)
#define SHMEMI_AMO_BODY(UT)                                                                 \
    const int mo = __ATOMIC_RELAXED, sc = __HIP_MEMORY_SCOPE_SYSTEM;                        \
    UT c = (UT)cond;                                                                        \
    switch (op) {                                                                           \
    case SHMEMI_AMO_ADD: return __hip_atomic_fetch_add((UT *)p, (UT)v, mo, sc);             \
    case SHMEMI_AMO_AND: return __hip_atomic_fetch_and((UT *)p, (UT)v, mo, sc);             \
    case SHMEMI_AMO_OR: return __hip_atomic_fetch_or((UT *)p, (UT)v, mo, sc);               \
    case SHMEMI_AMO_XOR: return __hip_atomic_fetch_xor((UT *)p, (UT)v, mo, sc);             \
    case SHMEMI_AMO_SWAP: return __hip_atomic_exchange((UT *)p, (UT)v, mo, sc);             \
    default: __hip_atomic_compare_exchange_strong((UT *)p, &c, (UT)v, mo, mo, sc); return c; \
    }
#else
#define SHMEMI_AMO_BODY(UT)                                                                 \
    const int mo = __ATOMIC_RELAXED;                                                        \
    UT c = (UT)cond;                                                                        \
    switch (op) {                                                                           \
    case SHMEMI_AMO_ADD: return __atomic_fetch_add((UT *)p, (UT)v, mo);                     \
    case SHMEMI_AMO_AND: return __atomic_fetch_and((UT *)p, (UT)v, mo);                     \
    case SHMEMI_AMO_OR: return __atomic_fetch_or((UT *)p, (UT)v, mo);                       \
    case SHMEMI_AMO_XOR: return __atomic_fetch_xor((UT *)p, (UT)v, mo);                     \
    case SHMEMI_AMO_SWAP: return __atomic_exchange_n((UT *)p, (UT)v, mo);                   \
    default: __atomic_compare_exchange_n((UT *)p, &c, (UT)v, 0, mo, mo); return c;          \
    }
#endif
/* op is a constant at every call site: the switch folds away. Returns the old value. */
SHMEMI_DFN uint32_t shmemi_arch_amo32(int op, void *p, uint32_t v, uint32_t cond) {
    SHMEMI_AMO_BODY(unsigned int)
}
SHMEMI_DFN uint64_t shmemi_arch_amo64(int op, void *p, uint64_t v, uint64_t cond) {
    SHMEMI_AMO_BODY(unsigned long long)
}
#undef SHMEMI_AMO_BODY

/* *p = max(*p, v), relaxed, at device scope: for words only this GPU's
 * threads update and read. */
SHMEMI_DFN void shmemi_arch_max64(uint64_t *p, uint64_t v) {
#if defined(SHMEMI_DEV_CUDA)
    atomicMax((unsigned long long *)p, (unsigned long long)v);
#elif defined(SHMEMI_DEV_GPU)
    __hip_atomic_fetch_max(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
#else
    uint64_t cur = __atomic_load_n(p, __ATOMIC_RELAXED);
    while (cur < v && !__atomic_compare_exchange_n(p, &cur, v, 1, __ATOMIC_RELAXED,
                                                   __ATOMIC_RELAXED))
        ;
#endif
}

/* ------------------------------------------------------------------ fences */
/* Every earlier access of this thread (and, by cumulativity, everything it has
 * acquired or synchronized with through a workgroup barrier) is ordered before
 * every later one, at system scope: the release half of quiet/fence/put_signal. */
SHMEMI_DFN void shmemi_arch_fence_sys(void) {
#if defined(SHMEMI_DEV_GPU)
    __threadfence_system();
#else
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

/* Acquire and release at system scope in one fence, lighter than fence_sys:
 * earlier loads and stores before later ones. */
SHMEMI_DFN void shmemi_arch_fence_acq_rel(void) {
#if defined(SHMEMI_DEV_CUDA)
    asm volatile("fence.acq_rel.sys;" ::: "memory");
#elif defined(SHMEMI_DEV_GPU)
    __builtin_amdgcn_fence(__ATOMIC_ACQ_REL, "");
#else
    __atomic_thread_fence(__ATOMIC_ACQ_REL);
#endif
}

/* Drain this thread's outstanding stores before a workgroup barrier after
 * which one thread releases for the whole group. AMD: a wave's stores are
 * only counted by its own vmcnt; the workgroup-scope release inside
 * __syncthreads does not wait for them (measured on MI300X: peers saw stale
 * data without it), so every wave waits here (agent-scope release =
 * s_waitcnt vmcnt(0)). CUDA: bar.sync plus the releasing thread's fence.sc.sys
 * is cumulative in the PTX memory model; nothing to do. */
SHMEMI_DFN void shmemi_arch_drain(void) {
#if defined(__HIPCC__)
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "agent");
#endif
}

/* One turn of a spin loop; *n counts the turns. A short hot spin keeps
 * latency low, then back off so the peer (or the host thread running the
 * soft engine in CPU builds) gets the memory system / the core. */
SHMEMI_DFN void shmemi_arch_pause(unsigned *n) {
    unsigned k = ++*n;
#if defined(SHMEMI_DEV_CUDA)
    if (k > 32)
        __nanosleep(k > 1024 ? 256u : 32u);
#elif defined(SHMEMI_DEV_GPU)
    if (k > 1024)
        __builtin_amdgcn_s_sleep(8);
    else if (k > 32)
        __builtin_amdgcn_s_sleep(1);
#else
    if (k > 64)
        sched_yield();
#endif
}

/* Nanoseconds of a clock that all threads of the device share. */
SHMEMI_DFN uint64_t shmemi_arch_now_ns(void) {
#if defined(SHMEMI_DEV_CUDA)
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
#elif defined(__HIP_DEVICE_COMPILE__)
    return (uint64_t)wall_clock64() * 10; /* 100 MHz constant clock on CDNA */
#elif defined(SHMEMI_DEV_GPU)
    return 0; /* host pass of a HIP compile: parsed, never emitted */
#else
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}

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
