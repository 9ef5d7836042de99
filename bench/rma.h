/*
 * rma.h - the loop of put_lat, get_lat, put_bw and get_bw: PE 0 moves
 * `size` bytes between one local buffer and one symmetric buffer of PE 1,
 * per message size.
 *
 * One timed iteration at PE 0 is a window of W transfers (W = 1 for the
 * latencies), then one shmem_quiet where the transfers need one to be done:
 * puts, whose blocking form returns at local completion, and non-blocking
 * gets (--nbi); a blocking get returns with the data in place. Reported: the
 * median iteration, in microseconds (latency), or size * W over it, in MB/s
 * (10^6 bytes per second; bandwidth). Other PEs wait in shmem_barrier_all.
 */
#ifndef BENCH_RMA_H
#define BENCH_RMA_H

#include "common.h"

enum rma_dir { RMA_PUT, RMA_GET };
enum rma_metric { RMA_LAT, RMA_BW };

static inline void rma_window(enum rma_dir dir, int nbi, long window, char *sym, char *loc,
                              size_t size) {
    for (long k = 0; k < window; k++) {
        if (dir == RMA_PUT && nbi)
            shmem_putmem_nbi(sym, loc, size, 1);
        else if (dir == RMA_PUT)
            shmem_putmem(sym, loc, size, 1);
        else if (nbi)
            shmem_getmem_nbi(loc, sym, size, 1);
        else
            shmem_getmem(loc, sym, size, 1);
    }
    if (dir == RMA_PUT || nbi)
        shmem_quiet();
}

static inline int rma_main(int argc, char **argv, enum rma_dir dir, enum rma_metric metric) {
    const char *op = dir == RMA_PUT ? "put" : "get";
    char name[16], bench[24], what[96];
    snprintf(name, sizeof(name), "%s_%s", op, metric == RMA_LAT ? "lat" : "bw");
    struct bench_opts o = {.min_size = 8,
                           .max_size = 4 * BENCH_MIB,
                           .factor = 2,
                           .iters = metric == RMA_LAT ? 1000 : 200,
                           .warmup = metric == RMA_LAT ? 100 : 20,
                           .window = metric == RMA_LAT ? 1 : 64,
                           .name = name};
    shmem_init();
    bench_parse(&o, argc, argv, NULL);
    bench_require_pes(&o, 2);
    snprintf(bench, sizeof(bench), "%s%s_%s", op, o.nbi ? "_nbi" : "",
             metric == RMA_LAT ? "lat" : "bw");
    snprintf(what, sizeof(what), "%sshmem_%smem%s%s, PE 0 %s PE 1",
             metric == RMA_BW ? "window of " : "", op, o.nbi ? "_nbi" : "",
             dir == RMA_PUT || o.nbi ? " + shmem_quiet" : "", dir == RMA_PUT ? "->" : "<-");
    bench_header(&o, what);

    char *sym = bench_shmalloc(&o, o.max_size);
    char *loc = bench_malloc(&o, o.max_size);
    int me = shmem_my_pe();
    long window = metric == RMA_LAT ? 1 : o.window;
    shmem_barrier_all();

    for (size_t size = o.min_size; size; size = bench_next_size(&o, size)) {
        long n = metric == RMA_LAT ? bench_iters_for(&o, size, 256 * BENCH_MIB)
                                   : bench_iters_for(&o, size * (size_t)window, 2048 * BENCH_MIB);
        long w = bench_warmup_for(&o, n);
        double *t = bench_samples(n);
        if (me == 0) {
            for (long i = -w; i < n; i++) {
                double t0 = bench_now_ns();
                rma_window(dir, o.nbi, window, sym, loc, size);
                double t1 = bench_now_ns();
                if (i >= 0)
                    t[i] = bench_elapsed_ns(t0, t1);
            }
            double ns = bench_median(t, n);
            if (metric == RMA_LAT)
                bench_report(&o, bench, size, "lat_median", ns / 1e3, "us");
            else
                bench_report(&o, bench, size, "bw_median", (double)size * (double)window / ns * 1e3,
                             "MB/s");
        }
        shmem_barrier_all();
    }

    shmem_free(sym);
    free(loc);
    shmem_finalize();
    return 0;
}

#endif
