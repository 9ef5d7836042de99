/* The stream-ordered host API (include/shmemx.h), PE 0 -> PE 1, CSV:
 *   put bandwidth: shmemx_putmem_on_stream of SIZE bytes (copy engine), -n per
 *                  timed repetition, timed with events on the stream
 *                  (1 MiB..256 MiB by default)
 *   host put:      shmem_putmem_nbi + shmem_quiet from the host (the copy engine
 *                  behind the library's cuda engine) and cudaMemcpyAsync of the
 *                  same bytes into the peer's heap, host-timed
 *   barrier:       shmemx_barrier_all_on_stream, -N calls queued back to back
 *                  (default 1000): host time per call (the enqueue) and stream
 *                  time per barrier (events around the queued barriers)
 * Options: gpu_bench.h's -b -e -f -n -r, and -N barrier calls. The heap must
 * hold MAX bytes: SHMEM_SYMMETRIC_SIZE=300M for the default 256 MiB. */
#include <shmem.h>
#include <shmemx.h>

#include <time.h>

#include "gpu_bench.h"

#if !defined(__HIPCC__)
#define hipStreamSynchronize cudaStreamSynchronize
#endif

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#define SBCK(call)                                                                                 \
    do {                                                                                           \
        int sb_rc_ = (call);                                                                       \
        if (sb_rc_ != 0) {                                                                         \
            fprintf(stderr, "[PE %d] %s:%d: %s returned %d (SHMEM_DEBUG=1 says why)\n",            \
                    shmem_my_pe(), __FILE__, __LINE__, #call, sb_rc_);                             \
            shmem_global_exit(2);                                                                  \
        }                                                                                          \
    } while (0)

int main(int argc, char **argv) {
    long nbar = 1000;
    /* -N is ours; the rest goes to gb_parse. */
    for (int i = 1; i + 1 < argc; ++i)
        if (!strcmp(argv[i], "-N")) {
            nbar = atol(argv[i + 1]);
            for (int j = i; j + 2 < argc; ++j)
                argv[j] = argv[j + 2];
            argc -= 2;
            break;
        }
    if (nbar < 1)
        nbar = 1;
    struct gb_opts o = {1u << 20, 256u << 20, 2, 20, 7, 0, 0};
    gb_parse(&o, argc, argv);
    if (o.reps > 64)
        o.reps = 64;

    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    if (npes < 2) {
        fprintf(stderr, "stream_bw: needs 2 PEs\n");
        shmem_finalize();
        return 2;
    }
    char *dst = (char *)shmem_malloc(o.max_size), *src;
    if (!dst) {
        fprintf(stderr, "stream_bw: shmem_malloc(%zu) failed (raise SHMEM_SYMMETRIC_SIZE)\n",
                o.max_size);
        shmem_global_exit(2);
    }
    GB_CK(hipMalloc((void **)&src, o.max_size));
    GB_CK(hipMemset(src, 1, o.max_size));
    GB_CK(hipDeviceSynchronize());
    hipStream_t st;
    hipEvent_t e0, e1;
    GB_CK(hipStreamCreate(&st));
    hipStream_t xs[4];
    for (int k = 0; k < 4; ++k)
        GB_CK(hipStreamCreate(&xs[k]));
    GB_CK(hipEventCreate(&e0));
    GB_CK(hipEventCreate(&e1));
    double t[64];
    if (me == 0)
        gb_csv_header();
    shmem_barrier_all();

    for (size_t size = o.min_size; size <= o.max_size; size *= o.factor) {
        if (me == 0) {
            for (long r = -1; r < o.reps; ++r) { /* r = -1: warm-up */
                float ms = 0;
                GB_CK(hipEventRecord(e0, st));
                for (long i = 0; i < o.iters; ++i)
                    SBCK(shmemx_putmem_on_stream(dst, src, size, 1, st));
                GB_CK(hipEventRecord(e1, st));
                GB_CK(hipEventSynchronize(e1));
                GB_CK(hipEventElapsedTime(&ms, e0, e1));
                if (r >= 0)
                    t[r] = (double)ms * 1e-3;
            }
            gb_csv("stream_put_bw", size, "bw_copy_engine",
                   (double)size * (double)o.iters / gb_median(t, o.reps) / 1e9, "GB/s");
            /* The host API's non-blocking put (the cuda engine: packets, its proxy, the
             * copy engines) and, for reference, cudaMemcpyAsync of the same bytes, both
             * timed on the host from the first call to the completed quiet/sync. */
            char *peer = (char *)shmem_ptr(dst, 1);
            for (int v = 0; v < 4; ++v) {
                if (v >= 1 && !peer)
                    continue;
                for (long r = -1; r < o.reps; ++r) {
                    double h0 = now_s();
                    for (long i = 0; i < o.iters; ++i) {
                        if (v == 0) {
                            shmem_putmem_nbi(dst, src, size, 1);
                            continue;
                        }
                        /* v = 1, 2, 3: the copy split over 1, 2, 4 streams */
                        int ns = 1 << (v - 1);
                        size_t part = size / (size_t)ns;
                        for (int k = 0; k < ns; ++k)
                            GB_CK(hipMemcpyAsync(peer + k * part, src + k * part, part,
                                                 hipMemcpyDefault, xs[k]));
                    }
                    if (v == 0)
                        shmem_quiet();
                    else
                        for (int k = 0; k < (1 << (v - 1)); ++k)
                            GB_CK(hipStreamSynchronize(xs[k]));
                    if (r >= 0)
                        t[r] = now_s() - h0;
                }
                static const char *names[4] = {"bw_putmem_nbi", "bw_memcpy_async",
                                               "bw_memcpy_async_2streams",
                                               "bw_memcpy_async_4streams"};
                gb_csv("host_put_bw", size, names[v],
                       (double)size * (double)o.iters / gb_median(t, o.reps) / 1e9, "GB/s");
            }
        }
        if (size > o.max_size / o.factor)
            break;
    }
    shmem_barrier_all();

    /* Barriers: every PE queues nbar stream barriers; the host time is the
     * enqueue, the stream time the barriers themselves. */
    double host_us[64], stream_us[64];
    for (long r = -1; r < o.reps; ++r) {
        shmem_barrier_all();
        float ms = 0;
        GB_CK(hipEventRecord(e0, st));
        double h0 = now_s();
        for (long i = 0; i < nbar; ++i)
            SBCK(shmemx_barrier_all_on_stream(st));
        double h1 = now_s();
        GB_CK(hipEventRecord(e1, st));
        GB_CK(hipEventSynchronize(e1));
        GB_CK(hipEventElapsedTime(&ms, e0, e1));
        if (r >= 0) {
            host_us[r] = (h1 - h0) * 1e6 / (double)nbar;
            stream_us[r] = (double)ms * 1e3 / (double)nbar;
        }
    }
    if (me == 0) {
        gb_csv("stream_barrier", 0, "host_per_call", gb_median(host_us, o.reps), "us");
        gb_csv("stream_barrier", 0, "stream_per_barrier", gb_median(stream_us, o.reps), "us");
    }

    shmem_barrier_all();
    GB_CK(hipEventDestroy(e0));
    GB_CK(hipEventDestroy(e1));
    GB_CK(hipStreamDestroy(st));
    GB_CK(hipFree(src));
    shmem_free(dst);
    shmem_finalize();
    return 0;
}
