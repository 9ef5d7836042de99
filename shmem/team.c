/* Teams and communication contexts.
 *
 * A team is a strided set of world PEs, member i being world PE
 * start + i * stride: WORLD, SHARED, and every team split from them (a
 * strided or 2-D split of a strided team is strided again).
 *
 * Each live team of a PE holds one slot of that PE's control block
 * (struct shmemi_team_ctl): its sync words and its post word. WORLD and
 * SHARED hold slots 0 and 1 (their sync is the world barrier); a split takes
 * the lowest slot free on every PE of the parent, agreed through the parent's
 * post words. Two disjoint teams may hold the same slot: a slot's words are
 * per PE, and a PE holds a slot for one team at a time.
 *
 * Creating teams concurrently from several threads of one PE is not
 * supported (the slot agreement assumes one split at a time per PE). */
#include "shmem/shmemi.h"

#include "shmem/engine.h"

#include <limits.h>
#include <stdlib.h>

#define SHMEMI_FILE team
#include "shmem/api.h"

struct shmemi_team shmemi_team_world, shmemi_team_shared;
shmem_team_t const SHMEM_TEAM_WORLD = &shmemi_team_world;
/* The PEs whose memory this PE maps (shmem_ptr reaches them): the PEs of its
 * node, all of WORLD on one node. */
shmem_team_t const SHMEM_TEAM_SHARED = &shmemi_team_shared;

struct shmemi_ctx shmemi_ctx_default = {.team = &shmemi_team_world, .live = SHMEMI_CTX_LIVE};
shmem_ctx_t const SHMEM_CTX_DEFAULT = &shmemi_ctx_default;

/* The live teams of this PE by slot, and the mask of slots they hold. */
static struct shmemi_team *team_live[SHMEMI_TEAM_SLOTS];
static uint64_t team_used;

#define SLOT_BIT(s) ((uint64_t)1 << (s))
#define TEAM_MAX_SIZE (1 << SHMEMI_TEAM_ROUNDS)

/* SHARED: the PEs this PE maps (the PEs of its node, never those reached
 * through the fabric), when they are a strided set of world PEs (every
 * launcher's block and cyclic placements are); else this PE alone. Every
 * member computes the same team: mapping each other is symmetric. */
static void shared_init(void) {
    int n = shmemi.n_pes, me = shmemi.my_pe, first = -1, stride = 0, size = 0, ok = 1;
    for (int pe = 0; pe < n; pe++) {
        if (pe != me && !shmemi.peers[pe].heap)
            continue;
        if (first < 0)
            first = pe;
        else if (size == 1)
            stride = pe - first;
        else if (pe != first + size * stride)
            ok = 0;
        size++;
    }
    shmemi_team_shared = shmemi_team_world;
    shmemi_team_shared.slot = 1;
    if (size == n)
        return;
    if (!ok) {
        shmemi_debug("the PEs of this node are not a strided set: SHMEM_TEAM_SHARED holds PE %d "
                     "alone",
                     me);
        first = me, stride = 1, size = 1;
    }
    shmemi_team_shared.start = first;
    shmemi_team_shared.stride = size > 1 ? stride : 1;
    shmemi_team_shared.size = size;
    shmemi_team_shared.my_pe = (me - first) / shmemi_team_shared.stride;
}

void shmemi_team_init(void) {
    shmemi_team_world = (struct shmemi_team){
        .start = 0, .stride = 1, .size = shmemi.n_pes, .my_pe = shmemi.my_pe, .slot = 0};
    shared_init();
    memset(team_live, 0, sizeof(team_live));
    team_live[0] = &shmemi_team_world;
    team_live[1] = &shmemi_team_shared;
    team_used = SLOT_BIT(0) | SLOT_BIT(1);
}

struct shmemi_team *shmemi_team_get(shmem_team_t team, const char *fn) {
    shmemi_check_init(fn);
    if (team == SHMEM_TEAM_WORLD || team == SHMEM_TEAM_SHARED)
        return team;
    if (team == SHMEM_TEAM_INVALID)
        return NULL;
    for (int s = 2; s < SHMEMI_TEAM_SLOTS; s++)
        if (team_live[s] == team)
            return team;
    shmemi_debug("%s: %p is not a live team of this PE", fn, (void *)team);
    return NULL;
}

int shmem_team_my_pe(shmem_team_t team) {
    const struct shmemi_team *t = shmemi_team_get(team, __func__);
    return t ? t->my_pe : -1;
}

int shmem_team_n_pes(shmem_team_t team) {
    const struct shmemi_team *t = shmemi_team_get(team, __func__);
    return t ? t->size : -1;
}

