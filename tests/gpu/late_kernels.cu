/* Device code that comes after shmem_init: gpu_late loads this module with
 * dlopen once the library runs, so its shmem_device.h registers late, while
 * the module's runtime registration has not run yet (the library fills the
 * unit's state at its next routine: shmem_malloc here). Its kernels must
 * still see a whole device state, the device-driven queues included (a program without device code has none of them open, so that no
 * engine thread looks at them): PE 0's workgroups put slices of 2 MiB through
 * the copy engine, quiet, then signal PE 1, whose workgroups check every byte. */
#include "gpu_test.h"

#define BLOCKS 8
#define SLICE ((size_t)2 << 20)

__device__ static unsigned char val(size_t i) { return (unsigned char)(i * 5 + 3); }

__global__ void k_fill(unsigned char *src, size_t n) {
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        src[i] = val(i);
}

__global__ void k_queues(int *has) { *has = SHMEMI_DST->queues != 0; }

__global__ void k_put(unsigned char *dst, const unsigned char *src, uint64_t *sig) {
    size_t off = (size_t)blockIdx.x * SLICE;
    shmemx_putmem_nbi_wg(dst + off, src + off, SLICE, 1);
    shmem_quiet();
    __syncthreads();
    if (threadIdx.x == 0)
        shmem_uint64_atomic_add(sig, 1, 1);
}

__global__ void k_check(const unsigned char *dst, uint64_t *sig, unsigned long long *bad) {
    if (threadIdx.x == 0)
        shmem_uint64_wait_until(sig, SHMEM_CMP_GE, BLOCKS);
    __syncthreads();
    size_t off = (size_t)blockIdx.x * SLICE;
    for (size_t i = threadIdx.x; i < SLICE; i += blockDim.x)
        if (dst[off + i] != val(off + i))
            atomicAdd(bad, 1ull);
}

/* Returns the failures (2 PEs). */
extern "C" int late_run(void) {
    int me = shmem_my_pe(), *has;
    const size_t N = BLOCKS * SLICE;
    unsigned char *src = (unsigned char *)shmem_malloc(N), *dst = (unsigned char *)shmem_malloc(N);
    uint64_t *sig = (uint64_t *)shmem_calloc(1, sizeof(uint64_t));
    unsigned long long *bad, nbad = 0;
    GT_CK(hipMalloc((void **)&bad, sizeof(*bad)));
    GT_CK(hipMemset(bad, 0, sizeof(*bad)));
    GT_CK(hipMalloc((void **)&has, sizeof(*has)));
    k_queues<<<1, 1>>>(has);
    int queues = 0;
    GT_CK(hipMemcpy(&queues, has, sizeof(queues), hipMemcpyDeviceToHost));
    if (!queues) {
        fprintf(stderr, "[PE %d] late: device code loaded after shmem_init sees no queues\n", me);
        ++gt_failures;
    }
    k_fill<<<64, 256>>>(src, N);
    GT_SYNC();
    shmem_barrier_all();
    if (me == 0)
        k_put<<<BLOCKS, 256>>>(dst, src, sig);
    else
        k_check<<<BLOCKS, 256>>>(dst, sig, bad);
    GT_SYNC();
    shmem_barrier_all();
    GT_CK(hipMemcpy(&nbad, bad, sizeof(nbad), hipMemcpyDeviceToHost));
    if (nbad) {
        fprintf(stderr, "[PE %d] late: %llu bytes wrong after quiet and signal\n", me, nbad);
        ++gt_failures;
    }
    GT_CK(hipFree(bad));
    GT_CK(hipFree(has));
    shmem_free(sig);
    shmem_free(dst);
    shmem_free(src);
    return gt_failures;
}
