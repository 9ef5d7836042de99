/*
 * static_triad - local computation on large static arrays: what making
 * global and static variables symmetric costs a program that never
 * communicates them.
 *
 * A library may keep the data segment as the program's private memory (and
 * reach it otherwise), or move it onto shared memory at shmem_init so that
 * peers map it (this library, SHMEM_SHARE_STATIC_DATA=1): then its pages are
 * shared-memory pages, which take a page fault the first time they are
 * touched like private ones, but get transparent huge pages only where the
 * kernel gives them to shared memory (shmem_enabled), while private memory may
 * get them where `enabled` allows. Every PE runs a[i] = b[i] + s * c[i] over
 * three static arrays of -e bytes each (default 64 MiB), b and c filled
 * before: the first pass (a's page faults included) and the median of the
 * next ones.
 *
 *   static_triad,BYTES,first_pass,ms      static_triad,BYTES,pass_median,ms
 *   static_triad,BYTES,bw_median,MB/s     (3 arrays per pass)
 */
#include "common.h"

#define MAXB (64u << 20)
#define MAXN (MAXB / sizeof(double))

static double a[MAXN], b[MAXN], c[MAXN];

static void triad(size_t n, double s) {
    for (size_t i = 0; i < n; i++)
        a[i] = b[i] + s * c[i];
}

int main(int argc, char **argv) {
    struct bench_opts o = {.min_size = MAXB,
                           .max_size = MAXB,
                           .factor = 2,
                           .iters = 10,
                           .warmup = 0,
                           .window = 1,
                           .name = "static_triad"};
    shmem_init();
    bench_parse(&o, argc, argv, "  -e: bytes per array (at most 64M)\n");
    if (o.max_size > MAXB)
        bench_die(o.name, "-e must be at most 64M", NULL);
    bench_header(&o, "a = b + s * c over three static arrays, every PE (max over PEs)");
    size_t n = o.max_size / sizeof(double);
    long iters = o.iters < 2 ? 2 : o.iters;
    double *t = bench_samples(iters);
    for (size_t i = 0; i < n; i++) { /* b and c as a program would fill them */
        b[i] = 1.0;
        c[i] = 2.0;
    }
    shmem_barrier_all();
    for (long it = 0; it < iters; it++) {
        double t0 = bench_now_ns();
        triad(n, 1.0 + (double)it);
        t[it] = bench_elapsed_ns(t0, bench_now_ns()) * 1e-6;
    }
    double first = bench_max_over_pes(t[0]);
    double med = bench_max_over_pes(bench_median(t + 1, iters - 1));
    /* The result, so that the loop is not optimized away. */
    if (a[n - 1] != b[n - 1] + (double)iters * c[n - 1])
        bench_die(o.name, "wrong result", NULL);
    bench_report(&o, "static_triad", o.max_size, "first_pass", first, "ms");
    bench_report(&o, "static_triad", o.max_size, "pass_median", med, "ms");
    bench_report(&o, "static_triad", o.max_size, "bw_median",
                 3.0 * (double)o.max_size / (med * 1e-3) * 1e-6, "MB/s");
    shmem_finalize();
    return 0;
}
