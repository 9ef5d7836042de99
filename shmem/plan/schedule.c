/* Schedules of triggered plans: each PE's checked and exchanged at create,
 * every PE's gathered and checked as a whole (the same verdict on every PE),
 * and the builders that make common schedules (shmemx_plan_whole/rows/tiles). */
#include "shmem/plan/plan.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_INTERVALS ((size_t)1 << 26) /* rows the overlap check expands, at most */

/* ------------------------------------------------ this PE's part, exchanged */

/* A PE whose copies this PE's engine cannot carry (-1: none): one of another
 * node, unless the buffer is host memory and the engine has a fabric window
 * to it (the soft engine). */
static int unreachable(int on_dev) {
    for (int q = 0; q < shmemi.n_pes; q++)
        if (q != shmemi.my_pe && !shmemi.peers[q].heap &&
            (on_dev || !shmemi_fabric_window(q, SHMEMI_REGION_HEAP, 0)))
            return q;
    return -1;
}

int shmemi_plan_exchange(void *buf, size_t size, const shmemx_chunk_t *schedule, size_t nchunks,
                         const shmemx_plan_config_t *c, const shmemx_plan_t *plan,
                         struct shmemi_plan_sched *me, struct shmemi_plan_sched **all) {
    *me = (struct shmemi_plan_sched){0};
    me->ahead = c->prepare_ahead ? 1 : 0;
    me->size = size;
    me->nchunks = nchunks;
    me->timeout_s = c->timeout_s;
    /* The buffer lives in the user heap: host heap, or device heap (GPU builds). */
    struct shmemi_route br;
    int in_heap = buf && size && !shmemi_route_try(&br, buf, size, shmemi.my_pe) &&
                  br.region != SHMEMI_REGION_DATA;
    int on_dev = in_heap && br.region == SHMEMI_REGION_DEVICE;
    me->buf_off = in_heap ? br.off : 0;
    me->on_dev = on_dev;
    int rc = 0;
#define LOCAL_FAIL(code, ...) (rc = (code), snprintf(me->why, sizeof(me->why), __VA_ARGS__))
    if (!plan)
        LOCAL_FAIL(SHMEMX_PLAN_EINVAL, "plan (the output) is NULL");
    else if (c->team && c->team != SHMEM_TEAM_WORLD)
        LOCAL_FAIL(SHMEMX_PLAN_EUNSUPPORTED, "plans run on SHMEM_TEAM_WORLD only");
    else if (!in_heap)
        LOCAL_FAIL(SHMEMX_PLAN_EINVAL, "the buffer %p (%zu bytes) is not inside the symmetric heap",
                   buf, size);
    else if (on_dev && !(shmemi_engine() && shmemi.words_gpu &&
                         (sdma_engine_caps(shmemi_engine()) & SDMA_CAP_DEVICE_MEMORY)))
        LOCAL_FAIL(SHMEMX_PLAN_EUNSUPPORTED,
                   "a buffer on the device heap needs a copy engine "
                   "that reaches GPU memory (the cuda engine; SHMEM_COPY_ENGINE is %s) and host "
                   "words kernels can use",
                   shmemi.cfg.COPY_ENGINE);
    else if (nchunks && !schedule)
        LOCAL_FAIL(SHMEMX_PLAN_EINVAL, "schedule is NULL with %zu chunks", nchunks);
    else if (!shmemi_engine())
        LOCAL_FAIL(SHMEMX_PLAN_EENGINE, "plans need a copy engine (SHMEM_COPY_ENGINE is %s)",
                   shmemi.cfg.COPY_ENGINE);
    else if (unreachable(on_dev) >= 0)
        LOCAL_FAIL(SHMEMX_PLAN_EUNSUPPORTED,
                   "PE %d is reached through the fabric: plans reach "
                   "such PEs on the soft copy engine with a buffer in host memory only "
                   "(SHMEM_COPY_ENGINE is %s)",
                   unreachable(on_dev), shmemi.cfg.COPY_ENGINE);
    for (size_t i = 0; !rc && i < nchunks; i++) {
        if (schedule[i].nregions && !schedule[i].regions)
            LOCAL_FAIL(SHMEMX_PLAN_EINVAL, "chunk %zu has %zu regions but regions is NULL", i,
                       schedule[i].nregions);
        me->nregions += schedule[i].nregions;
    }
#undef LOCAL_FAIL
    me->status = rc;
    struct shmemi_plan_sched *hs = calloc((size_t)shmemi.n_pes, sizeof(*hs));
    if (!hs)
        shmemi_fatal("out of memory");
    if (shmemi.boot->allgather(shmemi.boot, me, hs, sizeof(*me)))
        shmemi_fatal("bootstrap allgather failed in shmemx_plan_create");
    rc = 0;
    for (int q = 0; q < shmemi.n_pes && !rc; q++) {
        if (hs[q].status)
            rc = shmemi_plan_err(NULL, hs[q].status, "PE %d: %s", q, hs[q].why);
        else if (hs[q].buf_off != hs[0].buf_off || hs[q].size != hs[0].size ||
                 hs[q].on_dev != hs[0].on_dev)
            rc = shmemi_plan_err(NULL, SHMEMX_PLAN_EINVAL,
                                 "the buffer is not symmetric: PE 0 "
                                 "passed %llu bytes at heap offset %llu, PE %d %llu bytes at "
                                 "offset %llu",
                                 (unsigned long long)hs[0].size, (unsigned long long)hs[0].buf_off,
                                 q, (unsigned long long)hs[q].size,
                                 (unsigned long long)hs[q].buf_off);
        else if (hs[q].ahead != hs[0].ahead || hs[q].timeout_s != hs[0].timeout_s)
            rc = shmemi_plan_err(NULL, SHMEMX_PLAN_EINVAL,
                                 "the configs differ: PE 0 (timeout "
                                 "%g s, prepare_ahead %d) and PE %d (timeout %g s, prepare_ahead "
                                 "%d)",
                                 hs[0].timeout_s, hs[0].ahead, q, hs[q].timeout_s, hs[q].ahead);
    }
    if (rc) {
        free(hs);
        return rc;
    }
    *all = hs;
    return 0;
}

