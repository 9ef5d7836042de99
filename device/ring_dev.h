/* Device-side copy-engine enqueue: a wave writes COPY_LINEAR packets into an
 * SDMA ring with one reservation (sdma/ring.h protocol, shared/docs/SDMA.md).
 *
 * This is the path of large workgroup and wave _nbi puts (the kernel writes
 * packets, the copy engine moves the bytes): into the device-driven queues of
 * the cuda engine on NVIDIA (its proxy thread reads the ring), and of the
 * hsakmt engine on AMD. tests/gpu/ring_soft.cu runs this function on a real GPU
 * against the soft engine (ring in host memory mapped to the GPU), and
 * tests/unit/test_dev_api.c on the CPU.
 *
 * Why one reservation per wave: lanes of a wave execute in lock-step (AMD; and
 * a diverged CUDA warp may too). If each lane reserved its own slot, a lane
 * spinning in commit for an earlier slot owned by a masked-off lane of the same
 * wave would never see it committed. Here the lowest active lane reserves for
 * all active lanes, every lane places its packet, and the same lane commits:
 * the only waits (ring space, then commit order) are on the engine and on other
 * waves, which progress on their own. The space wait is bounded by timeout_ns;
 * the commit wait is not, and needs no bound: a wave reserves only after its
 * space wait succeeded and then always commits, so every earlier reservation
 * commits. */
#ifndef SHMEM_DEVICE_RING_DEV_H
#define SHMEM_DEVICE_RING_DEV_H

#include <stdint.h>

#include "arch.h"
#include "../sdma/packets.h"
#include "../sdma/ring.h"
#include "../sdma/status.h"

/* Publish a reserved slot whose packet the caller's wave has written: the
 * ring protocol's commit (sdma/ring.h) with the scopes a GPU needs, and no
 * system-scope fence inside the turn-taking, which serializes all producers:
 *  - one system-scope fence first, outside the turn: the wave's packet stores
 *    (ordered to this lane by the wave barrier before the call) are visible to
 *    the engine before anything this lane stores later;
 *  - wait for the turn with device-scope acquires (`committed` is GPU memory);
 *  - wptr and doorbell are relaxed system-scope stores: they come after the
 *    previous producer's in causality order (its release of `committed`, our
 *    acquire), so their coherence order on each word is ascending, and the
 *    engine never sees the index go back;
 *  - the wptr store completes before the doorbell store is issued (a drain,
 *    s_waitcnt on AMD, as ROCm/mori's submitPacket spaces them): the queue
 *    scheduler reads wptr memory when it maps the queue again;
 *  - hand the turn on with a device-scope release. */
SHMEMI_DFN void shmemi_dev_ring_commit(const struct sdma_ring *r,
                                       const struct sdma_ring_slot *slot) {
    struct sdma_ring_ctl *c = r->ctl;
    unsigned spins = 0;
    shmemi_arch_fence_sys();
    if (!(r->flags & SDMA_RING_SINGLE_PRODUCER))
        while (shmemi_arch_ld_acq64_dev(&c->committed) != slot->start)
            shmemi_arch_pause(&spins);
    shmemi_arch_st_rlx64((void *)r->wptr, slot->end);
    shmemi_arch_drain();
    shmemi_arch_st_rlx64((void *)r->doorbell, slot->end);
    shmemi_arch_st_rel64_dev(&c->committed, slot->end);
}

/* One thread queues one COPY_LINEAR of `bytes` (1 .. SDMA_COPY_LINEAR_MAX) in a
 * tagged slot (sdma/ring.h; the queue was opened with SDMA_QUEUE_TAGGED): one
 * atomic add reserves the slot, the packet and its padding go in, and the tag
 * is stored last with a system-scope release. No producer waits for another.
 * First the ring must have room: SDMA_ERR_TIMEOUT (nothing queued) when it
 * stays full for timeout_ns (0: no limit) before the slot is taken; once taken
 * the slot is always published (the engine frees the room it waits for).
 * *end: the ring index just past the slot. */
