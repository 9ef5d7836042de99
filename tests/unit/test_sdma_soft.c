/* The soft engine executing packet streams through the queue API. */
#define _GNU_SOURCE
#include <check.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sdma/sdma.h"

static struct sdma_engine *eng;
static struct sdma_queue *q;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void sleep_ms(int ms) { usleep((useconds_t)ms * 1000); }

static struct sdma_engine *open_soft(const struct sdma_engine_config *cfg) {
    struct sdma_engine *e = NULL;
    char err[256];
    int rc = sdma_engine_open("soft", cfg, &e, err, sizeof err);
    ck_assert_msg(rc == SDMA_OK, "open soft: %s", err);
    ck_assert_str_eq(sdma_engine_name(e), "soft");
    return e;
}

static void setup(void) {
    eng = open_soft(NULL);
    ck_assert_int_eq(sdma_queue_open(eng, 1 << 16, "main", &q), SDMA_OK);
}

static void teardown(void) {
    sdma_queue_close(q);
    sdma_engine_close(eng);
}

static void quiet(struct sdma_queue *qq) {
    int rc = sdma_queue_quiet(qq, 10.0);
    ck_assert_msg(rc == SDMA_OK, "quiet: %s: %s", sdma_strerror(rc), sdma_last_error());
}

/* Wait (bounded) until the queue reports an error; return its message. */
static int wait_error(struct sdma_queue *qq, char *msg, size_t len, double timeout) {
    double t0 = now_s();
    while (!sdma_queue_error(qq, msg, len)) {
        if (now_s() - t0 > timeout)
            return 0;
        sleep_ms(1);
    }
    return 1;
}

/* ---------------------------------------------------------------- copies */

START_TEST(test_copy_linear) {
    static const size_t sizes[] = {1, 3, 4, 7, 64, 4097, 65536 + 13, 1 << 20};
    size_t i;
    for (i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        size_t n = sizes[i], off = i % 5, j;
        unsigned char *src = malloc(n + 16), *dst = malloc(n + 16);
        for (j = 0; j < n + 16; j++) {
            src[j] = (unsigned char)(j * 31 + i);
            dst[j] = 0xEE;
        }
        ck_assert_int_eq(sdma_copy(q, dst + off, src + 1, n), SDMA_OK);
        quiet(q);
        ck_assert_int_eq(memcmp(dst + off, src + 1, n), 0);
        for (j = 0; j < off; j++)
            ck_assert_uint_eq(dst[j], 0xEE);
        ck_assert_uint_eq(dst[off + n], 0xEE);
        free(src);
        free(dst);
    }
    ck_assert_int_eq(sdma_copy(q, NULL, NULL, 0), SDMA_OK);
}
END_TEST

START_TEST(test_copy_split) {
    struct sdma_engine_config cfg;
    struct sdma_engine *e;
    struct sdma_queue *qq;
    unsigned char src[10000], dst[10000];
    size_t i;
    memset(&cfg, 0, sizeof cfg);
    cfg.max_copy_bytes = 4096;
    e = open_soft(&cfg);
    ck_assert_int_eq(sdma_queue_open(e, 4096, "split", &qq), SDMA_OK);
    for (i = 0; i < sizeof src; i++)
        src[i] = (unsigned char)(i * 7);
    memset(dst, 0, sizeof dst);
    ck_assert_int_eq(sdma_copy(qq, dst, src, sizeof src), SDMA_OK);
    /* 10000 bytes in 4096-byte pieces: three COPY_LINEAR packets. */
    ck_assert_uint_eq(*sdma_queue_ring(qq)->wptr, 3 * SDMA_COPY_LINEAR_DW * 4);
    quiet(qq);
    ck_assert_int_eq(memcmp(dst, src, sizeof src), 0);
    sdma_queue_close(qq);
    sdma_engine_close(e);
}
END_TEST

/* 2D copy with unaligned edges; everything outside the window stays untouched. */
static void check_2d(struct sdma_queue *qq, size_t sp, size_t dp, size_t w, size_t rows,
                     size_t soff, size_t doff) {
    size_t sbytes = sp * rows + soff + 64, dbytes = dp * rows + doff + 64, i, r, c;
    unsigned char *src = malloc(sbytes), *dst = malloc(dbytes);
    for (i = 0; i < sbytes; i++)
        src[i] = (unsigned char)(i * 13 + 1);
    memset(dst, 0xEE, dbytes);
    ck_assert_int_eq(sdma_copy_2d(qq, dst + doff, dp, src + soff, sp, w, rows), SDMA_OK);
    quiet(qq);
    for (i = 0; i < dbytes; i++) {
        int inside = i >= doff && (i - doff) / dp < rows && (i - doff) % dp < w;
        if (inside) {
            r = (i - doff) / dp;
            c = (i - doff) % dp;
            ck_assert_msg(dst[i] == src[soff + r * sp + c], "row %zu col %zu", r, c);
        } else {
            ck_assert_msg(dst[i] == 0xEE, "byte %zu outside the window written", i);
        }
    }
    free(src);
    free(dst);
}

