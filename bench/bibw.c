/*
 * bibw - bidirectional put bandwidth between PE 0 and PE 1.
 *
 * One iteration: PE 0 and PE 1 synchronise (point to point, untimed), then
 * each puts a window of W messages of `size` bytes into the other
 * (shmem_putmem, or shmem_putmem_nbi with --nbi) and calls shmem_quiet; each
 * PE times its own window.  The iteration time is the larger of the two
 * PEs' medians, so the synchronisation's own cost stays out of the figure.
 * Bandwidth = 2 * size * W / that time, in MB/s (10^6 bytes per second,
 * both directions together).  Other PEs wait in shmem_barrier_all.
 */
#include "common.h"

static double peer_ns;

int main(int argc, char **argv) {
    struct bench_opts o = {.min_size = 8,
                           .max_size = 4 * BENCH_MIB,
                           .factor = 2,
                           .iters = 200,
                           .warmup = 20,
                           .window = 64,
                           .name = "bibw"};
    shmem_init();
    bench_parse(&o, argc, argv, NULL);
    bench_require_pes(&o, 2);
    const char *bench = o.nbi ? "bibw_nbi" : "bibw";
    bench_header(&o, o.nbi ? "windows of shmem_putmem_nbi + shmem_quiet, PE 0 <-> PE 1"
                           : "windows of shmem_putmem + shmem_quiet, PE 0 <-> PE 1");

    char *dst = bench_shmalloc(&o, o.max_size);
    char *src = bench_malloc(&o, o.max_size);
    int me = shmem_my_pe();
    shmem_barrier_all();

    for (size_t size = o.min_size; size; size = bench_next_size(&o, size)) {
        long n = bench_iters_for(&o, 2 * size * (size_t)o.window, 2048 * BENCH_MIB);
        long w = bench_warmup_for(&o, n);
        double *t = bench_samples(n);
        if (me <= 1) {
            int peer = 1 - me;
            for (long i = -w; i < n; i++) {
                bench_pair_sync();
                double t0 = bench_now_ns();
                if (o.nbi)
                    for (long k = 0; k < o.window; k++)
                        shmem_putmem_nbi(dst, src, size, peer);
                else
                    for (long k = 0; k < o.window; k++)
                        shmem_putmem(dst, src, size, peer);
                shmem_quiet();
                double t1 = bench_now_ns();
                if (i >= 0)
                    t[i] = bench_elapsed_ns(t0, t1);
            }
            double ns = bench_median(t, n);
            /* PE 1 hands its median to PE 0; the pair sync orders the put before the read */
            if (me == 1)
                shmem_double_p(&peer_ns, ns, 0);
            bench_pair_sync();
            if (me == 0 && peer_ns > ns)
                ns = peer_ns;
            bench_report(&o, bench, size, "bw_median",
                         2.0 * (double)size * (double)o.window / ns * 1e3, "MB/s");
        }
        shmem_barrier_all();
    }

    shmem_free(dst);
    free(src);
    shmem_finalize();
    return 0;
}
