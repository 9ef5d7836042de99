/* The copy-engine ring protocol (shared/docs/SDMA.md, "The ring protocol"), in one
 * header-inline implementation for host C and for GPU kernels.
 *
 * A ring is a power-of-two byte array plus three words the engine side sees: the read
 * pointer (advanced by the engine), the write pointer and the doorbell. All three carry
 * monotonic 64-bit byte indices, never wrapped; the ring offset is index & (size - 1).
 * Producers share a small control block (struct sdma_ring_ctl): the reserve index
 * (moved forward by compare-and-swap), the committed index (advanced in reservation order)
 * and a cached copy of the read pointer.
 *
 *   reserve  -> place the packet dwords at slot.dw -> commit
 *
 * Reserve never blocks: a full ring returns SDMA_ERR_NO_RESOURCE. Commit waits only for
 * earlier reservations to commit (which they always do: a reserved slot must be committed,
 * filling it with NOPs when its owner has nothing to place, see sdma_ring_commit_nops). */
#ifndef SDMA_RING_H
#define SDMA_RING_H

#include <stddef.h>
#include <stdint.h>

#include "atomic.h"
#include "packets.h"
#include "status.h"

/* Ring flags. */
#define SDMA_RING_SINGLE_PRODUCER 1u /* one producer: no CAS, no ordering wait */
#define SDMA_RING_BURST_NOP                                                                        \
    2u /* pad with burst NOPs (one header per span) instead of
                                        zero dwords (1-dword NOPs, any firmware) */

/* Producer-side shared state; each word on its own cache line. */
struct sdma_ring_ctl {
    uint64_t reserve; /* next byte index to hand out */
    uint64_t pad0[7];
    uint64_t committed; /* every byte below it is published to wptr/doorbell */
    uint64_t pad1[7];
    uint64_t cached_rptr; /* last read pointer a producer saw (a lower bound of *rptr) */
    uint64_t pad2[7];
};

struct sdma_ring {
    uint32_t *base;              /* ring memory */
    uint64_t size;               /* bytes, a power of two */
    uint32_t flags;              /* SDMA_RING_* */
    struct sdma_ring_ctl *ctl;   /* producers' shared state */
    volatile uint64_t *rptr;     /* engine -> producers: bytes consumed */
    volatile uint64_t *wptr;     /* producers -> engine: bytes published */
    volatile uint64_t *doorbell; /* producers -> engine: same value as wptr, rings the engine */
};

/* A reservation: bytes [start, end) of the ring's index space belong to one producer.
 * The packet goes at dw (index pkt); [start, pkt) is NOP padding already written. */
struct sdma_ring_slot {
    uint64_t start;
    uint64_t pkt;
    uint64_t end;
    uint32_t *dw;
    uint32_t ndw;
};

static inline SDMA_HD uint32_t *sdma_ring_at(const struct sdma_ring *r, uint64_t index) {
    return r->base + ((index & (r->size - 1)) >> 2);
}

/* Tagged slots: how GPU producers publish without a doorbell (queues opened with
 * SDMA_QUEUE_TAGGED). Every producer takes a fixed 64-byte slot (one atomic add on
 * ctl->reserve), writes its packets there padded with a NOP whose last dword is the
 * slot's tag, and stores the tag last with a system-scope release. The engine runs
 * the slot at its read pointer once the tag there is that slot's: no producer waits
 * for another, where a doorbell needs them to publish in turn. Tags of the previous
 * lap differ (they count slots), and the first lap's memory is zero, never a tag. */
#define SDMA_SLOT_BYTES 64u
#define SDMA_SLOT_DW 16u
static inline SDMA_HD uint32_t sdma_slot_tag(uint64_t index) {
    return (uint32_t)(index / SDMA_SLOT_BYTES) + 1u;
}

/* Fill `ndw` dwords at ring index `index` with NOPs (the span must not cross the ring end):
 * zero dwords, or burst NOPs on rings flagged SDMA_RING_BURST_NOP. */
static inline SDMA_HD void sdma_ring_fill_nops(const struct sdma_ring *r, uint64_t index,
                                               uint64_t ndw) {
    uint32_t *p = sdma_ring_at(r, index);
    if (!(r->flags & SDMA_RING_BURST_NOP)) {
        sdma_pkt_nop_zero(p, (size_t)ndw);
        return;
    }
    while (ndw > 0) {
        size_t n = ndw > SDMA_NOP_MAX_DW ? SDMA_NOP_MAX_DW : (size_t)ndw;
        p += sdma_pkt_nop(p, n);
        ndw -= n;
    }
}

