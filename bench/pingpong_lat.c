/*
 * pingpong_lat - half round trip between PE 0 and PE 1.
 *
 * 8 B (the default): PE 0 writes an increasing value into PE 1's flag with
 * shmem_long_p; PE 1 waits for it (shmem_long_wait_until) and answers the
 * same way; PE 0 times the round trip and reports half of it.  The value is
 * the payload, so nothing else is needed.
 * Larger sizes (-e > 8): the payload goes with shmem_putmem, then
 * shmem_fence orders it before the flag written with shmem_long_p, so the
 * side that sees the flag also sees the payload.
 * Other PEs wait in shmem_barrier_all.  Reported: median, microseconds.
 */
#include "common.h"

static long flag;

int main(int argc, char **argv) {
    struct bench_opts o = {.min_size = 8,
                           .max_size = 8,
                           .factor = 2,
                           .iters = 10000,
                           .warmup = 1000,
                           .window = 1,
                           .name = "pingpong_lat"};
    shmem_init();
    bench_parse(&o, argc, argv, NULL);
    bench_require_pes(&o, 2);
    bench_header(&o, "shmem_long_p (+ shmem_putmem + shmem_fence above 8 B) and "
                     "shmem_long_wait_until, half round trip");

    char *buf = bench_shmalloc(&o, o.max_size);
    char *src = bench_malloc(&o, o.max_size);
    int me = shmem_my_pe();
    long seq = 0;
    shmem_barrier_all();

    for (size_t size = o.min_size; size; size = bench_next_size(&o, size)) {
        long n = bench_iters_for(&o, size, 256 * BENCH_MIB);
        long w = bench_warmup_for(&o, n);
        double *t = bench_samples(n);
        if (me <= 1) {
            int peer = 1 - me;
            for (long i = -w; i < n; i++) {
                seq++;
                if (me == 0) {
                    double t0 = bench_now_ns();
                    if (size > sizeof(long)) {
                        shmem_putmem(buf, src, size, peer);
                        shmem_fence();
                    }
                    shmem_long_p(&flag, seq, peer);
                    shmem_long_wait_until(&flag, SHMEM_CMP_GE, seq);
                    double t1 = bench_now_ns();
                    if (i >= 0)
                        t[i] = 0.5 * bench_elapsed_ns(t0, t1);
                } else {
                    shmem_long_wait_until(&flag, SHMEM_CMP_GE, seq);
                    if (size > sizeof(long)) {
                        shmem_putmem(buf, src, size, peer);
                        shmem_fence();
                    }
                    shmem_long_p(&flag, seq, peer);
                }
            }
            bench_report(&o, "pingpong_lat", size, "lat_median", bench_median(t, n) / 1e3, "us");
        }
        shmem_barrier_all();
    }

    shmem_free(buf);
    free(src);
    shmem_finalize();
    return 0;
}
