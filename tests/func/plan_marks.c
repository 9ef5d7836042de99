/* Marks of triggered plans:
 *  - too few marks: wait returns SHMEMX_PLAN_ETIMEDOUT within the plan timeout,
 *    on every PE, with a message naming the chunk;
 *  - extra marks (and a mark of a chunk the PE does not own, or of a chunk
 *    number the plan does not have: -1, nchunks) are reported by the
 *    marking PE's wait;
 *  - 8 writers per chunk, 8 threads marking after random small delays, work
 *    over 20 rounds with the data checked every round.
 */
#include "check.h"

#include <shmemx.h>

#include <pthread.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PART 4096
#define NCH 2
#define WRITERS 8
#define ROUNDS 20

static int me, npes;
static unsigned char *buf;
static size_t size;

static shmemx_plan_t make_plan(int nchunks, int writers, double timeout) {
    shmemx_region_t *regs = malloc((size_t)nchunks * sizeof(*regs));
    shmemx_chunk_t *chs = malloc((size_t)nchunks * sizeof(*chs));
    CHECK(regs && chs, "malloc");
    int n =
        shmemx_plan_rows((size_t)me * PART, PART / 8, 8, 0, (size_t)nchunks, writers, regs, chs);
    CHECK(n == nchunks, "rows: %d", n);
    shmemx_plan_config_t cfg = SHMEMX_PLAN_CONFIG_INIT;
    cfg.timeout_s = timeout;
    shmemx_plan_t p = NULL;
    int rc = shmemx_plan_create(buf, size, chs, (size_t)nchunks, &cfg, &p);
    CHECK(rc == 0, "create: %s (%s)", shmemx_plan_strerror(rc), shmemx_plan_errmsg(NULL));
    free(regs); /* the plan keeps its own copy of the schedule */
    free(chs);
    return p;
}

static void close_plan(shmemx_plan_t p) {
    int rc = shmemx_plan_close(p, -1);
    CHECK(rc == 0, "close: %d (%s)", rc, shmemx_plan_errmsg(p));
    int st = 0;
    shmemx_plan_query(p, &st, NULL);
    CHECK(st == SHMEMX_PLAN_CLOSED, "state %d after close", st);
}

/* PE 0 marks its chunk once of the two marks it needs; the others mark fully. */
static void too_few(void) {
    const double timeout = 0.5;
    shmemx_plan_t p = make_plan(1, 2, timeout);
    shmemx_plan_view_t *v = NULL;
    CHECK(shmemx_plan_start(p, &v) == 0, "start");
    int c = shmemx_plan_chunk_id(p, me, 0);
    shmemx_plan_mark_ready(v, c);
    if (me != 0)
        shmemx_plan_mark_ready(v, c);
    double t0 = func_now();
    int rc = shmemx_plan_wait(p, -1);
    double dt = func_now() - t0;
    CHECK(rc == SHMEMX_PLAN_ETIMEDOUT, "wait with too few marks returned %d (%s)", rc,
          shmemx_plan_strerror(rc));
    CHECK(dt >= timeout * 0.9 && dt < timeout + 2.0, "the timeout took %.3f s (plan timeout %g s)",
          dt, timeout);
    const char *m = shmemx_plan_errmsg(p);
    CHECK(strstr(m, "chunk 0"), "message \"%s\" does not name chunk 0", m);
    CHECK(strstr(m, "PE 0"), "message \"%s\" does not name PE 0", m);
    if (me == 0)
        CHECK(strstr(m, "1 of its 2 writers"), "message \"%s\" does not count the marks", m);
    CHECK(shmemx_plan_wait(p, 0.01) == SHMEMX_PLAN_ESTATE, "wait of a failed plan");
    /* close sends chunks as they stand: no PE closes before every PE timed out. */
    shmem_barrier_all();
    close_plan(p);
}

/* PE 0 marks its chunk twice (one writer); the last PE marks PE 0's chunk. */
static void extra_marks(void) {
    shmemx_plan_t p = make_plan(1, 1, 5.0);
    shmemx_plan_view_t *v = NULL;
    CHECK(shmemx_plan_start(p, &v) == 0, "start");
    int c = shmemx_plan_chunk_id(p, me, 0);
    shmemx_plan_mark_ready(v, c);
    if (me == 0)
        shmemx_plan_mark_ready(v, c);
    int last = npes - 1;
    if (me == last)
        shmemx_plan_mark_ready(v, shmemx_plan_chunk_id(p, 0, 0)); /* not its chunk */
    int rc = shmemx_plan_wait(p, -1);
    if (me == 0) {
        CHECK(rc == SHMEMX_PLAN_EMARKS, "wait after an extra mark returned %d (%s)", rc,
              shmemx_plan_strerror(rc));
        CHECK(strstr(shmemx_plan_errmsg(p), "chunk 0"), "message \"%s\"", shmemx_plan_errmsg(p));
    } else if (me == last) {
        CHECK(rc == SHMEMX_PLAN_EINVAL, "wait after marking another PE's chunk returned %d (%s)",
              rc, shmemx_plan_strerror(rc));
        CHECK(strstr(shmemx_plan_errmsg(p), "does not own"), "message \"%s\"",
              shmemx_plan_errmsg(p));
    } else {
        CHECK(rc == 0, "wait on a PE that marked right: %s", shmemx_plan_errmsg(p));
    }
    if (rc) {
        int st = 0;
        shmemx_plan_query(p, &st, NULL);
        CHECK(st == SHMEMX_PLAN_FAILED, "state %d after a mark error", st);
    }
    close_plan(p);
}

