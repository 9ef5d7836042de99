/* Idle means asleep: over one second in which this PE computes nothing and
 * calls nothing, no thread of the library wakes up (its voluntary and
 * involuntary context switches, /proc/self/task/TID/status, do not move).
 * Looked at after shmem_init, after a phase of large _nbi transfers through
 * the copy engine (run with SHMEM_NBI_ENGINE=always, so its thread runs),
 * and while a triggered plan has its next round armed (the engine's POLLs
 * wait for gates that nobody opens during the second). Through a fabric
 * too: its progress thread sleeps on its doorbell when idle.
 * And a PE that computes and posts small puts every millisecond, once a
 * peer's gets have woken its threads: no thread may keep waking because the
 * application posts (a library thread that steps aside from a posting
 * application must still go back to sleep).
 * Every PE does the same; each looks at its own threads. Counters, not
 * times. */
#include "tasks.h"

#include <shmemx.h>

#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long main_tid;

static void sleep_s(double s) {
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts))
        ;
}

/* The busy phase's symmetric word, and its peer (-1: no busy phase). */
static long *word;
static int busy_peer = -1;

/* For s seconds: compute for a millisecond, then put 8 bytes to busy_peer;
 * with gets: also read 8 bytes from it every tenth turn (a get that meets
 * the peer computing rings its threads awake). */
static void compute_and_post(double s, int gets) {
    double end = func_now() + s;
    long v = 0;
    for (unsigned turn = 0; func_now() < end; turn++) {
        double t = func_now() + 1e-3;
        while (func_now() < t)
            ;
        shmem_long_p(word, (long)turn, busy_peer);
        if (gets && turn % 10 == 0)
            shmem_getmem(&v, word, sizeof(v), busy_peer);
    }
}

/* A busy second's wakeups allowed per thread: a peer whose own posts find
 * this PE's queues full (shm, which only the target's progress empties, some
 * 500 puts) rings it, and its thread polls a few times while it serves. A
 * thread that stepped aside from a posting application woke every 8 ms (125
 * times). */
#define BUSY_WAKES 40

/* One idle second: 0 when no library thread woke (a message in why otherwise).
 * *threads: how many there are. A busy second (busy_peer >= 0) is one of
 * computing and posting, after the peers' gets woke the threads: each
 * thread may wake up to BUSY_WAKES times. */
static int quiet_second(int *threads, char *why, size_t len) {
    struct task a[MAXT], b;
    if (busy_peer >= 0) {
        compute_and_post(0.3, 1);
        compute_and_post(0.05, 0); /* the last ring's service ends */
    }
    int n = library_tasks(main_tid, a);
    *threads = n;
    if (busy_peer >= 0)
        compute_and_post(1.0, 0);
    else
        sleep_s(1.0);
    for (int i = 0; i < n; i++) {
        if (read_task(a[i].tid, &b))
            continue; /* ended */
        long woke = b.vol - a[i].vol + b.invol - a[i].invol;
        if (woke > (busy_peer >= 0 ? BUSY_WAKES : 0)) {
            snprintf(why, len,
                     "library thread %ld (%s) woke: %ld voluntary and %ld involuntary "
                     "context switches",
                     a[i].tid, a[i].name, b.vol - a[i].vol, b.invol - a[i].invol);
            return -1;
        }
    }
    return 0;
}

/* Fails unless some idle second of three sees no library thread wake: a thread
 * woken by the phase before (a store into this PE's memory wakes its sleeping
 * engine thread too) may run late on a loaded machine, but one that wakes
 * periodically wakes in every second. The PEs try together, agreeing between
 * tries (a PE whose second is over would otherwise wait for the others in a
 * barrier, and a waiter looks at PEs of other nodes ten times a second,
 * which wakes their progress threads; and a message of the next collective
 * wakes them too). Returns the thread count. */
