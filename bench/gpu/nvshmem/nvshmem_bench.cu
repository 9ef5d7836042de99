/* NVSHMEM equivalents of bench/gpu (independent of this library), for
 * side-by-side runs on NVIDIA GPUs: same measurements, same CSV.
 *   put bandwidth: nvshmemx_putmem_nbi_block, each block its slice, + quiet
 *   p ping-pong:   nvshmem_long_p + nvshmem_long_wait_until (half round trip)
 *   fetch_add:     nvshmem_long_atomic_fetch_add
 *   barrier_all:   nvshmem_barrier_all (one thread)
 *   stream-ordered (bench/gpu/stream_bw's counterparts, extra rows):
 *     nvshmemx_putmem_on_stream bandwidth for sizes >= 1 MiB, and
 *     nvshmemx_barrier_all_on_stream, 1000 queued back to back: host time per
 *     call and stream time per barrier
 * Bootstrap: MPI broadcasts an NVSHMEM unique id (nvshmemx_init_attr with
 * NVSHMEMX_INIT_WITH_UNIQUEID), so no bootstrap plugin is needed.
 * Options: -b -e -f sizes, -n iterations, -r repetitions, -B blocks, -T threads. */
#include <mpi.h>
#include <nvshmem.h>
#include <nvshmemx.h>

#include <stdint.h>
#include <time.h>

#include "../gpu_bench.h"

