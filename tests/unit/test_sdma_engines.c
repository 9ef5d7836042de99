/* Engine selection by kind, and the hsakmt engine reporting itself unavailable on a
 * machine without /dev/kfd. */
#include <check.h>
#include <string.h>
#include <unistd.h>

#include "sdma/sdma.h"

START_TEST(test_none) {
    struct sdma_engine *e = (struct sdma_engine *)0x1;
    char err[256];
    ck_assert_int_eq(sdma_engine_open("none", NULL, &e, err, sizeof err), SDMA_ERR_DISABLED);
    ck_assert_ptr_eq(e, (struct sdma_engine *)0x1); /* outputs only on success */
    ck_assert_msg(strstr(err, "disabled") != NULL, "%s", err);
}
END_TEST

START_TEST(test_cuda_not_built) {
    struct sdma_engine *e = NULL;
    char err[256];
    ck_assert_int_eq(sdma_engine_open("cuda", NULL, &e, err, sizeof err), SDMA_ERR_NOT_BUILT);
    ck_assert_msg(strstr(err, "not available in this build") != NULL, "%s", err);
    ck_assert_ptr_null(e);
}
END_TEST

START_TEST(test_unknown) {
    struct sdma_engine *e = NULL;
    char err[256];
    ck_assert_int_eq(sdma_engine_open("dma9000", NULL, &e, err, sizeof err), SDMA_ERR_INVAL);
    ck_assert_msg(strstr(err, "dma9000") != NULL, "%s", err);
}
END_TEST

START_TEST(test_hsakmt_unavailable) {
    struct sdma_engine *e = NULL;
    char err[256];
    int rc;
    if (access("/dev/kfd", F_OK) == 0)
        return; /* a machine with the AMD driver: nothing to check here */
    rc = sdma_engine_open("hsakmt", NULL, &e, err, sizeof err);
#ifdef SDMA_TEST_HAVE_HSAKMT
    ck_assert_int_eq(rc, SDMA_ERR_UNAVAILABLE);
    ck_assert_msg(strstr(err, "hsakmt: /dev/kfd not present") != NULL, "%s", err);
#else
    ck_assert_int_eq(rc, SDMA_ERR_NOT_BUILT);
    ck_assert_msg(strstr(err, "hsakmt") != NULL, "%s", err);
#endif
    ck_assert_ptr_null(e);
}
END_TEST

START_TEST(test_auto_falls_back) {
    struct sdma_engine *e = NULL;
    struct sdma_queue *q;
    static uint32_t w;
    char err[256];
    if (access("/dev/kfd", F_OK) == 0)
        return;
    ck_assert_int_eq(sdma_engine_open("auto", NULL, &e, err, sizeof err), SDMA_OK);
    ck_assert_str_eq(sdma_engine_name(e), "soft");
    ck_assert_int_eq(sdma_queue_open(e, 0, "auto", &q), SDMA_OK);
    ck_assert_int_eq(sdma_fence(q, &w, 3), SDMA_OK);
    ck_assert_int_eq(sdma_queue_quiet(q, 5.0), SDMA_OK);
    ck_assert_uint_eq(w, 3);
    sdma_queue_close(q);
    sdma_engine_close(e);
    ck_assert_int_eq(sdma_engine_open(NULL, NULL, &e, NULL, 0), SDMA_OK);
    ck_assert_str_eq(sdma_engine_name(e), "soft");
    sdma_engine_close(e);
}
END_TEST

START_TEST(test_strerror) {
    int c;
    for (c = 0; c >= SDMA_ERR_SYSTEM; c--)
        ck_assert_str_ne(sdma_strerror(c), "unknown status");
    ck_assert_str_eq(sdma_strerror(-999), "unknown status");
    ck_assert_str_ne(sdma_strerror(SDMA_ERR_DISABLED), sdma_strerror(SDMA_ERR_NOT_BUILT));
}
END_TEST

int main(void) {
    Suite *s = suite_create("sdma_engines");
    TCase *tc = tcase_create("engines");
    SRunner *sr;
    int failed;
    tcase_add_test(tc, test_none);
    tcase_add_test(tc, test_cuda_not_built);
    tcase_add_test(tc, test_unknown);
    tcase_add_test(tc, test_hsakmt_unavailable);
    tcase_add_test(tc, test_auto_falls_back);
    tcase_add_test(tc, test_strerror);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
