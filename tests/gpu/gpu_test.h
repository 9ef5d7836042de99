/* Helpers of the GPU test programs: the few runtime calls they make (HIP
 * names, mapped onto CUDA for NVIDIA builds), a checked-call macro and a
 * failure counter. Each program exits non-zero when any check failed. */
#ifndef SHMEM_TESTS_GPU_TEST_H
#define SHMEM_TESTS_GPU_TEST_H

#include <stdio.h>
#include <stdlib.h>

#include <shmem.h>
#include <shmem_device.h>

#if !defined(__HIPCC__)
#define hipError_t cudaError_t
#define hipSuccess cudaSuccess
#define hipGetErrorString cudaGetErrorString
#define hipMalloc cudaMalloc
#define hipFree cudaFree
#define hipMemcpy cudaMemcpy
#define hipMemset cudaMemset
#define hipMemcpyHostToDevice cudaMemcpyHostToDevice
#define hipMemcpyDeviceToHost cudaMemcpyDeviceToHost
#define hipMemcpyDeviceToDevice cudaMemcpyDeviceToDevice
#define hipDeviceSynchronize cudaDeviceSynchronize
#define hipGetLastError cudaGetLastError
#define hipHostMalloc(p, n, f) cudaHostAlloc(p, n, f)
#define hipHostMallocMapped cudaHostAllocMapped
#define hipHostFree cudaFreeHost
#define hipHostGetDevicePointer cudaHostGetDevicePointer
#define hipEvent_t cudaEvent_t
#define hipEventCreate cudaEventCreate
#define hipEventRecord cudaEventRecord
#define hipEventSynchronize cudaEventSynchronize
#define hipEventElapsedTime cudaEventElapsedTime
#define hipEventDestroy cudaEventDestroy
#define hipStream_t cudaStream_t
#define hipStreamCreate cudaStreamCreate
#define hipStreamDestroy cudaStreamDestroy
#define hipStreamSynchronize cudaStreamSynchronize
#define hipMemcpyAsync cudaMemcpyAsync
#define hipMemcpyDefault cudaMemcpyDefault
#endif

static int gt_failures;

#define GT_CK(call)                                                                                \
    do {                                                                                           \
        hipError_t gt_rc_ = (call);                                                                \
        if (gt_rc_ != hipSuccess) {                                                                \
            fprintf(stderr, "[PE %d] %s:%d: %s: %s\n", shmem_my_pe(), __FILE__, __LINE__, #call,   \
                    hipGetErrorString(gt_rc_));                                                    \
            shmem_global_exit(2);                                                                  \
        }                                                                                          \
    } while (0)

/* The tests do not lean on the library's barriers to complete their own GPU
 * work (shmem_barrier_all does by default; SHMEM_BARRIER_GPU_SYNC=0 turns it
 * off): whatever a peer reads or overwrites after the next barrier is complete
 * when these return. */

/* Host to GPU: a copy from pageable memory may return before its DMA lands,
 * and a peer's put after the next barrier must not be overwritten by it. */
#define GT_H2D(dst, src, n)                                                                        \
    do {                                                                                           \
        GT_CK(hipMemcpy((dst), (src), (n), hipMemcpyHostToDevice));                                \
        GT_CK(hipDeviceSynchronize());                                                             \
    } while (0)

/* Any copy (device to device, to a peer's heap through shmem_ptr): such a
 * copy returns before it is done. */
#define GT_COPY(dst, src, n)                                                                       \
    do {                                                                                           \
        GT_CK(hipMemcpy((dst), (src), (n), hipMemcpyDefault));                                     \
        GT_CK(hipDeviceSynchronize());                                                             \
    } while (0)

/* A memset of device memory returns before it is done: a peer's atomic or put
 * after the next barrier would land before it and be wiped. */
#define GT_MEMSET(dst, byte, n)                                                                    \
    do {                                                                                           \
        GT_CK(hipMemset((dst), (byte), (n)));                                                      \
        GT_CK(hipDeviceSynchronize());                                                             \
    } while (0)

/* Launch check: the launch itself, then the kernel's completion. */
#define GT_SYNC()                                                                                  \
    do {                                                                                           \
        GT_CK(hipGetLastError());                                                                  \
        GT_CK(hipDeviceSynchronize());                                                             \
    } while (0)

#define GT_EXPECT(cond, ...)                                                                       \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            if (gt_failures++ < 20) {                                                              \
                fprintf(stderr, "[PE %d] %s:%d: check failed: %s: ", shmem_my_pe(), __FILE__,      \
                        __LINE__, #cond);                                                          \
                fprintf(stderr, __VA_ARGS__);                                                      \
                fputc('\n', stderr);                                                               \
            }                                                                                      \
        }                                                                                          \
    } while (0)

/* Copy n bytes of device memory to a new host buffer (caller frees). */
static inline void *gt_to_host(const void *dev, size_t n) {
    void *h = malloc(n ? n : 1);
    if (!h) {
        fprintf(stderr, "out of host memory\n");
        shmem_global_exit(2);
    }
    GT_CK(hipMemcpy(h, dev, n, hipMemcpyDeviceToHost));
    return h;
}

static inline int gt_finish(const char *name) {
    int me = shmem_my_pe();
    shmem_barrier_all();
    if (gt_failures)
        fprintf(stderr, "[PE %d] %s: %d check(s) failed\n", me, name, gt_failures);
    else if (me == 0)
        printf("%s: ok\n", name);
    shmem_finalize();
    return gt_failures ? 1 : 0;
}

#endif
