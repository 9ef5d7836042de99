/*
 * msg_rate - small-put message rate from PE 0 to PE 1.
 *
 * One iteration at PE 0 is a window of W puts then one shmem_quiet:
 *   msg_rate_p    shmem_long_p (8 B, the single-element put);
 *   msg_rate_nbi  shmem_putmem_nbi of `size` bytes (-b/-e, default 8 B);
 *   msg_rate_put  shmem_putmem of `size` bytes;
 *   msg_rate_amo  shmem_long_atomic_add (8 B, the non-fetching AMO that
 *                 histograms and counters issue, as OSU's atomics benchmark
 *                 times it).
 * Successive puts (and adds) go to successive 8-byte-aligned slots of a
 * 1 MiB area, so no two of a window write the same place twice in a row.
 * Rate = W / (median iteration time), in millions of messages per second.
 * Other PEs wait in shmem_barrier_all.
 */
#include "common.h"

#define AREA BENCH_MIB

static double run(const struct bench_opts *o, int kind, char *dst, const char *src, size_t size) {
    long n = o->iters, w = o->warmup;
    double *t = bench_samples(n);
    size_t stride = (size + 7) & ~(size_t)7;
    size_t slots = AREA / stride;
    size_t slot = 0;
    for (long i = -w; i < n; i++) {
        double t0 = bench_now_ns();
        for (long k = 0; k < o->window; k++) {
            char *d = dst + slot * stride;
            if (kind == 0)
                shmem_long_p((long *)d, (long)k, 1);
            else if (kind == 3)
                shmem_long_atomic_add((long *)d, 1, 1);
            else if (kind == 1)
                shmem_putmem_nbi(d, src, size, 1);
            else
                shmem_putmem(d, src, size, 1);
            slot = slot + 1 == slots ? 0 : slot + 1;
        }
        shmem_quiet();
        double t1 = bench_now_ns();
        if (i >= 0)
            t[i] = bench_elapsed_ns(t0, t1);
    }
    return (double)o->window / bench_median(t, n) * 1e3;
}

int main(int argc, char **argv) {
    struct bench_opts o = {.min_size = 8,
                           .max_size = 8,
                           .factor = 2,
                           .iters = 2000,
                           .warmup = 200,
                           .window = 256,
                           .name = "msg_rate"};
    shmem_init();
    bench_parse(&o, argc, argv, NULL);
    bench_require_pes(&o, 2);
    if (o.max_size > AREA)
        o.max_size = AREA;
    bench_header(&o, "window of small puts + shmem_quiet, PE 0 -> PE 1");

    char *dst = bench_shmalloc(&o, AREA);
    char *src = bench_malloc(&o, o.max_size);
    int me = shmem_my_pe();
    shmem_barrier_all();

    if (me == 0)
        bench_report(&o, "msg_rate_p", sizeof(long), "rate_median", run(&o, 0, dst, src, 8),
                     "Mmsg/s");
    shmem_barrier_all();
    if (me == 0)
        bench_report(&o, "msg_rate_amo", sizeof(long), "rate_median", run(&o, 3, dst, src, 8),
                     "Mmsg/s");
    shmem_barrier_all();
    for (size_t size = o.min_size; size; size = bench_next_size(&o, size)) {
        if (me == 0) {
            bench_report(&o, "msg_rate_nbi", size, "rate_median", run(&o, 1, dst, src, size),
                         "Mmsg/s");
            bench_report(&o, "msg_rate_put", size, "rate_median", run(&o, 2, dst, src, size),
                         "Mmsg/s");
        }
        shmem_barrier_all();
    }

    shmem_free(dst);
    free(src);
    shmem_finalize();
    return 0;
}
