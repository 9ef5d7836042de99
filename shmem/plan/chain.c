/* Chains of triggered plans: for every own chunk and every peer, the packets
 * built once at create (shmem/plan/plan.h draws one), and armed again every
 * round with the round's number patched in. */
#include "shmem/plan/plan.h"

#include <stdlib.h>

static uint64_t addr(const void *x) { return (uint64_t)(uintptr_t)x; }

static int region_linear(const shmemx_region_t *r) {
    return r->rows == 1 || !r->stride || r->stride == r->row_bytes;
}

/* How a strided region is copied on this engine: one LARGE sub-window packet,
 * one 13-dword sub-window packet (pre-gfx12 parts), or row by row when the
 * window does not fit the 13-dword format. Offsets of src and dst share
 * their alignment (same offset in the same-aligned heaps). */
enum { COPY_LARGE, COPY_SW13, COPY_ROWS };
static int region_2d_kind(const struct shmemx_plan *p, const shmemx_region_t *r) {
    if (sdma_engine_copy_2d_format(shmemi_engine()) != SDMA_COPY_2D_SW13)
        return COPY_LARGE;
    uint64_t a = addr(p->buf + r->offset);
    return sdma_pkt_copy_2d_sw13_fits(a, (uint32_t)r->stride, a, (uint32_t)r->stride,
                                      (uint32_t)r->row_bytes, (uint32_t)r->rows)
               ? COPY_SW13
               : COPY_ROWS;
}

static size_t region_dwords(const struct shmemx_plan *p, const shmemx_region_t *r) {
    if (region_linear(r)) {
        size_t bytes = shmemi_plan_region_extent(r), max = SDMA_COPY_LINEAR_MAX;
        return SDMA_COPY_LINEAR_DW * ((bytes + max - 1) / max);
    }
    switch (region_2d_kind(p, r)) {
    case COPY_LARGE: return SDMA_COPY_2D_DW;
    case COPY_SW13: return SDMA_COPY_2D_SW13_DW;
    default: return SDMA_COPY_LINEAR_DW * r->rows;
    }
}

static size_t chain_dwords(const struct shmemx_plan *p, size_t c) {
    size_t dw = 2 * SDMA_POLL_DW + 2 * SDMA_FENCE_DW;
    for (size_t k = 0; k < p->chunks[c].nregions; k++)
        dw += region_dwords(p, &p->regions[p->chunks[c].first_region + k]);
    return dw;
}

/* The copies of one region to peer, at d; returns the dwords written. */
static size_t region_copies(const struct shmemx_plan *p, const shmemx_region_t *g, int peer,
                            uint32_t *d) {
    uint32_t *start = d;
    char *src = p->buf + g->offset, *dst = (char *)shmemi_plan_at_peer(src, peer);
    if (region_linear(g)) {
        size_t left = shmemi_plan_region_extent(g);
        while (left) {
            size_t n = left > SDMA_COPY_LINEAR_MAX ? SDMA_COPY_LINEAR_MAX : left;
            d += sdma_pkt_copy_linear(d, addr(dst), addr(src), (uint32_t)n);
            src += n, dst += n, left -= n;
        }
    } else if (region_2d_kind(p, g) == COPY_LARGE) {
        d += sdma_pkt_copy_2d(d, addr(dst), (uint32_t)g->stride, addr(src), (uint32_t)g->stride,
                              (uint32_t)g->row_bytes, (uint32_t)g->rows);
    } else if (region_2d_kind(p, g) == COPY_SW13) {
        d += sdma_pkt_copy_2d_sw13(d, addr(dst), (uint32_t)g->stride, addr(src),
                                   (uint32_t)g->stride, (uint32_t)g->row_bytes, (uint32_t)g->rows);
    } else {
        for (size_t row = 0; row < g->rows; row++)
            d += sdma_pkt_copy_linear(d, addr(dst + row * g->stride), addr(src + row * g->stride),
                                      (uint32_t)g->row_bytes);
    }
    return (size_t)(d - start);
}

