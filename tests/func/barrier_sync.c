/* Barriers: shmem_barrier_all (completes puts), shmem_sync_all and
 * shmem_team_sync(SHMEM_TEAM_WORLD) after shmem_quiet, repeated many times,
 * each round checking that every PE's data of that round has arrived and
 * that no PE left the barrier before every PE entered it. */
#include "check.h"

#define ROUNDS 150

enum { USE_BARRIER_ALL, USE_SYNC_ALL, USE_TEAM_SYNC, NKIND };
static const char *kind_name[] = {"barrier_all", "sync_all", "team_sync(WORLD)"};

int main(void) {
    shmem_init();
    const int me = shmem_my_pe();
    const int npes = shmem_n_pes();

    /* Two buffers alternate between rounds: a PE can be at most one round
     * ahead of another, so it never writes the buffer that is being checked. */
    long *slots = shmem_calloc(2 * (size_t)npes, sizeof(long));
    long *arrived = shmem_calloc(1, sizeof(long));
    CHECK(slots && arrived, "shmem_calloc failed");
    shmem_barrier_all();

    long round = 0;
    for (int kind = 0; kind < NKIND; kind++) {
#if !FUNC_SPEC_15
        if (kind == USE_TEAM_SYNC)
            continue;
#endif
        for (int r = 0; r < ROUNDS; r++, round++) {
            long *buf = slots + (round & 1) * npes;
            /* tell everyone "I reached round `round`" */
            for (int k = 0; k < npes; k++) {
                const int pe = (me + k) % npes;
                shmem_long_p(&buf[me], round + 1, pe);
            }
            shmem_long_atomic_inc(arrived, 0);
            switch (kind) {
            case USE_BARRIER_ALL: shmem_barrier_all(); break;
            case USE_SYNC_ALL:
                shmem_quiet();
                shmem_sync_all();
                break;
#if FUNC_SPEC_15
            case USE_TEAM_SYNC:
                shmem_quiet();
                shmem_team_sync(SHMEM_TEAM_WORLD);
                break;
#endif
            }
            for (int pe = 0; pe < npes; pe++)
                CHECK(buf[pe] == round + 1, "%s round %ld: slot of PE %d = %ld", kind_name[kind],
                      round, pe, buf[pe]);
            /* every PE incremented the counter before entering this barrier */
            long seen = shmem_long_atomic_fetch(arrived, 0);
            CHECK(seen >= (long)npes * (round + 1), "%s round %ld: only %ld arrivals counted",
                  kind_name[kind], round, seen);
        }
    }
    shmem_barrier_all();
    CHECK(shmem_long_atomic_fetch(arrived, 0) == (long)npes * round, "final arrival count");
    shmem_barrier_all();
    shmem_free(arrived);
    shmem_free(slots);
    func_pass("barrier_sync");
    shmem_finalize();
    return 0;
}