/* ------------------------------------------------------- every PE's, gathered */

struct wire_chunk {
    uint64_t nregions;
    int64_t writers;
};

/* Through a symmetric scratch buffer: each PE writes its schedule into its
 * own, and reads every PE's through the mapping. */
int shmemi_plan_gather(struct shmemx_plan *p, const struct shmemi_plan_sched *hs,
                       const shmemx_chunk_t *schedule, size_t nchunks) {
    size_t most = 0, total_c = 0, total_r = 0;
    for (int q = 0; q < p->n; q++) {
        size_t b =
            hs[q].nchunks * sizeof(struct wire_chunk) + hs[q].nregions * sizeof(shmemx_region_t);
        most = b > most ? b : most;
        total_c += hs[q].nchunks;
        total_r += hs[q].nregions;
    }
    if (total_c > INT_MAX)
        return shmemi_plan_err(NULL, SHMEMX_PLAN_EINVAL,
                               "%zu chunks in all: more than chunk ids "
                               "can number",
                               total_c);
    char *scratch = shmemi_words_malloc(most ? most : 64, "shmemx_plan_create");
    if (!scratch)
        return shmemi_plan_err(NULL, SHMEMX_PLAN_ENOMEM,
                               "no symmetric memory to gather the "
                               "schedules");
    struct wire_chunk *wc = (struct wire_chunk *)scratch;
    shmemx_region_t *wr = (shmemx_region_t *)(scratch + nchunks * sizeof(*wc));
    for (size_t i = 0, k = 0; i < nchunks; i++) {
        wc[i] = (struct wire_chunk){schedule[i].nregions, schedule[i].writers};
        for (size_t j = 0; j < schedule[i].nregions; j++)
            wr[k++] = schedule[i].regions[j];
    }
    shmemi_barrier_all("shmemx_plan_create"); /* every PE's schedule is in its scratch */
    p->nchunks = total_c;
    p->chunks = calloc(total_c ? total_c : 1, sizeof(*p->chunks));
    p->regions = calloc(total_r ? total_r : 1, sizeof(*p->regions));
    p->chunk_base = calloc((size_t)p->n + 1, sizeof(int));
    p->writers = calloc(total_c ? total_c : 1, sizeof(int));
    int rc = 0;
    if (!p->chunks || !p->regions || !p->chunk_base || !p->writers)
        rc = SHMEMX_PLAN_ENOMEM; /* still take part in the barriers below */
    size_t c = 0, r = 0;
    char *copy = NULL;
    for (int q = 0; q < p->n && !rc; q++) {
        /* PE q's schedule: through the mapping, or fetched from another node. */
        const char *src = q == p->me || shmemi.peers[q].heap
                              ? (const char *)shmemi_plan_at_peer(scratch, q)
                              : NULL;
        if (!src) {
            size_t qb = hs[q].nchunks * sizeof(struct wire_chunk) +
                        hs[q].nregions * sizeof(shmemx_region_t);
            free(copy);
            if (!(copy = malloc(qb ? qb : 1))) {
                rc = SHMEMX_PLAN_ENOMEM;
                break;
            }
            shmemi_word_get(copy, scratch, qb, q, "shmemx_plan_create");
            src = copy;
        }
        const struct wire_chunk *qc = (const struct wire_chunk *)src;
        const shmemx_region_t *qr = (const shmemx_region_t *)(src + hs[q].nchunks * sizeof(*qc));
        p->chunk_base[q] = (int)c;
        for (size_t i = 0; i < hs[q].nchunks; i++, c++) {
            p->chunks[c] = (struct shmemi_plan_chunk){q, (int)qc[i].writers, r, qc[i].nregions};
            p->writers[c] = (int)qc[i].writers;
            for (size_t j = 0; j < qc[i].nregions; j++)
                p->regions[r++] = *qr++;
        }
    }
    free(copy);
    if (!rc)
        p->chunk_base[p->n] = (int)c;
    shmemi_words_free(scratch, "shmemx_plan_create"); /* frees after a barrier */
    return rc;
}

