/* The plan queue ledger: holds, order of armed rounds, blockers. */
#include "shmem/plan/ledger.h"

#include <check.h>
#include <stdlib.h>

static int A, B; /* two plans, by address */

START_TEST(holds) {
    struct shmemi_ledger l;
    shmemi_ledger_init(&l, 1000);
    ck_assert_int_eq(shmemi_ledger_hold(&l, 600), 0);
    ck_assert_int_eq(shmemi_ledger_hold(&l, 500), -1); /* would pass the capacity */
    ck_assert_int_eq(shmemi_ledger_hold(&l, 400), 0);
    ck_assert_int_eq(shmemi_ledger_hold(&l, 1), -1);
    shmemi_ledger_unhold(&l, 600);
    ck_assert_int_eq(shmemi_ledger_hold(&l, 600), 0);
    ck_assert_int_eq(shmemi_ledger_hold(&l, 2000), -1);
    shmemi_ledger_fini(&l);
}
END_TEST

START_TEST(start_order) {
    struct shmemi_ledger l;
    const struct shmemi_ledger_entry *b = NULL;
    shmemi_ledger_init(&l, 1000);
    ck_assert_int_eq(shmemi_ledger_push(&l, &A, 1, 10), 0);
    ck_assert_int_eq(shmemi_ledger_push(&l, &B, 1, 20), 0);
    ck_assert_uint_eq(shmemi_ledger_armed(&l), 30);
    /* B's round 1 sits behind A's, which has not started. */
    ck_assert_int_eq(shmemi_ledger_check_start(&l, &B, 1, &b), -1);
    ck_assert_ptr_eq(b->plan, &A);
    ck_assert_int_eq(shmemi_ledger_check_start(&l, &A, 1, &b), 0);
    shmemi_ledger_open(&l, &A, 1);
    ck_assert_int_eq(shmemi_ledger_check_start(&l, &B, 1, &b), 0);
    /* Round 2 of A queued behind B's round 1 (not started yet). */
    ck_assert_int_eq(shmemi_ledger_push(&l, &A, 2, 10), 0);
    ck_assert_int_eq(shmemi_ledger_check_start(&l, &A, 2, &b), -1);
    ck_assert_ptr_eq(b->plan, &B);
    shmemi_ledger_open(&l, &B, 1);
    ck_assert_int_eq(shmemi_ledger_check_start(&l, &A, 2, &b), 0);
    /* Delivered rounds leave the ledger. */
    shmemi_ledger_release(&l, &A, 1);
    ck_assert_uint_eq(shmemi_ledger_armed(&l), 30);
    shmemi_ledger_release(&l, &B, UINT32_MAX);
    ck_assert_uint_eq(shmemi_ledger_armed(&l), 10);
    shmemi_ledger_fini(&l);
}
END_TEST

START_TEST(blockers) {
    struct shmemi_ledger l;
    shmemi_ledger_init(&l, 1000);
    shmemi_ledger_push(&l, &A, 1, 10);
    shmemi_ledger_push(&l, &B, 1, 10);
    ck_assert_ptr_null(shmemi_ledger_blocker(&l, &A));
    ck_assert_ptr_nonnull(shmemi_ledger_blocker(&l, &B)); /* B waits behind A's closed gate */
    shmemi_ledger_open(&l, &A, 0);
    ck_assert_ptr_null(shmemi_ledger_blocker(&l, &B));
    ck_assert_ptr_null(shmemi_ledger_blocker(&l, &l)); /* a plan with nothing armed */
    shmemi_ledger_fini(&l);
}
END_TEST

int main(void) {
    Suite *s = suite_create("plan_ledger");
    TCase *tc = tcase_create("ledger");
    tcase_add_test(tc, holds);
    tcase_add_test(tc, start_order);
    tcase_add_test(tc, blockers);
    suite_add_tcase(s, tc);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
