/* device_ring: a ring of puts between GPU kernels, checked (GPU builds).
 *
 * One workgroup per PE. Each round, the workgroup writes a block of NELEMS longs, puts it
 * into the next PE's receive buffer (a workgroup put: every thread copies its share), and
 * adds 1 to the next PE's signal once every thread's part is complete; then it waits for
 * the signal from the previous PE and checks every element of the block that arrived. Each
 * round has its own blocks, so no round overwrites data a PE may still be checking. The
 * kernel counts wrong elements; a PE that saw any exits with status 1 (oshrun returns it).
 *
 * Build against an installation (the README's command), then run:
 *     SHMEM_CC=nvcc oshcc -arch=sm_90 -o device_ring device_ring.cu
 *     SHMEM_CC=hipcc oshcc --offload-arch=gfx90a -o device_ring device_ring.cu
 *     oshrun -np 2 ./device_ring
 */
#include <shmem.h>
#include <shmem_device.h>

#include <stdio.h>

#if !defined(__HIPCC__) /* the runtime calls below, under their HIP names */
#define hipDeviceSynchronize cudaDeviceSynchronize
#define hipGetLastError cudaGetLastError
#define hipGetErrorString cudaGetErrorString
#define hipError_t cudaError_t
#define hipSuccess cudaSuccess
#endif

#define NELEMS 8192 /* longs per block: 64 KiB */
#define ROUNDS 8
#define THREADS 256

#define CHECK(call)                                                                                \
    do {                                                                                           \
        hipError_t rc_ = (call);                                                                   \
        if (rc_ != hipSuccess) {                                                                   \
            fprintf(stderr, "[PE %d] device_ring: %s: %s\n", shmem_my_pe(), #call,                 \
                    hipGetErrorString(rc_));                                                       \
            shmem_global_exit(2);                                                                  \
        }                                                                                          \
    } while (0)

/* Element i of the block PE pe sends in round r. */
__device__ static long value(int pe, int r, int i) { return (long)pe * 1000003L + r * 7919L + i; }

__global__ void ring(long *recv, long *send, uint64_t *sig, unsigned long long *bad) {
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
    for (int r = 0; r < ROUNDS; ++r) {
        long *out = send + (size_t)r * NELEMS; /* this PE's block of round r */
        long *in = recv + (size_t)r * NELEMS;  /* round r's block, on every PE */
        for (int i = threadIdx.x; i < NELEMS; i += blockDim.x)
            out[i] = value(me, r, i);
        __syncthreads(); /* the whole block is written before any thread copies it */
        shmemx_putmem_nbi_wg(in, out, NELEMS * sizeof(long), next);
        shmem_quiet(); /* each thread: its part of the put complete, released at system scope */
        __syncthreads();
        if (threadIdx.x == 0) /* one signal, after every thread's quiet */
            shmem_putmem_signal(in, out, 0, sig, 1, SHMEM_SIGNAL_ADD, next);

        if (threadIdx.x == 0)
            shmem_signal_wait_until(sig, SHMEM_CMP_GE, (uint64_t)r + 1);
        __syncthreads();
        (void)shmem_signal_fetch(sig); /* every thread acquires the data put before the signal */
        unsigned long long wrong = 0;
        for (int i = threadIdx.x; i < NELEMS; i += blockDim.x)
            wrong += in[i] != value(prev, r, i);
        if (wrong)
            atomicAdd(bad, wrong);
    }
}

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    size_t words = (size_t)ROUNDS * NELEMS;
    long *recv = (long *)shmem_calloc(words, sizeof(long));
    long *send = (long *)shmem_calloc(words, sizeof(long));
    uint64_t *sig = (uint64_t *)shmem_calloc(1, sizeof(uint64_t));
    /* This PE's count of wrong elements, on the device heap like the rest. */
    unsigned long long *bad = (unsigned long long *)shmem_calloc(1, sizeof(unsigned long long));
    if (!recv || !send || !sig || !bad) {
        fprintf(stderr, "[PE %d] device_ring: shmem_calloc failed\n", me);
        shmem_global_exit(2);
    }
    shmem_barrier_all(); /* every PE's buffers exist, zeroed, before any put reaches them */

    ring<<<1, THREADS>>>(recv, send, sig, bad);
    CHECK(hipGetLastError());
    CHECK(hipDeviceSynchronize());
    unsigned long long nbad = shmem_ulonglong_g(bad, me);
    shmem_barrier_all();

    printf("[PE %d] device_ring: %d rounds of %d longs from PE %d: %s (%llu wrong)\n", me, ROUNDS,
           NELEMS, (me + npes - 1) % npes, nbad ? "FAILED" : "ok", nbad);
    shmem_free(bad);
    shmem_free(sig);
    shmem_free(send);
    shmem_free(recv);
    shmem_finalize();
    return nbad ? 1 : 0;
}
