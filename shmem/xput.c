/* Copy-engine puts with a local wait flag and a remote signal (shmemx.h), to
 * the PEs of this node and, on the soft engine, to PEs of other nodes (the
 * engine's fabric window, shmem/path_fabric.c). */
#include "shmem/shmemi.h"

#include "sdma/sdma.h"
#include "shmem/engine.h"

/* pe's copy of [sym, sym + len) as the copy engine names it: its mapping, or
 * for a PE of another node the engine's fabric window (soft engine). Ends the
 * job, naming fn, when the engine reaches neither. */
static void *engine_addr(const void *sym, size_t len, int pe, const char *fn) {
    struct shmemi_route r;
    shmemi_route_pe(&r, sym, len, pe, fn);
    if (r.path->caps & SHMEMI_PATH_HOST_MAPPED)
        return r.addr;
    void *w = r.path == &shmemi_path_fabric ? shmemi_fabric_window(pe, r.region, r.off) : NULL;
    if (!w)
        shmemi_path_refused(&r, sym, fn);
    return w;
}

static int fail(int pe, int rc, const char *fn) {
    shmemi_debug("%s to PE %d: %s (%s)", fn, pe, sdma_strerror(rc), sdma_last_error());
    return -1;
}

/* The queue for these options: one that may block on a POLL when there is a
 * wait flag, else the ordinary RMA queue (quiet completes it). */
static struct sdma_queue *pick(int pe, const shmemx_sdma_opts_t *o, const char *fn) {
    shmemi_check_init(fn);
    if ((unsigned)pe >= (unsigned)shmemi.n_pes)
        shmemi_bad_pe(pe, fn);
    if (!shmemi_engine()) {
        shmemi_debug("%s: no copy engine runs (SHMEM_COPY_ENGINE=%s)", fn, shmemi.cfg.COPY_ENGINE);
        return NULL;
    }
    return o && o->wait_flag ? shmemi_poll_queue(pe) : shmemi_rma_queue(pe);
}

static int before(struct sdma_queue *q, int pe, const shmemx_sdma_opts_t *o, const char *fn) {
    if (!o || !o->wait_flag)
        return 0;
    const uint32_t *flag = shmemi_remote(o->wait_flag, sizeof(uint32_t), shmemi.my_pe, fn);
    int rc = sdma_poll(q, flag, o->wait_value, 0xFFFFFFFFu, SDMA_POLL_GE);
    return rc ? fail(pe, rc, fn) : 0;
}

static int after(struct sdma_queue *q, int pe, const shmemx_sdma_opts_t *o, const char *fn) {
    if (!o || !o->signal)
        return 0;
    uint64_t *sig = engine_addr(o->signal, sizeof(uint64_t), pe, fn);
    int rc = sdma_atomic(q, sig, SDMA_ATOMIC_ADD64_NORET, o->signal_value, 0);
    return rc ? fail(pe, rc, fn) : 0;
}

static void note(struct sdma_queue *q, int pe) {
    /* Work on the RMA queue is completed by quiet: tell the default context. */
    if (q == shmemi_rma_queue(pe))
        shmemi_engine_note(&shmemi_ctx_default, pe);
}

int shmemx_sdma_putmem(void *dest, const void *src, size_t bytes, int pe,
                       const shmemx_sdma_opts_t *opts) {
    struct sdma_queue *q = pick(pe, opts, __func__);
    if (!q)
        return -1;
    void *r = engine_addr(dest, bytes, pe, __func__);
    if (before(q, pe, opts, __func__))
        return -1;
    int rc = bytes ? sdma_copy(q, r, src, bytes) : 0;
    if (rc)
        return fail(pe, rc, __func__);
    rc = after(q, pe, opts, __func__);
    note(q, pe);
    return rc;
}

static int tile(struct sdma_queue *q, const shmemx_tile_t *t, size_t esize, int pe,
                const char *fn) {
    if (!t->rows || !t->cols)
        return 0;
    if (t->cols > t->dst_stride || t->cols > t->src_stride)
        shmemi_fatal("%s: a tile row of %zu elements is wider than its stride (%zu / %zu)", fn,
                     t->cols, t->dst_stride, t->src_stride);
    size_t row = shmemi_bytes(t->cols, esize, fn);
    size_t dpitch = shmemi_bytes(t->dst_stride, esize, fn),
           spitch = shmemi_bytes(t->src_stride, esize, fn);
    size_t extent = shmemi_bytes(t->rows - 1, dpitch, fn) + row;
    void *r = engine_addr(t->dest, extent, pe, fn);
    int rc = sdma_copy_2d(q, r, dpitch, t->src, spitch, row, t->rows);
    return rc ? fail(pe, rc, fn) : 0;
}

int shmemx_sdma_put_tiles(const shmemx_tile_t *tiles, size_t ntiles, size_t elem_bytes, int pe,
                          const shmemx_sdma_opts_t *opts) {
    struct sdma_queue *q = pick(pe, opts, __func__);
    if (!q)
        return -1;
    if (before(q, pe, opts, __func__))
        return -1;
    for (size_t i = 0; i < ntiles; i++)
        if (tile(q, &tiles[i], elem_bytes, pe, __func__))
            return -1;
    int rc = after(q, pe, opts, __func__);
    note(q, pe);
    return rc;
}

int shmemx_sdma_put_tile(const shmemx_tile_t *t, size_t elem_bytes, int pe,
                         const shmemx_sdma_opts_t *opts) {
    return shmemx_sdma_put_tiles(t, 1, elem_bytes, pe, opts);
}

int shmemx_sdma_quiet_pe(int pe) {
    shmemi_check_init(__func__);
    if ((unsigned)pe >= (unsigned)shmemi.n_pes)
        shmemi_bad_pe(pe, __func__);
    if (!shmemi_engine())
        return 0;
    struct sdma_queue *qs[2] = {shmemi_rma_queue(pe), shmemi_poll_queue(pe)};
    for (int i = 0; i < 2; i++) {
        int rc = qs[i] ? sdma_queue_quiet(qs[i], shmemi.cfg.ENGINE_TIMEOUT) : 0;
        if (rc)
            return fail(pe, rc, __func__);
    }
    return 0;
}
