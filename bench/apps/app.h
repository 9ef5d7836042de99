/*
 * app.h - what the application benchmarks (bench/apps/) share: a small
 * command line, a clock, a failure path and the output line.
 *
 * Each program is a self-contained kernel that looks like an application
 * (mostly local work, with the communication pattern of a known code),
 * validates its result and prints its rate. Written against the standard
 * shmem.h of OpenSHMEM 1.4 only (no teams, no signals), so that the same source
 * builds with any OpenSHMEM's oshcc.
 *
 * Command line: -n ITERS (timed iterations), -w WARMUP (untimed ones),
 * -N SIZE (the problem size, per program; K/M suffixes), --csv.
 * Output, PE 0: one line per figure, as bench/common.h writes them:
 *     bench,size,metric,value,unit
 * (human: the same as a table). The rate is the work of the timed iterations
 * divided by their time, measured between two barriers at PE 0. A failed
 * validation prints "<app>: FAILED: ..." and ends the job with status 1.
 */
#ifndef BENCH_APP_H
#define BENCH_APP_H

#if !defined(_POSIX_C_SOURCE) || _POSIX_C_SOURCE < 200809L
#undef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <shmem.h>

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct app_opts {
    const char *name;
    long iters, warmup;
    long size; /* -N */
    int csv;
};

static inline double app_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

__attribute__((format(printf, 2, 3))) static void app_fail(const struct app_opts *o,
                                                           const char *fmt, ...) {
    va_list ap;
    fprintf(stderr, "%s: FAILED on PE %d: ", o->name, shmem_my_pe());
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n");
    fflush(stderr);
    shmem_global_exit(1);
    exit(1);
}

static inline long app_number(const struct app_opts *o, const char *s) {
    char *end = NULL;
    long v = strtol(s, &end, 10);
    if (end == s || v < 0)
        app_fail(o, "bad number: %s", s);
    if (*end == 'k' || *end == 'K')
        v <<= 10, end++;
    else if (*end == 'm' || *end == 'M')
        v <<= 20, end++;
    if (*end)
        app_fail(o, "bad number: %s", s);
    return v;
}

/* Parse after shmem_init; `o` holds the defaults. */
static inline void app_parse(struct app_opts *o, int argc, char **argv, const char *usage) {
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--csv")) {
            o->csv = 1;
        } else if (v && !strcmp(a, "-n")) {
            o->iters = app_number(o, v), i++;
        } else if (v && !strcmp(a, "-w")) {
            o->warmup = app_number(o, v), i++;
        } else if (v && !strcmp(a, "-N")) {
            o->size = app_number(o, v), i++;
        } else {
            if (shmem_my_pe() == 0)
                fprintf(stderr, "usage: %s [-n ITERS] [-w WARMUP] [-N SIZE] [--csv]\n  %s\n",
                        o->name, usage);
            shmem_global_exit(2);
            exit(2);
        }
    }
    if (o->iters < 1 || o->size < 1)
        app_fail(o, "-n and -N must be at least 1");
}

static inline void app_report(const struct app_opts *o, const char *bench, long size,
                              const char *metric, double value, const char *unit) {
    if (shmem_my_pe() != 0)
        return;
    if (o->csv)
        printf("%s,%ld,%s,%.4f,%s\n", bench, size, metric, value, unit);
    else
        printf("%-24s %10ld %-12s %14.4f  %s\n", bench, size, metric, value, unit);
    fflush(stdout);
}

/* Call at the top of every iteration with the number already done: once the
 * warm-up ones are, a barrier and the start of the clock (*t0). */
static inline void app_timer(const struct app_opts *o, long done, double *t0) {
    if (done == o->warmup) {
        shmem_barrier_all();
        *t0 = app_now();
    }
}

/* The calling thread's involuntary context switches so far (Linux: -1 elsewhere): how
 * often something took its core while it computed. */
static inline long app_preemptions(void) {
    char line[128];
    long v = -1;
    FILE *f = fopen("/proc/thread-self/status", "r");
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "nonvoluntary_ctxt_switches:", 27))
            v = strtol(line + 27, NULL, 10);
    fclose(f);
    return v;
}

/* Symmetric allocation that ends the job on failure. */
static inline void *app_shmalloc(const struct app_opts *o, size_t bytes) {
    void *p = shmem_malloc(bytes ? bytes : 1);
    if (!p)
        app_fail(o, "shmem_malloc(%zu) failed (raise SHMEM_SYMMETRIC_SIZE)", bytes);
    return p;
}

static inline void *app_malloc(const struct app_opts *o, size_t bytes) {
    void *p = malloc(bytes ? bytes : 1);
    if (!p)
        app_fail(o, "malloc(%zu) failed", bytes);
    return p;
}

/* Every PE's value gathered at PE 0 (all PEs call it; PE 0 reads vals[]). */
static inline const double *app_gather(const struct app_opts *o, double v) {
    static double *slots;
    if (!slots)
        slots = app_shmalloc(o, (size_t)shmem_n_pes() * sizeof(double));
    shmem_barrier_all();
    shmem_double_p(&slots[shmem_my_pe()], v, 0);
    shmem_barrier_all();
    return slots;
}

/* The largest of every PE's value, known at PE 0 (all PEs call it). */
static inline double app_max(const struct app_opts *o, double v) {
    const double *s = app_gather(o, v);
    double m = v;
    if (shmem_my_pe() == 0)
        for (int i = 0; i < shmem_n_pes(); i++)
            m = s[i] > m ? s[i] : m;
    return m;
}

/* The sum of every PE's value, known at PE 0 (all PEs call it). */
static inline double app_sum(const struct app_opts *o, double v) {
    const double *s = app_gather(o, v);
    double m = 0;
    if (shmem_my_pe() == 0)
        for (int i = 0; i < shmem_n_pes(); i++)
            m += s[i];
    return m;
}

#endif /* BENCH_APP_H */
