/* Team splits (strided and 2-D): membership, numbering, translate_pe,
 * team_sync, team_ptr, contexts on a team, configuration, destroy and slot
 * reuse, and the limit on live teams. */
#include "check.h"

#include <string.h>

static long slot_val[8];
static int ring[256];

/* Each member stores round r into the next member's ring[r % 256], then
 * syncs; the previous member's value must be there. */
static void sync_rounds(shmem_team_t t, int rounds) {
    int me = shmem_team_my_pe(t), n = shmem_team_n_pes(t);
    int next = shmem_team_translate_pe(t, (me + 1) % n, SHMEM_TEAM_WORLD);
    for (int r = 0; r < rounds; r++) {
        shmem_int_p(&ring[r % 256], r * 1000 + me, next);
        shmem_quiet();
        CHECK(shmem_team_sync(t) == 0, "shmem_team_sync failed");
        int prev = (me + n - 1) % n;
        CHECK(ring[r % 256] == r * 1000 + prev, "round %d: ring = %d, want %d", r, ring[r % 256],
              r * 1000 + prev);
        CHECK(shmem_team_sync(t) == 0, "shmem_team_sync failed");
    }
}

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();

    /* Even PEs. */
    shmem_team_t even;
    shmem_team_config_t conf = {.num_contexts = 2};
    int esize = (npes + 1) / 2;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, esize, &conf, SHMEM_TEAM_NUM_CONTEXTS,
                                   &even) == 0,
          "split_strided failed");
    if (me % 2) {
        CHECK(even == SHMEM_TEAM_INVALID, "odd PE got a team");
        CHECK(shmem_team_my_pe(even) == -1 && shmem_team_n_pes(even) == -1, "invalid team query");
    } else {
        CHECK(even != SHMEM_TEAM_INVALID, "even PE got no team");
        CHECK(shmem_team_my_pe(even) == me / 2, "team_my_pe %d", shmem_team_my_pe(even));
        CHECK(shmem_team_n_pes(even) == esize, "team_n_pes %d", shmem_team_n_pes(even));
        for (int i = 0; i < esize; i++) {
            CHECK(shmem_team_translate_pe(even, i, SHMEM_TEAM_WORLD) == 2 * i, "translate %d", i);
            CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, 2 * i, even) == i, "translate back");
        }
        if (npes > 1)
            CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, 1, even) == -1, "odd PE in even");
        CHECK(shmem_team_translate_pe(even, esize, SHMEM_TEAM_WORLD) == -1, "out of range");
        shmem_team_config_t got = {0};
        CHECK(shmem_team_get_config(even, SHMEM_TEAM_NUM_CONTEXTS, &got) == 0 &&
                  got.num_contexts == 2,
              "get_config num_contexts %d", got.num_contexts);
        sync_rounds(even, 300);

        /* team_ptr: every member this PE maps (SHMEM_TEAM_SHARED: the PEs of
         * its node) is reachable, and no other. */
        slot_val[0] = 100 + me;
        shmem_team_sync(even);
        for (int i = 0; i < esize; i++) {
            long *p = shmem_team_ptr(even, &slot_val[0], i);
            if (shmem_team_translate_pe(even, i, SHMEM_TEAM_SHARED) < 0)
                CHECK(p == NULL, "team_ptr(%d) of a PE outside SHMEM_TEAM_SHARED", i);
            else
                CHECK(p && *p == 100 + 2 * i, "team_ptr(%d)", i);
        }
        CHECK(shmem_team_ptr(even, &slot_val[0], esize) == NULL, "team_ptr past the team");

        /* A context on the team: calls on it take team-relative PE numbers
         * (the next member of the even team, not world PE me / 2 + 1). */
        shmem_ctx_t ctx;
        CHECK(shmem_team_create_ctx(even, 0, &ctx) == 0, "team_create_ctx failed");
        shmem_team_t back;
        CHECK(shmem_ctx_get_team(ctx, &back) == 0 && back == even, "ctx_get_team");
        shmem_ctx_long_p(ctx, &slot_val[1], 500 + me, (me / 2 + 1) % esize);
        shmem_ctx_quiet(ctx);
        shmem_team_sync(even);
        int from = shmem_team_translate_pe(even, (me / 2 + esize - 1) % esize, SHMEM_TEAM_WORLD);
        CHECK(slot_val[1] == 500 + from, "ctx put: %ld, want %d", slot_val[1], 500 + from);
        shmem_ctx_destroy(ctx);

        /* A split of a split: every other member of the even team. */
        shmem_team_t quarter;
        int qsize = (esize + 1) / 2;
        CHECK(shmem_team_split_strided(even, 0, 2, qsize, NULL, 0, &quarter) == 0,
              "split of split");
        if (me % 4 == 0) {
            CHECK(shmem_team_n_pes(quarter) == qsize && shmem_team_my_pe(quarter) == me / 4,
                  "quarter numbering");
            CHECK(shmem_team_translate_pe(quarter, qsize - 1, SHMEM_TEAM_WORLD) == 4 * (qsize - 1),
                  "quarter translate");
            CHECK(shmem_team_translate_pe(quarter, 0, even) == 0, "quarter to even");
            sync_rounds(quarter, 50);
            shmem_team_destroy(quarter);
        } else {
            CHECK(quarter == SHMEM_TEAM_INVALID, "not in quarter");
        }
        shmem_team_destroy(even);
    }

    /* Bad arguments: nonzero, SHMEM_TEAM_INVALID, on every PE. */
    shmem_team_t bad;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes + 1, NULL, 0, &bad) != 0 &&
              bad == SHMEM_TEAM_INVALID,
          "oversized split accepted");

    /* 2-D: rows of 2. */
    shmem_team_t xt, yt;
    int xr = 2 < npes ? 2 : npes;
    CHECK(shmem_team_split_2d(SHMEM_TEAM_WORLD, 2, NULL, 0, &xt, NULL, 0, &yt) == 0, "split_2d");
    int x = me % xr, y = me / xr;
    int xsize = npes - y * xr < xr ? npes - y * xr : xr;
    int ysize = (npes - 1 - x) / xr + 1;
    CHECK(shmem_team_n_pes(xt) == xsize && shmem_team_my_pe(xt) == x, "x team %d/%d",
          shmem_team_my_pe(xt), shmem_team_n_pes(xt));
    CHECK(shmem_team_n_pes(yt) == ysize && shmem_team_my_pe(yt) == y, "y team %d/%d",
          shmem_team_my_pe(yt), shmem_team_n_pes(yt));
    for (int i = 0; i < ysize; i++)
        CHECK(shmem_team_translate_pe(yt, i, SHMEM_TEAM_WORLD) == x + i * xr, "y translate");
    CHECK(shmem_team_translate_pe(xt, 0, yt) == (x == 0 ? y : -1), "x to y");
    sync_rounds(xt, 100);
    /* ring[] is shared by the two teams: a member of another row could
     * otherwise start the column rounds while this row is still reading. */
    shmem_barrier_all();
    sync_rounds(yt, 100);
    shmem_team_destroy(xt);
    shmem_team_destroy(yt);

    /* Many live teams: splits succeed until the slots run out, then fail on
     * every PE; destroyed slots are reused. */
    static shmem_team_t many[80];
    int made = 0;
    while (made < 80 &&
           shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &many[made]) == 0)
        made++;
    CHECK(made >= 32 && made < 80, "made %d live teams", made);
    CHECK(many[made] == SHMEM_TEAM_INVALID, "failed split left a team");
    sync_rounds(many[made - 1], 20);
    for (int i = 0; i < made; i++)
        shmem_team_destroy(many[i]);
    for (int r = 0; r < 200; r++) {
        shmem_team_t t;
        CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, npes - 1, 1, 1, NULL, 0, &t) == 0,
              "split %d", r);
        shmem_team_t u;
        CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &u) == 0, "split");
        CHECK(shmem_team_sync(u) == 0, "sync");
        shmem_team_destroy(u);
        if (t != SHMEM_TEAM_INVALID) {
            CHECK(me == npes - 1 && shmem_team_n_pes(t) == 1, "singleton");
            shmem_team_destroy(t);
        }
    }

    shmem_team_config_t wc;
    CHECK(shmem_team_get_config(SHMEM_TEAM_WORLD, SHMEM_TEAM_NUM_CONTEXTS, &wc) == 0,
          "world config");
    /* A configuration given with a mask that leaves it out is still the
     * one the team reports. */
    shmem_team_config_t three = {.num_contexts = 3}, back = {0};
    shmem_team_t all;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, &three, 0, &all) == 0 &&
              shmem_team_get_config(all, SHMEM_TEAM_NUM_CONTEXTS, &back) == 0 &&
              back.num_contexts == 3,
          "config given without its mask: %d", back.num_contexts);
    shmem_team_destroy(all);
