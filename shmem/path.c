/* The path table: its rows, their setup, and what goes through every row.
 *
 * A new transport is one file with one struct shmemi_path_ops and one line
 * in `rows` below: its setup claims the (PE, region) slots it reaches, and
 * every operation on those slots goes to it. Rows later in the table take
 * over slots an earlier row claimed (a fabric for PEs of other nodes, or for
 * every PE when forced). */
#include "shmem/shmemi.h"

#include "shmem/engine.h"
#include "shmem/path_direct.h"

static const struct shmemi_path_ops *const rows[] = {
    &shmemi_path_direct,
    &shmemi_path_device,
    &shmemi_path_fabric,
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
    /* Every PE's host heap (the control block), the user's heap, and the data
     * segment where it is a region (SHMEM_SHARE_STATIC_DATA). */
    for (int pe = 0; pe < shmemi.n_pes; pe++)
        for (int g = 0; g < SHMEMI_REGIONS; g++)
            if ((g == shmemi.user_region || g == SHMEMI_REGION_HEAP ||
                 (g == SHMEMI_REGION_DATA && shmemi.data_size)) &&
                !shmemi.peers[pe].path[g])
                shmemi_fatal("no path reaches region %d of PE %d's symmetric memory", g, pe);
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

int shmemi_paths_progress(void) {
    int hot = 0;
    for (int i = 0; i < shmemi_npaths; i++)
        if (shmemi_paths[i]->progress)
            hot |= shmemi_paths[i]->progress();
    return hot;
}

void shmemi_paths_served(void) {
    for (int i = 0; i < shmemi_npaths; i++)
        if (shmemi_paths[i]->served)
            shmemi_paths[i]->served();
}

void shmemi_paths_ctx_free(struct shmemi_ctx *c) {
    for (int i = 0; i < shmemi_npaths; i++)
        if (shmemi_paths[i]->ctx_free)
            shmemi_paths[i]->ctx_free(c);
}

void shmemi_paths_fini(void) {
    for (int i = 0; i < shmemi_npaths; i++)
        if (shmemi_paths[i]->fini)
            shmemi_paths[i]->fini();
    shmemi_npaths = 0;
}

/* Every row, in use or not: a row's setup may have failed half way. */
void shmemi_paths_abandon(void) {
    for (size_t i = 0; i < NROWS; i++)
        if (rows[i]->abandon)
            rows[i]->abandon();
}

/* ------------------------------------------- peers' memory, whatever the row */

/* The route of pe's copy of the symmetric range, refusing a row that neither
 * maps it nor lets the protocols use its operations (the device row). */
static void sym_route(struct shmemi_route *r, const void *sym, size_t n, int pe, const char *fn) {
    shmemi_route_pe(r, sym, n, pe, fn);
    if (SHMEMI_UNLIKELY(!(r->path->caps & (SHMEMI_PATH_HOST_MAPPED | SHMEMI_PATH_PROTOCOL_OPS))))
        shmemi_path_refused(r, sym, fn);
}

void shmemi_sym_store(void *sym, uint64_t v, int pe, const char *fn) {
    struct shmemi_route r;
    sym_route(&r, sym, sizeof(uint64_t), pe, fn);
    if (r.path->caps & SHMEMI_PATH_HOST_MAPPED) {
        __atomic_store_n((uint64_t *)r.addr, v, __ATOMIC_RELEASE);
        shmemi_wake_at(pe, r.addr, sizeof(uint64_t));
    } else {
        r.path->signal(&shmemi_ctx_default, &r, v, SHMEM_SIGNAL_SET, 1, fn);
    }
}

void shmemi_sym_get(void *dst, const void *sym, size_t n, int pe, const char *fn) {
    if (!n)
        return;
    struct shmemi_route r;
    sym_route(&r, sym, n, pe, fn);
    if (r.path->caps & SHMEMI_PATH_HOST_MAPPED) {
        shmemi_pages_ready(pe, r.region, r.off, n);
        sdma_copy_bytes(dst, r.addr, n);
    } else {
        r.path->get(&shmemi_ctx_default, dst, &r, n, 0, fn);
    }
}

void shmemi_sym_put(void *sym, const void *src, size_t n, int pe, const char *fn) {
    if (!n)
        return;
    struct shmemi_route r;
    sym_route(&r, sym, n, pe, fn);
    if (r.path->caps & SHMEMI_PATH_HOST_MAPPED) {
        shmemi_pages_ready(pe, r.region, r.off, n);
        sdma_copy_bytes(r.addr, src, n);
        shmemi_wake_at(pe, r.addr, n);
    } else {
        r.path->put(&shmemi_ctx_default, &r, src, n, 1, fn);
    }
}

void shmemi_sym_put_word(void *sym, const void *src, size_t n, int pe, uint64_t *mine, uint64_t v,
                         const char *fn) {
    struct shmemi_route r, w;
    sym_route(&r, sym, n, pe, fn);
    shmemi_route_word(&w, pe, mine);
    if (r.path->caps & SHMEMI_PATH_HOST_MAPPED) {
        shmemi_pages_ready(pe, r.region, r.off, n);
        sdma_copy_bytes(r.addr, src, n);
        /* Full: the copy's non-temporal stores come before the word's. */
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        shmemi_word_store(pe, mine, v, fn);
    } else if (r.path->put_word && w.path == r.path) {
        r.path->put_word(&r, src, n, &w, v, fn);
    } else {
        /* A blocking put; the word's store comes after the transfers this PE
         * completed (not a signal: a fabric may carry that out as an atomic
         * that waits for its reply, behind the bytes). */
        r.path->put(&shmemi_ctx_default, &r, src, n, 0, fn);
        shmemi_word_store(pe, mine, v, fn);
    }
}

const void *shmemi_sym_src(const void *sym, size_t n, int pe, void *scratch, const char *fn) {
    struct shmemi_route r;
    sym_route(&r, sym, n ? n : 1, pe, fn);
    if (r.path->caps & SHMEMI_PATH_HOST_MAPPED)
        return r.addr;
    if (n)
        r.path->get(&shmemi_ctx_default, scratch, &r, n, 0, fn);
    return scratch;
}

void shmemi_sym_quiet(const char *fn) {
    for (int i = 0; i < shmemi_npaths; i++)
        if ((shmemi_paths[i]->caps & SHMEMI_PATH_PROTOCOL_OPS) && shmemi_paths[i]->quiet)
            shmemi_paths[i]->quiet(&shmemi_ctx_default, -1, fn);
}

uint64_t shmemi_sym_amo(void *sym, int pe, enum shmemi_amo_op op, uint64_t value, uint64_t cond,
                        const char *fn) {
    struct shmemi_route r;
    sym_route(&r, sym, sizeof(uint64_t), pe, fn);
    shmemi_route_atomic(&r);
    uint64_t old = 0;
    shmemi_path_amo(&shmemi_ctx_default, &r, op, sizeof(uint64_t), value, cond, &old, fn);
    return old;
}

void shmemi_sym_add(void *sym, int pe, uint64_t value, const char *fn) {
    struct shmemi_route r;
    sym_route(&r, sym, sizeof(uint64_t), pe, fn);
    shmemi_route_atomic(&r);
    shmemi_path_amo(&shmemi_ctx_default, &r, SHMEMI_AMO_ADD, sizeof(uint64_t), value, 0, NULL, fn);
}

void shmemi_word_get(void *dst, const void *mine, size_t n, int pe, const char *fn) {
    struct shmemi_route r;
    shmemi_route_word(&r, pe, mine);
    if (r.path->caps & SHMEMI_PATH_HOST_MAPPED)
        memcpy(dst, r.addr, n);
    else if (n)
        r.path->get(&shmemi_ctx_default, dst, &r, n, 0, fn);
}

void shmemi_word_store32(int pe, uint32_t *mine, uint32_t v, const char *fn) {
    struct shmemi_route r;
    shmemi_route_word(&r, pe, mine);
    if (r.path->caps & SHMEMI_PATH_HOST_MAPPED) {
        __atomic_store_n((uint32_t *)r.addr, v, __ATOMIC_RELEASE);
        shmemi_wake_at(pe, r.addr, sizeof(uint32_t));
        return;
    }
    /* Release: this thread's stores, and the transfers complete so far (a
     * fabric completes a transfer once it is visible at the target), come
     * before the word's update. */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    r.path->amo(&shmemi_ctx_default, &r, SHMEMI_AMO_SET, sizeof(uint32_t), v, 0, NULL, fn);
}

void *shmemi_peer_addr(const void *sym, int pe) {
    uintptr_t a = (uintptr_t)sym;
    int region;
    size_t off;
    if (a - (uintptr_t)shmemi.dev_base < shmemi.dev_size) {
        region = SHMEMI_REGION_DEVICE;
        off = a - (uintptr_t)shmemi.dev_base;
    } else if (a - (uintptr_t)shmemi.heap_base < shmemi.heap_size) {
        region = SHMEMI_REGION_HEAP;
        off = a - (uintptr_t)shmemi.heap_base;
    } else if (a - (uintptr_t)shmemi.data_base < shmemi.data_size) {
        region = SHMEMI_REGION_DATA;
        off = a - (uintptr_t)shmemi.data_base;
    } else {
        return NULL;
    }
    char *base = shmemi.peers[pe].base[region];
    return base ? base + off : shmemi_fabric_window(pe, region, off);
}

/* ---------------------------------------------------------------- errors */

void shmemi_ctx_invalid(const char *fn) {
    shmemi_fatal("%s: SHMEM_CTX_INVALID passed as a context", fn);
}

void shmemi_ctx_dead(shmem_ctx_t ctx, const char *fn) {
    if ((uintptr_t)ctx >= 65536 && ctx->live == SHMEMI_CTX_TEAM_GONE)
        shmemi_fatal("%s: context %p was destroyed with its team (shmem_team_destroy)", fn,
                     (void *)ctx);
    shmemi_fatal("%s: %p is not a live context (destroyed by shmem_ctx_destroy, or never made by "
                 "shmem_ctx_create or shmem_team_create_ctx)",
                 fn, (void *)ctx);
}

void shmemi_null_buffer(const char *what, size_t n, const char *fn) {
    shmemi_fatal("%s: the %s is NULL, with %zu bytes to transfer", fn, what, n);
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
