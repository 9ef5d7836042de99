/* Packet encoders against hand-computed dwords (SDMA 4.4 layouts, shared/docs/SDMA.md). */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sdma/packets.h"

#define CHECK_DW(buf, ...)                                                                         \
    do {                                                                                           \
        const uint32_t exp_[] = {__VA_ARGS__};                                                     \
        size_t i_;                                                                                 \
        for (i_ = 0; i_ < sizeof exp_ / sizeof exp_[0]; i_++)                                      \
            ck_assert_msg((buf)[i_] == exp_[i_], "DW%zu = 0x%08x, expected 0x%08x", i_, (buf)[i_], \
                          exp_[i_]);                                                               \
    } while (0)

static uint32_t dw[64];

static void poison(void) { memset(dw, 0xEE, sizeof dw); }

START_TEST(test_nop) {
    poison();
    ck_assert_uint_eq(sdma_pkt_nop(dw, 1), 1);
    CHECK_DW(dw, 0x00000000);
    ck_assert_uint_eq(dw[1], 0xEEEEEEEEu);
    poison();
    ck_assert_uint_eq(sdma_pkt_nop(dw, 4), 4);
    CHECK_DW(dw, 0x00030000, 0, 0, 0);
    ck_assert_uint_eq(dw[4], 0xEEEEEEEEu);
    poison();
    ck_assert_uint_eq(sdma_pkt_nop(dw, 0), 0);
    ck_assert_uint_eq(dw[0], 0xEEEEEEEEu);
}
END_TEST

START_TEST(test_nop_max) {
    uint32_t *big = malloc(SDMA_NOP_MAX_DW * 4);
    ck_assert_uint_eq(sdma_pkt_nop(big, SDMA_NOP_MAX_DW), SDMA_NOP_MAX_DW);
    ck_assert_uint_eq(big[0], 0x3FFF0000u);
    ck_assert_uint_eq(big[SDMA_NOP_MAX_DW - 1], 0);
    free(big);
}
END_TEST

START_TEST(test_copy_linear) {
    poison();
    ck_assert_uint_eq(sdma_pkt_copy_linear(dw, 0x1122334455667788ull, 0x99AABBCCDDEEFF00ull, 4096),
                      7);
    CHECK_DW(dw, 0x00000001, 0x00000FFF, 0x00000000, 0xDDEEFF00, 0x99AABBCC, 0x55667788,
             0x11223344);
    ck_assert_uint_eq(dw[7], 0xEEEEEEEEu);
    sdma_pkt_copy_linear(dw, 0x1000, 0x2000, 1);
    CHECK_DW(dw, 0x00000001, 0x00000000, 0, 0x2000, 0, 0x1000, 0);
    sdma_pkt_copy_linear(dw, 0x1000, 0x2000, (uint32_t)SDMA_COPY_LINEAR_MAX);
    ck_assert_uint_eq(dw[1], 0x3FFFFFDFu);
    /* The count field is 30 bits: reserved bits 31:30 are never set. */
    sdma_pkt_copy_linear(dw, 0x1000, 0x2000, 0x80000000u);
    ck_assert_uint_eq(dw[1], 0x3FFFFFFFu);
}
END_TEST

START_TEST(test_copy_2d_large) {
    poison();
    ck_assert_uint_eq(
        sdma_pkt_copy_2d(dw, 0x0000100000002000ull, 256, 0x0000300000004000ull, 512, 100, 7), 20);
    CHECK_DW(dw, 0x00002401, 0x00004000, 0x00003000, 0, 0, 0, 0x000001FF, 0, 0, 0x00002000,
             0x00001000, 0, 0, 0, 0x000000FF, 0, 0, 0x00000063, 0x00000006, 0);
    ck_assert_uint_eq(dw[20], 0xEEEEEEEEu);
}
END_TEST

