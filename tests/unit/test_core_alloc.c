/* The symmetric heap allocator: determinism, alignment, reuse, bad frees. */
#include "shmem/alloc.h"

#include <check.h>
#include <stdint.h>
#include <stdlib.h>

static struct shmemi_alloc a;

static void setup(void) { ck_assert_int_eq(shmemi_alloc_init(&a, 1 << 20), 0); }
static void teardown(void) { shmemi_alloc_fini(&a); }

START_TEST(first_fit_and_alignment) {
    size_t o1, o2, o3;
    ck_assert_int_eq(shmemi_alloc_get(&a, 0, 10, &o1), SHMEMI_ALLOC_OK);
    ck_assert_uint_eq(o1, 0);
    ck_assert_int_eq(shmemi_alloc_get(&a, 0, 100, &o2), SHMEMI_ALLOC_OK);
    ck_assert_uint_eq(o2, 64); /* every object starts on a cache line */
    ck_assert_int_eq(shmemi_alloc_get(&a, 4096, 1, &o3), SHMEMI_ALLOC_OK);
    ck_assert_uint_eq(o3 % 4096, 0);
    ck_assert_uint_eq(shmemi_alloc_size(&a, o2), 128);
    ck_assert_int_eq(shmemi_alloc_get(&a, 3, 1, &o3), SHMEMI_ALLOC_INVAL);
}
END_TEST

START_TEST(deterministic_sequence) {
    /* Two allocators driven by the same calls hand out the same offsets. */
    struct shmemi_alloc b;
    ck_assert_int_eq(shmemi_alloc_init(&b, 1 << 20), 0);
    size_t offs[64], offb[64];
    unsigned seed = 7;
    for (int round = 0; round < 20; round++) {
        for (int i = 0; i < 64; i++) {
            size_t sz = 1 + (size_t)(rand_r(&seed) % 5000);
            int ra = shmemi_alloc_get(&a, 0, sz, &offs[i]);
            int rb = shmemi_alloc_get(&b, 0, sz, &offb[i]);
            ck_assert_int_eq(ra, rb);
            if (ra == SHMEMI_ALLOC_OK)
                ck_assert_uint_eq(offs[i], offb[i]);
            else
                offs[i] = offb[i] = SIZE_MAX;
        }
        for (int i = round % 2; i < 64; i += 2)
            if (offs[i] != SIZE_MAX) {
                ck_assert_int_eq(shmemi_alloc_put(&a, offs[i]), 0);
                ck_assert_int_eq(shmemi_alloc_put(&b, offb[i]), 0);
            }
        for (int i = 1 - round % 2; i < 64; i += 2)
            if (offs[i] != SIZE_MAX) {
                ck_assert_int_eq(shmemi_alloc_put(&a, offs[i]), 0);
                ck_assert_int_eq(shmemi_alloc_put(&b, offb[i]), 0);
            }
    }
    size_t used, largest;
    shmemi_alloc_stats(&a, &used, &largest);
    ck_assert_uint_eq(used, 0);
    ck_assert_uint_eq(largest, 1 << 20); /* everything coalesced back */
    shmemi_alloc_fini(&b);
}
END_TEST

START_TEST(exhaustion_and_bad_frees) {
    size_t o, o2;
    ck_assert_int_eq(shmemi_alloc_get(&a, 0, (1 << 20) + 1, &o), SHMEMI_ALLOC_NOMEM);
    ck_assert_int_eq(shmemi_alloc_get(&a, 0, 0, &o), SHMEMI_ALLOC_NOMEM);
    ck_assert_int_eq(shmemi_alloc_get(&a, 0, 1 << 20, &o), SHMEMI_ALLOC_OK);
    ck_assert_int_eq(shmemi_alloc_get(&a, 0, 1, &o2), SHMEMI_ALLOC_NOMEM);
    ck_assert_int_eq(shmemi_alloc_put(&a, o + 64), SHMEMI_ALLOC_NOTUSED); /* interior */
    ck_assert_int_eq(shmemi_alloc_put(&a, o), SHMEMI_ALLOC_OK);
    ck_assert_int_eq(shmemi_alloc_put(&a, o), SHMEMI_ALLOC_NOTUSED); /* double free */
}
END_TEST