#if FUNC_SPEC_16
    /* 1.6: a mask of 0 asks for nothing (config may be NULL); a mask with a
     * NULL config, or an invalid team, gives nonzero. */
    CHECK(shmem_team_get_config(SHMEM_TEAM_WORLD, 0, NULL) == 0, "get_config mask 0, NULL");
    CHECK(shmem_team_get_config(SHMEM_TEAM_WORLD, SHMEM_TEAM_NUM_CONTEXTS, NULL) != 0,
          "get_config with a mask and no config");
    CHECK(shmem_team_get_config(SHMEM_TEAM_INVALID, 0, &wc) != 0, "get_config on no team");
    shmem_team_t none;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_INVALID, 0, 1, 1, NULL, 0, &none) != 0 &&
              none == SHMEM_TEAM_INVALID,
          "split of SHMEM_TEAM_INVALID");
    if (shmem_n_pes() > 1) {
        CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 0, 2, NULL, 0, &none) != 0 &&
                  none == SHMEM_TEAM_INVALID,
              "split with stride 0 and 2 members");
        /* A negative stride counts down from start (team_reverse.c): from 0
         * it would wrap around. */
        CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, -1, 2, NULL, 0, &none) != 0 &&
                  none == SHMEM_TEAM_INVALID,
              "split with a negative stride past PE 0");
    }
#endif
    func_pass("team_split");
    shmem_finalize();
    return 0;
}