START_TEST(test_copy_2d_sw13) {
    /* Pitches and width multiples of 16, dword bases: element 16 bytes (log2 4); slice
     * pitches 0 for a 2D window (ROCr writes them so when rect_z is 1). */
    poison();
    ck_assert_uint_eq(sdma_pkt_copy_2d_sw13(dw, 0x10000, 256, 0x20000, 512, 64, 8), 13);
    CHECK_DW(dw, 0x80000401, 0x00020000, 0, 0, 0x0003E000, 0, 0x00010000, 0, 0, 0x0001E000, 0,
             0x00070003, 0);
    ck_assert_uint_eq(dw[13], 0xEEEEEEEEu);
    /* A dword-aligned base only 4-byte aligned keeps the 16-byte element (ROCr: only the
     * remainder below a dword constrains it). */
    sdma_pkt_copy_2d_sw13(dw, 0x10004, 256, 0x20000, 512, 64, 8);
    CHECK_DW(dw, 0x80000401, 0x00020000, 0, 0, 0x0003E000, 0, 0x00010004, 0, 0, 0x0001E000, 0,
             0x00070003, 0);
    /* A base 2 bytes past a dword: aligned down, remainder 1 element of 2 bytes in dst_x. */
    sdma_pkt_copy_2d_sw13(dw, 0x10006, 256, 0x20000, 512, 64, 8);
    CHECK_DW(dw, 0x20000401, 0x00020000, 0, 0, 0x001FE000, 0, 0x00010004, 0, 1, 0x000FE000, 0,
             0x0007001F, 0);
    /* Odd width: element 1 byte. */
    sdma_pkt_copy_2d_sw13(dw, 0x10000, 16, 0x20000, 16, 3, 2);
    CHECK_DW(dw, 0x00000401, 0x00020000, 0, 0, 0x0001E000, 0, 0x00010000, 0, 0, 0x0001E000, 0,
             0x00010002, 0);
    /* Unaligned source 3 bytes past a dword, element 1 byte: x = 3. */
    sdma_pkt_copy_2d_sw13(dw, 0x10000, 16, 0x20003, 16, 3, 2);
    ck_assert_uint_eq(dw[1], 0x00020000);
    ck_assert_uint_eq(dw[3], 3);
    ck_assert_uint_eq(sdma_sw13_elem_log2(8, 8, 8, 8, 8), 3);
    ck_assert_uint_eq(sdma_sw13_elem_log2(0x1004, 256, 0x2000, 256, 64), 4);
    ck_assert_int_eq(sdma_pkt_copy_2d_sw13_fits(0x10000, 256, 0x20000, 512, 64, 8), 1);
    ck_assert_int_eq(sdma_pkt_copy_2d_sw13_fits(0x10000, 256, 0x20000, 512, 64, 16385), 0);
    ck_assert_int_eq(sdma_pkt_copy_2d_sw13_fits(0x10001, 1u << 20, 0x20000, 512, 3, 8), 0);
    /* Pitches must be dword multiples; a row must fit its pitch past the remainder. */
    ck_assert_int_eq(sdma_pkt_copy_2d_sw13_fits(0x10000, 6, 0x20000, 8, 3, 8), 0);
    ck_assert_int_eq(sdma_pkt_copy_2d_sw13_fits(0x10003, 64, 0x20000, 64, 64, 2), 0);
    ck_assert_int_eq(sdma_pkt_copy_2d_sw13_fits(0x10003, 68, 0x20000, 64, 64, 2), 1);
}
END_TEST

START_TEST(test_poll) {
    poison();
    ck_assert_uint_eq(
        sdma_pkt_poll(dw, 0x0000123456789ABCull, 10, 0xFFFFFFFFu, SDMA_POLL_GE, 10, 0xFFF), 6);
    CHECK_DW(dw, 0xD0000008, 0x56789ABC, 0x00001234, 0x0000000A, 0xFFFFFFFF, 0x0FFF000A);
    ck_assert_uint_eq(dw[6], 0xEEEEEEEEu);
    sdma_pkt_poll(dw, 0x1000, 0x1200, 0xFF00, SDMA_POLL_EQ, 1, 5);
    CHECK_DW(dw, 0xB0000008, 0x1000, 0, 0x1200, 0xFF00, 0x00050001);
    sdma_pkt_poll(dw, 0x1000, 0, 0, SDMA_POLL_ALWAYS, 0, 0);
    ck_assert_uint_eq(dw[0], 0x80000008u);
    ck_assert_uint_eq(dw[5], 0u);
    sdma_pkt_poll(dw, 0x1000, 0, 0, SDMA_POLL_LT, 0, 0);
    ck_assert_uint_eq(dw[0], 0x90000008u);
    sdma_pkt_poll(dw, 0x1000, 0, 0, SDMA_POLL_LE, 0, 0);
    ck_assert_uint_eq(dw[0], 0xA0000008u);
    sdma_pkt_poll(dw, 0x1000, 0, 0, SDMA_POLL_NE, 0, 0);
    ck_assert_uint_eq(dw[0], 0xC0000008u);
    sdma_pkt_poll(dw, 0x1000, 0, 0, SDMA_POLL_GT, 0xFFFF, 0x1000); /* retry masked to 12 bits */
    CHECK_DW(dw, 0xE0000008, 0x1000, 0, 0, 0, 0x0000FFFF);
}
END_TEST

