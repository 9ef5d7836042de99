/* The few atomic primitives the ring protocol needs, for host C (GCC/Clang __atomic builtins),
 * HIP device code (same builtins; on AMDGPU they default to system scope) and CUDA device code
 * (no __atomic builtins there: volatile accesses, __threadfence_system() and atomicCAS).
 * Every acquire/release here is at system scope: the other side may be a GPU, a copy engine
 * or another host thread. */
#ifndef SDMA_ATOMIC_H
#define SDMA_ATOMIC_H

#include <stdint.h>

#include "sdma/packets.h" /* SDMA_HD */

#if defined(__CUDA_ARCH__)
#define SDMA_CUDA_DEVICE 1
#endif

static inline SDMA_HD uint64_t sdma_load_acquire_u64(const volatile uint64_t *p)
{
#ifdef SDMA_CUDA_DEVICE
    uint64_t v = *p;
    __threadfence_system();
    return v;
#else
    return __atomic_load_n(p, __ATOMIC_ACQUIRE);
#endif
}

static inline SDMA_HD uint64_t sdma_load_relaxed_u64(const volatile uint64_t *p)
{
#ifdef SDMA_CUDA_DEVICE
    return *p;
#else
    return __atomic_load_n(p, __ATOMIC_RELAXED);
#endif
}

static inline SDMA_HD void sdma_store_release_u64(volatile uint64_t *p, uint64_t v)
{
#ifdef SDMA_CUDA_DEVICE
    __threadfence_system();
    *p = v;
#else
    __atomic_store_n(p, v, __ATOMIC_RELEASE);
#endif
}

static inline SDMA_HD void sdma_store_relaxed_u64(volatile uint64_t *p, uint64_t v)
{
#ifdef SDMA_CUDA_DEVICE
    *p = v;
#else
    __atomic_store_n(p, v, __ATOMIC_RELAXED);
#endif
}

/* Compare-and-swap, acquire-release on success. On failure *expected gets the current value. */
static inline SDMA_HD int sdma_cas_u64(volatile uint64_t *p, uint64_t *expected, uint64_t desired)
{
#ifdef SDMA_CUDA_DEVICE
    unsigned long long old;
    __threadfence_system();
    old = atomicCAS((unsigned long long *)p, (unsigned long long)*expected,
                    (unsigned long long)desired);
    __threadfence_system();
    if (old == (unsigned long long)*expected)
        return 1;
    *expected = (uint64_t)old;
    return 0;
#else
    return __atomic_compare_exchange_n(p, expected, desired, 0, __ATOMIC_ACQ_REL,
                                       __ATOMIC_RELAXED);
#endif
}

static inline SDMA_HD uint32_t sdma_load_acquire_u32(const volatile uint32_t *p)
{
#ifdef SDMA_CUDA_DEVICE
    uint32_t v = *p;
    __threadfence_system();
    return v;
#else
    return __atomic_load_n(p, __ATOMIC_ACQUIRE);
#endif
}

static inline SDMA_HD void sdma_store_release_u32(volatile uint32_t *p, uint32_t v)
{
#ifdef SDMA_CUDA_DEVICE
    __threadfence_system();
    *p = v;
#else
    __atomic_store_n(p, v, __ATOMIC_RELEASE);
#endif
}

/* Back off inside a spin: yield the CPU on the host, sleep briefly on a GPU. */
#if !defined(__HIP_DEVICE_COMPILE__) && !defined(__CUDA_ARCH__)
#include <sched.h>
#endif
static inline SDMA_HD void sdma_spin_pause(uint32_t spins)
{
#if defined(__HIP_DEVICE_COMPILE__)
    (void)spins;
    __builtin_amdgcn_s_sleep(2);
#elif defined(__CUDA_ARCH__)
    (void)spins;
#if __CUDA_ARCH__ >= 700
    __nanosleep(100);
#endif
#else
    if (spins < 64) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
    } else {
        sched_yield();
    }
#endif
}

#endif
