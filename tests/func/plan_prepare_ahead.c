/* prepare_ahead: an opt-in (prepare_next on a plan without it is refused),
 * prepare_next while the round runs (before wait), a loop of 50 rounds that
 * prepares the next round every round, and closing with the next round
 * already prepared.
 */
#include "check.h"

#include <shmemx.h>

#include <string.h>

#define PART 1024
#define NCH 4
#define ROUNDS 50

static int me, npes;
static unsigned char *buf;
static size_t size;

static shmemx_plan_t make_plan(int ahead) {
    shmemx_region_t regs[NCH];
    shmemx_chunk_t chs[NCH];
    CHECK(shmemx_plan_rows((size_t)me * PART, PART / 16, 16, 0, NCH, 1, regs, chs) == NCH, "rows");
    shmemx_plan_config_t cfg = SHMEMX_PLAN_CONFIG_INIT;
    cfg.prepare_ahead = ahead;
    cfg.timeout_s = 10.0;
    shmemx_plan_t p = NULL;
    int rc = shmemx_plan_create(buf, size, chs, NCH, &cfg, &p);
    CHECK(rc == 0, "create (ahead %d): %s", ahead, shmemx_plan_errmsg(NULL));
    return p;
}

/* Write and mark every own chunk, last one first. */
static void produce(shmemx_plan_t p, shmemx_plan_view_t *v, unsigned r) {
    for (int k = NCH - 1; k >= 0; k--) {
        size_t lo = (size_t)k * (PART / NCH);
        for (size_t i = lo; i < lo + PART / NCH; i++)
            buf[(size_t)me * PART + i] = func_byte(me, i, r);
        shmemx_plan_mark_ready(v, shmemx_plan_chunk_id(p, me, (size_t)k));
    }
}

static void check_data(unsigned r) {
    for (int q = 0; q < npes; q++)
        for (size_t i = 0; i < PART; i++)
            CHECK(buf[(size_t)q * PART + i] == func_byte(q, i, r),
                  "round %u: byte %zu of PE %d is %d, expected %d", r, i, q,
                  buf[(size_t)q * PART + i], func_byte(q, i, r));
}

static void opt_in(void) {
    shmemx_plan_t p = make_plan(0);
    shmemx_plan_view_t *v = NULL;
    CHECK(shmemx_plan_start(p, &v) == 0, "start");
    int rc = shmemx_plan_prepare_next(p);
    CHECK(rc == SHMEMX_PLAN_ESTATE, "prepare_next without prepare_ahead returned %d", rc);
    produce(p, v, 1);
    CHECK(shmemx_plan_wait(p, -1) == 0, "wait: %s", shmemx_plan_errmsg(p));
    check_data(1);
    CHECK(shmemx_plan_next_round(p) == 0, "next_round: %s", shmemx_plan_errmsg(p));
    CHECK(shmemx_plan_close(p, -1) == 0, "close: %s", shmemx_plan_errmsg(p));
}

static void loop(void) {
    shmemx_plan_t p = make_plan(1);
    int rc = shmemx_plan_prepare_next(p);
    CHECK(rc == SHMEMX_PLAN_ESTATE, "prepare_next before start returned %d", rc);
    for (unsigned r = 1; r <= ROUNDS; r++) {
        shmemx_plan_view_t *v = NULL;
        long pr = 0;
        int st = 0;
        shmemx_plan_query(p, &st, &pr);
        CHECK(st == SHMEMX_PLAN_ARMED && pr == (long)r, "round %u: state %d round %ld", r, st, pr);
        CHECK(shmemx_plan_start(p, &v) == 0, "round %u: start: %s", r, shmemx_plan_errmsg(p));
        /* Round r + 1 is prepared while round r runs; a second call is harmless. */
        rc = shmemx_plan_prepare_next(p);
        CHECK(rc == 0, "round %u: prepare_next: %s", r, shmemx_plan_errmsg(p));
        if (r == 1)
            CHECK(shmemx_plan_prepare_next(p) == 0, "a second prepare_next");
        produce(p, v, r);
        rc = shmemx_plan_wait(p, -1);
        CHECK(rc == 0, "round %u: wait: %s", r, shmemx_plan_errmsg(p));
        check_data(r);
        if (r < ROUNDS) {
            rc = shmemx_plan_next_round(p);
            CHECK(rc == 0, "round %u: next_round: %s", r, shmemx_plan_errmsg(p));
        }
    }
    /* Round ROUNDS + 1 is prepared (not started): close sends the chunks as they
     * stand, which are round ROUNDS's bytes, so every buffer keeps them. */
    rc = shmemx_plan_close(p, -1);
    CHECK(rc == 0, "close with the next round prepared: %s", shmemx_plan_errmsg(p));
    int st = 0;
    shmemx_plan_query(p, &st, NULL);
    CHECK(st == SHMEMX_PLAN_CLOSED, "state %d after close", st);
    check_data(ROUNDS);

    /* Closing right after next_round, with round 2 prepared ahead and round 3 not. */
    p = make_plan(1);
    shmemx_plan_view_t *v = NULL;
    CHECK(shmemx_plan_start(p, &v) == 0, "start");
    CHECK(shmemx_plan_prepare_next(p) == 0, "prepare_next: %s", shmemx_plan_errmsg(p));
    produce(p, v, 1000);
    CHECK(shmemx_plan_wait(p, -1) == 0, "wait: %s", shmemx_plan_errmsg(p));
    check_data(1000);
    CHECK(shmemx_plan_next_round(p) == 0, "next_round: %s", shmemx_plan_errmsg(p));
    CHECK(shmemx_plan_close(p, -1) == 0, "close: %s", shmemx_plan_errmsg(p));
    check_data(1000);
}

int main(void) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    if (npes < 2) {
        func_pass("plan_prepare_ahead (needs 2 PEs)");
        shmem_finalize();
        return 0;
    }
    size = (size_t)npes * PART;
    buf = shmem_malloc(size);
    CHECK(buf, "shmem_malloc");
    memset(buf, 0, size);
    shmem_barrier_all();
    opt_in();
    loop();
    shmem_free(buf);
    func_pass("plan_prepare_ahead");
    shmem_finalize();
    return 0;
}