START_TEST(test_copy_2d_large) {
    check_2d(q, 37, 53, 29, 11, 3, 5);
    check_2d(q, 64, 64, 64, 16, 0, 0);
    check_2d(q, 4096, 100, 99, 33, 1, 7);
}
END_TEST

START_TEST(test_copy_2d_sw13) {
    struct sdma_engine_config cfg;
    struct sdma_engine *e;
    struct sdma_queue *qq;
    memset(&cfg, 0, sizeof cfg);
    cfg.copy_2d = SDMA_COPY_2D_SW13;
    e = open_soft(&cfg);
    ck_assert_int_eq(sdma_queue_open(e, 1 << 16, "sw13", &qq), SDMA_OK);
    check_2d(qq, 37, 53, 29, 11, 3, 5);         /* 1-byte elements */
    check_2d(qq, 64, 128, 48, 16, 16, 32);      /* 16-byte elements */
    check_2d(qq, 8, 12, 4, 20000, 4, 0);        /* rows over 16384: two tiles */
    check_2d(qq, 20000, 20000, 17000, 2, 0, 0); /* width over 16384 elements: two tiles */
    sdma_queue_close(qq);
    sdma_engine_close(e);
}
END_TEST

/* LARGE sub-window with x/y offsets and depth, written as a raw packet. */
START_TEST(test_copy_3d_raw) {
    unsigned char src[4 * 64], dst[4 * 64];
    uint32_t dw[SDMA_COPY_2D_DW];
    size_t i;
    for (i = 0; i < sizeof src; i++)
        src[i] = (unsigned char)i;
    memset(dst, 0, sizeof dst);
    sdma_pkt_copy_2d(dw, (uintptr_t)dst, 8, (uintptr_t)src, 16, 4, 2);
    dw[3] = 2;   /* src_x */
    dw[4] = 1;   /* src_y */
    dw[7] = 64;  /* src slice pitch */
    dw[11] = 1;  /* dst_x */
    dw[15] = 32; /* dst slice pitch */
    dw[19] = 1;  /* depth 2 */
    ck_assert_int_eq(sdma_queue_submit(q, dw, SDMA_COPY_2D_DW), SDMA_OK);
    quiet(q);
    /* dst[z*32 + y*8 + 1 + x] = src[z*64 + (y+1)*16 + 2 + x] */
    ck_assert_uint_eq(dst[1], src[18]);
    ck_assert_uint_eq(dst[4], src[21]);
    ck_assert_uint_eq(dst[9], src[34]);
    ck_assert_uint_eq(dst[33], src[82]);
    ck_assert_uint_eq(dst[44], src[101]);
    ck_assert_uint_eq(dst[0], 0);
    ck_assert_uint_eq(dst[5], 0);
}
END_TEST

/* ---------------------------------------------------------------- polls */

/* A fence behind a poll: written only once the poll passes. */
static void poll_case(int func, uint32_t mask, uint32_t ref, uint32_t fail_v, uint32_t pass_v) {
    static uint32_t word, done;
    word = fail_v;
    done = 0;
    ck_assert_int_eq(sdma_poll(q, &word, ref, mask, func), SDMA_OK);
    ck_assert_int_eq(sdma_fence(q, &done, 1), SDMA_OK);
    sleep_ms(20);
    ck_assert_msg(__atomic_load_n(&done, __ATOMIC_ACQUIRE) == 0,
                  "func %d passed with 0x%x (ref 0x%x mask 0x%x)", func, fail_v, ref, mask);
    __atomic_store_n(&word, pass_v, __ATOMIC_RELEASE);
    quiet(q);
    ck_assert_uint_eq(done, 1);
}