static int to_world(const struct shmemi_team *t, int pe) {
    return pe < 0 || pe >= t->size ? -1 : t->start + pe * t->stride;
}

/* The index i < size with start + i * stride == pe, or -1 (stride may be
 * negative: a team in reverse order of its parent's). */
static int member_index(int start, int stride, int size, int pe) {
    int rel = pe - start;
    if (rel % stride)
        return -1;
    int i = rel / stride;
    return i >= 0 && i < size ? i : -1;
}

static int from_world(const struct shmemi_team *t, int pe) {
    return member_index(t->start, t->stride, t->size, pe);
}

int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team) {
    const struct shmemi_team *s = shmemi_team_get(src_team, __func__);
    const struct shmemi_team *d = shmemi_team_get(dest_team, __func__);
    if (!s || !d)
        return -1;
    int w = to_world(s, src_pe);
    return w < 0 ? -1 : from_world(d, w);
}

/* The team's configuration as it is now (1.6). A mask of 0 asks for nothing:
 * config may then be NULL, and is not written. */
int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config) {
    const struct shmemi_team *t = shmemi_team_get(team, __func__);
    if (!t || (!config && config_mask))
        return -1;
    if (!config_mask)
        return 0;
    if (config_mask & SHMEM_TEAM_NUM_CONTEXTS)
        config->num_contexts = t->config.num_contexts;
    return 0;
}

/* ---------------------------------------------------------------- team sync */

/* WORLD (and SHARED when it is all of WORLD) use the world barrier. Any
 * other team runs a dissemination barrier over team indices on its slot's
 * words: in round k, member i stores the team's epoch into member i + 2^k's
 * word k (the only writer of that word) and waits for member i - 2^k to do
 * the same to it. Epochs only grow, so back-to-back syncs never reset
 * anything. */
void shmemi_team_sync(const struct shmemi_team *team, const char *fn) {
    if (team == &shmemi_team_world || (team == &shmemi_team_shared && team->size == shmemi.n_pes)) {
        shmemi_sync_all(fn);
        return;
    }
    /* The epoch is the team's own state (teams are never const objects). */
    struct shmemi_team *t = (struct shmemi_team *)team;
    int n = t->size, me = t->my_pe, s = t->slot;
    uint64_t epoch = ++t->epoch;
    struct shmemi_team_ctl *mine = &shmemi_ctl_of(shmemi.my_pe)->team[s];
    for (int k = 0, dist = 1; dist < n; k++, dist <<= 1) {
        /* Release: everything this PE stored before the sync is visible to
         * the member that acquires this word (member me + 2^k's copy of it);
         * transitively, to every member once the last round is done. */
        uint64_t *w = shmemi_round_word(&mine->sync[k], epoch);
        shmemi_word_store(t->start + ((me + dist) % n) * t->stride, w, epoch, fn);
        struct shmemi_spin sp = {0};
        shmemi_spin_watch(&sp, w, sizeof(uint64_t));
        /* Acquire: pairs with the release store of member me - 2^k. */
        while (__atomic_load_n(w, __ATOMIC_ACQUIRE) < epoch)
            shmemi_spin(&sp);
        shmemi_spin_end(&sp);
    }
}

int shmem_team_sync(shmem_team_t team) {
    const struct shmemi_team *t = shmemi_team_get(team, __func__);
    if (!t)
        return -1;
    shmemi_paths_check(SHMEMI_CHECK_SYNC, __func__); /* as shmem_sync_all (sync.c) */
    shmemi_team_sync(t, __func__);
    return 0;
}

void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe) {
    const struct shmemi_team *t = shmemi_team_get(team, __func__);
    int w = t ? to_world(t, pe) : -1;
    return w < 0 ? NULL : shmem_ptr(dest, w);
}

/* ------------------------------------------------------------------- splits */

/* One team to create, in the parent's indices: members start + i * stride. */
struct split {
    int start, stride, size;
    const shmem_team_config_t *config;
    long mask;
    shmem_team_t *out;
};

/* The slots free on every PE of the parent. Each member publishes the mask
 * of its free slots in its post word of the parent's slot; the sync releases
 * it, and after the sync every member reads (acquired by the sync) all of
 * them. The caller syncs the parent once more before anyone publishes again. */
static uint64_t free_on_all(struct shmemi_team *parent, const char *fn) {
    uint64_t *post = &shmemi_ctl_of(shmemi.my_pe)->team[parent->slot].post.v;
    __atomic_store_n(post, ~team_used, __ATOMIC_RELAXED);
    shmemi_team_sync(parent, fn);
    uint64_t all = ~(uint64_t)0;
    for (int i = 0; i < parent->size; i++)
        all &= shmemi_word_load(to_world(parent, i), post, fn);
    return all;
}

