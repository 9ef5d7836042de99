/* Copy-engine _nbi puts from kernels, PE 0 -> PE 1.
 * Workgroup and wave _nbi puts of at least SHMEM_DEVICE_NBI_THRESHOLD bytes go to the
 * device-driven queue (one COPY packet from the group's first thread); quiet waits for
 * the queue's completion index. Each round, PE 0's workgroups (and then waves) put their
 * slices (sizes on both sides of the threshold, unaligned edges), quiet, then add 1 to a
 * signal on PE 1; PE 1's workgroups wait for the full count and check every byte on the
 * GPU. If quiet returned before the engine finished, PE 1 would see stale bytes. The
 * host-side non-blocking put of the device heap also goes through the engine: checked
 * last. */
#include "gpu_test.h"

#define BLOCKS 48
#define ROUNDS 4

/* Slice b of round r: starts at a 1 KiB boundary + r, some below the threshold. */
__device__ static void slice(int b, int r, size_t *off, size_t *len) {
    const size_t stride = 5u << 18; /* 1.25 MiB */
    *off = (size_t)b * stride + (size_t)r;
    *len = (b % 4 == 3) ? 1000 + (size_t)b : (1u << 20) + (size_t)b * 37;
}

__device__ static unsigned char val(size_t i, int r) { return (unsigned char)(i * 7 + r * 13 + 1); }

__global__ void k_fill(unsigned char *src, size_t n, int r) {
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        src[i] = val(i, r);
}

__global__ void k_put(unsigned char *dst, const unsigned char *src, uint64_t *sig, int r,
                      int wave) {
    size_t off, len;
    slice(blockIdx.x, r, &off, &len);
    if (!wave) {
        shmemx_putmem_nbi_wg(dst + off, src + off, len, 1);
    } else {
        /* Each wave puts its share of the slice. */
        unsigned ws = warpSize, w = threadIdx.x / ws, nw = blockDim.x / ws;
        size_t part = (len + nw - 1) / nw, lo = w * part, hi = lo + part < len ? lo + part : len;
        if (lo < hi)
            shmemx_putmem_nbi_wave(dst + off + lo, src + off + lo, hi - lo, 1);
    }
    shmem_quiet();
    __syncthreads();
    if (threadIdx.x == 0)
        shmem_uint64_atomic_add(sig, 1, 1);
}

__global__ void k_check(const unsigned char *dst, uint64_t *sig, uint64_t want, int r,
                        unsigned long long *bad) {
    if (threadIdx.x == 0)
        shmem_uint64_wait_until(sig, SHMEM_CMP_GE, want);
    __syncthreads();
    size_t off, len;
    slice(blockIdx.x, r, &off, &len);
    for (size_t i = threadIdx.x; i < len; i += blockDim.x)
        if (dst[off + i] != val(off + i, r))
            atomicAdd(bad, 1ull);
}

int main(void) {
    shmem_init();
    int me = shmem_my_pe();
    if (shmem_n_pes() != 2) {
        if (me == 0)
            fprintf(stderr, "dev_ce: run with 2 PEs\n");
        shmem_finalize();
        return 2;
    }
    const size_t N = (size_t)BLOCKS * (5u << 18) + 4096;
    unsigned char *src = (unsigned char *)shmem_malloc(N), *dst = (unsigned char *)shmem_malloc(N);
    uint64_t *sig = (uint64_t *)shmem_calloc(1, sizeof(uint64_t));
    unsigned long long *bad;
    GT_CK(hipMalloc((void **)&bad, sizeof(*bad)));
    GT_CK(hipMemset(bad, 0, sizeof(*bad)));
    if (me == 0)
        printf("dev_ce: copy engine %s\n", shmemx_copy_engine_name());
    for (int r = 0; r < ROUNDS; r++) {
        int wave = r % 2;
        if (me == 0) {
            k_fill<<<256, 256>>>(src, N, r);
            GT_SYNC();
        }
        shmem_barrier_all();
        if (me == 0)
            k_put<<<BLOCKS, 256>>>(dst, src, sig, r, wave);
        else
            k_check<<<BLOCKS, 256>>>(dst, sig, (uint64_t)BLOCKS * (r + 1), r, bad);
        GT_SYNC();
        shmem_barrier_all();
    }
    if (me == 1) {
        unsigned long long nbad = 0;
        GT_CK(hipMemcpy(&nbad, bad, sizeof(nbad), hipMemcpyDeviceToHost));
        if (nbad) {
            fprintf(stderr, "dev_ce: %llu bytes wrong after quiet and signal\n", nbad);
            ++gt_failures;
        }
    }

    /* Host non-blocking put of the device heap: 32 MiB through the engine. */
    const size_t H = 32u << 20;
    unsigned char *hsrc = (unsigned char *)shmem_malloc(H),
                  *hdst = (unsigned char *)shmem_malloc(H);
    if (me == 0) {
        k_fill<<<256, 256>>>(hsrc, H, 9);
        GT_SYNC();
        shmem_putmem_nbi(hdst, hsrc, H, 1);
        shmem_quiet();
    }
    shmem_barrier_all();
    if (me == 1) {
        unsigned char *h = (unsigned char *)malloc(H);
        GT_CK(hipMemcpy(h, hdst, H, hipMemcpyDeviceToHost));
        for (size_t i = 0; i < H; i += 4093)
            if (h[i] != (unsigned char)(i * 7 + 9 * 13 + 1)) {
                fprintf(stderr, "dev_ce: host nbi put: byte %zu is %u\n", i, h[i]);
                ++gt_failures;
                break;
            }
        free(h);
    }
    shmem_barrier_all();
    if (me == 0)
        printf("dev_ce: %d rounds of %d workgroups/waves: %s\n", ROUNDS, BLOCKS,
               gt_failures ? "FAILED" : "ok");
    shmem_finalize();
    return gt_failures ? 1 : 0;
}
