/*
 * wavefront - a pipelined point-to-point sweep over an M x N grid.
 *
 * a(i, j) = a(i - 1, j) + a(i, j - 1) - a(i - 1, j - 1), row after row. The
 * columns are cut into blocks, one per PE; row i of a PE's block needs the
 * last point of row i of the PE to its left. So every PE, for every row:
 * waits for its left neighbour's flag of that row (shmem_long_wait_until),
 * computes its part of the row, and sends its last point to its right
 * neighbour (shmem_double_p, shmem_fence, then the flag: shmem_long_p). The
 * PEs form a pipeline down the rows. At the end of a sweep the last PE sends
 * -a(M-1, N-1) back to PE 0 as the next sweep's a(0, 0), so sweeps do not
 * overlap.
 *
 * With a(0, j) = j and a(i, 0) = i, a(i, j) = i + j - a(0, 0) inside, so after
 * T sweeps a(M-1, N-1) = T (M + N - 2): checked at the last PE.
 * Rate: 2 flops per interior point and sweep, MFlop/s.
 *
 *   -N grid points per side (default 2000), -n sweeps (20), -w warm-up (2).
 */
#include "app.h"

static struct app_opts o = {.name = "wavefront", .iters = 20, .warmup = 2, .size = 2000};

int main(int argc, char **argv) {
    shmem_init();
    app_parse(&o, argc, argv, "-N grid points per side");
    int me = shmem_my_pe(), np = shmem_n_pes();
    long m = o.size, n = o.size;
    if (n / np < 2)
        app_fail(&o, "grid of %ld is too small for %d PEs", n, np);
    long j0 = n * me / np, j1 = n * (me + 1) / np, w = j1 - j0;
    /* My columns, plus column j0 - 1 (the left neighbour's last), row-major. */
    size_t ld = (size_t)w + 1;
    double *a = app_malloc(&o, (size_t)m * ld * sizeof(double));
    double *left = app_shmalloc(&o, (size_t)m * sizeof(double)); /* from the left */
    long *flag = app_shmalloc(&o, (size_t)m * sizeof(long));
    double *corner = app_shmalloc(&o, sizeof(double));
    long *corner_flag = app_shmalloc(&o, sizeof(long));
    for (long i = 0; i < m; i++)
        flag[i] = 0;
    *corner_flag = 0;
    *corner = 0;
    for (long i = 0; i < m; i++)
        for (long jl = 0; jl <= w; jl++)
            a[(size_t)i * ld + (size_t)jl] = 0.0;
    for (long jl = 0; jl <= w; jl++)
        a[(size_t)jl] = (double)(j0 - 1 + jl); /* row 0: a(0, j) = j */
    if (me == 0)
        for (long i = 0; i < m; i++)
            a[(size_t)i * ld + 1] = (double)i; /* column 0: a(i, 0) = i */
    shmem_barrier_all();

    long total = o.warmup + o.iters;
    double t0 = 0;
    for (long it = 1; it <= total; it++) {
        app_timer(&o, it - 1, &t0);
        if (me == 0 && it > 1 && np > 1) {
            shmem_long_wait_until(corner_flag, SHMEM_CMP_GE, it - 1);
            a[1] = *corner; /* a(0, 0) */
        }
        for (long i = 1; i < m; i++) {
            double *row = a + (size_t)i * ld, *up = row - ld;
            if (me > 0) {
                shmem_long_wait_until(&flag[i], SHMEM_CMP_GE, it);
                row[0] = left[i];
            }
            /* PE 0's first column is the fixed a(i, 0). */
            for (long jl = me == 0 ? 2 : 1; jl <= w; jl++)
                row[jl] = up[jl] + row[jl - 1] - up[jl - 1];
            if (me < np - 1) {
                shmem_double_p(&left[i], row[w], me + 1);
                shmem_fence();
                shmem_long_p(&flag[i], it, me + 1);
            }
        }
        if (me == np - 1) {
            /* The next sweep's a(0, 0), to PE 0 (its flag after the value). */
            double c = -a[(size_t)(m - 1) * ld + (size_t)w];
            if (np == 1) {
                a[1] = c;
            } else {
                shmem_double_p(corner, c, 0);
                shmem_fence();
                shmem_long_p(corner_flag, it, 0);
            }
        }
    }
    double t = app_max(&o, app_now() - t0);

    if (me == np - 1) {
        double want = (double)total * (double)(m + n - 2);
        double v = a[(size_t)(m - 1) * ld + (size_t)w];
        if (v != want)
            app_fail(&o, "a(%ld, %ld) is %.17g after %ld sweeps, expected %.17g", m - 1, n - 1, v,
                     total, want);
    }
    double flops = 2.0 * (double)(m - 1) * (double)(n - 1) * (double)o.iters;
    app_report(&o, "app_wavefront", n, "rate", flops / t * 1e-6, "MFlop/s");
    shmem_barrier_all();
    shmem_free(left);
    shmem_free(flag);
    shmem_free(corner);
    shmem_free(corner_flag);
    free(a);
    shmem_finalize();
    return 0;
}
