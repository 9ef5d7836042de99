/* A round fence a peer never reaches: the last PE skips next_round and stays
 * alive; every other PE's next_round returns SHMEMX_PLAN_ETIMEDOUT within the
 * plan timeout, naming that PE. Afterwards the library's barriers and RMA
 * still work, and every PE closes the plan.
 */
#include "check.h"

#include <shmemx.h>

#include <string.h>
#include <time.h>

#define PART 512

static long ring_val;
static long got_val;

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes(), last = npes - 1;
    if (npes < 2) {
        func_pass("plan_fence_timeout (needs 2 PEs)");
        shmem_finalize();
        return 0;
    }
    const double timeout = 1.0;
    size_t size = (size_t)npes * PART;
    unsigned char *buf = shmem_malloc(size);
    CHECK(buf, "shmem_malloc");
    memset(buf, 0, size);
    shmemx_region_t reg;
    shmemx_chunk_t ch;
    CHECK(shmemx_plan_whole((size_t)me * PART, PART, 1, &reg, &ch) == 1, "whole");
    shmemx_plan_config_t cfg = SHMEMX_PLAN_CONFIG_INIT;
    cfg.timeout_s = timeout;
    shmemx_plan_t p = NULL;
    int rc = shmemx_plan_create(buf, size, &ch, 1, &cfg, &p);
    CHECK(rc == 0, "create: %s", shmemx_plan_errmsg(NULL));

    /* Two good rounds. */
    for (unsigned r = 1; r <= 2; r++) {
        shmemx_plan_view_t *v = NULL;
        CHECK(shmemx_plan_start(p, &v) == 0, "start");
        for (size_t i = 0; i < PART; i++)
            buf[(size_t)me * PART + i] = func_byte(me, i, r);
        shmemx_plan_mark_ready(v, shmemx_plan_chunk_id(p, me, 0));
        rc = shmemx_plan_wait(p, -1);
        CHECK(rc == 0, "round %u: wait: %s", r, shmemx_plan_errmsg(p));
        for (int q = 0; q < npes; q++)
            CHECK(buf[(size_t)q * PART + 3] == func_byte(q, 3, r), "round %u: PE %d's data", r, q);
        if (r == 2 && me == last)
            break; /* the last PE never reaches round 2's fence */
        double t0 = func_now();
        rc = shmemx_plan_next_round(p);
        double dt = func_now() - t0;
        if (r == 1) {
            CHECK(rc == 0, "round 1: next_round: %s", shmemx_plan_errmsg(p));
            continue;
        }
        CHECK(rc == SHMEMX_PLAN_ETIMEDOUT, "next_round with PE %d missing returned %d (%s)", last,
              rc, shmemx_plan_strerror(rc));
        /* Not early; late by at most what a loaded machine adds (4 PEs over a
         * fabric on 2 CPUs beside other tests: past 3 s at times). */
        CHECK(dt >= 0.9 * timeout && dt < timeout + 10.0, "the fence timeout took %.3f s", dt);
        char want[32];
        snprintf(want, sizeof want, "PE %d", last);
        const char *m = shmemx_plan_errmsg(p);
        CHECK(strstr(m, want) && strstr(m, "next_round") && strstr(m, "round 2"),
              "message \"%s\" does not name round 2, PE %d and next_round", m, last);
        int st = 0;
        shmemx_plan_query(p, &st, NULL);
        CHECK(st == SHMEMX_PLAN_FAILED, "state %d after a fence timeout", st);
    }

    /* The library still works: barriers, puts and gets around a ring. */
    for (int k = 0; k < 3; k++)
        shmem_barrier_all();
    for (long k = 1; k <= 3; k++) {
        long v = 100 * k + me;
        shmem_long_put(&ring_val, &v, 1, (me + 1) % npes);
        shmem_barrier_all();
        int left = (me + npes - 1) % npes;
        CHECK(ring_val == 100 * k + left, "put %ld: got %ld from PE %d", k, ring_val, left);
        shmem_long_get(&got_val, &ring_val, 1, (me + 1) % npes);
        CHECK(got_val == 100 * k + me, "get %ld: got %ld", k, got_val);
        shmem_barrier_all();
    }

    rc = shmemx_plan_close(p, -1);
    CHECK(rc == 0, "close: %d (%s)", rc, shmemx_plan_errmsg(p));
    int st = 0;
    shmemx_plan_query(p, &st, NULL);
    CHECK(st == SHMEMX_PLAN_CLOSED, "state %d after close", st);
    shmem_barrier_all();
    shmem_free(buf);
    func_pass("plan_fence_timeout");
    shmem_finalize();
    return 0;
}
