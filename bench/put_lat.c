/*
 * put_lat - latency of a put from PE 0 to PE 1, per message size.
 *
 * One iteration at PE 0 is  shmem_putmem(dst, src, size, 1); shmem_quiet();
 * (with --nbi: shmem_putmem_nbi + shmem_quiet), i.e. the time until the data
 * is delivered at PE 1 (OSU's osu_oshm_put times the put alone; the quiet
 * makes the figure comparable across libraries whose blocking put returns at
 * local completion).  PE 1 and any other PE wait in shmem_barrier_all.
 * Reported: median over iterations, microseconds.
 */
#include "common.h"

int main(int argc, char **argv) {
    struct bench_opts o = {.min_size = 8,
                           .max_size = 4 * BENCH_MIB,
                           .factor = 2,
                           .iters = 1000,
                           .warmup = 100,
                           .window = 1,
                           .name = "put_lat"};
    shmem_init();
    bench_parse(&o, argc, argv, NULL);
    bench_require_pes(&o, 2);
    const char *bench = o.nbi ? "put_nbi_lat" : "put_lat";
    bench_header(&o, o.nbi ? "shmem_putmem_nbi + shmem_quiet, PE 0 -> PE 1"
                           : "shmem_putmem + shmem_quiet, PE 0 -> PE 1");

    char *dst = bench_shmalloc(&o, o.max_size);
    char *src = bench_malloc(&o, o.max_size);
    int me = shmem_my_pe();
    shmem_barrier_all();

    for (size_t size = o.min_size; size; size = bench_next_size(&o, size)) {
        long n = bench_iters_for(&o, size, 256 * BENCH_MIB);
        long w = bench_warmup_for(&o, n);
        double *t = bench_samples(n);
        if (me == 0) {
            for (long i = -w; i < n; i++) {
                double t0 = bench_now_ns();
                if (o.nbi)
                    shmem_putmem_nbi(dst, src, size, 1);
                else
                    shmem_putmem(dst, src, size, 1);
                shmem_quiet();
                double t1 = bench_now_ns();
                if (i >= 0)
                    t[i] = bench_elapsed_ns(t0, t1);
            }
            bench_report(&o, bench, size, "lat_median", bench_median(t, n) / 1e3, "us");
        }
        shmem_barrier_all();
    }

    shmem_free(dst);
    free(src);
    shmem_finalize();
    return 0;
}
