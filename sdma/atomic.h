/* The ordering vocabulary: every atomic access, fence, spin pause and clock read of the code
 * that compiles for the host AND for GPU kernels (the ring protocol, the device API, the plan
 * views) is one of the names below. Host-only C files may use the GNU __atomic builtins
 * directly: they are this vocabulary's host dialect.
 *
 * Each name has three bodies, chosen per compilation pass:
 *   host      C and C++ (GCC, Clang, and the host pass of nvcc and hipcc): GNU __atomic builtins
 *   HIP       device pass (__HIP_DEVICE_COMPILE__): __hip_atomic_* with the scope as an argument
 *   CUDA      device pass (__CUDA_ARCH__ >= 700): PTX memory-model instructions, as NVIDIA's PTX
 *             atomics ABI maps the C++ orders onto them (what cuda::atomic_ref emits)
 *
 * Scope. A name without a scope suffix is SYSTEM scope: the other side may be another GPU (a
 * peer's heap mapped over NVLink / XGMI), the host, or a copy engine. A name ending in _dev is
 * DEVICE scope: only threads of this one GPU share the word (cheaper: ordered at the GPU's L2,
 * not across the bus). On the host the two are the same (a C11 order covers every thread of
 * the process; GPU memory is reached only through mappings).
 *
 * System-scope release on CUDA is st.release.sys; acquire is ld.acquire.sys. That is the
 * mapping of memory_order_release / memory_order_acquire at thread_scope_system in NVIDIA's
 * PTX atomics ABI. The older idiom, __threadfence_system() and then a volatile store (or a
 * volatile load and then the fence), is also a release (acquire) in the PTX memory model, but
 * its fence is fence.sc.sys, the strongest and slowest fence, which a release does not need.
 * One spelling, so that every ordering point of the tree means one thing.
 * On HIP the same point is __hip_atomic_store(p, v, __ATOMIC_RELEASE,
 * __HIP_MEMORY_SCOPE_SYSTEM): AMDGPU's GNU builtins also default to system scope, but only
 * the __hip_atomic_* forms say so where they are written.
 *
 * Every function takes a pointer to a naturally aligned word. Callers comment what their
 * release publishes and who acquires it. */
#ifndef SDMA_ATOMIC_H
#define SDMA_ATOMIC_H

#include <stdint.h>

#include "packets.h" /* SDMA_HD */

#if defined(__CUDA_ARCH__)
#if __CUDA_ARCH__ < 700
#error "the ordering vocabulary needs sm_70 or newer (ld.acquire / st.release at system scope)"
#endif
#define SDMA_CUDA_DEVICE 1 /* CUDA device pass */
#elif defined(__HIP_DEVICE_COMPILE__)
#define SDMA_HIP_DEVICE 1 /* HIP device pass */
#endif
#if defined(__HIPCC__)
#include <hip/hip_runtime.h> /* wall_clock64, __threadfence_system */
#endif
#if !defined(SDMA_CUDA_DEVICE) && !defined(SDMA_HIP_DEVICE)
#include <sched.h>
#include <time.h>
#endif

/* ------------------------------------------------------------------------------ loads */
#if defined(SDMA_CUDA_DEVICE)
/* PTX on generic addresses: a peer's NVLink mapping, local GPU memory and mapped host memory
 * alike. "memory" keeps the compiler from moving other accesses across the ordered ones. */
