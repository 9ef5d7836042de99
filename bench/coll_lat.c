/*
 * coll_lat - latency of collectives over all PEs, per size.
 *
 *   bcast_lat              broadcast of `size` bytes from PE 0 (1.5 API only: the
 *                          team form, which writes the root's dest too)
 *   bcast_set_lat          the active-set broadcast (shmem_broadcast64), which does
 *                          not: the form every library has, to compare them by
 *   fcollect_lat           fcollect, `size` bytes contributed by each PE
 *   alltoall_lat           alltoall, `size` bytes from each PE to each PE
 *   reduce_long_sum_lat    sum reduction of size/8 longs
 *   reduce_double_sum_lat  sum reduction of size/8 doubles
 *   inscan_long_lat        inclusive prefix sum of size/8 longs (1.6 API only)
 *   exscan_long_lat        exclusive prefix sum of size/8 longs (1.6 API only)
 *   team_sync_lat          shmem_team_sync(SHMEM_TEAM_WORLD) (1.5 API only)
 *
 * With an OpenSHMEM 1.5 shmem.h the team-based routines on SHMEM_TEAM_WORLD
 * are used (shmem_broadcastmem, shmem_fcollectmem, shmem_alltoallmem,
 * shmem_<T>_sum_reduce); with an older one (1.4, e.g. Open MPI's OSHMEM 4.1)
 * the active-set routines over all PEs (shmem_broadcast64, shmem_fcollect64,
 * shmem_alltoall64, shmem_<T>_sum_to_all), whose header line says so.
 *
 * Every iteration starts after an untimed shmem_barrier_all; each PE times
 * the call; the figure is the largest over PEs of each PE's median, in
 * microseconds.  Sizes are multiples of 8 bytes (smaller are raised to 8).
 */
#include "common.h"

#if defined(SHMEM_MAJOR_VERSION) && (SHMEM_MAJOR_VERSION * 100 + SHMEM_MINOR_VERSION) >= 105
#define COLL_API_15 1
#else
#define COLL_API_15 0
#endif
#if defined(SHMEM_MAJOR_VERSION) && (SHMEM_MAJOR_VERSION * 100 + SHMEM_MINOR_VERSION) >= 106
#define COLL_API_16 1
#else
#define COLL_API_16 0
#endif

enum coll {
    C_BCAST,
    C_BCAST_SET,
    C_FCOLLECT,
    C_ALLTOALL,
    C_RED_LONG,
    C_RED_DOUBLE,
    C_INSCAN,
    C_EXSCAN,
    C_COUNT
};
static const char *const coll_name[C_COUNT] = {
    "bcast_lat",           "bcast_set_lat",         "fcollect_lat",    "alltoall_lat",
    "reduce_long_sum_lat", "reduce_double_sum_lat", "inscan_long_lat", "exscan_long_lat"};
/* The team broadcast exists from 1.5 on. */
#define COLL_FIRST (COLL_API_15 ? C_BCAST : C_BCAST_SET)
/* The scans exist from 1.6 on: with an older library their rows are left out. */
#define COLL_LAST (COLL_API_16 ? C_COUNT : C_INSCAN)

/* The active-set broadcast's, and with a 1.4 library every collective's: at
 * least as long as each of them needs. */
static long psync[SHMEM_BCAST_SYNC_SIZE + SHMEM_REDUCE_SYNC_SIZE + SHMEM_COLLECT_SYNC_SIZE +
                  SHMEM_ALLTOALL_SYNC_SIZE];
#if !COLL_API_15
static long *lwrk;
static double *dwrk;
#endif

