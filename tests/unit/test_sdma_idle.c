/* The soft engine's thread when there is nothing to do: it starts with the first submit,
 * and it does not wake up while idle -- nor while a POLL waits for a word whose writers
 * wake it through the shared wake word, or whose waiters run it themselves
 * (polls_by_callers). Context-switch counters of the process's threads, not times. */
#define _GNU_SOURCE
#include <check.h>
#include <dirent.h>
#include <linux/futex.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sdma/sdma.h"

/* Total voluntary + involuntary switches of every thread but this one, and their count. */
static long others(int *nthreads) {
    long sum = 0, me = syscall(SYS_gettid);
    int n = 0;
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    ck_assert_ptr_nonnull(d);
    while ((e = readdir(d))) {
        long tid = atol(e->d_name);
        char path[96], line[128];
        FILE *f;
        if (tid <= 0 || tid == me)
            continue;
        snprintf(path, sizeof path, "/proc/self/task/%ld/status", tid);
        if (!(f = fopen(path, "r")))
            continue;
        n++;
        while (fgets(line, sizeof line, f))
            if (!strncmp(line, "voluntary_ctxt_switches:", 24))
                sum += atol(line + 24);
            else if (!strncmp(line, "nonvoluntary_ctxt_switches:", 27))
                sum += atol(line + 27);
        fclose(f);
    }
    closedir(d);
    *nthreads = n;
    return sum;
}

static void sleep_ms(int ms) {
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};
    while (nanosleep(&ts, &ts))
        ;
}

/* 1 when no other thread switched during a quiet half second (of three tries: a thread
 * still on its way to sleep may switch once after the phase before). */
static int quiet_half_second(void) {
    for (int i = 0; i < 3; i++) {
        int n;
        long a = others(&n);
        sleep_ms(500);
        if (others(&n) == a)
            return 1;
    }
    return 0;
}

static struct sdma_engine *open_soft(const struct sdma_engine_config *cfg) {
    struct sdma_engine *e = NULL;
    char err[256];
    ck_assert_msg(sdma_engine_open("soft", cfg, &e, err, sizeof err) == SDMA_OK, "%s", err);
    return e;
}

START_TEST(test_lazy_start_and_idle) {
    int before, after;
    others(&before);
    struct sdma_engine *e = open_soft(NULL);
    struct sdma_queue *q;
    ck_assert_int_eq(sdma_queue_open(e, 1 << 16, "idle", &q), SDMA_OK);
    others(&after);
    ck_assert_int_eq(after, before); /* no thread before a transfer needs one */
    static char src[4096], dst[4096];
    memset(src, 7, sizeof src);
    ck_assert_int_eq(sdma_copy(q, dst, src, sizeof src), SDMA_OK);
    ck_assert_int_eq(sdma_queue_quiet(q, 10.0), SDMA_OK);
    ck_assert_int_eq(dst[4095], 7);
    others(&after);
    ck_assert_int_eq(after, before + 1);
    ck_assert_msg(quiet_half_second(), "the idle engine thread woke up");
    sdma_queue_close(q);
    sdma_engine_close(e);
}
END_TEST

static uint32_t wake_seq, wake_sleepers;

/* What a writer of a polled word does (shmem/wait.c does it for the library). */
static void store_and_wake(uint32_t *word, uint32_t v) {
    __atomic_store_n(word, v, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&wake_sleepers, __ATOMIC_SEQ_CST)) {
        __atomic_fetch_add(&wake_seq, 1, __ATOMIC_SEQ_CST);
        syscall(SYS_futex, &wake_seq, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
    }
}

/* An engine whose writers wake it through the wake word, and a queue of it whose chain
 * waits for *gate >= 1, then stores v into *done: parked, with the thread asleep. */
static struct sdma_queue *parked_chain(struct sdma_engine **e, uint32_t *gate, uint32_t *done,
                                       uint32_t v) {
    struct sdma_engine_config cfg = {0};
    cfg.wake_seq = &wake_seq;
    cfg.wake_sleepers = &wake_sleepers;
    *e = open_soft(&cfg);
    struct sdma_queue *q;
    ck_assert_int_eq(sdma_queue_open(*e, 1 << 16, "poll", &q), SDMA_OK);
    ck_assert_int_eq(sdma_poll(q, gate, 1, ~0u, SDMA_POLL_GE), SDMA_OK);
    ck_assert_int_eq(sdma_fence(q, done, v), SDMA_OK);
    sleep_ms(50);
    ck_assert_uint_eq(__atomic_load_n(done, __ATOMIC_ACQUIRE), 0);
    ck_assert_msg(quiet_half_second(), "the engine thread woke while its POLL waited");
    return q;
}

/* Within five seconds *done holds v; then close both. */
static void chain_ends(struct sdma_engine *e, struct sdma_queue *q, uint32_t *done, uint32_t v) {
    for (int i = 0; i < 5000 && __atomic_load_n(done, __ATOMIC_ACQUIRE) != v; i++)
        sleep_ms(1);
    ck_assert_uint_eq(*done, v);
    sdma_queue_close(q);
    sdma_engine_close(e);
}

START_TEST(test_parked_poll_sleeps_until_woken) {
    struct sdma_engine *e;
    static uint32_t gate, done;
    struct sdma_queue *q = parked_chain(&e, &gate, &done, 5);
    ck_assert_uint_eq(__atomic_load_n(&wake_sleepers, __ATOMIC_ACQUIRE), 1);
    store_and_wake(&gate, 1); /* the writer's wake-up: no kick */
    chain_ends(e, q, &done, 5);
}
END_TEST

/* A queue that learns after its POLL parked that kernels may write the word (device code
 * came later): the thread re-checks it on its timer from then on, so a plain store, which
 * wakes nobody, still releases the chain. */
START_TEST(test_gpu_writes_added_later) {
    struct sdma_engine *e;
    static uint32_t gate, done;
    struct sdma_queue *q = parked_chain(&e, &gate, &done, 9);
    sdma_queue_gpu_writes(q);
    __atomic_store_n(&gate, 1, __ATOMIC_RELEASE); /* as a kernel's store: no wake */
    chain_ends(e, q, &done, 9);
}
END_TEST

START_TEST(test_polls_by_callers) {
    struct sdma_engine_config cfg = {0};
    cfg.polls_by_callers = 1;
    struct sdma_engine *e = open_soft(&cfg);
    struct sdma_queue *q;
    static uint32_t gate, done;
    ck_assert_int_eq(sdma_queue_open(e, 1 << 16, "callers", &q), SDMA_OK);
    ck_assert_int_eq(sdma_poll(q, &gate, 1, ~0u, SDMA_POLL_GE), SDMA_OK);
    ck_assert_int_eq(sdma_fence(q, &done, 3), SDMA_OK);
    ck_assert_msg(quiet_half_second(), "the engine thread woke while its POLL waited");
    __atomic_store_n(&gate, 1, __ATOMIC_RELEASE);
    /* Nothing wakes the thread: the caller's progress runs the chain. */
    for (int i = 0; i < 100000 && __atomic_load_n(&done, __ATOMIC_ACQUIRE) != 3; i++)
        sdma_engine_progress(e);
    ck_assert_uint_eq(done, 3);
    sdma_queue_close(q);
    sdma_engine_close(e);
}
END_TEST

int main(void) {
    Suite *s = suite_create("sdma_idle");
    TCase *tc = tcase_create("idle");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_lazy_start_and_idle);
    tcase_add_test(tc, test_parked_poll_sleeps_until_woken);
    tcase_add_test(tc, test_gpu_writes_added_later);
    tcase_add_test(tc, test_polls_by_callers);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
