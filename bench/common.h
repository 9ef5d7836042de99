/*
 * common.h - shared vocabulary of the benchmark programs (header-only).
 *
 * Every program in bench/ is written against the standard shmem.h only, so
 * that it builds with any OpenSHMEM's oshcc.  This header provides:
 *
 *   - the command line:  -b MIN -e MAX -f FACTOR   message sizes (K/M/G suffixes)
 *                        -n ITERS  -w WARMUP        timed / untimed iterations
 *                        -W WINDOW                  operations per window (bandwidth, rate)
 *                        --nbi                      non-blocking variant (+ shmem_quiet)
 *                        --csv                      machine-readable output
 *   - the clock (clock_gettime(CLOCK_MONOTONIC)) and the median;
 *   - the output: one line per measurement, either a human table or
 *       bench,size,metric,value,unit
 *     (the format bench/compare.sh parses);
 *   - a point-to-point synchronisation between PE 0 and PE 1 that leaves the
 *     other PEs alone (they wait in shmem_barrier_all).
 *
 * Statistic: every figure is the MEDIAN over the timed iterations of the time
 * of one iteration (the machines are shared and noisy; the median ignores the
 * iterations a neighbour stole).  The metric name says so ("lat_median", ...).
 */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#if !defined(_POSIX_C_SOURCE) || _POSIX_C_SOURCE < 200809L
#undef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <shmem.h>

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BENCH_KIB ((size_t)1 << 10)
#define BENCH_MIB ((size_t)1 << 20)

struct bench_opts {
    size_t min_size;  /* -b */
    size_t max_size;  /* -e */
    size_t factor;    /* -f */
    long iters;       /* -n */
    long warmup;      /* -w */
    long window;      /* -W */
    int nbi;          /* --nbi */
    int csv;          /* --csv */
    const char *name; /* program name, for messages */
};

/* Cost of one clock read, subtracted from every timed iteration. */
static double bench_clock_overhead_ns;

static inline double bench_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int bench_cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of v[0..n-1]; sorts v in place. */
static inline double bench_median(double *v, long n) {
    if (n <= 0)
        return 0.0;
    qsort(v, (size_t)n, sizeof(*v), bench_cmp_double);
    return (n & 1) ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Median cost of a clock read (two back-to-back reads), in ns. */
static inline double bench_calibrate_clock(void) {
    enum { N = 2001 };
    static double d[N];
    for (int i = 0; i < N; i++) {
        double t0 = bench_now_ns();
        double t1 = bench_now_ns();
        d[i] = t1 - t0;
    }
    return bench_median(d, N);
}

/* Elapsed ns between two clock reads, less the clock's own cost (never < 0). */
static inline double bench_elapsed_ns(double t0, double t1) {
    double e = t1 - t0 - bench_clock_overhead_ns;
    return e > 0.0 ? e : 0.0;
}

static void bench_die(const char *name, const char *msg, const char *arg) {
    if (shmem_my_pe() == 0)
        fprintf(stderr, "%s: %s%s%s\n", name, msg, arg ? " " : "", arg ? arg : "");
    shmem_global_exit(2);
    exit(2);
}

/* "4096", "4K", "4M", "1G" -> bytes; 0 on a malformed value. */
static inline size_t bench_parse_size(const char *s) {
    char *end = NULL;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s)
        return 0;
    switch (*end) {
    case 'k':
    case 'K':
        v <<= 10;
        end++;
        break;
    case 'm':
    case 'M':
        v <<= 20;
        end++;
        break;
    case 'g':
    case 'G':
        v <<= 30;
        end++;
        break;
    default: break;
    }
    if (*end == 'B' || *end == 'b')
        end++;
    return *end ? 0 : (size_t)v;
}

static inline long bench_parse_long(const char *name, const char *s) {
    char *end = NULL;
    long v = strtol(s, &end, 10);
    if (end == s || *end || v < 0)
        bench_die(name, "bad number:", s);
    return v;
}

