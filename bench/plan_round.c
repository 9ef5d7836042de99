/*
 * plan_round - triggered plans (shmemx_plan_*): host time per round and
 * delivered bandwidth, against plain copies of the same bytes.
 *
 * Every PE owns S bytes of one symmetric buffer (n * S bytes) and sends them
 * to every other PE each round, cut in 4 chunks:
 *   rows   (default) 4 row blocks (rows of 4 KiB; 64 B for the overhead size)
 *   tiles  (--tiles) a band of 64 x 64-float tiles of a matrix with 4 KiB rows,
 *          one 2D copy per tile, ntiles / 4 tiles per chunk (4 x 4-float tiles
 *          of 64 B at the overhead size)
 * One iteration, every PE: start (+ prepare_next with --ahead, the plan then
 * made with prepare_ahead), mark the 4 own chunks from the host, wait,
 * next_round. Nothing is written: the figures are the plan's own cost.
 *
 *   plan_<sched>[_ahead], size 256 (4 chunks of 64 B): round_median in us,
 *       the host overhead of a round (bytes do not dominate);
 *   plan_<sched>[_ahead], sizes -b..-e: round_median in us and bw_median in
 *       MB/s = S * (n - 1) / round, the bytes delivered to each PE per second;
 *   memcpy: (n - 1) memcpy of S bytes between private buffers (the same bytes
 *       through one core);
 *   putmem_allgather: shmem_putmem of the own S bytes to every peer +
 *       shmem_barrier_all (the all-gather with ordinary RMA).
 *
 * The sweep's default tops out at 16 MiB per PE; -e 64M at 4 PEs needs
 * SHMEM_SYMMETRIC_SIZE of at least 4 * 64 MiB plus slack (e.g. 320m).
 * Statistic: median over iterations at PE 0 (the round fence keeps PEs in step).
 */
#include "common.h"

#include <shmemx.h>

#define NCH 4
#define OVERHEAD_SIZE ((size_t)NCH * 64)
#define MAX_TILES 8192

static struct bench_opts o;
static int tiles, ahead, me, npes;
static char *buf;

/* The schedule of S bytes per PE, in NCH chunks. */
static shmemx_region_t regions[MAX_TILES];
static shmemx_chunk_t chunks[MAX_TILES];

static int schedule(size_t s) {
    if (!tiles) {
        size_t row = s >= NCH * 4096 ? 4096 : s / NCH;
        return shmemx_plan_rows((size_t)me * s, row, s / row, 0, NCH, 1, regions, chunks);
    }
    size_t ld = s >= 64 * 4096 ? 4096 : 64, tile = ld == 4096 ? 64 : 4;
    shmemx_tiling_t t = {(size_t)me * s, 4, ld, s / ld, ld / 4, tile, tile};
    size_t ntiles = ((t.rows + tile - 1) / tile) * ((t.cols + tile - 1) / tile);
    if (ntiles > MAX_TILES)
        bench_die(o.name, "too many tiles for the size", NULL);
    return shmemx_plan_tiles(&t, NULL, 0, (ntiles + NCH - 1) / NCH, 1, regions, chunks);
}

static void plan_series(size_t s, long n, long w) {
    int nch = schedule(s);
    if (nch <= 0)
        bench_die(o.name, "cannot build the schedule", NULL);
    shmemx_plan_config_t cfg = SHMEMX_PLAN_CONFIG_INIT;
    cfg.prepare_ahead = ahead;
    shmemx_plan_t p;
    int rc = shmemx_plan_create(buf, (size_t)npes * s, chunks, (size_t)nch, &cfg, &p);
    if (rc)
        bench_die(o.name, "shmemx_plan_create:", shmemx_plan_errmsg(NULL));
    int first = shmemx_plan_chunk_id(p, me, 0);
    double *t = bench_samples(n);
    for (long i = -w; i < n; i++) {
        double t0 = bench_now_ns();
        shmemx_plan_view_t *v;
        rc = shmemx_plan_start(p, &v);
        if (!rc && ahead)
            rc = shmemx_plan_prepare_next(p);
        for (int c = 0; c < nch && !rc; c++)
            shmemx_plan_mark_ready(v, first + c);
        if (!rc)
            rc = shmemx_plan_wait(p, -1);
        if (!rc)
            rc = shmemx_plan_next_round(p);
        double t1 = bench_now_ns();
        if (rc)
            bench_die(o.name, "round failed:", shmemx_plan_errmsg(p));
        if (i >= 0)
            t[i] = bench_elapsed_ns(t0, t1);
    }
    shmemx_plan_close(p, -1);
    char name[64];
    snprintf(name, sizeof name, "plan_%s%s", tiles ? "tiles" : "rows", ahead ? "_ahead" : "");
    double ns = bench_median(t, n);
    bench_report(&o, name, s, "round_median", ns * 1e-3, "us");
    if (s > OVERHEAD_SIZE)
        bench_report(&o, name, s, "bw_median", (double)s * (npes - 1) / ns * 1e3, "MB/s");
}