/* A chunk number that is no chunk of the plan (-1, nchunks) is reported as
 * the number the caller passed. */
static void bad_chunk(int c) {
    shmemx_plan_t p = make_plan(1, 1, 5.0);
    shmemx_plan_view_t *v = NULL;
    CHECK(shmemx_plan_start(p, &v) == 0, "start");
    shmemx_plan_mark_ready(v, shmemx_plan_chunk_id(p, me, 0));
    if (me == 0)
        shmemx_plan_mark_ready(v, c);
    int rc = shmemx_plan_wait(p, -1);
    if (me == 0) {
        char want[64];
        snprintf(want, sizeof(want), "marked chunk %d ready, which is not a chunk of this plan", c);
        CHECK(rc == SHMEMX_PLAN_EINVAL, "wait after marking chunk %d returned %d (%s)", c, rc,
              shmemx_plan_strerror(rc));
        CHECK(strstr(shmemx_plan_errmsg(p), want), "message \"%s\"", shmemx_plan_errmsg(p));
    } else {
        CHECK(rc == 0, "wait on a PE that marked right: %s", shmemx_plan_errmsg(p));
    }
    close_plan(p);
}

struct writer {
    shmemx_plan_t plan;
    shmemx_plan_view_t *view;
    unsigned round, seed;
    int id;
};

/* Writer id writes the id-th eighth of every own chunk, after a random delay. */
static void *staggered(void *arg) {
    struct writer *w = arg;
    const size_t chunk_bytes = PART / NCH, slice = chunk_bytes / WRITERS;
    for (int k = 0; k < NCH; k++) {
        usleep(rand_r(&w->seed) % 400);
        size_t lo = (size_t)k * chunk_bytes + (size_t)w->id * slice;
        for (size_t i = lo; i < lo + slice; i++)
            buf[(size_t)me * PART + i] = func_byte(me, i, w->round);
        shmemx_plan_mark_ready(w->view, shmemx_plan_chunk_id(w->plan, me, (size_t)k));
    }
    return NULL;
}

static void eight_writers(void) {
    shmemx_plan_t p = make_plan(NCH, WRITERS, 10.0);
    for (unsigned r = 1; r <= ROUNDS; r++) {
        shmemx_plan_view_t *v = NULL;
        CHECK(shmemx_plan_start(p, &v) == 0, "round %u: start: %s", r, shmemx_plan_errmsg(p));
        struct writer w[WRITERS];
        pthread_t th[WRITERS];
        for (int t = 0; t < WRITERS; t++) {
            w[t] = (struct writer){p, v, r, (unsigned)(me * 1000 + t * 17) + r, t};
            CHECK(pthread_create(&th[t], NULL, staggered, &w[t]) == 0, "pthread_create");
        }
        /* Chunks of the others may arrive while ours are still being written. */
        for (int q = 0; q < npes; q++)
            for (int k = 0; k < NCH; k++) {
                int rc = shmemx_plan_wait_chunk(v, shmemx_plan_chunk_id(p, q, (size_t)k));
                CHECK(rc == 0, "round %u: wait_chunk(PE %d, %d): %s", r, q, k,
                      shmemx_plan_strerror(rc));
            }
        for (int t = 0; t < WRITERS; t++)
            pthread_join(th[t], NULL);
        int rc = shmemx_plan_wait(p, -1);
        CHECK(rc == 0, "round %u: wait: %s", r, shmemx_plan_errmsg(p));
        for (int q = 0; q < npes; q++)
            for (size_t i = 0; i < PART; i++)
                CHECK(buf[(size_t)q * PART + i] == func_byte(q, i, r),
                      "round %u: byte %zu of PE %d is %d, expected %d", r, i, q,
                      buf[(size_t)q * PART + i], func_byte(q, i, r));
        rc = shmemx_plan_next_round(p);
        CHECK(rc == 0, "round %u: next_round: %s", r, shmemx_plan_errmsg(p));
    }
    close_plan(p);
}

int main(void) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    if (npes < 2) {
        func_pass("plan_marks (needs 2 PEs)");
        shmem_finalize();
        return 0;
    }
    size = (size_t)npes * PART;
    buf = shmem_malloc(size);
    CHECK(buf, "shmem_malloc");
    memset(buf, 0, size);
    shmem_barrier_all();

    too_few();
    extra_marks();
    bad_chunk(-1);
    bad_chunk(npes);
    eight_writers();

    shmem_free(buf);
    func_pass("plan_marks");
    shmem_finalize();
    return 0;
}