static void bench_usage(const struct bench_opts *o, const char *extra) {
    if (shmem_my_pe() != 0)
        return;
    fprintf(stderr,
            "usage: %s [-b MIN] [-e MAX] [-f FACTOR] [-n ITERS] [-w WARMUP] [-W WINDOW]\n"
            "          [--nbi] [--csv]\n"
            "  defaults: -b %zu -e %zu -f %zu -n %ld -w %ld -W %ld\n"
            "  sizes accept K/M/G suffixes; every figure is the median over iterations.\n%s",
            o->name, o->min_size, o->max_size, o->factor, o->iters, o->warmup, o->window,
            extra ? extra : "");
}

/*
 * Parse the shared vocabulary.  `o` holds the program's defaults on entry.
 * Call after shmem_init().  Unknown options end the job.
 */
static inline void bench_parse(struct bench_opts *o, int argc, char **argv, const char *extra) {
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = (i + 1 < argc) ? argv[i + 1] : NULL;
        if (!strcmp(a, "--csv")) {
            o->csv = 1;
        } else if (!strcmp(a, "--nbi")) {
            o->nbi = 1;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            bench_usage(o, extra);
            shmem_finalize();
            exit(0);
        } else if (v && (!strcmp(a, "-b") || !strcmp(a, "-e"))) {
            size_t s = bench_parse_size(v);
            if (s == 0)
                bench_die(o->name, "bad size:", v);
            if (a[1] == 'b')
                o->min_size = s;
            else
                o->max_size = s;
            i++;
        } else if (v && !strcmp(a, "-f")) {
            o->factor = (size_t)bench_parse_long(o->name, v);
            i++;
        } else if (v && !strcmp(a, "-n")) {
            o->iters = bench_parse_long(o->name, v);
            i++;
        } else if (v && !strcmp(a, "-w")) {
            o->warmup = bench_parse_long(o->name, v);
            i++;
        } else if (v && !strcmp(a, "-W")) {
            o->window = bench_parse_long(o->name, v);
            i++;
        } else {
            bench_usage(o, extra);
            bench_die(o->name, "unknown or incomplete option:", a);
        }
    }
    if (o->factor < 2)
        bench_die(o->name, "-f must be at least 2", NULL);
    if (o->iters < 1 || o->window < 1)
        bench_die(o->name, "-n and -W must be at least 1", NULL);
    if (o->min_size > o->max_size)
        bench_die(o->name, "-b must not exceed -e", NULL);
    bench_clock_overhead_ns = bench_calibrate_clock();
}

/* Next size of the sweep; returns 0 past the end. */
static inline size_t bench_next_size(const struct bench_opts *o, size_t s) {
    if (s >= o->max_size)
        return 0;
    return (s > o->max_size / o->factor) ? o->max_size : s * o->factor;
}

/*
 * Iterations for one size: the requested -n, reduced for large messages so
 * that one size moves at most `budget` bytes (never below 10 iterations).
 * Warm-up is capped the same way.
 */
static inline long bench_iters_for(const struct bench_opts *o, size_t bytes_per_iter,
                                   size_t budget) {
    long n = o->iters;
    if (bytes_per_iter > 0 && (size_t)n > budget / bytes_per_iter)
        n = (long)(budget / bytes_per_iter);
    if (n < 10)
        n = 10;
    return n < o->iters ? n : o->iters;
}

static inline long bench_warmup_for(const struct bench_opts *o, long iters) {
    long w = o->warmup;
    long cap = iters / 5 + 1;
    return w < cap ? w : cap;
}

/* Samples buffer of at least n doubles (grown on demand, never freed). */
static inline double *bench_samples(long n) {
    static double *buf;
    static long cap;
    if (n > cap) {
        double *p = realloc(buf, (size_t)n * sizeof(*p));
        if (!p) {
            fprintf(stderr, "bench: out of memory for %ld samples\n", n);
            shmem_global_exit(2);
            exit(2);
        }
        buf = p;
        cap = n;
    }
    return buf;
}