static void memcpy_series(size_t s, long n, long w, char *src, char *dst) {
    double *t = bench_samples(n);
    for (long i = -w; i < n; i++) {
        double t0 = bench_now_ns();
        for (int q = 1; q < npes; q++)
            memcpy(dst, src, s);
        double t1 = bench_now_ns();
        __asm__ __volatile__("" ::"r"(dst) : "memory");
        if (i >= 0)
            t[i] = bench_elapsed_ns(t0, t1);
    }
    double ns = bench_median(t, n);
    bench_report(&o, "memcpy", s, "round_median", ns * 1e-3, "us");
    if (s > OVERHEAD_SIZE)
        bench_report(&o, "memcpy", s, "bw_median", (double)s * (npes - 1) / ns * 1e3, "MB/s");
}

static void putmem_series(size_t s, long n, long w) {
    double *t = bench_samples(n);
    char *mine = buf + (size_t)me * s;
    for (long i = -w; i < n; i++) {
        double t0 = bench_now_ns();
        for (int k = 1; k < npes; k++)
            shmem_putmem(mine, mine, s, (me + k) % npes);
        shmem_barrier_all();
        double t1 = bench_now_ns();
        if (i >= 0)
            t[i] = bench_elapsed_ns(t0, t1);
    }
    double ns = bench_median(t, n);
    bench_report(&o, "putmem_allgather", s, "round_median", ns * 1e-3, "us");
    if (s > OVERHEAD_SIZE)
        bench_report(&o, "putmem_allgather", s, "bw_median", (double)s * (npes - 1) / ns * 1e3,
                     "MB/s");
}

int main(int argc, char **argv) {
    o = (struct bench_opts){.min_size = BENCH_MIB,
                            .max_size = 16 * BENCH_MIB,
                            .factor = 4,
                            .iters = 1000,
                            .warmup = 100,
                            .window = 1,
                            .name = "plan_round"};
    shmem_init();
    /* This program's own options, taken out before the shared vocabulary. */
    int kept = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--ahead"))
            ahead = 1;
        else if (!strcmp(argv[i], "--tiles"))
            tiles = 1;
        else
            argv[kept++] = argv[i];
    }
    bench_parse(&o, kept, argv,
                "  --tiles   tile schedule (default: row blocks)\n"
                "  --ahead   prepare_ahead plans, prepare_next every round\n"
                "  first line: host overhead per round with 4 chunks of 64 B per PE\n");
    bench_require_pes(&o, 2);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    bench_header(&o, tiles ? "triggered plan rounds, tile schedule"
                           : "triggered plan rounds, "
                             "row schedule");
    if (o.min_size < OVERHEAD_SIZE)
        o.min_size = OVERHEAD_SIZE;
    buf = bench_shmalloc(&o, (size_t)npes * o.max_size);
    char *src = bench_malloc(&o, o.max_size), *dst = bench_malloc(&o, o.max_size);
    shmem_barrier_all();

    /* Host overhead: 4 chunks of 64 B. */
    plan_series(OVERHEAD_SIZE, o.iters, o.warmup);
    shmem_barrier_all();
    putmem_series(OVERHEAD_SIZE, o.iters, o.warmup);
    memcpy_series(OVERHEAD_SIZE, o.iters, o.warmup, src, dst);
    shmem_barrier_all();

    /* Delivered bandwidth. */
    for (size_t s = o.min_size; s; s = bench_next_size(&o, s)) {
        long n = bench_iters_for(&o, s * (size_t)(npes - 1), 512 * BENCH_MIB);
        long w = bench_warmup_for(&o, n);
        plan_series(s, n, w);
        shmem_barrier_all();
        putmem_series(s, n, w);
        memcpy_series(s, n, w, src, dst);
        shmem_barrier_all();
    }
    shmem_free(buf);
    free(src);
    free(dst);
    shmem_finalize();
    return 0;
}