START_TEST(test_atomic) {
    poison();
    ck_assert_uint_eq(
        sdma_pkt_atomic(dw, 0x00007F0012345678ull, SDMA_ATOMIC_ADD64, 0x0000000100000002ull, 0), 8);
    CHECK_DW(dw, 0x5E00000A, 0x12345678, 0x00007F00, 0x00000002, 0x00000001, 0, 0, 0);
    ck_assert_uint_eq(dw[8], 0xEEEEEEEEu);
    sdma_pkt_atomic(dw, 0x1000, SDMA_ATOMIC_CMPSWAP32, 5, 0xAABBCCDD11223344ull);
    CHECK_DW(dw, 0x1000000A, 0x1000, 0, 5, 0, 0x11223344, 0xAABBCCDD, 0);
    sdma_pkt_atomic(dw, 0x1000, SDMA_ATOMIC_ADD32, 1, 0);
    ck_assert_uint_eq(dw[0], 0x1E00000Au);
    sdma_pkt_atomic(dw, 0x1000, SDMA_ATOMIC_SWAP32, 1, 0);
    ck_assert_uint_eq(dw[0], 0x0E00000Au);
    sdma_pkt_atomic(dw, 0x1000, SDMA_ATOMIC_CMPSWAP64, 1, 0);
    ck_assert_uint_eq(dw[0], 0x5000000Au);
    sdma_pkt_atomic(dw, 0x1000, SDMA_ATOMIC_SWAP64, 1, 0);
    ck_assert_uint_eq(dw[0], 0x4E00000Au);
    sdma_pkt_atomic(dw, 0x1000, SDMA_ATOMIC_ADD32_NORET, 1, 0);
    ck_assert_uint_eq(dw[0], 0x9E00000Au);
    sdma_pkt_atomic(dw, 0x1000, SDMA_ATOMIC_ADD64_NORET, 1, 0);
    ck_assert_uint_eq(dw[0], 0xDE00000Au);
    sdma_pkt_atomic(dw, 0x1000, SDMA_ATOMIC_CMPSWAP64_NORET, 1, 0);
    ck_assert_uint_eq(dw[0], 0xD000000Au);
    sdma_pkt_atomic(dw, 0x1000, SDMA_ATOMIC_SWAP64_NORET, 1, 0);
    ck_assert_uint_eq(dw[0], 0xCE00000Au);
    sdma_pkt_atomic(dw, 0x1000, SDMA_ATOMIC_SWAP32_NORET, 1, 0);
    ck_assert_uint_eq(dw[0], 0x8E00000Au);
    sdma_pkt_atomic(dw, 0x1000, SDMA_ATOMIC_CMPSWAP32_NORET, 1, 0);
    ck_assert_uint_eq(dw[0], 0x9000000Au);
}
END_TEST

START_TEST(test_atomic_codes) {
    ck_assert_int_eq(SDMA_ATOMIC_ADD32, 0x0F);
    ck_assert_int_eq(SDMA_ATOMIC_CMPSWAP32, 0x08);
    ck_assert_int_eq(SDMA_ATOMIC_SWAP32, 0x07);
    ck_assert_int_eq(SDMA_ATOMIC_ADD64, 0x2F);
    ck_assert_int_eq(SDMA_ATOMIC_ADD64_NORET, 0x6F);
    ck_assert_int_eq(SDMA_ATOMIC_CMPSWAP64, 0x28);
    ck_assert_int_eq(SDMA_ATOMIC_CMPSWAP64_NORET, 0x68);
    ck_assert_int_eq(SDMA_ATOMIC_SWAP64, 0x27);
    ck_assert_int_eq(SDMA_ATOMIC_SWAP64_NORET, 0x67);
    ck_assert_int_eq(SDMA_POLL_ALWAYS, 0);
    ck_assert_int_eq(SDMA_POLL_GT, 6);
}
END_TEST