static void do_coll(enum coll c, char *dst, char *src, size_t size) {
    size_t n64 = size / 8;
    if (c == C_BCAST_SET) {
        /* Deprecated from 1.5 on, and still there. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
        shmem_broadcast64(dst, src, n64, 0, 0, 0, shmem_n_pes(), psync);
#pragma GCC diagnostic pop
        return;
    }
#if COLL_API_15
    switch (c) {
    case C_BCAST: shmem_broadcastmem(SHMEM_TEAM_WORLD, dst, src, size, 0); break;
    case C_FCOLLECT: shmem_fcollectmem(SHMEM_TEAM_WORLD, dst, src, size); break;
    case C_ALLTOALL: shmem_alltoallmem(SHMEM_TEAM_WORLD, dst, src, size); break;
    case C_RED_LONG: shmem_long_sum_reduce(SHMEM_TEAM_WORLD, (long *)dst, (long *)src, n64); break;
#if COLL_API_16
    case C_INSCAN: shmem_long_sum_inscan(SHMEM_TEAM_WORLD, (long *)dst, (long *)src, n64); break;
    case C_EXSCAN: shmem_long_sum_exscan(SHMEM_TEAM_WORLD, (long *)dst, (long *)src, n64); break;
#endif
    default: shmem_double_sum_reduce(SHMEM_TEAM_WORLD, (double *)dst, (double *)src, n64); break;
    }
#else
    int np = shmem_n_pes();
    switch (c) {
    case C_FCOLLECT: shmem_fcollect64(dst, src, n64, 0, 0, np, psync); break;
    case C_ALLTOALL: shmem_alltoall64(dst, src, n64, 0, 0, np, psync); break;
    case C_RED_LONG:
        shmem_long_sum_to_all((long *)dst, (long *)src, (int)n64, 0, 0, np, lwrk, psync);
        break;
    default:
        shmem_double_sum_to_all((double *)dst, (double *)src, (int)n64, 0, 0, np, dwrk, psync);
        break;
    }
#endif
}

static double run(const struct bench_opts *o, long n, long w, enum coll c, char *dst, char *src,
                  size_t size) {
    double *t = bench_samples(n);
    for (long i = -w; i < n; i++) {
        /* the barrier also makes the one pSync safe to reuse (1.4 API) */
        shmem_barrier_all();
        double t0 = bench_now_ns();
        if ((int)c == C_COUNT) {
#if COLL_API_15
            shmem_team_sync(SHMEM_TEAM_WORLD);
#endif
        } else {
            do_coll(c, dst, src, size);
        }
        double t1 = bench_now_ns();
        if (i >= 0)
            t[i] = bench_elapsed_ns(t0, t1);
    }
    (void)o;
    return bench_max_over_pes(bench_median(t, n) / 1e3);
}

int main(int argc, char **argv) {
    struct bench_opts o = {.min_size = 8,
                           .max_size = BENCH_MIB,
                           .factor = 2,
                           .iters = 1000,
                           .warmup = 100,
                           .window = 1,
                           .name = "coll_lat"};
    shmem_init();
    bench_parse(&o, argc, argv, NULL);
    if (o.min_size < 8)
        o.min_size = 8;
    if (o.max_size < o.min_size)
        o.max_size = o.min_size;
    bench_header(&o, COLL_API_15 ? "team collectives on SHMEM_TEAM_WORLD (1.5 API)"
                                 : "active-set collectives over all PEs (1.4 API)");
    size_t np = (size_t)shmem_n_pes();
    size_t cap = o.max_size * np;
    char *src = bench_shmalloc(&o, cap);
    char *dst = bench_shmalloc(&o, cap);
    for (size_t i = 0; i < sizeof(psync) / sizeof(psync[0]); i++)
        psync[i] = SHMEM_SYNC_VALUE;
#if !COLL_API_15
    size_t wrk = o.max_size / 8 / 2 + 1;
    if (wrk < SHMEM_REDUCE_MIN_WRKDATA_SIZE)
        wrk = SHMEM_REDUCE_MIN_WRKDATA_SIZE;
    lwrk = bench_shmalloc(&o, wrk * sizeof(long));
    dwrk = bench_shmalloc(&o, wrk * sizeof(double));
#endif
    /* reductions read the buffers as numbers: start from small finite values */
    memset(src, 0, cap);
    shmem_barrier_all();

#if COLL_API_15
    {
        double v = run(&o, o.iters, o.warmup, C_COUNT, dst, src, 0);
        bench_report(&o, "team_sync_lat", np, "lat_median", v, "us");
    }
#endif
    for (int c = COLL_FIRST; c < COLL_LAST; c++) {
        for (size_t size = o.min_size; size; size = bench_next_size(&o, size)) {
            size_t s = size & ~(size_t)7;
            long n = bench_iters_for(&o, s * np, 512 * BENCH_MIB);
            long w = bench_warmup_for(&o, n);
            double v = run(&o, n, w, (enum coll)c, dst, src, s);
            bench_report(&o, coll_name[c], s, "lat_median", v, "us");
        }
    }

    shmem_barrier_all();
    shmem_free(dst);
    shmem_free(src);
    shmem_finalize();
    return 0;
}