#define SDMA_PTX_LOAD(NAME, T, SEM_SCOPE, BITS, C)                                                 \
    static inline SDMA_HD T NAME(const volatile T *p) {                                            \
        T v;                                                                                       \
        asm volatile("ld." SEM_SCOPE ".b" #BITS " %0, [%1];" : "=" C(v) : "l"(p) : "memory");      \
        return v;                                                                                  \
    }
#define SDMA_PTX_STORE(NAME, T, SEM_SCOPE, BITS, C)                                                \
    static inline SDMA_HD void NAME(volatile T *p, T v) {                                          \
        asm volatile("st." SEM_SCOPE ".b" #BITS " [%0], %1;" ::"l"(p), C(v) : "memory");           \
    }
SDMA_PTX_LOAD(sdma_load_acquire_u16, uint16_t, "acquire.sys", 16, "h")
SDMA_PTX_LOAD(sdma_load_acquire_u32, uint32_t, "acquire.sys", 32, "r")
SDMA_PTX_LOAD(sdma_load_acquire_u64, uint64_t, "acquire.sys", 64, "l")
SDMA_PTX_LOAD(sdma_load_acquire_dev_u64, uint64_t, "acquire.gpu", 64, "l")
SDMA_PTX_LOAD(sdma_load_relaxed_u32, uint32_t, "relaxed.sys", 32, "r")
SDMA_PTX_LOAD(sdma_load_relaxed_u64, uint64_t, "relaxed.sys", 64, "l")
SDMA_PTX_STORE(sdma_store_release_u32, uint32_t, "release.sys", 32, "r")
SDMA_PTX_STORE(sdma_store_release_u64, uint64_t, "release.sys", 64, "l")
SDMA_PTX_STORE(sdma_store_release_dev_u64, uint64_t, "release.gpu", 64, "l")
SDMA_PTX_STORE(sdma_store_relaxed_u32, uint32_t, "relaxed.sys", 32, "r")
SDMA_PTX_STORE(sdma_store_relaxed_u64, uint64_t, "relaxed.sys", 64, "l")
#undef SDMA_PTX_LOAD
#undef SDMA_PTX_STORE
#else
/* HIP: the scope is an argument. Host: a C11 order covers every thread of the process. The
 * casts drop volatile only: the access itself is atomic, so nothing may be elided. */
#if defined(SDMA_HIP_DEVICE)
#define SDMA_LOAD(p, T, MO, SCOPE) __hip_atomic_load((T *)(p), MO, SCOPE)
#define SDMA_STORE(p, v, T, MO, SCOPE) __hip_atomic_store((T *)(p), v, MO, SCOPE)
#else
#define SDMA_LOAD(p, T, MO, SCOPE) __atomic_load_n((T *)(p), MO)
#define SDMA_STORE(p, v, T, MO, SCOPE) __atomic_store_n((T *)(p), v, MO)
#endif
#define SDMA_GNU_LOAD(NAME, T, MO, SCOPE)                                                          \
    static inline SDMA_HD T NAME(const volatile T *p) { return SDMA_LOAD(p, T, MO, SCOPE); }
#define SDMA_GNU_STORE(NAME, T, MO, SCOPE)                                                         \
    static inline SDMA_HD void NAME(volatile T *p, T v) { SDMA_STORE(p, v, T, MO, SCOPE); }
SDMA_GNU_LOAD(sdma_load_acquire_u16, uint16_t, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_SYSTEM)
SDMA_GNU_LOAD(sdma_load_acquire_u32, uint32_t, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_SYSTEM)
SDMA_GNU_LOAD(sdma_load_acquire_u64, uint64_t, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_SYSTEM)
SDMA_GNU_LOAD(sdma_load_acquire_dev_u64, uint64_t, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT)
SDMA_GNU_LOAD(sdma_load_relaxed_u32, uint32_t, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM)
SDMA_GNU_LOAD(sdma_load_relaxed_u64, uint64_t, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM)
SDMA_GNU_STORE(sdma_store_release_u32, uint32_t, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_SYSTEM)
SDMA_GNU_STORE(sdma_store_release_u64, uint64_t, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_SYSTEM)
SDMA_GNU_STORE(sdma_store_release_dev_u64, uint64_t, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT)
SDMA_GNU_STORE(sdma_store_relaxed_u32, uint32_t, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM)
SDMA_GNU_STORE(sdma_store_relaxed_u64, uint64_t, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM)
#undef SDMA_GNU_LOAD
#undef SDMA_GNU_STORE
#endif

/* ------------------------------------------------------------- read-modify-write */
/* Relaxed, system scope: atomic with every other atomic on the word from any GPU, the host or
 * an engine, ordering nothing else (the caller's fences and releases do that). Each returns
 * the old value. The table below gives each operation's three spellings: CUDA's atomic*_system
 * functions (on unsigned int / unsigned long long), HIP's __hip_atomic_* at system scope, the
 * GNU builtins on the host. */
#if defined(SDMA_CUDA_DEVICE)
#define SDMA_RMW(NAME, CUDA_FN, HIP_FN, GNU_FN, T, CT)                                             \
    static inline SDMA_HD T NAME(volatile T *p, T v) { return (T)CUDA_FN((CT *)p, (CT)v); }
#elif defined(SDMA_HIP_DEVICE)
#define SDMA_RMW(NAME, CUDA_FN, HIP_FN, GNU_FN, T, CT)                                             \
    static inline SDMA_HD T NAME(volatile T *p, T v) {                                             \
        return HIP_FN((T *)p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM);                     \
    }
#else
#define SDMA_RMW(NAME, CUDA_FN, HIP_FN, GNU_FN, T, CT)                                             \
    static inline SDMA_HD T NAME(volatile T *p, T v) { return GNU_FN((T *)p, v, __ATOMIC_RELAXED); }
#endif
#define SDMA_RMW_WIDTH(W, T, CT)                                                                   \
    SDMA_RMW(sdma_fetch_add_relaxed_u##W, atomicAdd_system, __hip_atomic_fetch_add,                \
             __atomic_fetch_add, T, CT)                                                            \
    SDMA_RMW(sdma_fetch_and_relaxed_u##W, atomicAnd_system, __hip_atomic_fetch_and,                \
             __atomic_fetch_and, T, CT)                                                            \
    SDMA_RMW(sdma_fetch_or_relaxed_u##W, atomicOr_system, __hip_atomic_fetch_or,                   \
             __atomic_fetch_or, T, CT)                                                             \
    SDMA_RMW(sdma_fetch_xor_relaxed_u##W, atomicXor_system, __hip_atomic_fetch_xor,                \
             __atomic_fetch_xor, T, CT)                                                            \
    SDMA_RMW(sdma_exchange_relaxed_u##W, atomicExch_system, __hip_atomic_exchange,                 \
             __atomic_exchange_n, T, CT)
SDMA_RMW_WIDTH(32, uint32_t, unsigned int)
SDMA_RMW_WIDTH(64, uint64_t, unsigned long long)
#undef SDMA_RMW_WIDTH
#undef SDMA_RMW

/* Relaxed compare-and-swap, system scope: stores v when the word equals cond; returns the old
 * value (the swap happened when it equals cond). */
#if defined(SDMA_CUDA_DEVICE)
#define SDMA_CAS_RELAXED(W, T, CT)                                                                 \
    static inline SDMA_HD T sdma_compare_swap_relaxed_u##W(volatile T *p, T cond, T v) {           \
        return (T)atomicCAS_system((CT *)p, (CT)cond, (CT)v);                                      \
    }
#elif defined(SDMA_HIP_DEVICE)
#define SDMA_CAS_RELAXED(W, T, CT)                                                                 \
    static inline SDMA_HD T sdma_compare_swap_relaxed_u##W(volatile T *p, T cond, T v) {           \
        __hip_atomic_compare_exchange_strong((T *)p, &cond, v, __ATOMIC_RELAXED, __ATOMIC_RELAXED, \
                                             __HIP_MEMORY_SCOPE_SYSTEM);                           \
        return cond;                                                                               \
    }
