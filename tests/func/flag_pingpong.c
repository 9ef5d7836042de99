/* A flag that the waiter takes and clears at once: PEs in pairs pass a word
 * back and forth, each side waiting for it with shmem_long_wait_until, reading
 * it, storing 0 and putting the next value to its partner -- the loop of
 * codes that signal with puts (the UH examples' sping, a pipeline's flags).
 * Every value is new, so a put whose bytes land twice, the second time after
 * the waiter cleared the word, shows as the old value seen again (or, without
 * the check, as a flag lost and a wait that never ends). The word travels as
 * shmem_long_p, shmem_long_put, shmem_long_iput (one element) and shmem_putmem
 * of 8 to 64 bytes with the word first or last (the sizes a copy splits into
 * stores that overlap), in the static data segment and on the heap. */
#include "check.h"

#include <stdint.h>

/* Rounds of each ping-pong: as many as BUDGET_S seconds of the slowest
 * pair's round trips allow, from ROUNDS_MIN to ROUNDS_MAX (through a mapping,
 * where the stores race, a round takes well under a microsecond; through a
 * fabric tens of them). */
#define ROUNDS_MAX 20000
#define ROUNDS_MIN 200
#define BUDGET_S 0.05
static long rounds = 100;
#define MAXB 64

static long word_static[MAXB / sizeof(long)];

enum { BY_P, BY_PUT, BY_IPUT, BY_PUTMEM };
static const char *by_name[] = {"shmem_long_p", "shmem_long_put", "shmem_long_iput",
                                "shmem_putmem"};

/* One ping-pong between me and peer (every PE calls it: the barriers; a PE
 * without a partner, active 0, only those). */
static void pingpong(long *area, int by, size_t bytes, int last, int me, int peer, int active) {
    long *word = last ? area + bytes / sizeof(long) - 1 : area;
    long msg[MAXB / sizeof(long)] = {0};
    long *mine = last ? msg + bytes / sizeof(long) - 1 : msg;
    *word = 0;
    shmem_barrier_all();
    for (long r = 1; active && r <= rounds; r++) {
        /* Even PEs send odd values first, odd PEs answer with even ones. */
        long send = 2 * r - (me & 1 ? 0 : 1), want = 2 * r - (me & 1 ? 1 : 0);
        if (me & 1) {
            shmem_long_wait_until(word, SHMEM_CMP_NE, 0);
            long got = *word;
            CHECK(got == want, "%s of %zu bytes (word %s), round %ld: read %ld, want %ld",
                  by_name[by], bytes, last ? "last" : "first", r, got, want);
            *word = 0;
        }
        *mine = send;
        if (by == BY_P)
            shmem_long_p(word, send, peer);
        else if (by == BY_PUT)
            shmem_long_put(word, mine, 1, peer);
        else if (by == BY_IPUT)
            shmem_long_iput(word, mine, 2, 2, 1, peer);
        else
            shmem_putmem(area, msg, bytes, peer);
        if (!(me & 1)) {
            shmem_long_wait_until(word, SHMEM_CMP_NE, 0);
            long got = *word;
            CHECK(got == want, "%s of %zu bytes (word %s), round %ld: read %ld, want %ld",
                  by_name[by], bytes, last ? "last" : "first", r, got, want);
            *word = 0;
        }
    }
    shmem_barrier_all();
}

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes(), peer = me ^ 1;
    long *heap = shmem_calloc(MAXB / sizeof(long), sizeof(long));
    CHECK(heap, "shmem_calloc failed");
    static const size_t sizes[] = {8, 16, 24, 32, 40, 48, 56, 64};
    int active = peer < npes;
    /* The rounds: time 100 of them, then agree on the slowest pair's. */
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pingpong(heap, BY_P, sizeof(long), 0, me, peer, active);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double round_s =
        ((double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec)) / 100;
    static long fit;
    fit = active ? (long)(BUDGET_S / (round_s > 1e-9 ? round_s : 1e-9)) : ROUNDS_MAX;
    fit = fit < ROUNDS_MIN ? ROUNDS_MIN : fit > ROUNDS_MAX ? ROUNDS_MAX : fit;
#if FUNC_SPEC_15
    static long slowest;
    shmem_long_min_reduce(SHMEM_TEAM_WORLD, &slowest, &fit, 1);
    rounds = slowest;
#else
    rounds = ROUNDS_MAX;
#endif
    long runs = 0;
    for (int h = 0; h < 2; h++) {
        long *area = h ? heap : word_static;
        pingpong(area, BY_P, sizeof(long), 0, me, peer, active);
        pingpong(area, BY_PUT, sizeof(long), 0, me, peer, active);
        pingpong(area, BY_IPUT, sizeof(long), 0, me, peer, active);
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
            for (int last = 0; last < 2; last++)
                pingpong(area, BY_PUTMEM, sizes[k], last, me, peer, active);
        runs += 3 + 2 * (long)(sizeof sizes / sizeof sizes[0]);
    }
    shmem_barrier_all();
    shmem_free(heap);
    if (me == 0)
        printf("flag_pingpong: %ld ping-pongs of %ld rounds, every value seen once\n", runs,
               rounds);
    shmem_finalize();
    return 0;
}
