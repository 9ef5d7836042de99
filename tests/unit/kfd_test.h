/* Helpers of the KFD-model tests (built with -DSHMEM_HSAKMT_MODEL=ON): the hsakmt engine
 * and raw thunk calls against sdma/kfd_model. Check runs each test in its own process, so
 * every test starts with a fresh model (driver closed, default topology). */
#ifndef KFD_TEST_H
#define KFD_TEST_H

#define _GNU_SOURCE
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sdma/kfd_model/kfd_model.h"
#include "sdma/sdma.h"

/* The default topology's GPUs: node 1 gfx90a, node 2 gfx942. */
#define GFX90A_PCI "0000:29:00.0"
#define GFX942_PCI "0000:a9:00.0"

static inline double kt_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline void kt_sleep_ms(int ms) { usleep((useconds_t)ms * 1000); }

/* An hsakmt engine on the GPU at pci (NULL: the first visible GPU, as before the fix). */
static inline struct sdma_engine *kt_engine(const char *pci, int copy_2d) {
    struct sdma_engine_config cfg;
    struct sdma_engine *e = NULL;
    char err[512];
    int rc;
    memset(&cfg, 0, sizeof cfg);
    cfg.copy_2d = copy_2d;
    if (pci)
        ck_assert_int_eq(sdma_config_set_pci(&cfg, pci), SDMA_OK);
    rc = sdma_engine_open("hsakmt", &cfg, &e, err, sizeof err);
    ck_assert_msg(rc == SDMA_OK, "open hsakmt: %s", err);
    ck_assert_str_eq(sdma_engine_name(e), "hsakmt");
    return e;
}

/* Page-aligned host memory (not yet known to the driver). */
static inline void *kt_pages(size_t bytes, int fill) {
    void *p = aligned_alloc(4096, (bytes + 4095) & ~(size_t)4095);
    ck_assert_ptr_nonnull(p);
    memset(p, fill, bytes);
    return p;
}

/* Submit raw dwords, bypassing the layer's address checks: what the engine did before it
 * classified memory (packets naming whatever the caller passed). */
static inline void kt_raw(struct sdma_queue *q, const uint32_t *dw, size_t n) {
    ck_assert_int_eq(sdma_queue_submit(q, dw, n), SDMA_OK);
}

/* The raw thunk, as a user of libhsakmt sees it: the driver open, a 4 KiB ring and a page of
 * words on `node`, both mapped for it; kt_raw_queue makes an SDMA queue on the ring. */
struct kt_raw {
    HSAuint32 node;
    uint32_t *ring, *word;
    HsaQueueResource res;
};

static inline void kt_raw_setup(struct kt_raw *r, HSAuint32 node) {
    HsaMemFlags f;
    HsaMemMapFlags mf;
    HsaSystemProperties sys;
    memset(r, 0, sizeof *r);
    memset(&f, 0, sizeof f);
    memset(&mf, 0, sizeof mf);
    f.ui32.HostAccess = 1;
    r->node = node;
    ck_assert_int_eq(hsaKmtOpenKFD(), HSAKMT_STATUS_SUCCESS);
    ck_assert_int_eq(hsaKmtAcquireSystemProperties(&sys), HSAKMT_STATUS_SUCCESS);
    ck_assert_int_eq(hsaKmtAllocMemory(node, 4096, f, (void **)&r->ring), HSAKMT_STATUS_SUCCESS);
    ck_assert_int_eq(hsaKmtAllocMemory(node, 4096, f, (void **)&r->word), HSAKMT_STATUS_SUCCESS);
    ck_assert_int_eq(hsaKmtMapMemoryToGPUNodes(r->ring, 4096, NULL, mf, 1, &r->node), 0);
    ck_assert_int_eq(hsaKmtMapMemoryToGPUNodes(r->word, 4096, NULL, mf, 1, &r->node), 0);
}

static inline void kt_raw_queue(struct kt_raw *r) {
    ck_assert_int_eq(hsaKmtCreateQueue(r->node, HSA_QUEUE_SDMA, 100, HSA_QUEUE_PRIORITY_MAXIMUM,
                                       r->ring, 4096, NULL, &r->res),
                     HSAKMT_STATUS_SUCCESS);
}

/* Publish the ring up to byte index `end`: the write pointer, then the doorbell. */
static inline void kt_raw_publish(struct kt_raw *r, uint64_t end) {
    __atomic_store_n(r->res.Queue_write_ptr_aql, end, __ATOMIC_RELEASE);
    __atomic_store_n(r->res.Queue_DoorBell_aql, end, __ATOMIC_RELEASE);
}

/* Wait up to 2 s for *w == v; returns the value seen last. */
static inline uint32_t kt_wait_word(const uint32_t *w, uint32_t v) {
    int i;
    for (i = 0; i < 2000 && __atomic_load_n(w, __ATOMIC_ACQUIRE) != v; i++)
        kt_sleep_ms(1);
    return __atomic_load_n(w, __ATOMIC_ACQUIRE);
}

static inline struct kfdm_stats kt_stats(void) {
    struct kfdm_stats s;
    kfdm_get_stats(&s);
    return s;
}

#endif