/* Create n teams from `parent`, collectively over the parent. Every member
 * of the parent passes the same splits (the arguments of a collective call),
 * so every decision below -- valid or not, which slots -- is the same on all
 * of them, and either every new team is made or none is. */
static int team_split(struct shmemi_team *parent, struct split *sp, int n, const char *fn) {
    for (int i = 0; i < n; i++)
        *sp[i].out = SHMEM_TEAM_INVALID;
    for (int i = 0; i < n; i++) {
        if (sp[i].size > TEAM_MAX_SIZE) {
            shmemi_debug("%s: a team of %d PEs is larger than the %d PEs a split team may have", fn,
                         sp[i].size, TEAM_MAX_SIZE);
            return -1;
        }
    }

    /* My index in each new team, or -1; the team objects, made before the
     * agreement so that nothing can fail after it. */
    struct shmemi_team *made[2] = {NULL, NULL};
    int idx[2];
    for (int i = 0; i < n; i++) {
        idx[i] = member_index(sp[i].start, sp[i].stride, sp[i].size, parent->my_pe);
        if (idx[i] >= 0 && !(made[i] = calloc(1, sizeof(*made[i]))))
            shmemi_fatal("%s: out of memory for a team", fn);
    }

    uint64_t avail = free_on_all(parent, fn);
    int slot[2] = {-1, -1};
    for (int i = 0; i < n; i++) {
        if (avail) {
            slot[i] = __builtin_ctzll(avail);
            avail &= avail - 1;
        }
    }
    int ok = slot[n - 1] >= 0;
    for (int i = 0; ok && i < n; i++) {
        if (idx[i] < 0)
            continue;
        /* A fresh slot: no peer writes into it until the sync below has
         * released these stores (peers write only after they leave that
         * sync). The last team that held this slot here is destroyed, and
         * every write of its members into these words came before this PE
         * finished its last sync on it. */
        struct shmemi_team_ctl *c = &shmemi_ctl_of(shmemi.my_pe)->team[slot[i]];
        for (int k = 0; k < SHMEMI_TEAM_ROUNDS; k++)
            for (int parity = 0; parity < 2; parity++)
                __atomic_store_n(&c->sync[k].v[parity], 0, __ATOMIC_RELAXED);
        __atomic_store_n(&c->post.v, 0, __ATOMIC_RELAXED);
    }
    /* Every member has read every post word, and the fresh slots are reset
     * on every new member, before anyone goes on. */
    shmemi_team_sync(parent, fn);

    if (!ok) {
        shmemi_debug("%s: no team slot is free on every PE of the parent (at most %d live "
                     "teams, WORLD and SHARED included)",
                     fn, SHMEMI_TEAM_SLOTS);
        free(made[0]);
        free(made[1]);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        struct shmemi_team *t = made[i];
        if (!t)
            continue;
        t->start = to_world(parent, sp[i].start);
        t->stride = parent->stride * sp[i].stride;
        t->size = sp[i].size;
        t->my_pe = idx[i];
        t->slot = slot[i];
        t->epoch = 0;
        t->config_mask = sp[i].mask;
        /* The mask says which fields the library must honour; a count given
         * outside it is still the team's configuration as the program
         * described it (and as the reference implementation reports it), a
         * negative one (an unset field) aside. */
        if (sp[i].config &&
            ((sp[i].mask & SHMEM_TEAM_NUM_CONTEXTS) || sp[i].config->num_contexts >= 0))
            t->config.num_contexts = sp[i].config->num_contexts;
        team_live[t->slot] = t;
        team_used |= SLOT_BIT(t->slot);
        *sp[i].out = t;
    }
    return 0;
}

int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                             const shmem_team_config_t *config, long config_mask,
                             shmem_team_t *new_team) {
    struct shmemi_team *p = shmemi_team_get(parent_team, __func__);
    if (!new_team)
        return -1;
    *new_team = SHMEM_TEAM_INVALID;
    if (!p)
        return -1;
    /* 1.6: a negative stride makes a team in the reverse order of the
     * parent's (start its highest PE); a zero stride goes with a size of 1. */
    if (size == 1)
        stride = 1;
    long last = (long)start + (long)(size - 1) * stride;
    if (size < 1 || !stride || start < 0 || start >= p->size || last < 0 || last >= p->size) {
        shmemi_debug("%s: start %d, stride %d, size %d do not fit a parent team of %d PEs",
                     __func__, start, stride, size, p->size);
        return -1;
    }
    struct split sp = {start, stride, size, config, config_mask, new_team};
    return team_split(p, &sp, 1, __func__);
}