#else
#define SDMA_CAS_RELAXED(W, T, CT)                                                                 \
    static inline SDMA_HD T sdma_compare_swap_relaxed_u##W(volatile T *p, T cond, T v) {           \
        __atomic_compare_exchange_n((T *)p, &cond, v, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);      \
        return cond;                                                                               \
    }
#endif
SDMA_CAS_RELAXED(32, uint32_t, unsigned int)
SDMA_CAS_RELAXED(64, uint64_t, unsigned long long)
#undef SDMA_CAS_RELAXED

/* Compare-and-swap, acquire-release at system scope: on success the caller's earlier accesses
 * are released with the new value and later ones come after it; on failure *expected gets
 * the current value (acquired). Returns 1 when the swap happened. */
#if defined(SDMA_CUDA_DEVICE)
#define SDMA_CAS(W, T, C)                                                                          \
    static inline SDMA_HD int sdma_cas_u##W(volatile T *p, T *expected, T desired) {               \
        T old;                                                                                     \
        asm volatile("atom.acq_rel.sys.cas.b" #W " %0, [%1], %2, %3;"                              \
                     : "=" C(old)                                                                  \
                     : "l"(p), C(*expected), C(desired)                                            \
                     : "memory");                                                                  \
        if (old == *expected)                                                                      \
            return 1;                                                                              \
        *expected = old;                                                                           \
        return 0;                                                                                  \
    }
#elif defined(SDMA_HIP_DEVICE)
#define SDMA_CAS(W, T, C)                                                                          \
    static inline SDMA_HD int sdma_cas_u##W(volatile T *p, T *expected, T desired) {               \
        return __hip_atomic_compare_exchange_strong((T *)p, expected, desired, __ATOMIC_ACQ_REL,   \
                                                    __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_SYSTEM);  \
    }
#else
#define SDMA_CAS(W, T, C)                                                                          \
    static inline SDMA_HD int sdma_cas_u##W(volatile T *p, T *expected, T desired) {               \
        return __atomic_compare_exchange_n((T *)p, expected, desired, 0, __ATOMIC_ACQ_REL,         \
                                           __ATOMIC_ACQUIRE);                                      \
    }
#endif
SDMA_CAS(32, uint32_t, "r")
SDMA_CAS(64, uint64_t, "l")
#undef SDMA_CAS

/* Fetch-add, acquire-release at system scope: returns the old value. */
static inline SDMA_HD uint64_t sdma_fetch_add_acq_rel_u64(volatile uint64_t *p, uint64_t v) {
#if defined(SDMA_CUDA_DEVICE)
    uint64_t old;
    asm volatile("atom.acq_rel.sys.add.u64 %0, [%1], %2;" : "=l"(old) : "l"(p), "l"(v) : "memory");
    return old;
#elif defined(SDMA_HIP_DEVICE)
    return __hip_atomic_fetch_add((uint64_t *)p, v, __ATOMIC_ACQ_REL, __HIP_MEMORY_SCOPE_SYSTEM);
#else
    return __atomic_fetch_add((uint64_t *)p, v, __ATOMIC_ACQ_REL);
#endif
}