START_TEST(resize_in_place_and_moving) {
    size_t o1, o2, n;
    int moved;
    ck_assert_int_eq(shmemi_alloc_get(&a, 0, 100, &o1), SHMEMI_ALLOC_OK);
    ck_assert_int_eq(shmemi_alloc_resize(&a, o1, 1000, &n, &moved), SHMEMI_ALLOC_OK);
    ck_assert_int_eq(moved, 0); /* the free space behind it was taken */
    ck_assert_uint_eq(n, o1);
    ck_assert_int_eq(shmemi_alloc_get(&a, 0, 64, &o2), SHMEMI_ALLOC_OK);
    ck_assert_int_eq(shmemi_alloc_resize(&a, o1, 5000, &n, &moved), SHMEMI_ALLOC_OK);
    ck_assert_int_eq(moved, 1);
    ck_assert_uint_gt(n, o2);
    ck_assert_int_eq(shmemi_alloc_put(&a, o1), SHMEMI_ALLOC_OK);
    ck_assert_int_eq(shmemi_alloc_resize(&a, n, 64, &o1, &moved), SHMEMI_ALLOC_OK);
    ck_assert_int_eq(moved, 0);
    ck_assert_uint_eq(shmemi_alloc_size(&a, n), 64);
    ck_assert_int_eq(shmemi_alloc_resize(&a, 12345, 64, &o1, &moved), SHMEMI_ALLOC_NOTUSED);
}
END_TEST

/* An object `lead` bytes into its block: found, sized, resized (keeping its
 * lead), freed and merged by its own offset; its neighbours keep their cache
 * lines, and an offset at its block's start is not an object. */
START_TEST(lead_objects) {
    size_t o1, o2, o3, n;
    int moved;
    ck_assert_int_eq(shmemi_alloc_get_lead(&a, 0, 64, 100, &o1), SHMEMI_ALLOC_INVAL);
    ck_assert_int_eq(shmemi_alloc_get_lead(&a, 0, 16, 100, &o1), SHMEMI_ALLOC_OK);
    ck_assert_uint_eq(o1, 16);
    ck_assert_uint_eq(shmemi_alloc_size(&a, o1), 112); /* 128 - 16 */
    ck_assert_uint_eq(shmemi_alloc_size(&a, 0), 0);
    ck_assert_int_eq(shmemi_alloc_put(&a, 0), SHMEMI_ALLOC_NOTUSED);
    ck_assert_int_eq(shmemi_alloc_get(&a, 0, 10, &o2), SHMEMI_ALLOC_OK);
    ck_assert_uint_eq(o2, 128); /* past the lead object's last line */
    ck_assert_int_eq(shmemi_alloc_get_lead(&a, 0, 16, 4000, &o3), SHMEMI_ALLOC_OK);
    ck_assert_uint_eq(o3 % 64, 16);
    /* Grows in place into the free space behind it, then moves with its lead. */
    ck_assert_int_eq(shmemi_alloc_resize(&a, o3, 9000, &n, &moved), SHMEMI_ALLOC_OK);
    ck_assert_int_eq(moved, 0);
    ck_assert_uint_eq(n, o3);
    ck_assert_uint_ge(shmemi_alloc_size(&a, o3), 9000);
    ck_assert_int_eq(shmemi_alloc_resize(&a, o1, 5000, &n, &moved), SHMEMI_ALLOC_OK);
    ck_assert_int_eq(moved, 1);
    ck_assert_uint_eq(n % 64, 16);
    ck_assert_uint_ge(shmemi_alloc_size(&a, n), 5000);
    ck_assert_int_eq(shmemi_alloc_put(&a, o1), SHMEMI_ALLOC_OK);
    ck_assert_int_eq(shmemi_alloc_put(&a, n), SHMEMI_ALLOC_OK);
    ck_assert_int_eq(shmemi_alloc_put(&a, o3), SHMEMI_ALLOC_OK);
    ck_assert_int_eq(shmemi_alloc_put(&a, o2), SHMEMI_ALLOC_OK);
    /* Everything merged back: the whole heap in one object again. */
    ck_assert_int_eq(shmemi_alloc_get(&a, 0, 1 << 20, &o1), SHMEMI_ALLOC_OK);
    ck_assert_uint_eq(o1, 0);
    ck_assert_int_eq(shmemi_alloc_put(&a, o1), SHMEMI_ALLOC_OK);
    ck_assert_int_eq(shmemi_alloc_get_lead(&a, 0, 16, 1 << 20, &o1), SHMEMI_ALLOC_NOMEM);
}
END_TEST

