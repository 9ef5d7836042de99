/* Two plans on different buffers share the plan queues:
 *  - head-of-line order: starting B's round while A's round, prepared before
 *    it on the same queues, has not started is refused (SHMEMX_PLAN_EORDER),
 *    and the refusal leaves both plans usable;
 *  - 20 rounds interleaved: start A, start B, (produce B then A), wait A,
 *    wait B, next A, next B, the data of both checked every round;
 *  - closing B first while A's prepared round is not started: B is CLOSING,
 *    and closing A finishes both; closing A first then B also works.
 */
#include "check.h"

#include <shmemx.h>

#include <string.h>

#define PA 768
#define PB 320
#define ROUNDS 20

static int me, npes;
static unsigned char *abuf, *bbuf;

static shmemx_plan_t make_plan(unsigned char *buf, size_t part, int nch) {
    shmemx_region_t regs[4];
    shmemx_chunk_t chs[4];
    CHECK(shmemx_plan_rows((size_t)me * part, part / 8, 8, 0, (size_t)nch, 1, regs, chs) == nch,
          "rows");
    shmemx_plan_config_t cfg = SHMEMX_PLAN_CONFIG_INIT;
    cfg.timeout_s = 10.0;
    shmemx_plan_t p = NULL;
    int rc = shmemx_plan_create(buf, (size_t)npes * part, chs, (size_t)nch, &cfg, &p);
    CHECK(rc == 0, "create: %s", shmemx_plan_errmsg(NULL));
    return p;
}

static void produce(shmemx_plan_t p, shmemx_plan_view_t *v, unsigned char *buf, size_t part,
                    int nch, int salt, unsigned r) {
    for (size_t i = 0; i < part; i++)
        buf[(size_t)me * part + i] = func_byte(me + salt, i, r);
    for (int k = 0; k < nch; k++)
        shmemx_plan_mark_ready(v, shmemx_plan_chunk_id(p, me, (size_t)k));
}

static void check_data(const unsigned char *buf, size_t part, int salt, unsigned r, char name) {
    for (int q = 0; q < npes; q++)
        for (size_t i = 0; i < part; i++)
            CHECK(buf[(size_t)q * part + i] == func_byte(q + salt, i, r),
                  "plan %c round %u: byte %zu of PE %d is %d, expected %d", name, r, i, q,
                  buf[(size_t)q * part + i], func_byte(q + salt, i, r));
}

static int state_of(shmemx_plan_t p) {
    int st = 0;
    shmemx_plan_query(p, &st, NULL);
    return st;
}

static void interleaved(void) {
    shmemx_plan_t a = make_plan(abuf, PA, 3), b = make_plan(bbuf, PB, 2);
    for (unsigned r = 1; r <= ROUNDS; r++) {
        shmemx_plan_view_t *va = NULL, *vb = NULL;
        if (r == 1 || r == 7) {
            /* B's round r was prepared after A's: it may not start first. */
            int rc = shmemx_plan_start(b, &vb);
            CHECK(rc == SHMEMX_PLAN_EORDER, "round %u: start B before A returned %d (%s)", r, rc,
                  shmemx_plan_strerror(rc));
            CHECK(strstr(shmemx_plan_errmsg(b), "order"), "message \"%s\"", shmemx_plan_errmsg(b));
            CHECK(state_of(b) == SHMEMX_PLAN_ARMED, "B's state %d after EORDER", state_of(b));
        }
        CHECK(shmemx_plan_start(a, &va) == 0, "round %u: start A: %s", r, shmemx_plan_errmsg(a));
        CHECK(shmemx_plan_start(b, &vb) == 0, "round %u: start B: %s", r, shmemx_plan_errmsg(b));
        /* B's copies wait behind A's on the queues: release B first anyway. */
        produce(b, vb, bbuf, PB, 2, 50, r);
        produce(a, va, abuf, PA, 3, 0, r);
        CHECK(shmemx_plan_wait(a, -1) == 0, "round %u: wait A: %s", r, shmemx_plan_errmsg(a));
        CHECK(shmemx_plan_wait(b, -1) == 0, "round %u: wait B: %s", r, shmemx_plan_errmsg(b));
        check_data(abuf, PA, 0, r, 'A');
        check_data(bbuf, PB, 50, r, 'B');
        CHECK(shmemx_plan_next_round(a) == 0, "round %u: next A: %s", r, shmemx_plan_errmsg(a));
        CHECK(shmemx_plan_next_round(b) == 0, "round %u: next B: %s", r, shmemx_plan_errmsg(b));
    }
    /* Both have round ROUNDS + 1 prepared, A's ahead of B's on every queue. */
    int rc = shmemx_plan_close(b, -1);
    CHECK(rc == 0, "close B: %d (%s)", rc, shmemx_plan_errmsg(b));
    CHECK(state_of(b) == SHMEMX_PLAN_CLOSING, "B's state after closing it behind A: %d",
          state_of(b));
    CHECK(shmemx_plan_start(b, NULL) == SHMEMX_PLAN_ESTATE, "start of a CLOSING plan");
    CHECK(shmemx_plan_close(b, -1) == 0, "a second close of a CLOSING plan");
    CHECK(state_of(a) == SHMEMX_PLAN_ARMED, "A's state %d", state_of(a));
    rc = shmemx_plan_close(a, -1);
    CHECK(rc == 0, "close A: %d (%s)", rc, shmemx_plan_errmsg(a));
    CHECK(state_of(a) == SHMEMX_PLAN_CLOSED, "A's state after close: %d", state_of(a));
    CHECK(state_of(b) == SHMEMX_PLAN_CLOSED, "B's state after closing A: %d", state_of(b));
    /* Closing sent the chunks as they stood: the last round's bytes. */
    check_data(abuf, PA, 0, ROUNDS, 'A');
    check_data(bbuf, PB, 50, ROUNDS, 'B');
}