/* The parent's PEs laid out row by row, xrange to a row: the x-axis team of a
 * PE is its row, the y-axis team its column. */
int shmem_team_split_2d(shmem_team_t parent_team, int xrange,
                        const shmem_team_config_t *xaxis_config, long xaxis_mask,
                        shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
                        long yaxis_mask, shmem_team_t *yaxis_team) {
    struct shmemi_team *p = shmemi_team_get(parent_team, __func__);
    if (!xaxis_team || !yaxis_team)
        return -1;
    *xaxis_team = *yaxis_team = SHMEM_TEAM_INVALID;
    if (!p)
        return -1;
    if (xrange < 1) {
        shmemi_debug("%s: xrange %d must be positive", __func__, xrange);
        return -1;
    }
    int n = p->size, me = p->my_pe;
    if (xrange > n)
        xrange = n;
    int x = me % xrange, y = me / xrange;
    int xsize = n - y * xrange < xrange ? n - y * xrange : xrange;
    int ysize = (n - 1 - x) / xrange + 1;
    /* The largest teams any PE makes, for the same answer everywhere. */
    if ((n + xrange - 1) / xrange > TEAM_MAX_SIZE || xrange > TEAM_MAX_SIZE) {
        shmemi_debug("%s: a %d x %d grid has a side longer than the %d PEs a split team may "
                     "have",
                     __func__, xrange, (n + xrange - 1) / xrange, TEAM_MAX_SIZE);
        return -1;
    }
    struct split sp[2] = {
        {y * xrange, 1, xsize, xaxis_config, xaxis_mask, xaxis_team},
        {x, xrange, ysize, yaxis_config, yaxis_mask, yaxis_team},
    };
    return team_split(p, sp, 2, __func__);
}

/* Destroyed contexts, kept for the next ones made (struct shmemi_ctx: live),
 * and contexts gone with their team, kept so that their handles stay known
 * as such and never made again; both lists are linked through the `pending`
 * field. The lock also guards every team's list of contexts. */
static struct {
    pthread_mutex_t lock;
    struct shmemi_ctx *head;
    struct shmemi_ctx *gone;
} ctx_spare = {PTHREAD_MUTEX_INITIALIZER, NULL, NULL};

/* Complete ctx's transfers and release what the engine and the rows keep
 * for it; then it is no longer live (`how`: 0, or SHMEMI_CTX_TEAM_GONE). */
static void ctx_end(struct shmemi_ctx *ctx, uint32_t how, const char *fn) {
    shmemi_quiet(ctx, fn);
    shmemi_engine_ctx_free(ctx);
    shmemi_paths_ctx_free(ctx);
    *ctx = (struct shmemi_ctx){.live = how};
}

void shmem_team_destroy(shmem_team_t team) {
    shmemi_check_init(__func__);
    if (team == SHMEM_TEAM_INVALID)
        return;
    if (team == SHMEM_TEAM_WORLD || team == SHMEM_TEAM_SHARED)
        shmemi_fatal("%s: SHMEM_TEAM_WORLD and SHMEM_TEAM_SHARED cannot be destroyed", __func__);
    struct shmemi_team *t = shmemi_team_get(team, __func__);
    if (!t)
        shmemi_fatal("%s: %p is not a live team", __func__, (void *)team);
    /* Its contexts go with it (the specification: its shareable ones; a
     * private one still live would be an error of the program, and is ended
     * alike). Their handles stay known as gone with the team: a later
     * shmem_ctx_destroy of one does nothing, any other call on one ends the
     * job saying so. */
    pthread_mutex_lock(&ctx_spare.lock);
    struct shmemi_ctx *c = t->ctxs;
    t->ctxs = NULL;
    pthread_mutex_unlock(&ctx_spare.lock);
    while (c) {
        struct shmemi_ctx *next = c->team_next;
        ctx_end(c, SHMEMI_CTX_TEAM_GONE, __func__);
        pthread_mutex_lock(&ctx_spare.lock);
        c->pending = (struct shmemi_ctx_pending *)ctx_spare.gone;
        ctx_spare.gone = c;
        pthread_mutex_unlock(&ctx_spare.lock);
        c = next;
    }
    /* No sync: this PE has finished every sync and collective on the team,
     * so no peer writes into its slot any more (see team_split). */
    team_live[t->slot] = NULL;
    team_used &= ~SLOT_BIT(t->slot);
    free(t);
}

/* ----------------------------------------------------------------- contexts */