/* The heap's address range near 2^64: rounding to the page and adding the
 * control areas and the alignment must be refused, never wrap. */
START_TEST(heap_layout_overflow) {
    const size_t page = 4096, extra = (size_t)64 << 10 << 1, align = (size_t)1 << 30;
    size_t user = 7, span = 7;
    ck_assert_int_eq(shmemi_heap_layout((size_t)256 << 20, page, extra, align, &user, &span),
                     SHMEMI_ALLOC_OK);
    ck_assert_uint_eq(user, (size_t)256 << 20);
    ck_assert_uint_eq(span, ((size_t)256 << 20) + extra + align);
    ck_assert_int_eq(shmemi_heap_layout(1, page, extra, align, &user, &span), SHMEMI_ALLOC_OK);
    ck_assert_uint_eq(user, page);
    user = span = 7;
    ck_assert_int_eq(shmemi_heap_layout(0, page, extra, align, &user, &span), SHMEMI_ALLOC_INVAL);
    /* Rounding up to the page wraps. */
    ck_assert_int_eq(shmemi_heap_layout(SIZE_MAX, page, extra, align, &user, &span),
                     SHMEMI_ALLOC_INVAL);
    ck_assert_int_eq(shmemi_heap_layout(SIZE_MAX - page + 2, page, 0, 0, &user, &span),
                     SHMEMI_ALLOC_INVAL);
    /* Page-aligned, but the control areas wrap (2^64 - 64 KiB: a 64 KiB mapping). */
    ck_assert_int_eq(
        shmemi_heap_layout(SIZE_MAX - ((size_t)64 << 10) + 1, page, extra, align, &user, &span),
        SHMEMI_ALLOC_INVAL);
    /* Only the alignment wraps. */
    ck_assert_int_eq(
        shmemi_heap_layout(SIZE_MAX - extra - align + 2 - page, page, extra, align, &user, &span),
        SHMEMI_ALLOC_INVAL);
    ck_assert_uint_eq(user, 7);
    ck_assert_uint_eq(span, 7);
    /* The largest that fits. */
    size_t top = (SIZE_MAX - extra - align) & ~(page - 1);
    ck_assert_int_eq(shmemi_heap_layout(top, page, extra, align, &user, &span), SHMEMI_ALLOC_OK);
    ck_assert_uint_eq(user, top);
}
END_TEST

int main(void) {
    Suite *s = suite_create("alloc");
    TCase *tc = tcase_create("alloc");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, first_fit_and_alignment);
    tcase_add_test(tc, deterministic_sequence);
    tcase_add_test(tc, exhaustion_and_bad_frees);
    tcase_add_test(tc, resize_in_place_and_moving);
    tcase_add_test(tc, lead_objects);
    tcase_add_test(tc, heap_layout_overflow);
    suite_add_tcase(s, tc);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
