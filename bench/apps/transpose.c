/*
 * transpose - B += A^T for an N x N matrix distributed by column blocks.
 *
 * Each PE holds N/np columns of A and of B (column-major blocks in private
 * memory). Every iteration is an all-to-all: for each other PE j, the PE
 * transposes the block of its columns that lands in j's columns into a
 * buffer and puts it (shmem_putmem, one contiguous block) into j's symmetric
 * receive area, in the slot of the sender; then shmem_barrier_all; then each
 * PE adds every received block (and its own diagonal block, transposed in
 * place of a put) into its B. Then A grows by 1.
 *
 * A(i, j) = i * N + j at the start, so after T iterations
 * B(i, j) = T * (j * N + i) + T (T - 1) / 2: checked at every element.
 * Rate: 2 * 8 * N * N bytes per iteration (A read, B written), MB/s.
 *
 *   -N matrix order (default 2048; a multiple of the PE count), -n iterations
 *   (10), -w warm-up (1).
 */
#include "app.h"

static struct app_opts o = {.name = "transpose", .iters = 10, .warmup = 1, .size = 2048};

int main(int argc, char **argv) {
    shmem_init();
    app_parse(&o, argc, argv, "-N matrix order (a multiple of the PE count)");
    int me = shmem_my_pe(), np = shmem_n_pes();
    long n = o.size;
    if (n % np)
        app_fail(&o, "the order %ld is not a multiple of %d PEs", n, np);
    long cols = n / np;                       /* my columns: [me * cols, (me + 1) * cols) */
    size_t blk = (size_t)cols * (size_t)cols; /* one cols x cols block */
    /* Column-major: A(i, jl) at a[jl * n + i], jl my local column. */
    double *a = app_malloc(&o, (size_t)n * (size_t)cols * sizeof(double));
    double *b = app_malloc(&o, (size_t)n * (size_t)cols * sizeof(double));
    double *work = app_malloc(&o, blk * sizeof(double));
    double *recv = app_shmalloc(&o, (size_t)np * blk * sizeof(double));
    for (long jl = 0; jl < cols; jl++)
        for (long i = 0; i < n; i++) {
            a[(size_t)jl * (size_t)n + (size_t)i] =
                (double)i * (double)n + (double)(me * cols + jl);
            b[(size_t)jl * (size_t)n + (size_t)i] = 0.0;
        }
    shmem_barrier_all();

    long total = o.warmup + o.iters;
    double t0 = 0;
    for (long it = 0; it < total; it++) {
        app_timer(&o, it, &t0);
        for (int k = 0; k < np; k++) {
            int j = (me + k) % np;
            /* Rows [j * cols, (j + 1) * cols) of my columns, transposed: the
             * block of B(j's columns, my rows), column-major for j. */
            for (long jl = 0; jl < cols; jl++)
                for (long r = 0; r < cols; r++)
                    work[(size_t)r * (size_t)cols + (size_t)jl] =
                        a[(size_t)jl * (size_t)n + (size_t)(j * cols + r)];
            if (j == me)
                memcpy(recv + (size_t)me * blk, work, blk * sizeof(double));
            else
                shmem_putmem(recv + (size_t)me * blk, work, blk * sizeof(double), j);
        }
        shmem_barrier_all();
        /* Block from PE s holds B(rows of s, my columns): row s*cols + c of my
         * local column jl at [jl * cols + c]. */
        for (int s = 0; s < np; s++)
            for (long jl = 0; jl < cols; jl++) {
                const double *src = recv + (size_t)s * blk + (size_t)jl * (size_t)cols;
                double *dst = b + (size_t)jl * (size_t)n + (size_t)s * (size_t)cols;
                for (long c = 0; c < cols; c++)
                    dst[c] += src[c];
            }
        for (size_t x = 0; x < (size_t)n * (size_t)cols; x++)
            a[x] += 1.0;
        shmem_barrier_all(); /* the receive area is free again */
    }
    double t = app_max(&o, app_now() - t0);

    double T = (double)total;
    for (long jl = 0; jl < cols; jl++)
        for (long i = 0; i < n; i++) {
            double j = (double)(me * cols + jl);
            double want = T * (j * (double)n + (double)i) + T * (T - 1) / 2;
            double v = b[(size_t)jl * (size_t)n + (size_t)i];
            if (v != want)
                app_fail(&o, "B(%ld, %.0f) is %.17g, expected %.17g", i, j, v, want);
        }
    double bytes = 2.0 * 8.0 * (double)n * (double)n * (double)o.iters;
    app_report(&o, "app_transpose", n, "rate", bytes / t * 1e-6, "MB/s");
    shmem_barrier_all();
    shmem_free(recv);
    free(a);
    free(b);
    free(work);
    shmem_finalize();
    return 0;
}
