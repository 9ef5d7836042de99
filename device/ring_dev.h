/* Device-side copy-engine enqueue: a wave writes COPY_LINEAR packets into an
 * SDMA ring with one reservation (sdma/ring.h protocol, shared/docs/SDMA.md).
 *
 * This is the AMD path of large device _nbi puts (the kernel writes packets,
 * the copy engine moves the bytes). The device state carries no queue yet, so
 * device _nbi puts are stores on both vendors; tests/gpu/ring_soft.cu runs
 * this function on a real GPU against the soft engine (ring in host memory
 * mapped to the GPU), and tests/unit/test_dev_api.c on the CPU.
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

#include "device/arch.h"
#include "sdma/packets.h"
#include "sdma/ring.h"
#include "sdma/status.h"

/* Called by every active lane of a wave (divergent callers are fine: the
 * active mask decides), each with its own copy of `bytes` (0 .. 
 * SDMA_COPY_LINEAR_MAX; 0 places a NOP) from src to dst, both addresses as the
 * engine sees them. All active lanes must name the same ring. Returns SDMA_OK
 * once the packets are published (wptr and doorbell stored, released at system
 * scope), SDMA_ERR_INVAL (a size out of range: nothing queued by any lane),
 * or SDMA_ERR_TIMEOUT (ring still full after timeout_ns; 0 = no limit; nothing
 * queued). Completion is the caller's: a FENCE after, or the data itself. */
SHMEMI_DFN int shmemi_dev_ring_copy_wave(const struct sdma_ring *r, uint64_t dst, uint64_t src,
                                         uint64_t bytes, uint64_t timeout_ns) {
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
        sdma_ring_commit(r, &slot);
    shmemi_arch_wave_sync(mask);
    return SDMA_OK;
}

#endif
