/*
 * barrier_lat - latency of shmem_barrier_all and shmem_sync_all.
 *
 * All PEs of the job take part.  Each PE times every call; the reported
 * figure is the largest over PEs of each PE's median (the barrier is done
 * when the slowest PE leaves it), in microseconds.  The size column holds
 * the number of PEs.  -b/-e/-f/-W/--nbi are ignored.
 */
#include "common.h"

static double run(const struct bench_opts *o, int sync_only) {
    long n = o->iters, w = o->warmup;
    double *t = bench_samples(n);
    shmem_barrier_all();
    for (long i = -w; i < n; i++) {
        double t0 = bench_now_ns();
        if (sync_only)
            shmem_sync_all();
        else
            shmem_barrier_all();
        double t1 = bench_now_ns();
        if (i >= 0)
            t[i] = bench_elapsed_ns(t0, t1);
    }
    return bench_max_over_pes(bench_median(t, n) / 1e3);
}

int main(int argc, char **argv) {
    struct bench_opts o = {.min_size = 8,
                           .max_size = 8,
                           .factor = 2,
                           .iters = 10000,
                           .warmup = 1000,
                           .window = 1,
                           .name = "barrier_lat"};
    shmem_init();
    bench_parse(&o, argc, argv, NULL);
    bench_header(&o, "shmem_barrier_all / shmem_sync_all, all PEs, max over PEs of the median");
    size_t npes = (size_t)shmem_n_pes();

    double b = run(&o, 0);
    bench_report(&o, "barrier_all", npes, "lat_median", b, "us");
    double s = run(&o, 1);
    bench_report(&o, "sync_all", npes, "lat_median", s, "us");

    shmem_finalize();
    return 0;
}
