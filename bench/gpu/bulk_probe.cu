/* Probe: device-initiated bulk copies into a peer's heap on NVIDIA sm_90 (TMA
 * bulk stores from shared memory) against plain vector stores, 256 MiB, PE 0
 * -> PE 1. Prints GB/s for each grid shape. */
#include <shmem.h>
#include <shmem_device.h>
#include <stdio.h>

#include "gpu_bench.h"

#define CH 32768

__global__ void k_bulk(char *dst, const char *src, size_t bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    extern __shared__ __align__(128) char sm[];
    size_t nch = bytes / CH;
    int buf = 0;
    for (size_t c = blockIdx.x; c < nch; c += gridDim.x) {
        char *s = sm + buf * CH;
        if (threadIdx.x == 0) /* the store issued from this buffer two chunks ago has read it */
            asm volatile("cp.async.bulk.wait_group.read 1;" ::: "memory");
        __syncthreads();
        const uint4 *in = (const uint4 *)(src + c * CH);
        uint4 *o = (uint4 *)s;
        for (int i = threadIdx.x; i < CH / 16; i += blockDim.x)
            o[i] = in[i];
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        __syncthreads();
        if (threadIdx.x == 0) {
            unsigned sa = (unsigned)__cvta_generic_to_shared(s);
            asm volatile(
                "cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst + c * CH),
                "r"(sa), "r"((unsigned)CH)
                : "memory");
            asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        }
        buf ^= 1;
    }
    if (threadIdx.x == 0)
        asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
#endif
}

__global__ void k_store(char *dst, const char *src, size_t bytes) {
    size_t n = bytes / 16, t = (size_t)blockIdx.x * blockDim.x + threadIdx.x,
           T = (size_t)gridDim.x * blockDim.x;
    const uint4 *in = (const uint4 *)src;
    uint4 *o = (uint4 *)dst;
    for (size_t i = t; i < n; i += 4 * T) {
        uint4 a = in[i], b = i + T < n ? in[i + T] : a, c = i + 2 * T < n ? in[i + 2 * T] : a,
              d = i + 3 * T < n ? in[i + 3 * T] : a;
        o[i] = a;
        if (i + T < n)
            o[i + T] = b;
        if (i + 2 * T < n)
            o[i + 2 * T] = c;
        if (i + 3 * T < n)
            o[i + 3 * T] = d;
    }
}

int main(void) {
    shmem_init();
    size_t bytes = (size_t)256 << 20;
    char *dst = (char *)shmem_malloc(bytes), *src = (char *)shmem_malloc(bytes);
    GB_CK(hipMemset(src, 3, bytes));
    char *peer = (char *)shmem_ptr(dst, 1);
    shmem_barrier_all();
    if (shmem_my_pe() == 0) {
        hipEvent_t e0, e1;
        GB_CK(hipEventCreate(&e0));
        GB_CK(hipEventCreate(&e1));
        cudaFuncSetAttribute(k_bulk, cudaFuncAttributeMaxDynamicSharedMemorySize, 2 * CH);
        int grids[] = {132, 264, 396, 528};
        int threads[] = {256, 512};
        for (int g = 0; g < 4; g++)
            for (int t = 0; t < 2; t++)
                for (int kind = 0; kind < 2; kind++) {
                    float best = 1e30f;
                    for (int rep = 0; rep < 7; rep++) {
                        GB_CK(hipEventRecord(e0, 0));
                        if (kind == 0)
                            k_bulk<<<grids[g], threads[t], 2 * CH>>>(peer, src, bytes);
                        else
                            k_store<<<grids[g], threads[t]>>>(peer, src, bytes);
                        GB_CK(hipEventRecord(e1, 0));
                        GB_CK(hipEventSynchronize(e1));
                        float ms;
                        GB_CK(hipEventElapsedTime(&ms, e0, e1));
                        if (ms < best)
                            best = ms;
                    }
                    GB_CK(hipGetLastError());
                    printf("probe,%s,grid %d x %d,%.1f GB/s\n", kind ? "store4" : "bulk", grids[g],
                           threads[t], bytes / (best * 1e-3) / 1e9);
                }
    }
    shmem_barrier_all();
    if (shmem_my_pe() == 1) {
        char h[64];
        GB_CK(hipMemcpy(h, dst + bytes - 64, 64, hipMemcpyDeviceToHost));
        printf("probe,check,%s\n", h[0] == 3 && h[63] == 3 ? "data ok" : "DATA WRONG");
    }
    shmem_finalize();
    return 0;
}
