/*
 * barrier_lat - latency of shmem_barrier_all and shmem_sync_all, and of
 * shmem_barrier on the active set of all PEs (barrier_pset: the 1.4 form
 * that older codes and benchmark suites call, two pSync arrays in turn).
 *
 * All PEs of the job take part.  Each PE times every call; the reported
 * figure is the largest over PEs of each PE's median (the barrier is done
 * when the slowest PE leaves it), in microseconds.  The size column holds
 * the number of PEs.  -b/-e/-f/-W/--nbi are ignored.
 */
#include "common.h"

/* The deprecated active-set form is what is measured here. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static long psync[2][SHMEM_BARRIER_SYNC_SIZE];

enum kind { K_BARRIER_ALL, K_SYNC_ALL, K_PSET };

static double run(const struct bench_opts *o, enum kind k) {
    long n = o->iters, w = o->warmup;
    int npes = shmem_n_pes(); /* outside the timed calls */
    double *t = bench_samples(n);
    shmem_barrier_all();
    for (long i = -w; i < n; i++) {
        double t0 = bench_now_ns();
        if (k == K_SYNC_ALL)
            shmem_sync_all();
        else if (k == K_PSET)
            shmem_barrier(0, 0, npes, psync[i & 1]);
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

    for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; i++)
        psync[0][i] = psync[1][i] = SHMEM_SYNC_VALUE;

    double b = run(&o, K_BARRIER_ALL);
    bench_report(&o, "barrier_all", npes, "lat_median", b, "us");
    double s = run(&o, K_SYNC_ALL);
    bench_report(&o, "sync_all", npes, "lat_median", s, "us");
    shmem_barrier_all(); /* every PE's pSync initialized */
    double p = run(&o, K_PSET);
    bench_report(&o, "barrier_pset", npes, "lat_median", p, "us");

    shmem_finalize();
    return 0;
}
