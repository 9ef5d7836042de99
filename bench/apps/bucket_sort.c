/*
 * bucket_sort - an integer sort with one all-to-all of large puts.
 *
 * Each PE holds N random keys in [0, N * np). PE j owns the keys of
 * [j * N, (j + 1) * N). Every iteration each PE counts its keys per owner,
 * copies them into one send buffer grouped by owner, and exchanges them: for
 * each owner j, one shmem_int_atomic_fetch_add on j's receive count reserves
 * room in j's receive buffer, and one shmem_int_put moves the keys there (for
 * N = 16M keys and 2 PEs: about 32 MB per put); then shmem_barrier_all. Each
 * PE then sorts what it received with a counting sort over its own key range.
 *
 * Checked every iteration: every received key is in the PE's range, and the
 * sorted output is in order; at the end, the number and the sum of the keys
 * received over all PEs equal those generated.
 * Rates: keys sorted per second over all PEs (Mkeys/s), and the median time
 * of the exchange phase (fetch-add, put, barrier) at the slowest PE.
 *
 *   -N keys per PE (default 16M), -n iterations (5), -w warm-up (1).
 */
#include "app.h"

static struct app_opts o = {.name = "bucket_sort", .iters = 5, .warmup = 1, .size = 1L << 24};

static int recv_count; /* symmetric: keys received this iteration */

static int cmp_double(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

int main(int argc, char **argv) {
    shmem_init();
    app_parse(&o, argc, argv, "-N keys per PE");
    int me = shmem_my_pe(), np = shmem_n_pes();
    long n = o.size;
    if (n > (1L << 30) / np)
        app_fail(&o, "%ld keys per PE overflow the key range of %d PEs", n, np);
    long cap = n + n / 4 + 4096; /* room for an uneven share */
    int *keys = app_malloc(&o, (size_t)n * sizeof(int));
    int *send = app_malloc(&o, (size_t)n * sizeof(int));
    int *sorted = app_malloc(&o, (size_t)cap * sizeof(int));
    int *counts = app_malloc(&o, (size_t)n * sizeof(int));
    long *bucket = app_malloc(&o, 2 * (size_t)np * sizeof(long)), *start = bucket + np;
    int *recv = app_shmalloc(&o, (size_t)cap * sizeof(int));
    double *times = app_malloc(&o, (size_t)o.iters * sizeof(double));

    /* The keys: a per-PE linear congruential sequence (the same on every run). */
    uint64_t x = 0x9E3779B97F4A7C15ull * (uint64_t)(me + 1);
    double key_sum = 0;
    for (long i = 0; i < n; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        keys[i] = (int)((x >> 33) % (uint64_t)(n * np));
        key_sum += keys[i];
    }
    recv_count = 0;
    shmem_barrier_all();

    long total = o.warmup + o.iters, got = 0;
    double got_sum = 0, t0 = 0;
    for (long it = 0; it < total; it++) {
        app_timer(&o, it, &t0);
        /* Count per owner, then group the keys by owner. */
        for (int j = 0; j < np; j++)
            bucket[j] = 0;
        for (long i = 0; i < n; i++)
            bucket[keys[i] / n]++;
        for (int j = 0, s = 0; j < np; s += (int)bucket[j], j++)
            start[j] = s;
        for (long i = 0; i < n; i++)
            send[start[keys[i] / n]++] = keys[i];
        for (int j = 0; j < np; j++)
            start[j] -= bucket[j];

        /* The exchange: one fetch-add and one put per owner, then a barrier. */
        double te = app_now();
        for (int k = 0; k < np; k++) {
            int j = (me + k) % np;
            int off = shmem_int_atomic_fetch_add(&recv_count, (int)bucket[j], j);
            if (off + bucket[j] > cap)
                app_fail(&o, "PE %d's receive buffer of %ld keys overflows", j, cap);
            shmem_int_put(recv + off, send + start[j], (size_t)bucket[j], j);
        }
        shmem_barrier_all();
        if (it >= o.warmup)
            times[it - o.warmup] = app_now() - te;

        /* Counting sort of my range. */
        long mine = recv_count, lo = (long)me * n;
        memset(counts, 0, (size_t)n * sizeof(int));
        for (long i = 0; i < mine; i++) {
            long k = (long)recv[i] - lo;
            if (k < 0 || k >= n)
                app_fail(&o, "iteration %ld: key %d is not in my range [%ld, %ld)", it, recv[i], lo,
                         lo + n);
            counts[k]++;
        }
        long out = 0;
        for (long k = 0; k < n; k++)
            for (int c = 0; c < counts[k]; c++)
                sorted[out++] = (int)(lo + k);
        for (long i = 1; i < out; i++)
            if (sorted[i - 1] > sorted[i])
                app_fail(&o, "iteration %ld: output out of order at %ld", it, i);
        if (it == total - 1) {
            got = mine;
            for (long i = 0; i < mine; i++)
                got_sum += recv[i];
        }
        shmem_barrier_all(); /* everyone has read its count */
        recv_count = 0;
        shmem_barrier_all(); /* before anyone adds to it again */
    }
    double t = app_max(&o, app_now() - t0);
    qsort(times, (size_t)o.iters, sizeof(double), cmp_double);
    double ex = app_max(&o, times[o.iters / 2]);

    double all_got = app_sum(&o, (double)got), all_sum = app_sum(&o, got_sum);
    double all_keys = app_sum(&o, (double)n), all_key_sum = app_sum(&o, key_sum);
    if (me == 0 && (all_got != all_keys || all_sum != all_key_sum))
        app_fail(&o, "received %.0f keys summing to %.0f; generated %.0f summing to %.0f", all_got,
                 all_sum, all_keys, all_key_sum);
    app_report(&o, "app_sort", n, "rate", (double)n * np * (double)o.iters / t * 1e-6, "Mkeys/s");
    app_report(&o, "app_sort_exchange", n, "time_median", ex, "s");
    shmem_barrier_all();
    shmem_free(recv);
    free(keys);
    free(send);
    free(sorted);
    free(counts);
    free(bucket);
    free(times);
    shmem_finalize();
    return 0;
}