START_TEST(test_poll_funcs) {
    static uint32_t word, done;
    poll_case(SDMA_POLL_LT, ~0u, 10, 10, 9);
    poll_case(SDMA_POLL_LE, ~0u, 10, 11, 10);
    poll_case(SDMA_POLL_EQ, ~0u, 10, 11, 10);
    poll_case(SDMA_POLL_NE, ~0u, 10, 10, 0);
    poll_case(SDMA_POLL_GE, ~0u, 10, 9, 10);
    poll_case(SDMA_POLL_GT, ~0u, 10, 10, 11);
    /* Unsigned compares. */
    poll_case(SDMA_POLL_GE, ~0u, 0x80000000u, 0x7FFFFFFFu, 0xFFFFFFFFu);
    /* Mask: only bits 15:8 count. */
    poll_case(SDMA_POLL_EQ, 0xFF00u, 0x1200u, 0x11FFu, 0x12FFu);
    poll_case(SDMA_POLL_GE, 0xF0u, 0x30u, 0x12Fu /* masked 0x20 */, 0x135u /* masked 0x30 */);
    /* ALWAYS passes at once. */
    word = 0;
    done = 0;
    ck_assert_int_eq(sdma_poll(q, &word, 5, ~0u, SDMA_POLL_ALWAYS), SDMA_OK);
    ck_assert_int_eq(sdma_fence(q, &done, 1), SDMA_OK);
    quiet(q);
    ck_assert_uint_eq(done, 1);
}
END_TEST

static int submit_poll(struct sdma_queue *qq, const uint32_t *addr, uint32_t ref, uint32_t mask,
                       int func, uint16_t interval, uint16_t retry) {
    uint32_t dw[SDMA_POLL_DW];
    sdma_pkt_poll(dw, (uintptr_t)addr, ref, mask, func, interval, retry);
    return sdma_queue_submit(qq, dw, SDMA_POLL_DW);
}

START_TEST(test_poll_retry_zero) {
    static uint32_t word = 1, done;
    char msg[400];
    int rc;
    ck_assert_int_eq(submit_poll(q, &word, 5, ~0u, SDMA_POLL_EQ, 1, 0), SDMA_OK);
    rc = sdma_fence(q, &done, 1); /* the engine may have stopped the queue already */
    ck_assert_msg(rc == SDMA_OK || rc == SDMA_ERR_QUEUE, "%s", sdma_strerror(rc));
    ck_assert_int_eq(wait_error(q, msg, sizeof msg, 5.0), 1);
    ck_assert_msg(strstr(msg, "after 1 checks") != NULL, "%s", msg);
    ck_assert_msg(strstr(msg, "'main'") != NULL, "%s", msg);
    ck_assert_uint_eq(done, 0); /* nothing behind the poll ran */
    ck_assert_int_eq(sdma_queue_quiet(q, 1.0), SDMA_ERR_QUEUE);
    ck_assert_int_eq(sdma_fence(q, &done, 2), SDMA_ERR_QUEUE);
}
END_TEST

START_TEST(test_poll_retry_count) {
    static uint32_t word = 1;
    char msg[400];
    double t0 = now_s(), dt;
    /* 6 checks 20 ms apart: gives up after about 100 ms. */
    ck_assert_int_eq(submit_poll(q, &word, 5, ~0u, SDMA_POLL_EQ, 20000, 5), SDMA_OK);
    ck_assert_int_eq(wait_error(q, msg, sizeof msg, 5.0), 1);
    dt = now_s() - t0;
    ck_assert_msg(dt >= 0.09, "gave up after %.3f s", dt);
    ck_assert_msg(strstr(msg, "after 6 checks") != NULL, "%s", msg);
}
END_TEST

START_TEST(test_poll_retry_satisfied) {
    static uint32_t word = 1, done;
    /* Up to 101 checks 10 ms apart; the word flips after 50 ms. */
    ck_assert_int_eq(submit_poll(q, &word, 5, ~0u, SDMA_POLL_EQ, 10000, 100), SDMA_OK);
    ck_assert_int_eq(sdma_fence(q, &done, 1), SDMA_OK);
    sleep_ms(50);
    __atomic_store_n(&word, 5, __ATOMIC_RELEASE);
    quiet(q);
    ck_assert_uint_eq(done, 1);
    ck_assert_int_eq(sdma_queue_error(q, NULL, 0), 0);
}
END_TEST

START_TEST(test_poll_deadline) {
    struct sdma_engine_config cfg;
    struct sdma_engine *e;
    struct sdma_queue *qq;
    static uint32_t word = 3, done;
    char msg[400], addr[32];
    double t0;
    int rc;
    memset(&cfg, 0, sizeof cfg);
    cfg.poll_timeout_s = 0.2;
    e = open_soft(&cfg);
    ck_assert_int_eq(sdma_queue_open(e, 4096, "gated", &qq), SDMA_OK);
    t0 = now_s();
    ck_assert_int_eq(sdma_poll(qq, &word, 7, ~0u, SDMA_POLL_GE), SDMA_OK); /* forever */
    rc = sdma_fence(qq, &done, 1);
    ck_assert_msg(rc == SDMA_OK || rc == SDMA_ERR_QUEUE, "%s", sdma_strerror(rc));
    ck_assert_int_eq(wait_error(qq, msg, sizeof msg, 5.0), 1);
    ck_assert_double_ge(now_s() - t0, 0.19);
    snprintf(addr, sizeof addr, "0x%llx", (unsigned long long)(uintptr_t)&word);
    ck_assert_msg(strstr(msg, "'gated'") && strstr(msg, "deadline") && strstr(msg, addr) &&
                      strstr(msg, "0x00000003") && strstr(msg, ">= 0x00000007"),
                  "%s", msg);
    /* The queue stays stopped: opening the gate now runs nothing. */
    __atomic_store_n(&word, 7, __ATOMIC_RELEASE);
    sleep_ms(20);
    ck_assert_uint_eq(done, 0);
    sdma_queue_close(qq);
    sdma_engine_close(e);
}
END_TEST