/* Reserve `ndw` dwords (at most half the ring). Returns SDMA_OK and fills *slot,
 * SDMA_ERR_NO_RESOURCE when the ring is full (nothing reserved), SDMA_ERR_INVAL when
 * the request can never fit. Never blocks.
 *
 * The write index stays strictly less than one ring ahead of the read index: with
 * end - rp == size the two are equal modulo the ring, and an engine that compares wrapped
 * offsets sees an empty ring (and idles while producers wait for it). Every AMD producer
 * keeps that gap: ROCr amd_blit_sdma.cpp CanWriteUpto ("At most we can submit
 * (kQueueSize - 1) bytes at a time"), kfdtest BaseQueue.cpp (readPtr - 1 - writePtr),
 * ROCm/mori anvil_device.hpp ((uptoIndex - cachedHwReadIndex) < queue_size_in_bytes). */
static inline SDMA_HD int sdma_ring_reserve(const struct sdma_ring *r, uint32_t ndw,
                                            struct sdma_ring_slot *slot) {
    struct sdma_ring_ctl *c = r->ctl;
    uint64_t bytes = (uint64_t)ndw * 4u;
    uint64_t cur, pad, end, rp;

    if (ndw == 0 || bytes > r->size / 2)
        return SDMA_ERR_INVAL;
    cur = sdma_load_relaxed_u64(&c->reserve);
    for (;;) {
        uint64_t off = cur & (r->size - 1);
        /* A packet never straddles the end: take the tail as NOP padding as well. */
        pad = off + bytes > r->size ? r->size - off : 0;
        end = cur + pad + bytes;
        rp = sdma_load_relaxed_u64(&c->cached_rptr);
        if (end - rp >= r->size) {
            /* Cached pointer says full: re-read the engine's. Acquire pairs with the
             * engine's release store of rptr: the engine's reads of the slots we are
             * about to overwrite happened before. */
            rp = sdma_load_acquire_u64(r->rptr);
            if (end - rp >= r->size)
                return SDMA_ERR_NO_RESOURCE;
            /* A hint only: a stale value written here merely causes an extra re-read. */
            sdma_store_relaxed_u64(&c->cached_rptr, rp);
        }
        if (r->flags & SDMA_RING_SINGLE_PRODUCER) {
            sdma_store_relaxed_u64(&c->reserve, end);
            break;
        }
        if (sdma_cas_u64(&c->reserve, &cur, end))
            break;
        /* Lost the race: cur now holds the winner's index; try again from there. */
    }
    if (pad)
        sdma_ring_fill_nops(r, cur, pad / 4);
    slot->start = cur;
    slot->pkt = cur + pad;
    slot->end = end;
    slot->dw = sdma_ring_at(r, cur + pad);
    slot->ndw = ndw;
    return SDMA_OK;
}

/* Publish a placed slot, in reservation order. */
static inline SDMA_HD void sdma_ring_commit(const struct sdma_ring *r,
                                            const struct sdma_ring_slot *slot) {
    struct sdma_ring_ctl *c = r->ctl;
    if (!(r->flags & SDMA_RING_SINGLE_PRODUCER)) {
        uint32_t spins = 0;
        /* Earlier reservations publish first. Acquire pairs with the previous producer's
         * release of `committed` below, so its wptr/doorbell stores are ordered before ours
         * and the engine never sees the write index go backwards. */
        while (sdma_load_acquire_u64(&c->committed) != slot->start)
            sdma_spin_pause(spins++);
    }
    /* Release: the packet dwords (and padding NOPs) are visible before the write pointer.
     * The engine acquires them by its acquire load of the doorbell / write pointer. */
    sdma_store_release_u64(r->wptr, slot->end);
    /* Release again, then ring the doorbell with the same index. */
    sdma_store_release_u64(r->doorbell, slot->end);
    /* Hand the turn to the next reservation (acquired in its wait above). */
    sdma_store_release_u64(&c->committed, slot->end);
}

/* Give up a reserved slot without a packet: NOPs, then commit (a slot must never be left). */
static inline SDMA_HD void sdma_ring_commit_nops(const struct sdma_ring *r,
                                                 const struct sdma_ring_slot *slot) {
    sdma_ring_fill_nops(r, slot->pkt, slot->ndw);
    sdma_ring_commit(r, slot);
}

/* Set up a ring view. The control block and the three pointers must start equal
 * (normally all zero for a new queue). size: power of two, at least 64 bytes. */
static inline SDMA_HD int sdma_ring_init(struct sdma_ring *r, void *base, uint64_t size,
                                         struct sdma_ring_ctl *ctl, volatile uint64_t *rptr,
                                         volatile uint64_t *wptr, volatile uint64_t *doorbell,
                                         uint32_t flags) {
    uint64_t start;
    if (!base || size < 64 || (size & (size - 1)) || !ctl || !rptr || !wptr || !doorbell)
        return SDMA_ERR_INVAL;
    r->base = (uint32_t *)base;
    r->size = size;
    r->flags = flags;
    r->ctl = ctl;
    r->rptr = rptr;
    r->wptr = wptr;
    r->doorbell = doorbell;
    start = *wptr;
    ctl->reserve = start;
    ctl->committed = start;
    ctl->cached_rptr = *rptr;
    return SDMA_OK;
}

#endif