/* Close in creation order: A first, then B. */
static void in_order(void) {
    shmemx_plan_t a = make_plan(abuf, PA, 1), b = make_plan(bbuf, PB, 1);
    for (unsigned r = 1; r <= 3; r++) {
        shmemx_plan_view_t *va = NULL, *vb = NULL;
        CHECK(shmemx_plan_start(a, &va) == 0, "start A: %s", shmemx_plan_errmsg(a));
        CHECK(shmemx_plan_start(b, &vb) == 0, "start B: %s", shmemx_plan_errmsg(b));
        produce(a, va, abuf, PA, 1, 7, r + 100);
        produce(b, vb, bbuf, PB, 1, 9, r + 100);
        CHECK(shmemx_plan_wait(b, -1) == 0, "wait B: %s", shmemx_plan_errmsg(b));
        CHECK(shmemx_plan_wait(a, -1) == 0, "wait A: %s", shmemx_plan_errmsg(a));
        check_data(abuf, PA, 7, r + 100, 'A');
        check_data(bbuf, PB, 9, r + 100, 'B');
        if (r == 3) { /* A's last round is prepared first: A is closed first, for real */
            CHECK(shmemx_plan_next_round(a) == 0, "next A: %s", shmemx_plan_errmsg(a));
            CHECK(shmemx_plan_next_round(b) == 0, "next B: %s", shmemx_plan_errmsg(b));
        } else {
            /* next_round in the other order: B's next round is prepared before A's. */
            CHECK(shmemx_plan_next_round(b) == 0, "next B: %s", shmemx_plan_errmsg(b));
            CHECK(shmemx_plan_next_round(a) == 0, "next A: %s", shmemx_plan_errmsg(a));
        }
        if (r < 3) {
            /* Now A's round is behind B's. */
            int rc = shmemx_plan_start(a, &va);
            CHECK(rc == SHMEMX_PLAN_EORDER, "round %u: start A behind B returned %d", r + 1, rc);
            /* Starting in prepared order works. */
            CHECK(shmemx_plan_start(b, &vb) == 0, "start B: %s", shmemx_plan_errmsg(b));
            CHECK(shmemx_plan_start(a, &va) == 0, "start A: %s", shmemx_plan_errmsg(a));
            produce(a, va, abuf, PA, 1, 7, r + 200);
            produce(b, vb, bbuf, PB, 1, 9, r + 200);
            CHECK(shmemx_plan_wait(a, -1) == 0, "wait A: %s", shmemx_plan_errmsg(a));
            CHECK(shmemx_plan_wait(b, -1) == 0, "wait B: %s", shmemx_plan_errmsg(b));
            check_data(abuf, PA, 7, r + 200, 'A');
            check_data(bbuf, PB, 9, r + 200, 'B');
            CHECK(shmemx_plan_next_round(a) == 0, "next A: %s", shmemx_plan_errmsg(a));
            CHECK(shmemx_plan_next_round(b) == 0, "next B: %s", shmemx_plan_errmsg(b));
        }
    }
    CHECK(shmemx_plan_close(a, -1) == 0, "close A: %s", shmemx_plan_errmsg(a));
    CHECK(state_of(a) == SHMEMX_PLAN_CLOSED, "A's state %d", state_of(a));
    CHECK(shmemx_plan_close(b, -1) == 0, "close B: %s", shmemx_plan_errmsg(b));
    CHECK(state_of(b) == SHMEMX_PLAN_CLOSED, "B's state %d", state_of(b));
}

int main(void) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    if (npes < 2) {
        func_pass("plan_two_plans (needs 2 PEs)");
        shmem_finalize();
        return 0;
    }
    abuf = shmem_malloc((size_t)npes * PA);
    bbuf = shmem_malloc((size_t)npes * PB);
    CHECK(abuf && bbuf, "shmem_malloc");
    memset(abuf, 0, (size_t)npes * PA);
    memset(bbuf, 0, (size_t)npes * PB);
    shmem_barrier_all();
    interleaved();
    in_order();
    shmem_free(bbuf);
    shmem_free(abuf);
    func_pass("plan_two_plans");
    shmem_finalize();
    return 0;
}