/* A blocked poll does not hold up the other queues of the engine. */
START_TEST(test_poll_other_queues) {
    static uint32_t gate, done;
    struct sdma_queue *q2;
    char a[256], b[256];
    gate = 0;
    done = 0;
    ck_assert_int_eq(sdma_queue_open(eng, 4096, "second", &q2), SDMA_OK);
    ck_assert_int_eq(sdma_poll(q, &gate, 1, ~0u, SDMA_POLL_GE), SDMA_OK);
    ck_assert_int_eq(sdma_fence(q, &done, 1), SDMA_OK);
    memset(a, 'a', sizeof a);
    ck_assert_int_eq(sdma_copy(q2, b, a, sizeof a), SDMA_OK);
    quiet(q2);
    ck_assert_int_eq(memcmp(a, b, sizeof a), 0);
    ck_assert_uint_eq(done, 0);
    /* The gate is opened by an ATOMIC on the other queue. */
    ck_assert_int_eq(sdma_atomic(q2, &gate, SDMA_ATOMIC_ADD32_NORET, 1, 0), SDMA_OK);
    quiet(q);
    ck_assert_uint_eq(done, 1);
    sdma_queue_close(q2);
}
END_TEST

/* ---------------------------------------------------------------- atomics, fence, misc */

START_TEST(test_atomics) {
    static uint32_t w32;
    static uint64_t w64;
    w32 = 5;
    w64 = 0xFFFFFFFFull;
    ck_assert_int_eq(sdma_atomic(q, &w32, SDMA_ATOMIC_ADD32, 3, 0), SDMA_OK);
    ck_assert_int_eq(sdma_atomic(q, &w64, SDMA_ATOMIC_ADD64, 1, 0), SDMA_OK);
    quiet(q);
    ck_assert_uint_eq(w32, 8);
    ck_assert_uint_eq(w64, 0x100000000ull);
    ck_assert_int_eq(sdma_atomic(q, &w32, SDMA_ATOMIC_CMPSWAP32, 100, 7), SDMA_OK); /* fails */
    quiet(q);
    ck_assert_uint_eq(w32, 8);
    ck_assert_int_eq(sdma_atomic(q, &w32, SDMA_ATOMIC_CMPSWAP32, 100, 8), SDMA_OK);
    ck_assert_int_eq(
        sdma_atomic(q, &w64, SDMA_ATOMIC_CMPSWAP64_NORET, 0x123456789ull, 0x100000000ull), SDMA_OK);
    quiet(q);
    ck_assert_uint_eq(w32, 100);
    ck_assert_uint_eq(w64, 0x123456789ull);
    ck_assert_int_eq(sdma_atomic(q, &w32, SDMA_ATOMIC_SWAP32_NORET, 42, 0), SDMA_OK);
    ck_assert_int_eq(sdma_atomic(q, &w64, SDMA_ATOMIC_SWAP64, 0xAABBCCDDEEFF0011ull, 0), SDMA_OK);
    ck_assert_int_eq(sdma_atomic(q, &w32, SDMA_ATOMIC_ADD32_NORET, (uint32_t)-2, 0), SDMA_OK);
    ck_assert_int_eq(sdma_atomic(q, &w64, SDMA_ATOMIC_ADD64_NORET, 1, 0), SDMA_OK);
    quiet(q);
    ck_assert_uint_eq(w32, 40);
    ck_assert_uint_eq(w64, 0xAABBCCDDEEFF0012ull);
    ck_assert_int_eq(sdma_atomic(q, (char *)&w64 + 4, SDMA_ATOMIC_ADD64, 1, 0), SDMA_ERR_INVAL);
    ck_assert_int_eq(sdma_atomic(q, &w64, 0x01, 1, 0), SDMA_ERR_INVAL);
}
END_TEST

