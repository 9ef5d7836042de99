/* Host copies (sdma/copy.h): the streaming, downward, vector and small paths copy exactly what
 * memcpy copies, whatever the alignment and length, and the threshold setting behaves as documented. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sdma/copy.h"

START_TEST(test_stream_matches_memcpy) {
    enum { MAX = 70000 };
    unsigned char *src = malloc(MAX + 128), *dst = malloc(MAX + 256);
    ck_assert_ptr_nonnull(src);
    ck_assert_ptr_nonnull(dst);
    for (size_t i = 0; i < MAX + 128; i++)
        src[i] = (unsigned char)(i * 131 + 7);
    /* 4096 to 32767 take the 64-byte loop where there is one (SDMA_COPY_WIDE_MIN/MAX). */
    const size_t lens[] = {0,    1,    31,   32,    33,    63,    64,    65,
                           127,  128,  129,  160,   1023,  1024,  4095,  4096,
                           4097, 4159, 4351, 24589, 32767, 32768, 65537, MAX};
    for (size_t so = 0; so < 3; so++)
        for (size_t doff = 0; doff < 70; doff += 23)
            for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
                size_t n = lens[k];
                for (int how = 0; how < 3; how++) {
                    memset(dst, 0xEE, MAX + 256);
                    if (how == 0)
                        sdma_copy_stream(dst + doff, src + so, n);
                    else if (how == 1)
                        sdma_copy_down(dst + doff, src + so, n);
                    else
                        sdma_copy_fwd(dst + doff, src + so, n);
                    ck_assert_msg(!memcmp(dst + doff, src + so, n), "len %zu, offsets %zu/%zu", n,
                                  so, doff);
                    /* Nothing written around the destination. */
                    for (size_t i = 0; i < doff; i++)
                        ck_assert_uint_eq(dst[i], 0xEE);
                    for (size_t i = doff + n; i < doff + n + 64; i++)
                        ck_assert_uint_eq(dst[i], 0xEE);
                }
            }
    free(src);
    free(dst);
}
END_TEST

START_TEST(test_threshold) {
    ck_assert_uint_eq(sdma_copy_set_stream_min(4096), 4096);
    ck_assert_uint_eq(sdma_copy_stream_min, 4096);
    /* 0 means never: stored as the largest size. */
    ck_assert_uint_eq(sdma_copy_set_stream_min(0), 0);
    ck_assert_uint_eq(sdma_copy_stream_min, SIZE_MAX);
    size_t a = sdma_copy_set_stream_min(SDMA_COPY_STREAM_AUTO);
    ck_assert_uint_eq(sdma_copy_stream_min, a ? a : SIZE_MAX);
    /* auto is half a cache that counts as at most 2 MiB a CPU sharing it (sysfs), or 32 MiB
     * (sysconf), or 8 MiB: never more than 1 MiB for each CPU here, or 16 MiB. */
    long cpus = sysconf(_SC_NPROCESSORS_CONF);
    size_t most = cpus > 16 ? (size_t)cpus << 20 : (size_t)16 << 20;
    ck_assert_msg(a <= most, "auto: %zu bytes, with %ld CPUs", a, cpus);
    char s[300], d[300];
    memset(s, 3, sizeof s);
    sdma_copy_set_stream_min(256);
    sdma_copy_bytes(d, s, sizeof s); /* streams */
    ck_assert(!memcmp(d, s, sizeof s));
}
END_TEST

/* The dispatch: whichever path a size and a gap take (either loop, memcpy where that is
 * faster, the downward copy), the bytes are memcpy's. */
START_TEST(test_bytes_dispatch) {
    ck_assert(sdma_copy_lines_min == SIZE_MAX || sdma_copy_lines_min == SDMA_COPY_LINES_MIN);
    ck_assert(sdma_copy_vector_min == SDMA_COPY_VECTOR_MIN ||
              sdma_copy_vector_min == SDMA_COPY_WIDE_MIN);
    enum { MAX = 3 * SDMA_COPY_LINES_MIN };
    unsigned char *src = aligned_alloc(4096, MAX + 4096), *dst = aligned_alloc(4096, MAX + 8192);
    ck_assert_ptr_nonnull(src);
    ck_assert_ptr_nonnull(dst);
    for (size_t i = 0; i < MAX + 4096; i++)
        src[i] = (unsigned char)(i * 37 + 11);
    const size_t gaps[] = {0, 16, 64, 4096 + 8, 4096 + 128};
    const size_t lens[] = {SDMA_COPY_VECTOR_MIN - 1, SDMA_COPY_VECTOR_MIN,
                           SDMA_COPY_WIDE_MIN - 1,   SDMA_COPY_WIDE_MIN + 100,
                           SDMA_COPY_LINES_MIN - 1,  SDMA_COPY_LINES_MIN,
                           SDMA_COPY_LINES_MIN + 77, MAX};
    for (size_t g = 0; g < sizeof gaps / sizeof gaps[0]; g++)
        for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
            memset(dst, 0xEE, MAX + 8192);
            sdma_copy_bytes(dst + gaps[g], src, lens[k]);
            ck_assert_msg(!memcmp(dst + gaps[g], src, lens[k]), "len %zu, gap %zu", lens[k],
                          gaps[g]);
            for (size_t i = gaps[g] + lens[k]; i < gaps[g] + lens[k] + 64; i++)
                ck_assert_uint_eq(dst[i], 0xEE);
        }
    free(src);
    free(dst);
}
END_TEST

/* Small copies are inline, with loads and stores that may overlap: every length up to past
 * at every source and destination offset copies exactly its bytes and writes nothing around
 * them. */
START_TEST(test_small) {
    unsigned char src[SDMA_COPY_SMALL_MAX + 16], dst[SDMA_COPY_SMALL_MAX + 48];
    for (size_t i = 0; i < sizeof src; i++)
        src[i] = (unsigned char)(i * 29 + 5);
    for (size_t n = 0; n <= SDMA_COPY_SMALL_MAX + 1; n++)
        for (size_t so = 0; so < 8; so++)
            for (size_t doff = 8; doff < 24; doff++) {
                memset(dst, 0xEE, sizeof dst);
                sdma_copy_bytes(dst + doff, src + so, n);
                ck_assert_msg(!memcmp(dst + doff, src + so, n), "len %zu, offsets %zu/%zu", n, so,
                              doff);
                for (size_t i = 0; i < sizeof dst; i++)
                    if (i < doff || i >= doff + n)
                        ck_assert_uint_eq(dst[i], 0xEE);
            }
}
END_TEST

int main(void) {
    Suite *s = suite_create("sdma_copy");
    TCase *tc = tcase_create("copy");
    tcase_add_test(tc, test_stream_matches_memcpy);
    tcase_add_test(tc, test_threshold);
    tcase_add_test(tc, test_bytes_dispatch);
    tcase_add_test(tc, test_small);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