static int idle_second(const char *when) {
    static int ok, all;
    char why[256] = "";
    int n = 0;
    ok = 0;
    for (int attempt = 0; attempt < 3; attempt++) {
        shmem_barrier_all();
        sleep_s(0.2);
        if (!quiet_second(&n, why, sizeof(why)))
            ok = 1;
        sleep_s(0.2); /* before the reduce reaches a PE whose second started later */
        shmem_int_min_reduce(SHMEM_TEAM_WORLD, &all, &ok, 1);
        if (all)
            return n;
    }
    CHECK(ok, "%s: in each of three idle seconds a library thread woke; the last: %s", when, why);
    return n;
}

int main(void) {
    main_tid = (long)getpid();
    shmem_init();
    /* What this test measures is how the host's waits sleep and wake. */
    const char *why = func_idle_unreliable();
    if (why) {
        if (shmem_my_pe() == 0)
            printf("idle_threads (%s)\n", why);
        func_pass("idle_threads");
        shmem_finalize();
        return 0;
    }
    int me = shmem_my_pe(), n = shmem_n_pes(), next = (me + 1) % n;
    shmem_barrier_all();
    idle_second("after shmem_init");
    shmem_barrier_all();

    /* Large non-blocking puts and gets: the engine's thread carries them. */
    const size_t len = (size_t)1 << 20;
    char *buf = shmem_malloc(2 * len);
    char *loc = malloc(len);
    CHECK(buf && loc, "allocation");
    memset(loc, me, len);
    for (int i = 0; i < 8; i++) {
        shmem_putmem_nbi(buf, loc, len, next);
        shmem_getmem_nbi(loc, buf + len, len, next);
        shmem_quiet();
    }
    shmem_barrier_all();
    int threads = idle_second("after a phase of _nbi transfers");
    const char *always = getenv("SHMEM_NBI_ENGINE");
    if (always && !strcmp(always, "always") && n > 1)
        CHECK(threads >= 1, "the copy engine's thread never started");
    shmem_barrier_all();

    /* A plan whose next round is armed: its POLLs wait for gates. (Not with
     * PEs of other nodes: their stores through the fabric wake no one, so
     * the engine's thread re-checks a parked POLL on a timer.) */
    if (n > 1 && shmem_team_n_pes(SHMEM_TEAM_SHARED) == n) {
        const size_t part = 4096;
        unsigned char *pb = shmem_calloc((size_t)n, part);
        CHECK(pb, "shmem_calloc");
        shmemx_region_t reg;
        shmemx_chunk_t ch;
        CHECK(shmemx_plan_whole((size_t)me * part, part, 1, &reg, &ch) == 1, "plan_whole");
        shmemx_plan_t p = NULL;
        int rc = shmemx_plan_create(pb, (size_t)n * part, &ch, 1, NULL, &p);
        CHECK(rc == 0, "plan_create: %s", shmemx_plan_errmsg(NULL));
        memset(pb + (size_t)me * part, me + 1, part);
        CHECK(shmemx_plan_run(p, -1) == 0, "plan_run: %s", shmemx_plan_errmsg(p));
        CHECK(shmemx_plan_next_round(p) == 0, "next_round: %s", shmemx_plan_errmsg(p));
        for (int q = 0; q < n; q++)
            CHECK(pb[(size_t)q * part] == q + 1, "plan data from PE %d", q);
        shmem_barrier_all();
        idle_second("with a triggered plan's round armed");
        shmem_barrier_all();
        CHECK(shmemx_plan_run(p, -1) == 0, "plan_run 2: %s", shmemx_plan_errmsg(p));
        CHECK(shmemx_plan_close(p, -1) == 0, "close: %s", shmemx_plan_errmsg(p));
        shmem_free(pb);
    }

    /* Computing and posting. */
    if (n > 1) {
        word = shmem_malloc(sizeof(long));
        CHECK(word, "shmem_malloc");
        busy_peer = next;
        shmem_barrier_all();
        idle_second("while computing and posting a put every millisecond");
        busy_peer = -1;
        shmem_barrier_all();
        shmem_free(word);
    }
    shmem_free(buf);
    free(loc);
    func_pass("idle_threads");
    shmem_finalize();
    return 0;
}
