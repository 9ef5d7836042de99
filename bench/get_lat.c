/*
 * get_lat - latency of a get by PE 0 from PE 1, per message size.
 *
 * One iteration at PE 0 is  shmem_getmem(dst, src, size, 1);
 * (with --nbi: shmem_getmem_nbi + shmem_quiet).  A blocking get returns with
 * the data in place, so no quiet is needed there.  PE 1 and any other PE
 * wait in shmem_barrier_all.  Reported: median over iterations, microseconds.
 */
#include "common.h"

int main(int argc, char **argv) {
    struct bench_opts o = {.min_size = 8,
                           .max_size = 4 * BENCH_MIB,
                           .factor = 2,
                           .iters = 1000,
                           .warmup = 100,
                           .window = 1,
                           .name = "get_lat"};
    shmem_init();
    bench_parse(&o, argc, argv, NULL);
    bench_require_pes(&o, 2);
    const char *bench = o.nbi ? "get_nbi_lat" : "get_lat";
    bench_header(&o, o.nbi ? "shmem_getmem_nbi + shmem_quiet, PE 0 <- PE 1"
                           : "shmem_getmem, PE 0 <- PE 1");

    char *src = bench_shmalloc(&o, o.max_size);
    char *dst = bench_malloc(&o, o.max_size);
    int me = shmem_my_pe();
    shmem_barrier_all();

    for (size_t size = o.min_size; size; size = bench_next_size(&o, size)) {
        long n = bench_iters_for(&o, size, 256 * BENCH_MIB);
        long w = bench_warmup_for(&o, n);
        double *t = bench_samples(n);
        if (me == 0) {
            for (long i = -w; i < n; i++) {
                double t0 = bench_now_ns();
                if (o.nbi) {
                    shmem_getmem_nbi(dst, src, size, 1);
                    shmem_quiet();
                } else {
                    shmem_getmem(dst, src, size, 1);
                }
                double t1 = bench_now_ns();
                if (i >= 0)
                    t[i] = bench_elapsed_ns(t0, t1);
            }
            bench_report(&o, bench, size, "lat_median", bench_median(t, n) / 1e3, "us");
        }
        shmem_barrier_all();
    }

    free(dst);
    shmem_free(src);
    shmem_finalize();
    return 0;
}
