/* The path table: its rows, their setup, and what goes through every row.
 *
 * A new transport is one file with one struct shmemi_path_ops and one line
 * in `rows` below: its setup claims the (PE, region) slots it reaches, and
 * every operation on those slots goes to it. Rows later in the table take
 * over slots an earlier row claimed (a fabric for PEs of other nodes, or for
 * every PE when forced). */
#include "shmem/shmemi.h"

#include "shmem/engine.h"

static const struct shmemi_path_ops *const rows[] = {
    &shmemi_path_direct,
    &shmemi_path_device,
};
#define NROWS (sizeof(rows) / sizeof(rows[0]))

const struct shmemi_path_ops *shmemi_paths[NROWS];
int shmemi_npaths;

int shmemi_paths_init(void) {
    for (size_t i = 0; i < NROWS; i++) {
        int rc = rows[i]->setup();
        if (rc)
            return rc;
    }
    /* The rows in use: those that hold a slot. */
    shmemi_npaths = 0;
    for (size_t i = 0; i < NROWS; i++) {
        int used = 0;
        for (int pe = 0; pe < shmemi.n_pes && !used; pe++)
            for (int g = 0; g < SHMEMI_REGIONS && !used; g++)
                used = shmemi.peers[pe].path[g] == rows[i];
        if (used)
            shmemi_paths[shmemi_npaths++] = rows[i];
    }
    /* The data segment is a region only when it is symmetric
     * (SHMEM_SHARE_STATIC_DATA). */
    for (int g = 0; g < SHMEMI_REGIONS; g++)
        if ((g == shmemi.user_region || (g == SHMEMI_REGION_DATA && shmemi.data_size)) &&
            !shmemi.peers[shmemi.my_pe].path[g])
            shmemi_fatal("no path reaches region %d of this PE's symmetric memory", g);
    return 0;
}

/* The copy engine is shared by the rows (non-blocking copies of the direct
 * and device rows): its queues of ctx first, then each row's own work, then
 * this thread's stores (a large copy's non-temporal stores included) are
 * globally visible after a full fence. */
void shmemi_paths_quiet(struct shmemi_ctx *c, int pe, const char *fn) {
    if (__atomic_load_n(&c->pending, __ATOMIC_ACQUIRE)) /* the context used the engine */
        shmemi_engine_quiet(c, pe, fn);
    for (int i = 0; i < shmemi_npaths; i++)
        if (shmemi_paths[i]->quiet)
            shmemi_paths[i]->quiet(c, pe, fn);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

/* A transfer on the engine may still be running when a later direct store
 * to the same PE lands: the engine's part of a fence is its quiet. */
void shmemi_paths_fence(struct shmemi_ctx *c, int pe, const char *fn) {
    if (__atomic_load_n(&c->pending, __ATOMIC_ACQUIRE))
        shmemi_engine_quiet(c, pe, fn);
    for (int i = 0; i < shmemi_npaths; i++)
        if (shmemi_paths[i]->fence)
            shmemi_paths[i]->fence(c, pe, fn);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

void shmemi_paths_check(int how, const char *fn) {
    for (int i = 0; i < shmemi_npaths; i++)
        if (shmemi_paths[i]->check)
            shmemi_paths[i]->check(how, fn);
}

/* ---------------------------------------------------------------- errors */

void shmemi_ctx_invalid(const char *fn) {
    shmemi_fatal("%s: SHMEM_CTX_INVALID passed as a context", fn);
}

void shmemi_bad_ctx_pe(const struct shmemi_ctx *c, int pe, const char *fn) {
    const struct shmemi_team *t = c->team;
    if (t == &shmemi_team_world)
        shmemi_bad_pe(pe, fn);
    shmemi_fatal("%s: invalid PE %d for the context's team: its PEs are numbered 0..%d (the "
                 "team of %d PEs the context was created on)",
                 fn, pe, t->size - 1, t->size);
}

void shmemi_path_refused(const struct shmemi_route *r, const void *addr, const char *fn) {
    shmemi_fatal("%s: %p (PE %d) %s", fn, addr, r->pe, r->path->refusal);
}