__device__ static uint64_t now_ns(void) {
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__global__ void k_put_block(char *dst, const char *src, size_t size, int pe) {
    size_t units = gridDim.x;
    size_t slice = ((size + units - 1) / units + 15) & ~(size_t)15;
    size_t off = (size_t)blockIdx.x * slice;
    size_t len = off < size ? (size - off < slice ? size - off : slice) : 0;
    nvshmemx_putmem_nbi_block(dst + off, src + off, len, pe);
    nvshmem_quiet();
}

__global__ void k_pingpong(long *flag, long iters, long base, double *out) {
    int me = nvshmem_my_pe();
    uint64_t t0 = now_ns();
    for (long i = base + 1; i <= base + iters; ++i) {
        if (me == 0) {
            nvshmem_long_p(flag, i, 1);
            nvshmem_long_wait_until(flag, NVSHMEM_CMP_EQ, i);
        } else if (me == 1) {
            nvshmem_long_wait_until(flag, NVSHMEM_CMP_EQ, i);
            nvshmem_long_p(flag, i, 0);
        }
    }
    *out = (double)(now_ns() - t0) / (double)iters / 2.0 / 1000.0;
}

GB_FETCH_ADD_KERNEL(nvshmem_long_atomic_fetch_add, now_ns)

__global__ void k_barrier(long iters, double *out) {
    uint64_t t0 = now_ns();
    for (long i = 0; i < iters; ++i)
        nvshmem_barrier_all();
    *out = (double)(now_ns() - t0) / (double)iters / 1000.0;
}

/* Median seconds that o.iters calls of issue() take on st, by events around
 * them, over o.reps repetitions after one warm-up (t: o.reps scratch). */
template <class F>
static double time_on_stream(const struct gb_opts &o, cudaStream_t st, cudaEvent_t e0,
                             cudaEvent_t e1, double *t, F issue) {
    for (long r = -1; r < o.reps; ++r) {
        float ms = 0;
        GB_CK(cudaEventRecord(e0, st));
        for (long i = 0; i < o.iters; ++i)
            issue();
        GB_CK(cudaEventRecord(e1, st));
        GB_CK(cudaEventSynchronize(e1));
        GB_CK(cudaGetLastError());
        GB_CK(cudaEventElapsedTime(&ms, e0, e1));
        if (r >= 0)
            t[r] = (double)ms * 1e-3;
    }
    return gb_median(t, o.reps);
}

int main(int argc, char **argv) {
    struct gb_opts o = {8, 256u << 20, 2, 20, 7, 528, 1024};
    struct gb_opts lat = {8, 8, 2, 10000, 11, 1, 1};
    int rank, nranks, ndev;
    MPI_Init(&argc, &argv);
    gb_parse(&o, argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    GB_CK(cudaGetDeviceCount(&ndev));
    GB_CK(cudaSetDevice(rank % ndev));

    nvshmemx_uniqueid_t id = NVSHMEMX_UNIQUEID_INITIALIZER;
    nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
    if (rank == 0)
        nvshmemx_get_uniqueid(&id);
    MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
    nvshmemx_set_attr_uniqueid_args(rank, nranks, &id, &attr);
    nvshmemx_init_attr(NVSHMEMX_INIT_WITH_UNIQUEID, &attr);
    int me = nvshmem_my_pe();

    char *dst = (char *)nvshmem_malloc(o.max_size), *src = (char *)nvshmem_malloc(o.max_size);
    long *words = (long *)nvshmem_calloc(16, sizeof(long));
    long *spread = (long *)nvshmem_calloc(GB_SPREAD * GB_SPREAD_STRIDE, sizeof(long));
    double *d_out, *t = (double *)malloc(sizeof(double) * 64);
    GB_CK(cudaMalloc((void **)&d_out, sizeof(double)));
    GB_CK(cudaMemset(src, 1, o.max_size));
    cudaStream_t st;
    cudaEvent_t e0, e1;
    GB_CK(cudaStreamCreate(&st));
    GB_CK(cudaEventCreate(&e0));
    GB_CK(cudaEventCreate(&e1));
    if (o.reps > 64)
        o.reps = 64;
    if (me == 0)
        gb_csv_header();
    nvshmem_barrier_all();

    for (size_t size = o.min_size; size <= o.max_size; size *= o.factor) {
        if (me == 0) {
            double sec = time_on_stream(o, st, e0, e1, t, [&] {
                k_put_block<<<o.blocks, o.threads, 0, st>>>(dst, src, size, 1);
            });
            gb_csv("nvshmem_put_bw", size, "bw_block", (double)size * (double)o.iters / sec / 1e9,
                   "GB/s");
        }
        if (size > o.max_size / o.factor)
            break;
    }

    /* Stream-ordered puts (host API on a stream), PE 0 -> PE 1. */
    for (size_t size = o.min_size; size <= o.max_size; size *= o.factor) {
        if (me == 0 && size >= ((size_t)1 << 20)) {
            double sec = time_on_stream(o, st, e0, e1, t,
                                        [&] { nvshmemx_putmem_on_stream(dst, src, size, 1, st); });
            gb_csv("nvshmem_stream_put_bw", size, "bw_on_stream",
                   (double)size * (double)o.iters / sec / 1e9, "GB/s");
        }
        if (size > o.max_size / o.factor)
            break;
    }
    GB_CK(cudaStreamSynchronize(st));
    nvshmem_barrier_all();

    /* Stream-ordered barriers: 1000 queued on every PE. */
    {
        const long nbar = 1000;
        double host_us[64], stream_us[64];
        for (long r = -1; r < o.reps; ++r) {
            nvshmem_barrier_all();
            float ms = 0;
            struct timespec h0, h1;
            GB_CK(cudaEventRecord(e0, st));
            clock_gettime(CLOCK_MONOTONIC, &h0);
            for (long i = 0; i < nbar; ++i)
                nvshmemx_barrier_all_on_stream(st);
            clock_gettime(CLOCK_MONOTONIC, &h1);
            GB_CK(cudaEventRecord(e1, st));
            GB_CK(cudaEventSynchronize(e1));
            GB_CK(cudaGetLastError());
            GB_CK(cudaEventElapsedTime(&ms, e0, e1));
            if (r >= 0) {
                host_us[r] = ((double)(h1.tv_sec - h0.tv_sec) * 1e6 +
                              (double)(h1.tv_nsec - h0.tv_nsec) * 1e-3) /
                             (double)nbar;
                stream_us[r] = (double)ms * 1e3 / (double)nbar;
            }
        }
        if (me == 0) {
            gb_csv("nvshmem_stream_barrier", 0, "host_per_call", gb_median(host_us, o.reps), "us");
            gb_csv("nvshmem_stream_barrier", 0, "stream_per_barrier", gb_median(stream_us, o.reps),
                   "us");
        }
    }

    for (int m = 0; m < 4; ++m) {
        for (long r = -1; r < lat.reps; ++r) {
            nvshmem_barrier_all();
            if (m == 0 && me <= 1)
                k_pingpong<<<1, 1>>>(&words[0], lat.iters, (r + 1) * lat.iters, d_out);
            else if (m == 1 && me == 0)
                k_fetch_add<<<1, 1>>>(&words[8], 1, lat.iters, d_out);
            else if (m == 2)
                k_barrier<<<1, 1>>>(lat.iters, d_out);
            else if (m == 3 && me == 0)
                k_fetch_add<<<1, 1>>>(spread, GB_SPREAD, lat.iters, d_out);
            GB_CK(cudaGetLastError());
            GB_CK(cudaDeviceSynchronize());
            if (r >= 0 && me == 0) {
                double us;
                GB_CK(cudaMemcpy(&us, d_out, sizeof us, cudaMemcpyDeviceToHost));
                t[r] = us;
            }
        }
        if (me == 0) {
            static const char *metric[4] = {"p_pingpong_half_rtt", "fetch_add", "barrier_all",
                                            "fetch_add_spread"};
            gb_csv("nvshmem_lat", 8, metric[m], gb_median(t, lat.reps), "us");
        }
    }

    nvshmem_barrier_all();
    free(t);
    GB_CK(cudaFree(d_out));
    nvshmem_free(spread);
    nvshmem_free(words);
    nvshmem_free(src);
    nvshmem_free(dst);
    nvshmem_finalize();
    MPI_Finalize();
    return 0;
}