/* ------------------------------------------------------------------ checks */

static int region_check(const shmemx_region_t *r, size_t size, char *why, size_t len) {
    if (!r->row_bytes || !r->rows)
        return snprintf(why, len, "a region of %zu rows of %zu bytes is empty", r->rows,
                        r->row_bytes),
               -1;
    if (r->rows > 1 && r->stride && r->stride < r->row_bytes)
        return snprintf(why, len, "a region's stride %zu is smaller than its rows (%zu bytes)",
                        r->stride, r->row_bytes),
               -1;
    if (r->row_bytes > UINT32_MAX || r->rows > UINT32_MAX || r->stride > UINT32_MAX)
        return snprintf(why, len,
                        "a region (%zu rows of %zu bytes, stride %zu) exceeds the "
                        "copy engine's 32-bit sizes",
                        r->rows, r->row_bytes, r->stride),
               -1;
    size_t stride = r->stride ? r->stride : r->row_bytes, ext;
    if (__builtin_mul_overflow(r->rows - 1, stride, &ext) ||
        __builtin_add_overflow(ext, r->row_bytes, &ext) || r->offset > size ||
        ext > size - r->offset)
        return snprintf(why, len,
                        "a region at offset %zu (%zu rows of %zu bytes, stride %zu) "
                        "runs past the end of the %zu-byte buffer",
                        r->offset, r->rows, r->row_bytes, r->stride, size),
               -1;
    return 0;
}

struct interval {
    size_t lo, hi;
    size_t chunk;
};

