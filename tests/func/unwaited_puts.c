/* Transfers into a PE that computes, which nobody waits for, take none of
 * its cores: PE 0 puts into PE 1 every 1.5 ms for 0.6 s while PE 1 computes
 * outside the library, and PE 1's library threads may wake a few times, not
 * once a put. (Through a fabric, a progress thread asleep in the provider's
 * wait object woke for each, taking the computing thread's core, though the
 * data is PE 1's to take at its next wait; busy_target checks that a peer
 * that does wait is served.) Other PEs only take part in the barriers.
 * Checks the data, and where wakeups can be counted, the wakeups. */
#include "tasks.h"

#include <stdint.h>
#include <time.h>
#include <unistd.h>

#define PUTS 400
#define WORDS 8

static long box[PUTS][WORDS];

/* Spin without calling the library until `until` (seconds, func_now()'s clock).
 * Returns the last func_now(). */
static volatile double sink;
static double compute(double until) {
    double s = 0, t;
    while ((t = func_now()) < until)
        for (int i = 0; i < 1000; i++)
            s += i * 0.5;
    sink = s;
    return t;
}

static long wakes(const struct task *a, int n) {
    long w = 0;
    struct task b;
    for (int i = 0; i < n; i++)
        if (!read_task(a[i].tid, &b))
            w += (b.vol - a[i].vol) + (b.invol - a[i].invol);
    return w;
}

int main(void) {
    long main_tid = (long)getpid();
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    CHECK(n >= 2, "needs 2 PEs");
    const char *unreliable = func_idle_unreliable();

    struct task a[MAXT];
    int threads = 0;
    long woke = 0;
    shmem_barrier_all();
    if (me == 1) {
        threads = library_tasks(main_tid, a);
        compute(func_now() + 0.8);
        woke = wakes(a, threads);
    } else if (me == 0) {
        long src[WORDS];
        double t = func_now();
        for (int i = 0; i < PUTS; i++) {
            for (int w = 0; w < WORDS; w++)
                src[w] = i * WORDS + w + 1;
            shmem_putmem(box[i], src, sizeof(src), 1);
            t = compute(t + 0.0015);
        }
    }
    shmem_barrier_all();
    if (me == 1)
        for (int i = 0; i < PUTS; i++)
            for (int w = 0; w < WORDS; w++)
                CHECK(box[i][w] == i * WORDS + w + 1, "put %d word %d: %ld", i, w, box[i][w]);
    if (me == 1 && !unreliable)
        CHECK(woke < PUTS / 4,
              "while PE 1 computed, PE 0's %d puts (nobody waiting) woke its %d library "
              "threads %ld times",
              PUTS, threads, woke);
    if (me == 1)
        printf("%d puts into a computing PE: its library threads woke %ld times%s%s%s\n", PUTS,
               woke, unreliable ? " (not checked: " : "", unreliable ? unreliable : "",
               unreliable ? ")" : "");
    shmem_barrier_all();

    func_pass("unwaited_puts");
    shmem_finalize();
    return 0;
}
