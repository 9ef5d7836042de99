/* Error check: on a context over the even PEs, PE numbers are team-relative,
 * so the team's size is already out of range (even where a world PE of that
 * number exists). The job must end with "[PE n] shmem: shmem_ctx_long_p:
 * invalid PE <n> for the context's team ...". */
#include "check.h"

static long x;

int main(void) {
    shmem_init();
    const int me = shmem_my_pe(), npes = shmem_n_pes();
    shmem_team_t even;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &even) == 0,
          "split failed");
    if (me == 0) {
        shmem_ctx_t ctx;
        CHECK(shmem_team_create_ctx(even, 0, &ctx) == 0, "create_ctx failed");
        shmem_ctx_long_p(ctx, &x, 1, shmem_team_n_pes(even));
        shmem_ctx_quiet(ctx);
        fprintf(stderr, "[PE %d] FAIL: team-relative PE %d accepted on a team of %d PEs\n", me,
                shmem_team_n_pes(even), shmem_team_n_pes(even));
        shmem_global_exit(1);
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