SHMEMI_DFN int shmemi_dev_ring_copy_tagged(const struct sdma_ring *r, uint64_t dst, uint64_t src,
                                           uint64_t bytes, uint64_t timeout_ns, uint64_t *end) {
    struct sdma_ring_ctl *c = r->ctl;
    uint64_t rp, idx, deadline = timeout_ns ? shmemi_arch_now_ns() + timeout_ns : 0;
    unsigned spins = 0;
    if (bytes == 0 || bytes > SDMA_COPY_LINEAR_MAX)
        return SDMA_ERR_INVAL;
    /* Room for one more slot beyond everything reserved so far (a hint: racing
     * producers may each see room for themselves only; they then wait below). */
    rp = shmemi_arch_ld_rlx64(&c->cached_rptr);
    while (shmemi_arch_ld_rlx64(&c->reserve) + SDMA_SLOT_BYTES - rp > r->size) {
        rp = shmemi_arch_ld_acq64((const void *)r->rptr);
        shmemi_arch_st_rlx64(&c->cached_rptr, rp);
        if (shmemi_arch_ld_rlx64(&c->reserve) + SDMA_SLOT_BYTES - rp <= r->size)
            break;
        if (deadline && (spins & 63) == 63 && shmemi_arch_now_ns() > deadline)
            return SDMA_ERR_TIMEOUT;
        shmemi_arch_pause(&spins);
    }
    idx = shmemi_arch_amo64(SHMEMI_AMO_ADD, &c->reserve, SDMA_SLOT_BYTES, 0);
    /* The slot's memory is free once the engine's read pointer is past its
     * previous lap (acquire: the engine's reads of it are done). */
    while (idx + SDMA_SLOT_BYTES - rp > r->size) {
        rp = shmemi_arch_ld_acq64((const void *)r->rptr);
        shmemi_arch_pause(&spins);
    }
    {
        uint32_t *d = sdma_ring_at(r, idx);
        (void)sdma_pkt_copy_linear(d, dst, src, (uint32_t)bytes);
        (void)sdma_pkt_nop(d + SDMA_COPY_LINEAR_DW, SDMA_SLOT_DW - SDMA_COPY_LINEAR_DW);
        /* Release (system): the packet, and everything the caller ordered before
         * (the group's writes to src), before the tag the engine acquires. */
        shmemi_arch_st_rel32(&d[SDMA_SLOT_DW - 1], sdma_slot_tag(idx));
    }
    *end = idx + SDMA_SLOT_BYTES;
    return SDMA_OK;
}

/* One thread queues one COPY_LINEAR of `bytes` (1 .. SDMA_COPY_LINEAR_MAX)
 * and a FENCE storing the low 32 bits of the ring index just past both at
 * fence_addr (in order after the copy: the completion index), with the
 * doorbell protocol of hardware queues: reserve, place, commit in turn. The
 * caller must be the only lane of its wave calling (see above). Returns as
 * shmemi_dev_ring_copy_tagged, with *end the index past the FENCE. */
SHMEMI_DFN int shmemi_dev_ring_copy_fenced(const struct sdma_ring *r, uint64_t dst, uint64_t src,
                                           uint64_t bytes, uint64_t fence_addr, uint64_t timeout_ns,
                                           uint64_t *end) {
    struct sdma_ring_slot slot = {0, 0, 0, 0, 0};
    uint64_t deadline = timeout_ns ? shmemi_arch_now_ns() + timeout_ns : 0;
    unsigned spins = 0;
    int rc;
    if (bytes == 0 || bytes > SDMA_COPY_LINEAR_MAX)
        return SDMA_ERR_INVAL;
    while ((rc = sdma_ring_reserve(r, SDMA_COPY_LINEAR_DW + SDMA_FENCE_DW, &slot)) ==
           SDMA_ERR_NO_RESOURCE) {
        if (deadline && (spins & 63) == 63 && shmemi_arch_now_ns() > deadline)
            return SDMA_ERR_TIMEOUT;
        shmemi_arch_pause(&spins);
    }
    if (rc != SDMA_OK)
        return rc;
    {
        size_t n = sdma_pkt_copy_linear(slot.dw, dst, src, (uint32_t)bytes);
        (void)sdma_pkt_fence(slot.dw + n, fence_addr, (uint32_t)slot.end);
    }
    shmemi_dev_ring_commit(r, &slot);
    *end = slot.end;
    return SDMA_OK;
}

