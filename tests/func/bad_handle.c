/* A NULL local buffer with bytes to move, and a context used after it was
 * destroyed, end the job with a message naming the routine (never a crash):
 *   get    shmem_getmem into NULL
 *   put    shmem_putmem from NULL
 *   ctx    shmem_ctx_long_p on a destroyed context
 *   twice  shmem_ctx_destroy of a destroyed context
 *   team   shmem_ctx_long_p on a context whose team was destroyed
 * and, as a program that must run to its end:
 *   gone   shmem_ctx_destroy of a context after its team's destruction
 *          (which destroyed it): nothing happens */
#include "check.h"

static long word;

int main(int argc, char **argv) {
    shmem_init();
    const char *how = argc > 1 ? argv[1] : "";
    int peer = (shmem_my_pe() + 1) % shmem_n_pes();
    /* A variable the compiler cannot prove NULL. */
    void *volatile none = NULL;
    if (!strcmp(how, "get")) {
        shmem_getmem(none, &word, sizeof word, peer);
    } else if (!strcmp(how, "put")) {
        shmem_putmem(&word, none, sizeof word, peer);
    } else if (!strcmp(how, "team") || !strcmp(how, "gone")) {
        shmem_team_t team;
        shmem_ctx_t ctx;
        CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, shmem_n_pes(), NULL, 0, &team) == 0,
              "shmem_team_split_strided failed");
        CHECK(shmem_team_create_ctx(team, 0, &ctx) == 0, "shmem_team_create_ctx failed");
        shmem_ctx_long_p(ctx, &word, 1, peer);
        shmem_team_destroy(team);
        if (!strcmp(how, "gone")) {
            shmem_ctx_destroy(ctx);
            shmem_barrier_all();
            CHECK(word == 1, "the put on the team's context did not land: %ld", word);
            func_pass("bad_handle gone");
            shmem_finalize();
            return 0;
        }
        shmem_ctx_long_p(ctx, &word, 2, peer);
    } else {
        shmem_ctx_t ctx;
        CHECK(shmem_ctx_create(0, &ctx) == 0, "shmem_ctx_create failed");
        shmem_ctx_long_p(ctx, &word, 1, peer);
        shmem_ctx_destroy(ctx);
        if (!strcmp(how, "twice"))
            shmem_ctx_destroy(ctx);
        else
            shmem_ctx_long_p(ctx, &word, 2, peer);
    }
    func_pass("bad_handle: not reached");
    shmem_finalize();
    return 0;
}