/* Human header: the library and what the program measures (PE 0, not in CSV). */
static inline void bench_header(const struct bench_opts *o, const char *what) {
    if (shmem_my_pe() != 0 || o->csv)
        return;
    char lib[SHMEM_MAX_NAME_LEN + 1];
    int major = 0, minor = 0;
    memset(lib, 0, sizeof(lib));
    shmem_info_get_name(lib);
    shmem_info_get_version(&major, &minor);
    printf("# %s: %s\n", o->name, what);
    printf("# library: %s (OpenSHMEM %d.%d), %d PEs, statistic: median over iterations\n", lib,
           major, minor, shmem_n_pes());
    printf("%-24s %10s %-12s %14s  %s\n", "# bench", "size", "metric", "value", "unit");
    fflush(stdout);
}

/* One measurement line (printed by PE 0 only). */
static inline void bench_report(const struct bench_opts *o, const char *bench, size_t size,
                                const char *metric, double value, const char *unit) {
    if (shmem_my_pe() != 0)
        return;
    if (o->csv)
        printf("%s,%zu,%s,%.4f,%s\n", bench, size, metric, value, unit);
    else
        printf("%-24s %10zu %-12s %14.4f  %s\n", bench, size, metric, value, unit);
    fflush(stdout);
}

/* At least two PEs, or the program has nothing to measure. */
static inline void bench_require_pes(const struct bench_opts *o, int n) {
    if (shmem_n_pes() < n) {
        if (shmem_my_pe() == 0)
            fprintf(stderr, "%s: needs at least %d PEs (run with oshrun -np %d)\n", o->name, n, n);
        shmem_finalize();
        exit(1);
    }
}

/*
 * Synchronise PE 0 and PE 1 only: each writes an increasing sequence number
 * into the other's flag and waits for the peer's.  The shmem_quiet orders
 * the caller's earlier puts before the flag write, so the peer that sees the
 * flag also sees the data.  Other PEs do not take part.
 */
static long bench_pair_flag;
static long bench_pair_seq;

static inline void bench_pair_sync(void) {
    int me = shmem_my_pe();
    if (me > 1)
        return;
    bench_pair_seq++;
    shmem_quiet();
    shmem_long_p(&bench_pair_flag, bench_pair_seq, 1 - me);
    shmem_quiet();
    shmem_long_wait_until(&bench_pair_flag, SHMEM_CMP_GE, bench_pair_seq);
}

/* Symmetric allocation that ends the job on failure; touched so no page faults are timed. */
static inline void *bench_shmalloc(const struct bench_opts *o, size_t bytes) {
    void *p = shmem_malloc(bytes ? bytes : 1);
    if (!p)
        bench_die(o->name, "shmem_malloc failed (symmetric heap too small?)", NULL);
    memset(p, 0x5a, bytes);
    return p;
}

static inline void *bench_malloc(const struct bench_opts *o, size_t bytes) {
    void *p = malloc(bytes ? bytes : 1);
    if (!p)
        bench_die(o->name, "malloc failed", NULL);
    memset(p, 0xa5, bytes);
    return p;
}

/*
 * Largest value over all PEs, known at PE 0 (for collectives, where the
 * operation is complete when the slowest PE is done).  All PEs call it.
 */
static inline double bench_max_over_pes(double v) {
    static double *slots;
    int n = shmem_n_pes();
    if (!slots) {
        slots = shmem_malloc((size_t)n * sizeof(double));
        if (!slots) {
            fprintf(stderr, "bench: shmem_malloc failed\n");
            shmem_global_exit(2);
            exit(2);
        }
    }
    shmem_barrier_all();
    shmem_putmem(&slots[shmem_my_pe()], &v, sizeof(v), 0);
    shmem_barrier_all();
    /* Read through the library, not by loads: in GPU builds the heap may be
     * GPU memory, which host code cannot load (barrier_lat runs there too). */
    double m = v;
    if (shmem_my_pe() == 0)
        for (int i = 0; i < n; i++) {
            double x = shmem_double_g(&slots[i], 0);
            m = x > m ? x : m;
        }
    return m;
}

#endif /* BENCH_COMMON_H */