/* Called by every active lane of a wave (divergent callers are fine: the
 * active mask decides), each with its own copy of `bytes` (0 .. 
 * SDMA_COPY_LINEAR_MAX; 0 places a NOP) from src to dst, both addresses as the
 * engine sees them. All active lanes must name the same ring. Returns SDMA_OK
 * once the packets are published (wptr and doorbell stored, released at system
 * scope), SDMA_ERR_INVAL (a size out of range: nothing queued by any lane),
 * or SDMA_ERR_TIMEOUT (ring still full after timeout_ns; 0 = no limit; nothing
 * queued). Completion is the caller's: a FENCE after, the data itself, or the
 * queue's completion index reaching *end (when end is not NULL). */
SHMEMI_DFN int shmemi_dev_ring_copy_wave(const struct sdma_ring *r, uint64_t dst, uint64_t src,
                                         uint64_t bytes, uint64_t timeout_ns, uint64_t *end) {
    shmemi_lanemask_t mask = shmemi_arch_active();
    unsigned lane = shmemi_arch_lane();
    unsigned leader = shmemi_arch_lowest(mask);
    unsigned rank = shmemi_arch_popc(mask & (((shmemi_lanemask_t)1 << lane) - 1));
    unsigned n = shmemi_arch_popc(mask);
    struct sdma_ring_slot slot = {0, 0, 0, 0, 0};
    uint64_t pkt = 0;
    int rc = SDMA_OK;

    /* Any lane's bad size fails the whole wave before anything is reserved. */
    {
        int bad = bytes > SDMA_COPY_LINEAR_MAX;
#if defined(SHMEMI_DEV_GPU)
#if defined(SHMEMI_DEV_CUDA)
        bad = __any_sync((unsigned)mask, bad);
#else
        bad = __any(bad);
#endif
#endif
        if (bad)
            return SDMA_ERR_INVAL;
    }
    if (lane == leader) {
        uint64_t deadline = timeout_ns ? shmemi_arch_now_ns() + timeout_ns : 0;
        unsigned spins = 0;
        /* Reserve never blocks; a full ring frees as the engine consumes. */
        while ((rc = sdma_ring_reserve(r, n * SDMA_COPY_LINEAR_DW, &slot)) ==
               SDMA_ERR_NO_RESOURCE) {
            if (deadline && (spins & 63) == 63 && shmemi_arch_now_ns() > deadline) {
                rc = SDMA_ERR_TIMEOUT;
                break;
            }
            shmemi_arch_pause(&spins);
        }
        pkt = slot.pkt;
    }
    rc = (int)(int64_t)shmemi_arch_bcast64(mask, (uint64_t)(int64_t)rc, leader);
    if (rc != SDMA_OK)
        return rc;
    pkt = shmemi_arch_bcast64(mask, pkt, leader);
    /* The reservation never straddles the ring end (reserve pads the tail with
     * NOPs), so lane `rank`'s packet is at pkt + rank * packet bytes. */
    {
        uint32_t *dw = sdma_ring_at(r, pkt + (uint64_t)rank * SDMA_COPY_LINEAR_DW * 4u);
        if (bytes)
            (void)sdma_pkt_copy_linear(dw, dst, src, (uint32_t)bytes);
        else
            (void)sdma_pkt_nop(dw, SDMA_COPY_LINEAR_DW);
    }
    /* Lanes' packet stores are ordered before the leader's commit: the wave
     * barrier (a memory barrier among the lanes on CUDA, program order within
     * the wave on AMD), then commit's system-scope release of wptr/doorbell,
     * which the engine acquires. */
    shmemi_arch_wave_sync(mask);
    if (lane == leader)
        shmemi_dev_ring_commit(r, &slot);
    shmemi_arch_wave_sync(mask);
    if (end) /* the ring index just past this wave's packets */
        *end = shmemi_arch_bcast64(mask, slot.end, leader);
    return SDMA_OK;
}

#endif