static int cmp_interval(const void *a, const void *b) {
    const struct interval *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* No two chunks send the same byte. */
static int check_overlaps(struct shmemx_plan *p) {
    size_t n = 0;
    for (size_t i = 0; i < p->nchunks; i++)
        for (size_t k = 0; k < p->chunks[i].nregions; k++) {
            const shmemx_region_t *r = &p->regions[p->chunks[i].first_region + k];
            n += r->stride && r->stride != r->row_bytes && r->rows > 1 ? r->rows : 1;
        }
    if (n > MAX_INTERVALS)
        return shmemi_plan_err(NULL, SHMEMX_PLAN_EINVAL,
                               "the schedules have %zu rows, more than "
                               "the %zu the overlap check takes",
                               n, MAX_INTERVALS);
    struct interval *iv = malloc((n ? n : 1) * sizeof(*iv));
    if (!iv)
        return SHMEMX_PLAN_ENOMEM;
    size_t m = 0;
    for (size_t i = 0; i < p->nchunks; i++)
        for (size_t k = 0; k < p->chunks[i].nregions; k++) {
            const shmemx_region_t *r = &p->regions[p->chunks[i].first_region + k];
            if (r->stride && r->stride != r->row_bytes && r->rows > 1) {
                for (size_t row = 0; row < r->rows; row++) {
                    size_t lo = r->offset + row * r->stride;
                    iv[m++] = (struct interval){lo, lo + r->row_bytes, i};
                }
            } else {
                iv[m++] = (struct interval){r->offset, r->offset + shmemi_plan_region_extent(r), i};
            }
        }
    qsort(iv, m, sizeof(*iv), cmp_interval);
    int rc = 0;
    size_t reach = 0, reach_chunk = 0;
    for (size_t i = 0; i < m; i++) {
        if (i && iv[i].lo < reach) {
            size_t a = reach_chunk, b = iv[i].chunk;
            rc = shmemi_plan_err(NULL, SHMEMX_PLAN_EINVAL,
                                 "schedules overlap: chunk %zu (PE %d) "
                                 "and chunk %zu (PE %d) both send bytes at offset %zu",
                                 a < b ? a : b, p->chunks[a < b ? a : b].owner, a < b ? b : a,
                                 p->chunks[a < b ? b : a].owner, iv[i].lo);
            break;
        }
        if (iv[i].hi > reach) {
            reach = iv[i].hi;
            reach_chunk = iv[i].chunk;
        }
    }
    free(iv);
    return rc;
}

/* The input is the gathered schedules: the same verdict on every PE. */
int shmemi_plan_validate(struct shmemx_plan *p) {
    char why[200];
    for (size_t c = 0; c < p->nchunks; c++) {
        if (p->chunks[c].writers < 1)
            return shmemi_plan_err(NULL, SHMEMX_PLAN_EINVAL,
                                   "chunk %zu (PE %d) has %d writers: "
                                   "every chunk needs at least one",
                                   c, p->chunks[c].owner, p->chunks[c].writers);
        if (!p->chunks[c].nregions)
            return shmemi_plan_err(NULL, SHMEMX_PLAN_EINVAL, "chunk %zu (PE %d) has no regions", c,
                                   p->chunks[c].owner);
        for (size_t k = 0; k < p->chunks[c].nregions; k++)
            if (region_check(&p->regions[p->chunks[c].first_region + k], p->size, why, sizeof(why)))
                return shmemi_plan_err(NULL, SHMEMX_PLAN_EINVAL, "chunk %zu (PE %d): %s", c,
                                       p->chunks[c].owner, why);
    }
    return check_overlaps(p);
}

/* ---------------------------------------------------------- schedule builders */

int shmemx_plan_whole(size_t offset, size_t bytes, int writers, shmemx_region_t *region,
                      shmemx_chunk_t *chunk) {
    if (!region || !chunk || !bytes || writers < 1)
        return SHMEMX_PLAN_EINVAL;
    *region = (shmemx_region_t){offset, bytes, 1, 0};
    *chunk = (shmemx_chunk_t){region, 1, writers};
    return 1;
}

int shmemx_plan_rows(size_t offset, size_t row_bytes, size_t rows, size_t stride, size_t nchunks,
                     int writers, shmemx_region_t *regions, shmemx_chunk_t *chunks) {
    if (!regions || !chunks || !row_bytes || !rows || !nchunks || nchunks > rows || writers < 1 ||
        (stride && stride < row_bytes))
        return SHMEMX_PLAN_EINVAL;
    size_t pitch = stride ? stride : row_bytes, row = 0;
    for (size_t i = 0; i < nchunks; i++) {
        size_t n = rows / nchunks + (i < rows % nchunks);
        regions[i] = (shmemx_region_t){offset + row * pitch, row_bytes, n, stride};
        chunks[i] = (shmemx_chunk_t){&regions[i], 1, writers};
        row += n;
    }
    return (int)nchunks;
}

int shmemx_plan_tiles(const shmemx_tiling_t *t, const size_t *order, size_t ntiles,
                      size_t tiles_per_chunk, int writers, shmemx_region_t *regions,
                      shmemx_chunk_t *chunks) {
    if (!t || !regions || !chunks || !t->elem_bytes || !t->rows || !t->cols || !t->tile_rows ||
        !t->tile_cols || !tiles_per_chunk || writers < 1 || t->ld_bytes < t->cols * t->elem_bytes)
        return SHMEMX_PLAN_EINVAL;
    size_t grid_r = (t->rows + t->tile_rows - 1) / t->tile_rows;
    size_t grid_c = (t->cols + t->tile_cols - 1) / t->tile_cols;
    if (!order)
        ntiles = grid_r * grid_c;
    if (!ntiles)
        return 0;
    for (size_t i = 0; i < ntiles; i++) {
        size_t tile = order ? order[i] : i;
        if (tile >= grid_r * grid_c)
            return SHMEMX_PLAN_EINVAL;
        size_t tr = tile / grid_c, tc = tile % grid_c;
        size_t r0 = tr * t->tile_rows, c0 = tc * t->tile_cols;
        size_t nr = t->rows - r0 < t->tile_rows ? t->rows - r0 : t->tile_rows;
        size_t nc = t->cols - c0 < t->tile_cols ? t->cols - c0 : t->tile_cols;
        regions[i] = (shmemx_region_t){t->offset + r0 * t->ld_bytes + c0 * t->elem_bytes,
                                       nc * t->elem_bytes, nr, t->ld_bytes};
    }
    size_t nchunks = (ntiles + tiles_per_chunk - 1) / tiles_per_chunk;
    for (size_t k = 0; k < nchunks; k++) {
        size_t first = k * tiles_per_chunk;
        size_t n = ntiles - first < tiles_per_chunk ? ntiles - first : tiles_per_chunk;
        chunks[k] = (shmemx_chunk_t){&regions[first], n, writers};
    }
    return nchunks > INT_MAX ? SHMEMX_PLAN_EINVAL : (int)nchunks;
}
