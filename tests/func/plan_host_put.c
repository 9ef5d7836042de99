/* Ordinary RMA does not wait behind plan chains: while a plan's copies are
 * armed behind closed gates (the round started but not marked, and with
 * prepare_ahead the next round too), host puts, gets and shmem_quiet complete;
 * a put between wait and next_round lands; the plan's data stays right.
 */
#include "check.h"

#include <shmemx.h>

#include <string.h>
#include <time.h>

#define PART 2048
#define XN 256
#define ROUNDS 10

static unsigned char x[XN]; /* ordinary symmetric data, put to the right neighbour */
static unsigned char y[XN];

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    if (npes < 2) {
        func_pass("plan_host_put (needs 2 PEs)");
        shmem_finalize();
        return 0;
    }
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    size_t size = (size_t)npes * PART;
    unsigned char *buf = shmem_malloc(size);
    CHECK(buf, "shmem_malloc");
    memset(buf, 0, size);
    shmemx_region_t reg;
    shmemx_chunk_t ch;
    CHECK(shmemx_plan_whole((size_t)me * PART, PART, 1, &reg, &ch) == 1, "whole");
    shmemx_plan_config_t cfg = SHMEMX_PLAN_CONFIG_INIT;
    cfg.timeout_s = 10.0;
    cfg.prepare_ahead = 1;
    shmemx_plan_t p = NULL;
    int rc = shmemx_plan_create(buf, size, &ch, 1, &cfg, &p);
    CHECK(rc == 0, "create: %s", shmemx_plan_errmsg(NULL));
    unsigned char src[XN];

    for (unsigned r = 1; r <= ROUNDS; r++) {
        shmemx_plan_view_t *v = NULL;
        CHECK(shmemx_plan_start(p, &v) == 0, "start: %s", shmemx_plan_errmsg(p));
        CHECK(shmemx_plan_prepare_next(p) == 0, "prepare_next: %s", shmemx_plan_errmsg(p));
        /* Rounds r and r + 1 wait on closed gates: a put and quiet still complete. */
        for (size_t i = 0; i < XN; i++)
            src[i] = func_byte(me, i, 2 * r);
        double t0 = func_now();
        shmem_putmem(y, src, XN, right);
        shmem_quiet();
        CHECK(func_now() - t0 < 5.0, "round %u: a put behind closed plan gates took %.1f s", r,
              func_now() - t0);
        for (size_t i = 0; i < PART; i++)
            buf[(size_t)me * PART + i] = func_byte(me, i, r);
        shmemx_plan_mark_ready(v, shmemx_plan_chunk_id(p, me, 0));
        rc = shmemx_plan_wait(p, -1);
        CHECK(rc == 0, "round %u: wait: %s", r, shmemx_plan_errmsg(p));
        for (int q = 0; q < npes; q++)
            for (size_t i = 0; i < PART; i++)
                CHECK(buf[(size_t)q * PART + i] == func_byte(q, i, r), "round %u: PE %d byte %zu",
                      r, q, i);
        /* Between wait and next_round (round r + 1 armed): put, quiet, barrier, get. */
        for (size_t i = 0; i < XN; i++)
            src[i] = func_byte(me, i, 2 * r + 1);
        shmem_putmem(x, src, XN, right);
        shmem_quiet();
        shmem_barrier_all();
        for (size_t i = 0; i < XN; i++) {
            CHECK(x[i] == func_byte(left, i, 2 * r + 1), "round %u: x[%zu] from PE %d", r, i, left);
            CHECK(y[i] == func_byte(left, i, 2 * r), "round %u: y[%zu] from PE %d", r, i, left);
        }
        unsigned char got[XN];
        shmem_getmem(got, x, XN, right);
        for (size_t i = 0; i < XN; i++)
            CHECK(got[i] == func_byte(me, i, 2 * r + 1), "round %u: get of x at PE %d", r, right);
        /* A put into another PE's part of the plan buffer outside the plan is the
         * user's business; it is not done here. */
        shmem_barrier_all();
        rc = shmemx_plan_next_round(p);
        CHECK(rc == 0, "round %u: next_round: %s", r, shmemx_plan_errmsg(p));
    }
    CHECK(shmemx_plan_close(p, -1) == 0, "close: %s", shmemx_plan_errmsg(p));
    shmem_free(buf);
    func_pass("plan_host_put");
    shmem_finalize();
    return 0;
}