START_TEST(test_fence_mark) {
    static uint32_t f;
    uint64_t m1, m2;
    ck_assert_int_eq(sdma_fence(q, &f, 0xDEADBEEF), SDMA_OK);
    m1 = sdma_queue_mark(q);
    ck_assert_uint_ne(m1, 0);
    m2 = sdma_queue_mark(q);
    ck_assert_uint_gt(m2, m1);
    while (!sdma_queue_test(q, m2))
        sleep_ms(1);
    ck_assert_int_eq(sdma_queue_test(q, m1), 1);
    ck_assert_uint_eq(f, 0xDEADBEEF);
    ck_assert_int_eq(sdma_queue_test(q, m2 + 64), 0);
    ck_assert_int_eq(sdma_fence(q, (uint32_t *)((char *)&f + 1), 1), SDMA_ERR_INVAL);
}
END_TEST

static struct sdma_queue *trap_q;
static uint32_t trap_ctx, trap_count;

static void on_trap(void *arg, struct sdma_queue *qq, uint32_t context) {
    ck_assert_ptr_eq(arg, &trap_count);
    trap_q = qq;
    trap_ctx = context;
    __atomic_fetch_add(&trap_count, 1, __ATOMIC_RELEASE);
}

START_TEST(test_trap) {
    struct sdma_engine_config cfg;
    struct sdma_engine *e;
    struct sdma_queue *qq;
    memset(&cfg, 0, sizeof cfg);
    cfg.trap = on_trap;
    cfg.trap_arg = &trap_count;
    e = open_soft(&cfg);
    ck_assert_int_eq(sdma_queue_open(e, 4096, "trap", &qq), SDMA_OK);
    ck_assert_int_eq(sdma_trap(qq, 0xFABCDEF), SDMA_OK);
    ck_assert_int_eq(sdma_trap(qq, 0x1234567), SDMA_OK);
    quiet(qq);
    ck_assert_uint_eq(__atomic_load_n(&trap_count, __ATOMIC_ACQUIRE), 2);
    ck_assert_ptr_eq(trap_q, qq);
    ck_assert_uint_eq(trap_ctx, 0x1234567);
    sdma_queue_close(qq);
    sdma_engine_close(e);
}
END_TEST

START_TEST(test_const_fill) {
    unsigned char buf[5000];
    size_t i;
    memset(buf, 0xEE, sizeof buf);
    ck_assert_int_eq(sdma_const_fill(q, buf + 1, 0x44332211u, 4099), SDMA_OK);
    quiet(q);
    ck_assert_uint_eq(buf[0], 0xEE);
    for (i = 0; i < 4099; i++)
        ck_assert_uint_eq(buf[1 + i], 0x11 + 0x11 * (i & 3));
    ck_assert_uint_eq(buf[4100], 0xEE);
    /* Byte and word fill sizes through raw packets. */
    {
        uint32_t dw[SDMA_CONST_FILL_DW];
        sdma_pkt_const_fill(dw, (uintptr_t)buf, 0xAB, 10);
        dw[0] = (dw[0] & 0x3FFFFFFFu) | (SDMA_FILL_BYTE << 30);
        ck_assert_int_eq(sdma_queue_submit(q, dw, SDMA_CONST_FILL_DW), SDMA_OK);
        sdma_pkt_const_fill(dw, (uintptr_t)(buf + 20), 0xBBAA, 5);
        dw[0] = (dw[0] & 0x3FFFFFFFu) | (SDMA_FILL_WORD << 30);
        ck_assert_int_eq(sdma_queue_submit(q, dw, SDMA_CONST_FILL_DW), SDMA_OK);
        quiet(q);
        for (i = 0; i < 10; i++)
            ck_assert_uint_eq(buf[i], 0xAB);
        ck_assert_uint_eq(buf[10], 0x22); /* first fill: i = 9 */
        ck_assert_uint_eq(buf[20], 0xAA);
        ck_assert_uint_eq(buf[21], 0xBB);
        ck_assert_uint_eq(buf[24], 0xAA);
        ck_assert_uint_eq(buf[25], 0x11); /* untouched: 5 bytes only */
    }
}
END_TEST

