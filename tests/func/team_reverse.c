/* 1.6: a split with a negative stride makes a team in the reverse order of
 * its parent's (start is its highest PE), and a stride of 0 goes with a
 * size of 1. The reversed team's numbering, translation, contexts,
 * collectives (in team order) and splits. */
#include "check.h"

static int got[64], mine, word;

int main(void) {
    shmem_init();
#if FUNC_SPEC_16
    int me = shmem_my_pe(), npes = shmem_n_pes();
    CHECK(npes <= 64, "at most 64 PEs");
    shmem_team_t rev;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, npes - 1, -1, npes, NULL, 0, &rev) == 0,
          "reverse split failed");
    int r = npes - 1 - me; /* my number in the reversed team */
    CHECK(shmem_team_my_pe(rev) == r && shmem_team_n_pes(rev) == npes, "numbering %d/%d",
          shmem_team_my_pe(rev), shmem_team_n_pes(rev));
    for (int i = 0; i < npes; i++) {
        CHECK(shmem_team_translate_pe(rev, i, SHMEM_TEAM_WORLD) == npes - 1 - i, "to world %d", i);
        CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, i, rev) == npes - 1 - i, "from world %d",
              i);
    }

    /* Collectives in team order: member i contributes world PE npes-1-i. */
    mine = me;
    CHECK(shmem_int_fcollect(rev, got, &mine, 1) == 0, "fcollect");
    for (int i = 0; i < npes; i++)
        CHECK(got[i] == npes - 1 - i, "fcollect[%d] = %d", i, got[i]);
    mine = 1000 + me;
    CHECK(shmem_int_broadcast(rev, &word, &mine, 1, 0) == 0, "broadcast");
    CHECK(word == 1000 + npes - 1, "broadcast from team PE 0: %d", word);

    /* A context on it: PE numbers are the team's. */
    shmem_ctx_t ctx;
    CHECK(shmem_team_create_ctx(rev, 0, &ctx) == 0, "team_create_ctx");
    shmem_team_sync(rev);
    shmem_ctx_int_p(ctx, &word, 2000 + me, (r + 1) % npes);
    shmem_ctx_quiet(ctx);
    shmem_team_sync(rev);
    int from = npes - 1 - (r + npes - 1) % npes; /* world PE of the previous member */
    CHECK(word == 2000 + from, "ctx put: %d, want %d", word, 2000 + from);
    shmem_ctx_destroy(ctx);

    /* A split of it with a positive stride: every other member, still in
     * reverse world order. */
    shmem_team_t half;
    int hsize = (npes + 1) / 2;
    CHECK(shmem_team_split_strided(rev, 0, 2, hsize, NULL, 0, &half) == 0, "split of reverse");
    if (r % 2 == 0) {
        CHECK(shmem_team_my_pe(half) == r / 2, "half numbering");
        CHECK(shmem_team_translate_pe(half, hsize - 1, SHMEM_TEAM_WORLD) ==
                  npes - 1 - 2 * (hsize - 1),
              "half translate");
        shmem_team_destroy(half);
    } else {
        CHECK(half == SHMEM_TEAM_INVALID, "odd member in half");
    }
    shmem_team_destroy(rev);

    /* Stride 0 with one member. */
    shmem_team_t one;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, npes - 1, 0, 1, NULL, 0, &one) == 0,
          "stride 0, size 1");
    CHECK((one != SHMEM_TEAM_INVALID) == (me == npes - 1), "stride 0 membership");
    if (one != SHMEM_TEAM_INVALID)
        shmem_team_destroy(one);
#endif
    func_pass("team_reverse");
    shmem_finalize();
    return 0;
}
