/* The ring protocol without an engine: a test thread plays the engine's part. */
#include <check.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sdma/ring.h"

struct fixture {
    struct sdma_ring r;
    struct sdma_ring_ctl ctl;
    volatile uint64_t rptr, wptr, doorbell;
    uint32_t *mem;
};

static void fx_init(struct fixture *f, uint64_t size, uint32_t flags) {
    memset(f, 0, sizeof *f);
    f->mem = aligned_alloc(64, size);
    memset(f->mem, 0xEE, size);
    ck_assert_int_eq(
        sdma_ring_init(&f->r, f->mem, size, &f->ctl, &f->rptr, &f->wptr, &f->doorbell, flags),
        SDMA_OK);
}

START_TEST(test_init_args) {
    struct fixture f;
    uint32_t mem[64];
    memset(&f, 0, sizeof f);
    ck_assert_int_eq(sdma_ring_init(&f.r, mem, 200, &f.ctl, &f.rptr, &f.wptr, &f.doorbell, 0),
                     SDMA_ERR_INVAL);
    ck_assert_int_eq(sdma_ring_init(&f.r, NULL, 256, &f.ctl, &f.rptr, &f.wptr, &f.doorbell, 0),
                     SDMA_ERR_INVAL);
    ck_assert_int_eq(sdma_ring_init(&f.r, mem, 256, &f.ctl, &f.rptr, &f.wptr, &f.doorbell, 0),
                     SDMA_OK);
}
END_TEST

START_TEST(test_reserve_commit) {
    struct fixture f;
    struct sdma_ring_slot s = {0};
    fx_init(&f, 256, 0);
    ck_assert_int_eq(sdma_ring_reserve(&f.r, 10, &s), SDMA_OK);
    ck_assert_uint_eq(s.start, 0);
    ck_assert_uint_eq(s.pkt, 0);
    ck_assert_uint_eq(s.end, 40);
    ck_assert_ptr_eq(s.dw, f.mem);
    ck_assert_uint_eq(f.wptr, 0); /* nothing published before commit */
    sdma_pkt_fence(s.dw, 0x1000, 7);
    sdma_ring_commit_nops(&f.r, &s);
    ck_assert_uint_eq(f.wptr, 40);
    ck_assert_uint_eq(f.doorbell, 40);
    ck_assert_uint_eq(f.ctl.committed, 40);
    ck_assert_uint_eq(f.mem[0], 0); /* given up: zero dwords, each a 1-dword NOP */
    ck_assert_uint_eq(f.mem[9], 0);
    ck_assert_uint_eq(f.mem[10], 0xEEEEEEEEu);
    ck_assert_int_eq(sdma_ring_reserve(&f.r, 0, &s), SDMA_ERR_INVAL);
    ck_assert_int_eq(sdma_ring_reserve(&f.r, 33, &s), SDMA_ERR_INVAL); /* > half the ring */
    free(f.mem);
    /* Burst NOPs on request: one header spanning the slot. */
    fx_init(&f, 256, SDMA_RING_BURST_NOP);
    ck_assert_int_eq(sdma_ring_reserve(&f.r, 10, &s), SDMA_OK);
    sdma_ring_commit_nops(&f.r, &s);
    ck_assert_uint_eq(f.mem[0], 0x00090000u);
    ck_assert_uint_eq(f.mem[9], 0);
    free(f.mem);
}
END_TEST

START_TEST(test_wrap_padding) {
    struct fixture f;
    struct sdma_ring_slot s = {0};
    int i;
    fx_init(&f, 256, 0);
    for (i = 0; i < 12; i++) { /* 12 x 5 dwords = 240 bytes */
        ck_assert_int_eq(sdma_ring_reserve(&f.r, 5, &s), SDMA_OK);
        sdma_ring_commit(&f.r, &s);
        f.rptr = f.wptr; /* engine consumed */
    }
    ck_assert_uint_eq(f.wptr, 240);
    /* 7 dwords would straddle the end: 16 bytes of NOP padding, packet at the start. */
    ck_assert_int_eq(sdma_ring_reserve(&f.r, 7, &s), SDMA_OK);
    ck_assert_uint_eq(s.start, 240);
    ck_assert_uint_eq(s.pkt, 256);
    ck_assert_uint_eq(s.end, 284);
    ck_assert_ptr_eq(s.dw, f.mem);
    /* Zero dwords, 1-dword NOPs on any firmware, as ROCr's PadRingToEnd. */
    for (i = 60; i < 64; i++)
        ck_assert_uint_eq(f.mem[i], 0);
    sdma_ring_commit(&f.r, &s);
    ck_assert_uint_eq(f.doorbell, 284); /* indices are monotonic, never wrapped */
    free(f.mem);
    /* With burst NOPs: one NOP covering dwords 60..63. */
    fx_init(&f, 256, SDMA_RING_BURST_NOP);
    for (i = 0; i < 12; i++) {
        ck_assert_int_eq(sdma_ring_reserve(&f.r, 5, &s), SDMA_OK);
        sdma_ring_commit(&f.r, &s);
        f.rptr = f.wptr;
    }
    ck_assert_int_eq(sdma_ring_reserve(&f.r, 7, &s), SDMA_OK);
    ck_assert_uint_eq(f.mem[60], 0x00030000u);
    ck_assert_uint_eq(f.mem[61], 0);
    ck_assert_uint_eq(f.mem[63], 0);
    free(f.mem);
}
END_TEST