START_TEST(test_timestamp) {
    static uint64_t ts[8] __attribute__((aligned(32)));
    struct timespec t;
    uint64_t before;
    clock_gettime(CLOCK_MONOTONIC, &t);
    before = (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
    ck_assert_int_eq(sdma_timestamp(q, &ts[0]), SDMA_OK);
    ck_assert_int_eq(sdma_timestamp(q, &ts[4]), SDMA_OK);
    quiet(q);
    ck_assert_uint_ge(ts[0], before);
    ck_assert_uint_ge(ts[4], ts[0]);
    ck_assert_int_eq(sdma_timestamp(q, &ts[1]), SDMA_ERR_INVAL); /* not 32-byte aligned */
}
END_TEST

/* ---------------------------------------------------------------- malformed streams */

static void expect_error(const uint32_t *dw, size_t ndw, const char *needle) {
    struct sdma_queue *bad, *good;
    static uint32_t done;
    char msg[400], a[64], b[64];
    int rc;
    done = 0;
    ck_assert_int_eq(sdma_queue_open(eng, 4096, "bad", &bad), SDMA_OK);
    ck_assert_int_eq(sdma_queue_open(eng, 4096, "good", &good), SDMA_OK);
    ck_assert_int_eq(sdma_fence(bad, &done, 1), SDMA_OK);
    ck_assert_int_eq(sdma_queue_submit(bad, dw, ndw), SDMA_OK);
    rc = sdma_fence(bad, &done, 2); /* the engine may have stopped the queue already */
    ck_assert_msg(rc == SDMA_OK || rc == SDMA_ERR_QUEUE, "%s", sdma_strerror(rc));
    ck_assert_int_eq(wait_error(bad, msg, sizeof msg, 5.0), 1);
    ck_assert_msg(strstr(msg, "'bad'") && strstr(msg, "byte offset 16") && strstr(msg, needle),
                  "%s", msg);
    ck_assert_uint_eq(done, 1); /* ran up to the bad packet, nothing after */
    ck_assert_int_eq(sdma_queue_quiet(bad, 1.0), SDMA_ERR_QUEUE);
    ck_assert_msg(strstr(sdma_last_error(), "'bad'") != NULL, "%s", sdma_last_error());
    memset(a, 'x', sizeof a);
    ck_assert_int_eq(sdma_copy(good, b, a, sizeof a), SDMA_OK);
    quiet(good);
    ck_assert_int_eq(memcmp(a, b, sizeof a), 0);
    ck_assert_int_eq(sdma_queue_error(good, NULL, 0), 0);
    sdma_queue_close(bad);
    sdma_queue_close(good);
}

START_TEST(test_malformed) {
    uint32_t dw[SDMA_PKT_MAX_DW];
    static uint32_t word;
    memset(dw, 0, sizeof dw);
    dw[0] = 0x3F;
    expect_error(dw, 1, "opcode 63");
    dw[0] = SDMA_OP_COPY | (9u << 8);
    expect_error(dw, 7, "copy sub-op 9 not supported");
    sdma_pkt_copy_linear(dw, 0x10, (uintptr_t)&word, 4); /* null page */
    expect_error(dw, SDMA_COPY_LINEAR_DW, "not accessible");
    sdma_pkt_copy_linear(dw, (uintptr_t)&word, 0xFFFFFFFFFFFF0000ull, 4);
    expect_error(dw, SDMA_COPY_LINEAR_DW, "not accessible");
    sdma_pkt_poll(dw, (uintptr_t)&word + 2, 0, 0, SDMA_POLL_EQ, 0, 0xFFF);
    expect_error(dw, SDMA_POLL_DW, "aligned");
    sdma_pkt_poll(dw, (uintptr_t)&word, 0, 0, SDMA_POLL_EQ, 0, 0xFFF);
    dw[0] |= 7u << 28;
    expect_error(dw, SDMA_POLL_DW, "poll function 7");
    sdma_pkt_atomic(dw, (uintptr_t)&word, 0x05, 0, 0);
    expect_error(dw, SDMA_ATOMIC_DW, "atomic operation 0x05");
    sdma_pkt_fence(dw, 0, 1);
    expect_error(dw, SDMA_FENCE_DW, "opcode 5");
    /* A NOP claiming more dwords than were committed. */
    sdma_pkt_nop(dw, 1);
    dw[0] = 0x00100000;
    expect_error(dw, 1, "truncated");
    sdma_pkt_copy_2d(dw, 0x10, 64, (uintptr_t)&word, 64, 4, 1); /* null page */
    expect_error(dw, SDMA_COPY_2D_DW, "destination window");
    sdma_pkt_copy_2d(dw, (uintptr_t)&word, 0xFFFFFFFFu, 0x10000, 0xFFFFFFFFu, 0xFFFFFFFFu,
                     0xFFFFFFFFu);
    expect_error(dw, SDMA_COPY_2D_DW, "source window"); /* span beyond user space */
    sdma_pkt_copy_2d(dw, (uintptr_t)&word, 1, 0x10000, 4, 4, 2);
    expect_error(dw, SDMA_COPY_2D_DW, "overlap"); /* destination rows overlap */
    sdma_pkt_copy_2d(dw, (uintptr_t)&word, 4, 0x10000, 4, 4, 1);
    dw[19] = 1000000; /* depth with slice pitch 0 */
    expect_error(dw, SDMA_COPY_2D_DW, "overlap");
}
END_TEST

/* ---------------------------------------------------------------- ring use */

START_TEST(test_full_ring) {
    struct sdma_engine_config cfg;
    struct sdma_engine *e;
    struct sdma_queue *qq;
    struct sdma_ring_slot s = {0};
    static uint32_t gate, x;
    int rc = SDMA_OK, i;
    memset(&cfg, 0, sizeof cfg);
    cfg.full_wait_s = 0.2;
    cfg.ring_setting = "TEST_RING_BYTES";
    e = open_soft(&cfg);
    ck_assert_int_eq(sdma_queue_open(e, 4096, "tiny", &qq), SDMA_OK);
    gate = 0;
    ck_assert_int_eq(sdma_poll(qq, &gate, 1, ~0u, SDMA_POLL_GE), SDMA_OK);
    for (i = 0; i < 1000 && rc == SDMA_OK; i++)
        rc = sdma_fence(qq, &x, (uint32_t)i);
    ck_assert_int_eq(rc, SDMA_ERR_NO_RESOURCE);
    ck_assert_msg(strstr(sdma_last_error(), "TEST_RING_BYTES") && strstr(sdma_last_error(), "4096"),
                  "%s", sdma_last_error());
    ck_assert_int_eq(sdma_queue_reserve(qq, SDMA_FENCE_DW, &s), SDMA_ERR_NO_RESOURCE);
    __atomic_store_n(&gate, 1, __ATOMIC_RELEASE);
    quiet(qq);
    ck_assert_uint_eq(x, (uint32_t)(i - 2));
    sdma_queue_close(qq);
    sdma_engine_close(e);
}
END_TEST

/* 8 threads submitting to one queue; every packet executes exactly once. */
#define NT 8
#define NOPS 5000
static uint64_t counter;
static uint32_t per_thread[NT];

static void *mp_thread(void *arg) {
    uint32_t id = (uint32_t)(uintptr_t)arg, i;
    for (i = 0; i < NOPS; i++) {
        ck_assert_int_eq(sdma_atomic(q, &counter, SDMA_ATOMIC_ADD64_NORET, 1, 0), SDMA_OK);
        /* In-order per producer: the fence values a thread writes only grow. */
        ck_assert_int_eq(sdma_fence(q, &per_thread[id], i + 1), SDMA_OK);
    }
    return NULL;
}

START_TEST(test_multi_producer) {
    pthread_t th[NT];
    int i;
    counter = 0;
    memset(per_thread, 0, sizeof per_thread);
    for (i = 0; i < NT; i++)
        pthread_create(&th[i], NULL, mp_thread, (void *)(uintptr_t)i);
    for (i = 0; i < NT; i++)
        pthread_join(th[i], NULL);
    quiet(q);
    ck_assert_uint_eq(counter, (uint64_t)NT * NOPS);
    for (i = 0; i < NT; i++)
        ck_assert_uint_eq(per_thread[i], NOPS);
}
END_TEST

/* Raw chain: POLL gate -> COPY -> ATOMIC -> FENCE in one reservation. */
START_TEST(test_raw_chain) {
    static uint32_t gate, done;
    static uint64_t arrived;
    char src[100], dst[100];
    struct sdma_ring_slot s = {0};
    uint32_t *p;
    size_t n = SDMA_POLL_DW + SDMA_COPY_LINEAR_DW + SDMA_ATOMIC_DW + SDMA_FENCE_DW;
    memset(src, 's', sizeof src);
    memset(dst, 0, sizeof dst);
    ck_assert_int_eq(sdma_queue_reserve(q, n, &s), SDMA_OK);
    p = s.dw;
    p += sdma_pkt_poll(p, (uintptr_t)&gate, 1, ~0u, SDMA_POLL_GE, 10, SDMA_POLL_RETRY_FOREVER);
    p += sdma_pkt_copy_linear(p, (uintptr_t)dst, (uintptr_t)src, sizeof src);
    p += sdma_pkt_atomic(p, (uintptr_t)&arrived, SDMA_ATOMIC_ADD64_NORET, 1, 0);
    p += sdma_pkt_fence(p, (uintptr_t)&done, 9);
    ck_assert_uint_eq((size_t)(p - s.dw), n);
    sdma_queue_commit(q, &s);
    sleep_ms(10);
    ck_assert_uint_eq(done, 0);
    __atomic_store_n(&gate, 1, __ATOMIC_RELEASE);
    while (__atomic_load_n(&done, __ATOMIC_ACQUIRE) != 9)
        sleep_ms(1);
    ck_assert_uint_eq(arrived, 1);
    ck_assert_int_eq(memcmp(src, dst, sizeof src), 0);
}
END_TEST

/* A caller-provided ring written by a producer that never wakes the engine (as a GPU
 * kernel would, declared with SDMA_QUEUE_GPU_PRODUCER): the engine finds the doorbell by
 * itself. */
START_TEST(test_caller_ring) {
    static struct sdma_ring_ctl ctl;
    static volatile uint64_t rptr, wptr, doorbell;
    static uint32_t done;
    struct sdma_queue_attr a;
    struct sdma_queue *qq;
    struct sdma_ring r;
    struct sdma_ring_slot s = {0};
    void *mem = aligned_alloc(4096, 8192);
    int i;
    memset(mem, 0, 8192);
    sdma_queue_attr_init(&a);
    a.ring_bytes = 8192;
    a.label = "external";
    a.ring = mem;
    a.ctl = &ctl;
    a.rptr = &rptr;
    a.wptr = &wptr;
    a.doorbell = &doorbell;
    a.flags = SDMA_QUEUE_GPU_PRODUCER;
    ck_assert_int_eq(sdma_queue_open_attr(eng, &a, &qq), SDMA_OK);
    /* A private view of the same ring, as a kernel would hold. */
    r = *sdma_queue_ring(qq);
    ck_assert_ptr_eq(r.base, mem);
    for (i = 1; i <= 500; i++) {
        while (sdma_ring_reserve(&r, SDMA_FENCE_DW, &s) != SDMA_OK)
            sleep_ms(1);
        sdma_pkt_fence(s.dw, (uintptr_t)&done, (uint32_t)i);
        sdma_ring_commit(&r, &s);
    }
    for (i = 0; i < 5000 && __atomic_load_n(&done, __ATOMIC_ACQUIRE) != 500; i++)
        sleep_ms(1);
    ck_assert_uint_eq(done, 500);
    ck_assert_uint_eq(rptr, wptr);
    quiet(qq);
    sdma_queue_close(qq);
    free(mem);
}
END_TEST

START_TEST(test_many_queues) {
    enum { N = 200 };
    struct sdma_queue *qs[N];
    static uint32_t words[N];
    int i;
    for (i = 0; i < N; i++) {
        char label[32];
        snprintf(label, sizeof label, "q%d", i);
        ck_assert_int_eq(sdma_queue_open(eng, 4096, label, &qs[i]), SDMA_OK);
        ck_assert_int_eq(sdma_fence(qs[i], &words[i], (uint32_t)i + 1), SDMA_OK);
    }
    for (i = 0; i < N; i++) {
        quiet(qs[i]);
        ck_assert_uint_eq(words[i], (uint32_t)i + 1);
        sdma_queue_close(qs[i]);
    }
}
END_TEST

START_TEST(test_args) {
    struct sdma_queue *qq;
    ck_assert_int_eq(sdma_queue_open(eng, 1000, "x", &qq), SDMA_ERR_INVAL);
    ck_assert_int_eq(sdma_poll(q, NULL, 0, 0, SDMA_POLL_EQ), SDMA_ERR_INVAL);
    ck_assert_int_eq(sdma_poll(q, (uint32_t *)&counter, 0, 0, 9), SDMA_ERR_INVAL);
    ck_assert_int_eq(sdma_copy_2d(q, &counter, 4, &counter, 4, 8, 1), SDMA_ERR_INVAL);
    ck_assert_str_eq(sdma_strerror(SDMA_ERR_NO_RESOURCE), "no resource (ring full)");
    ck_assert_int_eq(sdma_engine_map(eng, &counter, 8), SDMA_OK);
    ck_assert_int_eq(sdma_engine_unmap(eng, &counter), SDMA_OK);
}
END_TEST

int main(void) {
    Suite *s = suite_create("sdma_soft");
    TCase *tc = tcase_create("soft");
    SRunner *sr;
    int failed;
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_copy_linear);
    tcase_add_test(tc, test_copy_split);
    tcase_add_test(tc, test_copy_2d_large);
    tcase_add_test(tc, test_copy_2d_sw13);
    tcase_add_test(tc, test_copy_3d_raw);
    tcase_add_test(tc, test_poll_funcs);
    tcase_add_test(tc, test_poll_retry_zero);
    tcase_add_test(tc, test_poll_retry_count);
    tcase_add_test(tc, test_poll_retry_satisfied);
    tcase_add_test(tc, test_poll_deadline);
    tcase_add_test(tc, test_poll_other_queues);
    tcase_add_test(tc, test_atomics);
    tcase_add_test(tc, test_fence_mark);
    tcase_add_test(tc, test_trap);
    tcase_add_test(tc, test_const_fill);
    tcase_add_test(tc, test_timestamp);
    tcase_add_test(tc, test_malformed);
    tcase_add_test(tc, test_full_ring);
    tcase_add_test(tc, test_multi_producer);
    tcase_add_test(tc, test_raw_chain);
    tcase_add_test(tc, test_caller_ring);
    tcase_add_test(tc, test_many_queues);
    tcase_add_test(tc, test_args);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
