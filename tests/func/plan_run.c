/* shmemx_plan_run: one round with no producer (every own chunk sent as it
 * stands), over 10 rounds, the data checked every round. A second plan where
 * the last PE writes nothing (passes no chunks) and chunks have 3 writers.
 */
#include "check.h"

#include <shmemx.h>

#include <string.h>

#define PART 1536
#define ROUNDS 10

static int me, npes;

static void run_rounds(unsigned char *buf, size_t size, int silent_last, int writers) {
    int writes = !(silent_last && me == npes - 1);
    shmemx_region_t regs[3];
    shmemx_chunk_t chs[3];
    size_t nch = 0;
    if (writes) {
        int n = shmemx_plan_rows((size_t)me * PART, PART / 12, 12, 0, 3, writers, regs, chs);
        CHECK(n == 3, "rows: %d", n);
        nch = 3;
    }
    shmemx_plan_t p = NULL;
    int rc = shmemx_plan_create(buf, size, writes ? chs : NULL, nch, NULL, &p);
    CHECK(rc == 0, "create: %s (%s)", shmemx_plan_strerror(rc), shmemx_plan_errmsg(NULL));
    if (silent_last)
        CHECK(shmemx_plan_chunk_id(p, npes - 1, 0) == SHMEMX_PLAN_EINVAL,
              "the last PE has no chunks");
    for (unsigned r = 1; r <= ROUNDS; r++) {
        unsigned tag = r + (silent_last ? 500u : 0u);
        if (writes)
            for (size_t i = 0; i < PART; i++)
                buf[(size_t)me * PART + i] = func_byte(me, i, tag);
        rc = shmemx_plan_run(p, -1);
        CHECK(rc == 0, "round %u: run: %s", r, shmemx_plan_errmsg(p));
        int st = 0;
        long pr = 0;
        shmemx_plan_query(p, &st, &pr);
        CHECK(st == SHMEMX_PLAN_DELIVERED && pr == (long)r, "round %u: state %d round %ld", r, st,
              pr);
        for (int q = 0; q < npes; q++) {
            if (silent_last && q == npes - 1)
                continue;
            for (size_t i = 0; i < PART; i++)
                CHECK(buf[(size_t)q * PART + i] == func_byte(q, i, tag),
                      "round %u: byte %zu of PE %d is %d, expected %d", r, i, q,
                      buf[(size_t)q * PART + i], func_byte(q, i, tag));
        }
        CHECK(shmemx_plan_run(p, -1) == SHMEMX_PLAN_ESTATE, "run twice in a round");
        rc = shmemx_plan_next_round(p);
        CHECK(rc == 0, "round %u: next_round: %s", r, shmemx_plan_errmsg(p));
    }
    CHECK(shmemx_plan_close(p, -1) == 0, "close: %s", shmemx_plan_errmsg(p));
}

int main(void) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    if (npes < 2) {
        func_pass("plan_run (needs 2 PEs)");
        shmem_finalize();
        return 0;
    }
    size_t size = (size_t)npes * PART;
    unsigned char *buf = shmem_malloc(size);
    CHECK(buf, "shmem_malloc");
    memset(buf, 0, size);
    shmem_barrier_all();
    run_rounds(buf, size, 0, 1);
    run_rounds(buf, size, 1, 3);
    shmem_free(buf);
    func_pass("plan_run");
    shmem_finalize();
    return 0;
}