int shmemi_plan_build_chains(struct shmemx_plan *p) {
    size_t first = (size_t)p->chunk_base[p->me];
    p->chains = calloc((size_t)p->n * (p->own ? p->own : 1), sizeof(*p->chains));
    if (!p->chains)
        return SHMEMX_PLAN_ENOMEM;
    size_t most = 0;
    for (int peer = 0; peer < p->n; peer++) {
        if (peer == p->me)
            continue;
        size_t bytes = 0;
        for (size_t k = 0; k < p->own; k++) {
            size_t c = first + k;
            struct shmemi_plan_chain *ch = &p->chains[(size_t)peer * p->own + k];
            ch->ndw = chain_dwords(p, c);
            ch->dw = malloc(ch->ndw * sizeof(uint32_t));
            if (!ch->dw)
                return SHMEMX_PLAN_ENOMEM;
            uint32_t *d = ch->dw;
            ch->poll_ref = 3;
            d += sdma_pkt_poll(d, addr(&p->w.gates[c]), 0, 0xFFFFFFFFu, SDMA_POLL_GE, 10,
                               SDMA_POLL_RETRY_FOREVER);
            ch->peer_ref = (size_t)(d - ch->dw) + 3;
            d += sdma_pkt_poll(d, addr(&p->w.fence[peer]), 0, 0xFFFFFFFFu, SDMA_POLL_GE, 10,
                               SDMA_POLL_RETRY_FOREVER);
            for (size_t r = 0; r < p->chunks[c].nregions; r++)
                d += region_copies(p, &p->regions[p->chunks[c].first_region + r], peer, d);
            ch->arrival_val = (size_t)(d - ch->dw) + 3;
            d += sdma_pkt_fence(d, addr(shmemi_plan_at_peer(&p->w.arrival[c], peer)), 0);
            ch->fence_val = (size_t)(d - ch->dw) + 3;
            d += sdma_pkt_fence(d, addr(&p->w.sent[c * (size_t)p->n + (size_t)peer]), 0);
            bytes += ch->ndw * sizeof(uint32_t);
        }
        if (bytes > most)
            most = bytes;
    }
    p->round_bytes = most;
    return 0;
}

/* The chains, in schedule order, behind their gates. */
int shmemi_plan_arm(struct shmemx_plan *p, uint32_t r) {
    for (int peer = 0; peer < p->n && p->own; peer++) {
        if (peer == p->me)
            continue;
        struct shmemi_plan_queue *pq = &shmemi_plan_queues[peer];
        for (size_t k = 0; k < p->own; k++) {
            struct shmemi_plan_chain *ch = &p->chains[(size_t)peer * p->own + k];
            ch->dw[ch->poll_ref] = r;
            ch->dw[ch->peer_ref] = r - 1;
            ch->dw[ch->arrival_val] = r;
            ch->dw[ch->fence_val] = r;
            /* No kick: the chain waits on its gate, and opening the gate kicks. */
            int rc = sdma_queue_submit_flags(pq->q, ch->dw, ch->ndw, SDMA_SUBMIT_NO_KICK);
            if (rc)
                return shmemi_plan_err(
                    p, rc == SDMA_ERR_NO_RESOURCE ? SHMEMX_PLAN_ENOSPC : SHMEMX_PLAN_EENGINE,
                    "round %u: cannot queue chunk %zu's chain to PE %d: %s (%s)", r,
                    (size_t)p->chunk_base[p->me] + k, peer, sdma_strerror(rc), sdma_last_error());
        }
        if (shmemi_ledger_push(&pq->ledger, p, r, p->round_bytes))
            return SHMEMX_PLAN_ENOMEM;
    }
    p->prepared = r;
    return 0;
}

void shmemi_plan_open_gates(struct shmemx_plan *p, uint32_t r) {
    for (size_t k = 0; k < p->own; k++)
        __atomic_store_n(&p->w.gates[(size_t)p->chunk_base[p->me] + k], r, __ATOMIC_RELEASE);
    /* Where the engine's thread has no CPU of its own, no kick: the caller
     * waits next and runs the chains itself (shmem/engine.c). */
    if (!shmemi_engine_offload())
        return;
    for (int q = 0; q < p->n; q++)
        if (shmemi_plan_queues && shmemi_plan_queues[q].q) {
            sdma_queue_kick(shmemi_plan_queues[q].q); /* one engine thread serves them all */
            return;
        }
}
