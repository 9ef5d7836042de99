/* A plan's shared words, laid out by shmemi_plan_words_place: the count and
 * the placement agree, every array is inside the allocation, on its own cache
 * line and apart from every other, and sizes that overflow are refused. */
#include "shmem/plan/plan.h"

#include <check.h>
#include <stdlib.h>

struct span {
    const char *name;
    uintptr_t lo, hi;
};

/* The arrays of w placed at base, with their lengths for N chunks and n PEs. */
static size_t spans_of(const struct shmemi_plan_words *w, size_t N, size_t n, struct span *s) {
    size_t k = 0;
#define SPAN(f, count)                                                                             \
    s[k++] = (struct span){#f, (uintptr_t)w->f, (uintptr_t)w->f + (count) * sizeof(*w->f)}
    SPAN(marks, N);
    SPAN(gates, N);
    SPAN(arrival, N);
    SPAN(sent, N * n);
    SPAN(fence, n);
    SPAN(abortw, n);
    SPAN(error, 1);
    SPAN(error_chunk, 1);
    SPAN(error_round, 1);
    SPAN(error_peer, 1);
    SPAN(done, 1);
    SPAN(go, 1);
    SPAN(views, SHMEMI_PLAN_VIEW_SLOTS);
    SPAN(peer_fence, n);
    SPAN(writers, N);
#undef SPAN
    return k;
}

static void check_layout(size_t N, size_t n) {
    struct shmemi_plan_words w;
    size_t bytes = shmemi_plan_words_place(&w, NULL, N, n);
    ck_assert_uint_ne(bytes, SIZE_MAX);
    ck_assert_ptr_null(w.marks); /* counting places nothing */
    ck_assert_ptr_null(w.writers);
    char *base = aligned_alloc(64, bytes);
    ck_assert_ptr_nonnull(base);
    ck_assert_uint_eq(shmemi_plan_words_place(&w, base, N, n), bytes);
    struct span s[32];
    size_t k = spans_of(&w, N, n, s);
    for (size_t i = 0; i < k; i++) {
        ck_assert_msg(s[i].lo % 64 == 0, "%s is not on a cache line of its own", s[i].name);
        ck_assert_msg(s[i].lo >= (uintptr_t)base && s[i].hi <= (uintptr_t)base + bytes,
                      "%s (N %zu, n %zu) is outside the %zu bytes", s[i].name, N, n, bytes);
        for (size_t j = 0; j < i; j++)
            ck_assert_msg(s[j].hi <= s[i].lo || s[i].hi <= s[j].lo, "%s overlaps %s (N %zu, n %zu)",
                          s[i].name, s[j].name, N, n);
    }
    free(base);
}

START_TEST(layout) {
    size_t shapes[][2] = {{0, 1}, {1, 1}, {1, 2}, {9, 2}, {33, 4}, {1000, 8}, {7, 1024}};
    for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
        check_layout(shapes[i][0], shapes[i][1]);
}
END_TEST

START_TEST(overflow) {
    struct shmemi_plan_words w;
    ck_assert_uint_eq(shmemi_plan_words_place(&w, NULL, SIZE_MAX / 2, 4), SIZE_MAX);
    ck_assert_uint_eq(shmemi_plan_words_place(&w, NULL, (size_t)1 << 40, (size_t)1 << 30),
                      SIZE_MAX);
    ck_assert_uint_eq(shmemi_plan_words_place(&w, NULL, SIZE_MAX / 8, 1), SIZE_MAX);
}
END_TEST

int main(void) {
    Suite *s = suite_create("plan_words");
    TCase *tc = tcase_create("words");
    tcase_add_test(tc, layout);
    tcase_add_test(tc, overflow);
    suite_add_tcase(s, tc);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