START_TEST(test_fence_trap_fill_ts) {
    poison();
    ck_assert_uint_eq(sdma_pkt_fence(dw, 0x00000ABCDEF01234ull, 0xCAFEBABEu), 4);
    CHECK_DW(dw, 0x00000005, 0xDEF01234, 0x00000ABC, 0xCAFEBABE);
    ck_assert_uint_eq(dw[4], 0xEEEEEEEEu);
    poison();
    ck_assert_uint_eq(sdma_pkt_trap(dw, 0x12345678u), 2);
    CHECK_DW(dw, 0x00000006, 0x02345678);
    ck_assert_uint_eq(dw[2], 0xEEEEEEEEu);
    poison();
    ck_assert_uint_eq(sdma_pkt_const_fill(dw, 0x00007F0000001000ull, 0xA5A5A5A5u, 4096), 5);
    CHECK_DW(dw, 0x8000000B, 0x00001000, 0x00007F00, 0xA5A5A5A5, 0x00000FFF);
    ck_assert_uint_eq(dw[5], 0xEEEEEEEEu);
    /* The fill count is 22 bits on SDMA 4.x: the largest packet, and never a reserved bit. */
    sdma_pkt_const_fill(dw, 0x1000, 0, (uint32_t)SDMA_CONST_FILL_MAX);
    ck_assert_uint_eq(dw[4], 0x003FFFDFu);
    sdma_pkt_const_fill(dw, 0x1000, 0, 1u << 30);
    ck_assert_uint_eq(dw[4] & ~0x003FFFFFu, 0);
    poison();
    ck_assert_uint_eq(sdma_pkt_timestamp(dw, 0x0000000100000020ull), 3);
    CHECK_DW(dw, 0x0000020D, 0x00000020, 0x00000001);
    ck_assert_uint_eq(dw[3], 0xEEEEEEEEu);
}
END_TEST

START_TEST(test_sizes) {
    ck_assert_uint_eq(SDMA_COPY_LINEAR_DW, 7);
    ck_assert_uint_eq(SDMA_COPY_2D_DW, 20);
    ck_assert_uint_eq(SDMA_COPY_2D_SW13_DW, 13);
    ck_assert_uint_eq(SDMA_POLL_DW, 6);
    ck_assert_uint_eq(SDMA_ATOMIC_DW, 8);
    ck_assert_uint_eq(SDMA_FENCE_DW, 4);
    ck_assert_uint_eq(SDMA_TRAP_DW, 2);
    ck_assert_uint_eq(SDMA_CONST_FILL_DW, 5);
    ck_assert_uint_eq(SDMA_TIMESTAMP_DW, 3);
    ck_assert_uint_eq(SDMA_COPY_LINEAR_MAX, 0x3FFFFFE0ull);
    ck_assert_uint_eq(SDMA_CONST_FILL_MAX, 0x3FFFE0ull);
    ck_assert_uint_eq(SDMA_CONST_FILL_MAX % 32, 0);
}
END_TEST

int main(void) {
    Suite *s = suite_create("sdma_packets");
    TCase *tc = tcase_create("encoders");
    SRunner *sr;
    int failed;
    tcase_add_test(tc, test_nop);
    tcase_add_test(tc, test_nop_max);
    tcase_add_test(tc, test_copy_linear);
    tcase_add_test(tc, test_copy_2d_large);
    tcase_add_test(tc, test_copy_2d_sw13);
    tcase_add_test(tc, test_poll);
    tcase_add_test(tc, test_atomic);
    tcase_add_test(tc, test_atomic_codes);
    tcase_add_test(tc, test_fence_trap_fill_ts);
    tcase_add_test(tc, test_sizes);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
