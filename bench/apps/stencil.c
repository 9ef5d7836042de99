/*
 * stencil - a 2D star stencil of radius R on an N x N grid with halo exchange.
 *
 * The grid is cut into row blocks, one per PE, held in private memory with R
 * halo rows above and below. Every iteration, each PE sends its first and
 * last R rows to its neighbours (shmem_putmem into a symmetric receive buffer
 * of two parities, then shmem_fence and a flag, shmem_long_p), waits for its
 * neighbours' rows (shmem_long_wait_until), copies them into its halo, and
 * applies the stencil to its interior points -- most of the time is this
 * local computation -- then adds 1 to every input point.
 *
 * Weights: +-1/(2kR) at distance k along each axis, so the stencil of the
 * linear field a(i,j) = i + j is exactly 2 at every point, and stays 2 when
 * the field grows by 1 per iteration. After T iterations every interior
 * point of the output holds 2T: checked at every point.
 * Rate: (4R + 1) * 2 flops per interior point and iteration, MFlop/s; and
 * app_stencil_preempt: involuntary context switches per second of the
 * computing thread (the most preempted PE), what helper threads and other
 * jobs cost the computation.
 *
 *   -N grid size (default 2048), -n iterations (20), -w warm-up (2).
 */
#include "app.h"

#define R 2

static struct app_opts o = {.name = "stencil", .iters = 20, .warmup = 2, .size = 2048};

int main(int argc, char **argv) {
    shmem_init();
    app_parse(&o, argc, argv, "-N grid points per side");
    int me = shmem_my_pe(), np = shmem_n_pes();
    long n = o.size;
    if (n < 2 * R + 1 || n / np < R)
        app_fail(&o, "grid of %ld is too small for %d PEs (radius %d)", n, np, R);
    /* My rows [lo, hi) of the grid; rows 0..R-1 and n-R..n-1 are boundary. */
    long lo = n * me / np, hi = n * (me + 1) / np, rows = hi - lo;
    size_t w = (size_t)n, halo = (size_t)R * w;
    /* Private grids with R halo rows above and below. */
    double *in = app_malloc(&o, (size_t)(rows + 2 * R) * w * sizeof(double));
    double *out = app_malloc(&o, (size_t)rows * w * sizeof(double));
    /* Symmetric: [parity][0: from the PE above, 1: from the PE below][R rows]. */
    double *recv = app_shmalloc(&o, 4 * halo * sizeof(double));
    long *flag = app_shmalloc(&o, 2 * sizeof(long)); /* [0]: above, [1]: below */
    flag[0] = flag[1] = 0;
    for (long i = 0; i < rows + 2 * R; i++)
        for (long j = 0; j < n; j++)
            in[(size_t)i * w + (size_t)j] = (double)(lo - R + i) + (double)j;
    memset(out, 0, (size_t)rows * w * sizeof(double));
    double wt[R + 1];
    for (int k = 1; k <= R; k++)
        wt[k] = 1.0 / (2.0 * k * R);
    shmem_barrier_all();

    long total = o.warmup + o.iters, pre0 = 0;
    double t0 = 0;
    for (long it = 1; it <= total; it++) {
        app_timer(&o, it - 1, &t0);
        if (it - 1 == o.warmup)
            pre0 = app_preemptions();
        int par = (int)(it & 1);
        double *inner = in + halo; /* my first row */
        /* My first R rows go to the PE above (its "from below" halo), my last
         * R rows to the PE below. */
        if (me > 0) {
            shmem_putmem(recv + ((size_t)par * 2 + 1) * halo, inner, halo * sizeof(double), me - 1);
            shmem_fence();
            shmem_long_p(&flag[1], it, me - 1);
        }
        if (me < np - 1) {
            shmem_putmem(recv + ((size_t)par * 2) * halo, inner + (size_t)(rows - R) * w,
                         halo * sizeof(double), me + 1);
            shmem_fence();
            shmem_long_p(&flag[0], it, me + 1);
        }
        if (me > 0) {
            shmem_long_wait_until(&flag[0], SHMEM_CMP_GE, it);
            memcpy(in, recv + ((size_t)par * 2) * halo, halo * sizeof(double));
        }
        if (me < np - 1) {
            shmem_long_wait_until(&flag[1], SHMEM_CMP_GE, it);
            memcpy(in + (size_t)(rows + R) * w, recv + ((size_t)par * 2 + 1) * halo,
                   halo * sizeof(double));
        }
        /* The interior points of my rows. */
        long i0 = lo < R ? R - lo : 0, i1 = hi > n - R ? rows - (hi - (n - R)) : rows;
        for (long i = i0; i < i1; i++) {
            const double *c = in + (size_t)(i + R) * w;
            double *d = out + (size_t)i * w;
            for (long j = R; j < n - R; j++) {
                double s = d[j];
                for (int k = 1; k <= R; k++)
                    s += wt[k] * (c[j + k] - c[j - k]) +
                         wt[k] * (c[(long)(k * n) + j] - c[j - (long)(k * n)]);
                d[j] = s;
            }
        }
        for (size_t x = 0; x < (size_t)(rows + 2 * R) * w; x++)
            in[x] += 1.0;
    }
    double t = app_now() - t0;
    long pre = app_preemptions() - pre0;
    shmem_barrier_all();
    double preempt_rate = app_max(&o, pre0 >= 0 ? (double)pre / t : 0.0);
    t = app_max(&o, t);

    /* Every interior point: 2 per iteration (warm-up included). */
    long i0 = lo < R ? R - lo : 0, i1 = hi > n - R ? rows - (hi - (n - R)) : rows;
    double want = 2.0 * (double)total;
    for (long i = i0; i < i1; i++)
        for (long j = R; j < n - R; j++) {
            double v = out[(size_t)i * w + (size_t)j];
            if (v < want - 1e-6 * want || v > want + 1e-6 * want)
                app_fail(&o, "point (%ld, %ld) is %.9g, expected %.9g", lo + i, j, v, want);
        }
    double interior = (double)(n - 2 * R) * (double)(n - 2 * R);
    double flops = (double)(4 * R + 1) * 2.0 * interior * (double)o.iters;
    app_report(&o, "app_stencil", n, "rate", flops / t * 1e-6, "MFlop/s");
    /* How often the computing threads lost their core (the most preempted PE). */
    app_report(&o, "app_stencil_preempt", n, "rate", preempt_rate, "1/s");
    shmem_barrier_all();
    shmem_free(recv);
    shmem_free(flag);
    free(in);
    free(out);
    shmem_finalize();
    return 0;
}