/* *p = max(*p, v), relaxed, DEVICE scope: for words only this GPU's threads update. */
static inline SDMA_HD void sdma_fetch_max_relaxed_dev_u64(volatile uint64_t *p, uint64_t v) {
#if defined(SDMA_CUDA_DEVICE)
    atomicMax((unsigned long long *)p, (unsigned long long)v); /* device scope */
#elif defined(SDMA_HIP_DEVICE)
    __hip_atomic_fetch_max((uint64_t *)p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
#else
    uint64_t cur = __atomic_load_n((uint64_t *)p, __ATOMIC_RELAXED);
    while (cur < v && !__atomic_compare_exchange_n((uint64_t *)p, &cur, v, 1, __ATOMIC_RELAXED,
                                                   __ATOMIC_RELAXED))
        ;
#endif
}

/* ----------------------------------------------------------------------------- fences */
/* Sequentially consistent, system scope: every earlier access of this thread (and, by
 * cumulativity, everything it acquired or met at a workgroup barrier) before every later one,
 * for every observer. CUDA and HIP: __threadfence_system (fence.sc.sys on CUDA). */
static inline SDMA_HD void sdma_fence_seq_cst(void) {
#if defined(SDMA_CUDA_DEVICE) || defined(SDMA_HIP_DEVICE)
    __threadfence_system();
#else
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

/* Acquire and release in one fence, system scope: earlier loads and stores before later ones,
 * lighter than sdma_fence_seq_cst (no single order of all fences). */
static inline SDMA_HD void sdma_fence_acq_rel(void) {
#if defined(SDMA_CUDA_DEVICE)
    asm volatile("fence.acq_rel.sys;" ::: "memory");
#elif defined(SDMA_HIP_DEVICE)
    __builtin_amdgcn_fence(__ATOMIC_ACQ_REL, ""); /* "": system scope */
#else
    __atomic_thread_fence(__ATOMIC_ACQ_REL);
#endif
}

/* Release, DEVICE scope: this thread's earlier stores are complete at the GPU's L2 before its
 * later ones (on AMD: s_waitcnt vmcnt(0), what a wave needs before a workgroup barrier after
 * which another wave releases for it at system scope). */
static inline SDMA_HD void sdma_fence_release_dev(void) {
#if defined(SDMA_CUDA_DEVICE)
    asm volatile("fence.acq_rel.gpu;" ::: "memory");
#elif defined(SDMA_HIP_DEVICE)
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "agent");
#else
    __atomic_thread_fence(__ATOMIC_RELEASE);
#endif
}

/* ------------------------------------------------------------------- pause and clock */
/* One spin-wait hint: x86 `pause`, Arm `yield`; nothing elsewhere (and nothing on a GPU: see
 * sdma_spin_pause). */
static inline SDMA_HD void sdma_cpu_relax(void) {
#if defined(SDMA_CUDA_DEVICE) || defined(SDMA_HIP_DEVICE)
#elif defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
    __asm__ __volatile__("yield" ::: "memory");
#else
    __asm__ __volatile__("" ::: "memory");
#endif
}

/* Back off inside a spin; `turns` counts the turns so far (the caller increments it). A short
 * hot spin keeps latency low; then the waiter gives way, so that the thread or engine it waits
 * for (a peer's kernel, the soft engine's host thread) gets the memory system or the core:
 *   GPU:  hot for 32 turns, then a short sleep, a longer one after 1024 turns;
 *   host: the CPU's spin hint for 64 turns, then sched_yield(). */
static inline SDMA_HD void sdma_spin_pause(uint32_t turns) {
#if defined(SDMA_CUDA_DEVICE)
    if (turns > 32)
        __nanosleep(turns > 1024 ? 256u : 32u);
#elif defined(SDMA_HIP_DEVICE)
    if (turns > 1024)
        __builtin_amdgcn_s_sleep(8);
    else if (turns > 32)
        __builtin_amdgcn_s_sleep(1);
#else
    if (turns < 64)
        sdma_cpu_relax();
    else
        sched_yield();
#endif
}

/* Nanoseconds of a monotonic clock that every thread of the device (or of the host) shares. */
static inline SDMA_HD uint64_t sdma_now_ns(void) {
#if defined(SDMA_CUDA_DEVICE)
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
#elif defined(SDMA_HIP_DEVICE)
    return (uint64_t)wall_clock64() * 10; /* 100 MHz constant clock on CDNA */
#else
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}

#endif
