// The cuda engine's kernels (sdma/engine_cuda_ops.h).
#include <cuda_runtime.h>

#include "sdma/engine_cuda_ops.h"

__global__ void sdma_k_atomic(uint64_t addr, int op, int is64, uint64_t src, uint64_t cmp) {
    // The copies queued before this kernel on the stream are complete; make them visible
    // at system scope before the word changes (whoever acquires the word sees them).
    __threadfence_system();
    if (is64) {
        unsigned long long *p = (unsigned long long *)addr;
        if (op == SDMA_CUDA_ADD)
            atomicAdd_system(p, (unsigned long long)src);
        else if (op == SDMA_CUDA_SWAP)
            atomicExch_system(p, (unsigned long long)src);
        else
            atomicCAS_system(p, (unsigned long long)cmp, (unsigned long long)src);
    } else {
        unsigned *p = (unsigned *)addr;
        if (op == SDMA_CUDA_ADD)
            atomicAdd_system(p, (unsigned)src);
        else if (op == SDMA_CUDA_SWAP)
            atomicExch_system(p, (unsigned)src);
        else
            atomicCAS_system(p, (unsigned)cmp, (unsigned)src);
    }
    __threadfence_system();
}

__global__ void sdma_k_fill(unsigned char *dst, uint64_t bytes, uint32_t pattern, unsigned unit) {
    uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    uint64_t step = (uint64_t)gridDim.x * blockDim.x;
    for (; i < bytes; i += step)
        dst[i] = (unsigned char)(pattern >> (8 * (unsigned)(i % unit)));
    __threadfence_system();
}

__global__ void sdma_k_timestamp(uint64_t *addr) {
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    *(volatile uint64_t *)addr = t;
    __threadfence_system();
}

extern "C" int sdma_cuda_atomic_launch(void *stream, uint64_t addr, int op, int is64, uint64_t src,
                                       uint64_t cmp) {
    sdma_k_atomic<<<1, 1, 0, (cudaStream_t)stream>>>(addr, op, is64, src, cmp);
    return (int)cudaGetLastError();
}

extern "C" int sdma_cuda_fill_launch(void *stream, uint64_t dst, uint64_t bytes, uint32_t pattern,
                                     unsigned unit) {
    uint64_t blocks = (bytes + 255) / 256;
    if (blocks > 1024)
        blocks = 1024;
    sdma_k_fill<<<(unsigned)blocks, 256, 0, (cudaStream_t)stream>>>((unsigned char *)dst, bytes,
                                                                    pattern, unit ? unit : 1);
    return (int)cudaGetLastError();
}

extern "C" int sdma_cuda_timestamp_launch(void *stream, uint64_t addr) {
    sdma_k_timestamp<<<1, 1, 0, (cudaStream_t)stream>>>((uint64_t *)addr);
    return (int)cudaGetLastError();
}
