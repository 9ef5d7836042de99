/* Device latencies between PE 0 and PE 1 (other PEs only join the barriers):
 *   p_pingpong   shmem_long_p + shmem_long_wait_until, half a round trip
 *   fetch_add    shmem_long_atomic_fetch_add on PE 1's word, one thread
 *   barrier_all  shmem_barrier_all, one thread of the grid per PE (all PEs)
 *   fetch_add_device_scope  the fetch_add round trip as a device-scope atomic
 *                on shmem_ptr's mapping (the cost of the library's system scope)
 *   fetch_add_spread  fetch_add over 32 words 4 KiB + 128 B apart, in turn
 *                (one word's latency depends on its place in the target's L2)
 * Each kernel runs `-n` operations timed inside the kernel by the device
 * clock; the figure is the median over `-r` kernels. CSV on stdout. */
#include <shmem.h>
#include <shmem_device.h>

#include "gpu_bench.h"

__device__ static uint64_t now_ns(void) { return shmemi_arch_now_ns(); }

__global__ void k_pingpong(long *flag, long iters, long base, double *out) {
    int me = shmem_my_pe();
    uint64_t t0 = now_ns();
    for (long i = base + 1; i <= base + iters; ++i) {
        if (me == 0) {
            shmem_long_p(flag, i, 1);
            shmem_long_wait_until(flag, SHMEM_CMP_EQ, i);
        } else if (me == 1) {
            shmem_long_wait_until(flag, SHMEM_CMP_EQ, i);
            shmem_long_p(flag, i, 0);
        }
    }
    *out = (double)(now_ns() - t0) / (double)iters / 2.0 / 1000.0;
}

GB_FETCH_ADD_KERNEL(shmem_long_atomic_fetch_add, now_ns)

/* The same round trip with a device-scope atomic on the peer's mapping (what
 * the scope of the library's system-scope AMOs costs). */
__global__ void k_fetch_add_dev(long *word, long iters, double *out) {
    unsigned long long sink = 0;
    unsigned long long *w = (unsigned long long *)shmem_ptr(word, 1);
    uint64_t t0 = now_ns();
    for (long i = 0; i < iters; ++i) {
#if defined(__HIPCC__)
        sink += __hip_atomic_fetch_add(w + (sink == ~0ull), 1ull, __ATOMIC_RELAXED,
                                       __HIP_MEMORY_SCOPE_AGENT);
#else
        sink += atomicAdd(w + (sink == ~0ull), 1ull);
#endif
    }
    *out = (double)(now_ns() - t0) / (double)iters / 1000.0;
    if (sink == ~0ull)
        *out = 0;
}

__global__ void k_barrier(long iters, double *out) {
    uint64_t t0 = now_ns();
    for (long i = 0; i < iters; ++i)
        shmem_barrier_all();
    *out = (double)(now_ns() - t0) / (double)iters / 1000.0;
}

int main(int argc, char **argv) {
    struct gb_opts o = {8, 8, 2, 10000, 11, 1, 1};
    gb_parse(&o, argc, argv);
    shmem_init();
    int me = shmem_my_pe();
    long *words = (long *)shmem_calloc(16, sizeof(long));
    long *spread = (long *)shmem_calloc(GB_SPREAD * GB_SPREAD_STRIDE, sizeof(long));
    double *d_out, *t = (double *)malloc(sizeof(double) * (size_t)o.reps);
    GB_CK(hipMalloc((void **)&d_out, sizeof(double)));
    if (me == 0)
        gb_csv_header();
    for (int m = 0; m < 5; ++m) {
        for (long r = -1; r < o.reps; ++r) {
            shmem_barrier_all();
            if (m == 0 && me <= 1)
                k_pingpong<<<1, 1>>>(&words[0], o.iters, (r + 1) * o.iters, d_out);
            else if (m == 1 && me == 0)
                k_fetch_add<<<1, 1>>>(&words[8], 1, o.iters, d_out);
            else if (m == 2)
                k_barrier<<<1, 1>>>(o.iters, d_out);
            else if (m == 3 && me == 0)
                k_fetch_add_dev<<<1, 1>>>(&words[8], o.iters, d_out);
            else if (m == 4 && me == 0)
                k_fetch_add<<<1, 1>>>(spread, GB_SPREAD, o.iters, d_out);
            GB_CK(hipGetLastError());
            GB_CK(hipDeviceSynchronize());
            if (r >= 0 && me == 0) {
                double us;
                GB_CK(hipMemcpy(&us, d_out, sizeof us, hipMemcpyDeviceToHost));
                t[r] = us;
            }
        }
        if (me == 0) {
            static const char *metric[5] = {"p_pingpong_half_rtt", "fetch_add", "barrier_all",
                                            "fetch_add_device_scope", "fetch_add_spread"};
            gb_csv("gpu_lat", 8, metric[m], gb_median(t, o.reps), "us");
        }
    }
    shmem_barrier_all();
    free(t);
    GB_CK(hipFree(d_out));
    shmem_free(spread);
    shmem_free(words);
    shmem_finalize();
    return 0;
}
