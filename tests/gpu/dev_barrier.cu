/* Device barrier_all / sync_all, thread and workgroup forms, repeated within a
 * kernel and across launches (the epochs carry on). Each iteration every PE
 * stores the iteration number into its slot on every PE, passes a barrier and
 * checks that every slot holds it; a second barrier keeps the next iteration's
 * stores from racing the checks. */
#include "gpu_test.h"

__global__ void k_thread(int *slots, int *errors, int iters, int base) {
    int me = shmem_my_pe(), n = shmem_n_pes();
    for (int it = base; it < base + iters; ++it) {
        for (int pe = 0; pe < n; ++pe)
            shmem_int_p(&slots[me], it, pe);
        shmem_barrier_all();
        for (int pe = 0; pe < n; ++pe)
            if (((volatile int *)slots)[pe] != it)
                ++*errors;
        shmem_sync_all();
    }
}

__global__ void k_wg(int *slots, int *errors, int iters, int base) {
    int me = shmem_my_pe(), n = shmem_n_pes();
    __shared__ int bad;
    if (threadIdx.x == 0)
        bad = 0;
    __syncthreads();
    for (int it = base; it < base + iters; ++it) {
        /* Every thread stores part: thread t covers PEs t, t + blockDim.x, ... */
        for (int pe = threadIdx.x; pe < n; pe += blockDim.x)
            shmem_int_p(&slots[me], it, pe);
        shmemx_barrier_all_wg();
        for (int pe = threadIdx.x; pe < n; pe += blockDim.x)
            if (((volatile int *)slots)[pe] != it)
                atomicAdd(&bad, 1);
        shmemx_sync_all_wg();
    }
    if (threadIdx.x == 0)
        *errors += bad;
}

int main(void) {
    shmem_init();
    int npes = shmem_n_pes();
    int *slots = (int *)shmem_calloc((size_t)npes, sizeof(int));
    int *errors, herr = 0;
    GT_CK(hipMalloc((void **)&errors, sizeof(int)));
    GT_CK(hipMemset(errors, 0, sizeof(int)));
    shmem_barrier_all();
    for (int launch = 0; launch < 3; ++launch) {
        k_thread<<<1, 1>>>(slots, errors, 500, 1 + launch * 2000);
        GT_SYNC();
        k_wg<<<1, 256>>>(slots, errors, 500, 1001 + launch * 2000);
        GT_SYNC();
    }
    GT_CK(hipMemcpy(&herr, errors, sizeof herr, hipMemcpyDeviceToHost));
    GT_EXPECT(herr == 0, "%d slots not yet written after a barrier", herr);
    GT_CK(hipFree(errors));
    shmem_free(slots);
    return gt_finish("dev_barrier");
}
