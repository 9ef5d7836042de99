/* Waiters give their core back: a thread that waits a second -- in
 * shmem_barrier_all, shmem_long_wait_until, shmem_set_lock, a triggered plan's
 * wait -- for PE 0, which sleeps meanwhile, spins only briefly and then
 * sleeps until PE 0's store wakes it. Measured with counters, not times: the
 * waiting thread's CPU time (getrusage RUSAGE_THREAD) stays well under the
 * second, and its voluntary context switches (each sleep ends in one) stay
 * near a hundred (sleeps that time out after SHMEM_WAIT_SLEEP_MAX_US, 10 ms),
 * where a loop of short naps takes thousands. */
#include "check.h"

#include <shmemx.h>

#include <string.h>
#include <sys/resource.h>
#include <time.h>

static long flag;
static long lock_word;

struct usage {
    double cpu;
    long vol;
};

static struct usage usage_now(void) {
    struct rusage r;
    getrusage(RUSAGE_THREAD, &r);
    return (struct usage){(double)r.ru_utime.tv_sec + r.ru_utime.tv_usec * 1e-6 +
                              (double)r.ru_stime.tv_sec + r.ru_stime.tv_usec * 1e-6,
                          r.ru_nvcsw};
}

static void sleep_s(double s) {
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts))
        ;
}

static void check_wait(const char *what, struct usage a) {
    struct usage b = usage_now();
    double cpu = b.cpu - a.cpu;
    long vol = b.vol - a.vol;
    CHECK(cpu < 0.3, "%s: the waiting thread used %.3f s of CPU in a one-second wait", what, cpu);
    /* A sleep lasts up to SHMEM_WAIT_SLEEP_MAX_US (10 ms here): about 100. A
     * loop of short naps takes thousands. */
    CHECK(vol < 400, "%s: %ld voluntary context switches in a one-second wait", what, vol);
}

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    /* What this test measures is how the host's waits sleep and wake. */
    const char *why = func_wakes_unreliable();
    if (why) {
        if (shmem_my_pe() == 0)
            printf("wait_block (%s)\n", why);
        func_pass("wait_block");
        shmem_finalize();
        return 0;
    }
    if (n < 2) {
        func_pass("wait_block (needs 2 PEs)");
        shmem_finalize();
        return 0;
    }
    struct usage a;

    /* Barrier. */
    shmem_barrier_all();
    a = usage_now();
    if (me == 0)
        sleep_s(1.0);
    shmem_barrier_all();
    if (me)
        check_wait("shmem_barrier_all", a);

    /* wait_until on a flag PE 0 sets with shmem_long_p. */
    a = usage_now();
    if (me == 0) {
        sleep_s(1.0);
        for (int q = 1; q < n; q++)
            shmem_long_p(&flag, 1, q);
    } else {
        shmem_long_wait_until(&flag, SHMEM_CMP_EQ, 1);
        check_wait("shmem_long_wait_until", a);
    }
    shmem_barrier_all();

    /* A lock PE 0 holds for a second. */
    if (me == 0)
        shmem_set_lock(&lock_word);
    shmem_barrier_all();
    a = usage_now();
    if (me == 0) {
        sleep_s(1.0);
        shmem_clear_lock(&lock_word);
    } else {
        shmem_set_lock(&lock_word);
        check_wait("shmem_set_lock", a);
        shmem_clear_lock(&lock_word);
    }
    shmem_barrier_all();

    /* A plan round whose PE 0 chunk comes a second late. */
    const size_t part = 4096;
    unsigned char *pb = shmem_calloc((size_t)n, part);
    CHECK(pb, "shmem_calloc");
    shmemx_region_t reg;
    shmemx_chunk_t ch;
    CHECK(shmemx_plan_whole((size_t)me * part, part, 1, &reg, &ch) == 1, "plan_whole");
    shmemx_plan_t p = NULL;
    CHECK(shmemx_plan_create(pb, (size_t)n * part, &ch, 1, NULL, &p) == 0, "plan_create: %s",
          shmemx_plan_errmsg(NULL));
    memset(pb + (size_t)me * part, me + 1, part);
    shmem_barrier_all();
    a = usage_now();
    if (me == 0)
        sleep_s(1.0);
    CHECK(shmemx_plan_run(p, -1) == 0, "plan_run: %s", shmemx_plan_errmsg(p));
    if (me)
        check_wait("shmemx_plan_run", a);
    for (int q = 0; q < n; q++)
        CHECK(pb[(size_t)q * part] == q + 1, "plan data from PE %d", q);
    CHECK(shmemx_plan_next_round(p) == 0, "next_round: %s", shmemx_plan_errmsg(p));
    CHECK(shmemx_plan_close(p, -1) == 0, "close: %s", shmemx_plan_errmsg(p));
    shmem_free(pb);

    func_pass("wait_block");
    shmem_finalize();
    return 0;
}
