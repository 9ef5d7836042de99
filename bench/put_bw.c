/*
 * put_bw - windowed put bandwidth from PE 0 to PE 1, per message size.
 *
 * One iteration at PE 0 is a window of W puts of `size` bytes into the same
 * symmetric buffer at PE 1 (shmem_putmem, or shmem_putmem_nbi with --nbi)
 * followed by one shmem_quiet.  Bandwidth = size * W / (median iteration
 * time), in MB/s (10^6 bytes per second).  Other PEs wait in
 * shmem_barrier_all.
 */
#include "common.h"

int main(int argc, char **argv) {
    struct bench_opts o = {.min_size = 8,
                           .max_size = 4 * BENCH_MIB,
                           .factor = 2,
                           .iters = 200,
                           .warmup = 20,
                           .window = 64,
                           .name = "put_bw"};
    shmem_init();
    bench_parse(&o, argc, argv, NULL);
    bench_require_pes(&o, 2);
    const char *bench = o.nbi ? "put_nbi_bw" : "put_bw";
    bench_header(&o, o.nbi ? "window of shmem_putmem_nbi + shmem_quiet, PE 0 -> PE 1"
                           : "window of shmem_putmem + shmem_quiet, PE 0 -> PE 1");

    char *dst = bench_shmalloc(&o, o.max_size);
    char *src = bench_malloc(&o, o.max_size);
    int me = shmem_my_pe();
    shmem_barrier_all();

    for (size_t size = o.min_size; size; size = bench_next_size(&o, size)) {
        long n = bench_iters_for(&o, size * (size_t)o.window, 2048 * BENCH_MIB);
        long w = bench_warmup_for(&o, n);
        double *t = bench_samples(n);
        if (me == 0) {
            for (long i = -w; i < n; i++) {
                double t0 = bench_now_ns();
                if (o.nbi)
                    for (long k = 0; k < o.window; k++)
                        shmem_putmem_nbi(dst, src, size, 1);
                else
                    for (long k = 0; k < o.window; k++)
                        shmem_putmem(dst, src, size, 1);
                shmem_quiet();
                double t1 = bench_now_ns();
                if (i >= 0)
                    t[i] = bench_elapsed_ns(t0, t1);
            }
            double ns = bench_median(t, n);
            bench_report(&o, bench, size, "bw_median", (double)size * (double)o.window / ns * 1e3,
                         "MB/s");
        }
        shmem_barrier_all();
    }

    shmem_free(dst);
    free(src);
    shmem_finalize();
    return 0;
}
