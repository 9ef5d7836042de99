/* Teams (WORLD and SHARED) and communication contexts. */
#include "shmem/shmemi.h"

#include "shmem/engine.h"

#include <stdlib.h>

struct shmemi_team shmemi_team_world, shmemi_team_shared;
shmem_team_t const SHMEM_TEAM_WORLD = &shmemi_team_world;
/* Every PE of a job is on this node: SHARED is WORLD's members. */
shmem_team_t const SHMEM_TEAM_SHARED = &shmemi_team_shared;

struct shmemi_ctx shmemi_ctx_default = {0, &shmemi_team_world, NULL};
shmem_ctx_t const SHMEM_CTX_DEFAULT = &shmemi_ctx_default;

void shmemi_team_init(void) {
    shmemi_team_world = (struct shmemi_team){0, 1, shmemi.n_pes, shmemi.my_pe};
    shmemi_team_shared = shmemi_team_world;
}

static const struct shmemi_team *team_check(shmem_team_t team, const char *fn) {
    shmemi_check_init(fn);
    if (team != SHMEM_TEAM_WORLD && team != SHMEM_TEAM_SHARED)
        return NULL;
    return team;
}

int shmem_team_my_pe(shmem_team_t team) {
    const struct shmemi_team *t = team_check(team, __func__);
    return t ? t->my_pe : -1;
}

int shmem_team_n_pes(shmem_team_t team) {
    const struct shmemi_team *t = team_check(team, __func__);
    return t ? t->size : -1;
}

static int to_world(const struct shmemi_team *t, int pe) {
    return pe < 0 || pe >= t->size ? -1 : t->start + pe * t->stride;
}

static int from_world(const struct shmemi_team *t, int pe) {
    int rel = pe - t->start;
    if (rel < 0 || rel % t->stride || rel / t->stride >= t->size)
        return -1;
    return rel / t->stride;
}

int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team) {
    const struct shmemi_team *s = team_check(src_team, __func__);
    const struct shmemi_team *d = team_check(dest_team, __func__);
    if (!s || !d)
        return -1;
    int w = to_world(s, src_pe);
    return w < 0 ? -1 : from_world(d, w);
}

int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config) {
    (void)config_mask;
    if (!team_check(team, __func__))
        return -1;
    if (config)
        config->num_contexts = 0;
    return 0;
}

void shmemi_team_sync(const struct shmemi_team *team, const char *fn) {
    (void)fn;
    (void)team; /* WORLD and SHARED are every PE */
    shmemi_sync_all();
}

int shmem_team_sync(shmem_team_t team) {
    const struct shmemi_team *t = team_check(team, __func__);
    if (!t)
        return -1;
    shmemi_team_sync(t, __func__);
    return 0;
}

void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe) {
    const struct shmemi_team *t = team_check(team, __func__);
    int w = t ? to_world(t, pe) : -1;
    return w < 0 ? NULL : shmem_ptr(dest, w);
}

/* ----------------------------------------------------------------- contexts */

int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx) {
    if (!team_check(team, __func__) || !ctx)
        return -1;
    struct shmemi_ctx *c = calloc(1, sizeof(*c));
    if (!c)
        return -1;
    c->options = options;
    c->team = team;
    *ctx = c;
    return 0;
}

int shmem_ctx_create(long options, shmem_ctx_t *ctx) {
    return shmem_team_create_ctx(SHMEM_TEAM_WORLD, options, ctx);
}

void shmem_ctx_destroy(shmem_ctx_t ctx) {
    shmemi_check_init(__func__);
    if (ctx == SHMEM_CTX_INVALID)
        return;
    if (ctx == SHMEM_CTX_DEFAULT)
        shmemi_fatal("%s: the default context cannot be destroyed", __func__);
    /* Destroying a context completes its outstanding operations. */
    shmemi_quiet(ctx);
    free(((struct shmemi_ctx *)ctx)->dirty);
    free(ctx);
}

int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team) {
    shmemi_check_init(__func__);
    if (ctx == SHMEM_CTX_INVALID || !team) {
        if (team)
            *team = SHMEM_TEAM_INVALID;
        return -1;
    }
    *team = ((struct shmemi_ctx *)ctx)->team;
    return 0;
}
