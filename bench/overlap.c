/*
 * overlap - how much of a large non-blocking put proceeds beside the caller's
 * computation.
 *
 * At PE 0, per size: t_comm = shmem_putmem_nbi + shmem_quiet alone; t_comp =
 * a compute loop calibrated to last about t_comm; t_both = shmem_putmem_nbi,
 * the compute loop, shmem_quiet. Overlap fraction = (t_comm + t_comp -
 * t_both) / min(t_comm, t_comp): 1 when the transfer is hidden completely
 * behind the computation, 0 when the two run one after the other. Medians
 * over iterations. PE 1 waits in a barrier.
 */
#include "common.h"

static volatile double sink;

/* A compute kernel that touches no memory: n iterations of dependent math. */
static void compute(long n) {
    double x = 1.0;
    for (long i = 0; i < n; i++)
        x = x * 1.0000001 + 1e-9;
    sink = x;
}

static double time_compute(long n) {
    double t0 = bench_now_ns();
    compute(n);
    return bench_elapsed_ns(t0, bench_now_ns());
}

int main(int argc, char **argv) {
    struct bench_opts o = {.min_size = BENCH_MIB,
                           .max_size = 64 * BENCH_MIB,
                           .factor = 4,
                           .iters = 20,
                           .warmup = 3,
                           .window = 1,
                           .name = "overlap"};
    shmem_init();
    bench_parse(&o, argc, argv, NULL);
    bench_require_pes(&o, 2);
    bench_header(&o, "shmem_putmem_nbi beside a compute loop, PE 0 -> PE 1");
    char *dst = bench_shmalloc(&o, o.max_size);
    char *src = bench_malloc(&o, o.max_size);
    int me = shmem_my_pe();
    shmem_barrier_all();

    for (size_t size = o.min_size; size; size = bench_next_size(&o, size)) {
        if (me == 0) {
            long n = o.iters, w = o.warmup;
            double *tc = bench_malloc(&o, 3 * (size_t)n * sizeof(double)), *tp = tc + n,
                   *tb = tp + n;
            /* Calibrate the compute loop to the transfer time. */
            for (long i = 0; i < w; i++) {
                shmem_putmem_nbi(dst, src, size, 1);
                shmem_quiet();
            }
            double t0 = bench_now_ns();
            shmem_putmem_nbi(dst, src, size, 1);
            shmem_quiet();
            double comm = bench_elapsed_ns(t0, bench_now_ns());
            long loops = 1000;
            while (time_compute(loops) < comm && loops < (1L << 40))
                loops *= 2;
            for (long i = 0; i < n; i++) {
                t0 = bench_now_ns();
                shmem_putmem_nbi(dst, src, size, 1);
                shmem_quiet();
                tc[i] = bench_elapsed_ns(t0, bench_now_ns());
                tp[i] = time_compute(loops);
                t0 = bench_now_ns();
                shmem_putmem_nbi(dst, src, size, 1);
                compute(loops);
                shmem_quiet();
                tb[i] = bench_elapsed_ns(t0, bench_now_ns());
            }
            double c = bench_median(tc, n), p = bench_median(tp, n), b = bench_median(tb, n);
            double lo = c < p ? c : p, f = (c + p - b) / lo;
            bench_report(&o, "overlap_comm", size, "lat_median", c / 1e3, "us");
            bench_report(&o, "overlap_comp", size, "lat_median", p / 1e3, "us");
            bench_report(&o, "overlap_both", size, "lat_median", b / 1e3, "us");
            bench_report(&o, "overlap", size, "fraction", f < 0 ? 0 : f, "ratio");
            free(tc);
        }
        shmem_barrier_all();
    }
    shmem_free(dst);
    free(src);
    shmem_finalize();
    return 0;
}