/* The write index never gets a whole ring ahead of the read index: at exactly one ring the
 * two are equal modulo the ring and an engine comparing offsets sees it empty. */
START_TEST(test_full) {
    struct fixture f;
    struct sdma_ring_slot s = {0};
    fx_init(&f, 256, 0);
    ck_assert_int_eq(sdma_ring_reserve(&f.r, 32, &s), SDMA_OK);
    sdma_ring_commit(&f.r, &s);
    ck_assert_int_eq(sdma_ring_reserve(&f.r, 31, &s), SDMA_OK);
    sdma_ring_commit(&f.r, &s);
    ck_assert_uint_eq(f.wptr, 252);
    /* One more dword would make write - read == size. */
    ck_assert_int_eq(sdma_ring_reserve(&f.r, 1, &s), SDMA_ERR_NO_RESOURCE);
    ck_assert_uint_eq(f.ctl.reserve, 252); /* nothing taken */
    f.rptr = 4;                            /* engine consumed one dword */
    ck_assert_int_eq(sdma_ring_reserve(&f.r, 2, &s), SDMA_ERR_NO_RESOURCE);
    ck_assert_int_eq(sdma_ring_reserve(&f.r, 1, &s), SDMA_OK);
    ck_assert_uint_eq(f.ctl.cached_rptr, 4);
    sdma_ring_commit(&f.r, &s);
    ck_assert_uint_lt(f.wptr - f.rptr, 256);
    free(f.mem);
}
END_TEST

START_TEST(test_single_producer) {
    struct fixture f;
    struct sdma_ring_slot s = {0};
    int i;
    fx_init(&f, 4096, SDMA_RING_SINGLE_PRODUCER);
    for (i = 0; i < 1000; i++) {
        ck_assert_int_eq(sdma_ring_reserve(&f.r, 6, &s), SDMA_OK);
        sdma_pkt_nop(s.dw, 6);
        sdma_ring_commit(&f.r, &s);
        f.rptr = f.wptr;
    }
    ck_assert_uint_ge(f.wptr, 24000);
    free(f.mem);
}
END_TEST

/* 8 producers x many packets of varying size through a small ring, one consumer. Each
 * packet is a NOP carrying (producer, sequence, reservation start): the consumer checks
 * that every packet appears exactly once, in each producer's order, exactly at the index
 * its reservation began (padding aside), i.e. in commit order with no gap or overlap. */
#define NPROD 8
#define NPKT 20000

static struct fixture mp;

static void *producer(void *arg) {
    uint32_t id = (uint32_t)(uintptr_t)arg;
    uint32_t i;
    for (i = 0; i < NPKT; i++) {
        struct sdma_ring_slot s = {0};
        uint32_t n = 4 + (i * 7 + id) % 9;
        while (sdma_ring_reserve(&mp.r, n, &s) == SDMA_ERR_NO_RESOURCE)
            sched_yield();
        sdma_pkt_nop(s.dw, n);
        s.dw[1] = id + 1;
        s.dw[2] = i;
        s.dw[3] = (uint32_t)s.start;
        sdma_ring_commit(&mp.r, &s);
    }
    return NULL;
}

START_TEST(test_multi_producer) {
    pthread_t th[NPROD];
    uint32_t next[NPROD] = {0};
    uint64_t rd = 0, seen = 0, pkt_start = 0;
    int i;
    fx_init(&mp, 4096, 0);
    for (i = 0; i < NPROD; i++)
        pthread_create(&th[i], NULL, producer, (void *)(uintptr_t)i);
    while (seen < (uint64_t)NPROD * NPKT) {
        uint64_t db = __atomic_load_n(&mp.doorbell, __ATOMIC_ACQUIRE);
        if (db == rd) {
            sched_yield();
            continue;
        }
        ck_assert_uint_le(db - rd, 4096);
        while (rd != db) {
            uint32_t *p = mp.mem + ((rd & 4095) >> 2);
            uint32_t n = ((p[0] >> 16) & 0x3FFF) + 1;
            ck_assert_uint_eq(p[0] & 0xFFFF, 0); /* every packet is a NOP */
            ck_assert_uint_le((rd & 4095) + n * 4, 4096);
            if (n >= 4 && p[1] != 0) {
                uint32_t id = p[1] - 1;
                ck_assert_uint_lt(id, NPROD);
                ck_assert_uint_eq(p[2], next[id]);
                ck_assert_uint_eq(p[3], (uint32_t)pkt_start);
                next[id]++;
                seen++;
                pkt_start = rd + n * 4;
            } else {
                /* Padding before the ring end: zero dwords (1-dword NOPs); the next
                 * packet's reservation began at the padding. */
                ck_assert_uint_eq(p[0], 0);
            }
            rd += n * 4;
        }
        __atomic_store_n(&mp.rptr, rd, __ATOMIC_RELEASE);
    }
    for (i = 0; i < NPROD; i++) {
        pthread_join(th[i], NULL);
        ck_assert_uint_eq(next[i], NPKT);
    }
    ck_assert_uint_eq(mp.wptr, rd);
    free(mp.mem);
}
END_TEST

int main(void) {
    Suite *s = suite_create("sdma_ring");
    TCase *tc = tcase_create("ring");
    SRunner *sr;
    int failed;
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_init_args);
    tcase_add_test(tc, test_reserve_commit);
    tcase_add_test(tc, test_wrap_padding);
    tcase_add_test(tc, test_full);
    tcase_add_test(tc, test_single_producer);
    tcase_add_test(tc, test_multi_producer);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