int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx) {
    if (!ctx)
        return -1;
    *ctx = SHMEM_CTX_INVALID;
    if (!shmemi_team_get(team, __func__))
        return -1;
    pthread_mutex_lock(&ctx_spare.lock);
    struct shmemi_ctx *c = ctx_spare.head;
    if (c)
        ctx_spare.head = (struct shmemi_ctx *)c->pending;
    if (!c && !(c = malloc(sizeof(*c)))) {
        pthread_mutex_unlock(&ctx_spare.lock);
        return -1;
    }
    *c = (struct shmemi_ctx){
        .options = options, .team = team, .team_next = team->ctxs, .live = SHMEMI_CTX_LIVE};
    team->ctxs = c;
    pthread_mutex_unlock(&ctx_spare.lock);
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
    if ((uintptr_t)ctx >= 65536 && ctx->live == SHMEMI_CTX_TEAM_GONE) {
        shmemi_debug("%s: context %p was already destroyed with its team", __func__, (void *)ctx);
        return;
    }
    shmemi_ctx_check(ctx, __func__);
    pthread_mutex_lock(&ctx_spare.lock);
    struct shmemi_ctx **at = &ctx->team->ctxs;
    while (*at != ctx)
        at = &(*at)->team_next;
    *at = ctx->team_next;
    pthread_mutex_unlock(&ctx_spare.lock);
    /* Destroying a context completes its outstanding operations. */
    ctx_end(ctx, 0, __func__);
    pthread_mutex_lock(&ctx_spare.lock);
    ctx->pending = (struct shmemi_ctx_pending *)ctx_spare.head;
    ctx_spare.head = ctx;
    pthread_mutex_unlock(&ctx_spare.lock);
}

/* ----------------------------------------------------------------- sessions */

/* A session (1.6) is a hint on a context; completion and ordering never
 * change. SHMEM_CTX_SESSION_BATCH: the context's non-blocking transfers that
 * go to the copy engine are queued without ringing its doorbell, which is
 * rung once per queue when the session stops (or earlier, by a quiet), so a
 * batch of them costs one doorbell per peer instead of one per transfer (see
 * shmem/engine.c). SHMEM_CTX_SESSION_SAME_AMO and the total_ops hint are
 * accepted and kept: every AMO here is already one hardware atomic on the
 * peer's mapping, with nothing to set up or coalesce. A start on a session
 * under way adds its options and replaces the configuration it masks. */
#define SESSION_ON LONG_MIN /* the session's own bit, beside the options */

static void session_start(shmem_ctx_t ctx, long options, const shmem_ctx_session_config_t *config,
                          long config_mask, const char *fn) {
    shmemi_check_init(fn);
    if (ctx == SHMEM_CTX_INVALID)
        return;
    struct shmemi_ctx *c = shmemi_ctx_check(ctx, fn);
    long was = __atomic_fetch_or(&c->session, options | SESSION_ON, __ATOMIC_RELAXED);
    if (!was)
        c->session_ops = SIZE_MAX; /* the default: no expected count */
    if (config && (config_mask & SHMEM_CTX_SESSION_TOTAL_OPS))
        c->session_ops = config->total_ops;
    else if (!config && config_mask)
        shmemi_debug("%s: configuration mask %#lx without a configuration: the defaults apply", fn,
                     (unsigned long)config_mask);
}

static void session_stop(shmem_ctx_t ctx, const char *fn) {
    shmemi_check_init(fn);
    if (ctx == SHMEM_CTX_INVALID)
        return;
    struct shmemi_ctx *c = shmemi_ctx_check(ctx, fn);
    if (!__atomic_exchange_n(&c->session, 0, __ATOMIC_RELAXED)) {
        shmemi_debug("%s: no session under way on this context", fn);
        return;
    }
    shmemi_engine_session_flush(c);
}

void shmem_ctx_session_start(shmem_ctx_t ctx, long options,
                             const shmem_ctx_session_config_t *config, long config_mask) {
    session_start(ctx, options, config, config_mask, __func__);
}
void shmem_ctx_session_stop(shmem_ctx_t ctx) { session_stop(ctx, __func__); }
void shmem_session_start(long options, shmem_ctx_t ctx) {
    session_start(ctx, options, NULL, 0, __func__);
}
void shmem_session_stop(shmem_ctx_t ctx) { session_stop(ctx, __func__); }

int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team) {
    shmemi_check_init(__func__);
    if (ctx == SHMEM_CTX_INVALID || !team) {
        if (team)
            *team = SHMEM_TEAM_INVALID;
        return -1;
    }
    *team = shmemi_ctx_check(ctx, __func__)->team;
    return 0;
}
