/* Streams of non-fetching AMOs, as applications issue them (a histogram, a
 * work counter, OSU's atomics benchmark): every PE adds, increments, xors
 * and sets words on one target, many more than a library keeps in flight
 * to a PE at once.
 *   1. The target sees all of them without any quiet of the initiators: it
 *      waits until the counts are whole (the initiators meanwhile wait for
 *      its word, in the library but not in a quiet), then releases them;
 *      the xors and sets are whole after a barrier.
 *   2. An initiator's fetching AMO of a word it just added to, with no fence
 *      or quiet between, sees its own adds (its get, after a quiet).
 *   3. Adds then shmem_fence then a put of a flag: the target that sees the
 *      flag sees the adds.
 * Targets: PE 0, then every PE its right neighbour. */
#include "check.h"

#define N 3000 /* AMOs of each kind per PE and round */

static int me, npes;
static long *sum, *flag, *go;
static int *incs;
static unsigned long long *bits;
static long *last;

/* Round r of part 1 with every PE adding to `target`. */
static void stream(int r, int target) {
    for (int i = 0; i < N; i++) {
        shmem_long_atomic_add(sum, (long)me + 1, target);
        shmem_int_atomic_inc(incs, target);
        shmem_ulonglong_atomic_xor(bits, 1ull << ((unsigned)(i + me) % 64), target);
    }
    shmem_long_atomic_set(last, (long)r, target);
    /* Everyone's adds: N * (1 + 2 + ... + npes). */
    long want = (long)N * npes * (npes + 1) / 2;
    if (me == target) {
        shmem_long_wait_until(sum, SHMEM_CMP_EQ, want * r);
        shmem_int_wait_until(incs, SHMEM_CMP_EQ, N * npes * r);
        for (int pe = 0; pe < npes; pe++)
            shmem_long_atomic_inc(go, pe);
    }
    /* Not a quiet: this PE waits for the target's word, its own AMOs to the
     * target possibly not yet carried out. */
    shmem_long_wait_until(go, SHMEM_CMP_EQ, (long)r);
    /* The xors have no count to wait for: complete at the barrier's quiet. */
    shmem_barrier_all();
    if (me == target) {
        /* Each PE flips bit (i + pe) % 64 for i below N, every round. */
        unsigned long long want_bits = 0;
        for (int pe = 0; pe < npes; pe++)
            for (int i = 0; i < N; i++)
                want_bits ^= 1ull << ((unsigned)(i + pe) % 64);
        CHECK(*bits == (r % 2 ? want_bits : 0), "round %d: xor bits 0x%llx, expected 0x%llx", r,
              *bits, r % 2 ? want_bits : 0ull);
    }
    shmem_barrier_all(); /* the next round's xors after the check */
}

int main(void) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    sum = shmem_calloc(1, sizeof *sum);
    flag = shmem_calloc(1, sizeof *flag);
    go = shmem_calloc(1, sizeof *go);
    incs = shmem_calloc(1, sizeof *incs);
    bits = shmem_calloc(1, sizeof *bits);
    last = shmem_calloc(1, sizeof *last);
    CHECK(sum && flag && go && incs && bits && last, "shmem_calloc failed");
    shmem_barrier_all();

    /* 1. Two rounds into PE 0. */
    for (int r = 1; r <= 2; r++)
        stream(r, 0);
    shmem_barrier_all();
    if (me == 0)
        CHECK(*last >= 1 && *last <= 2, "atomic set left %ld", *last);

    /* 2. Adds to the right neighbour's word, then its fetch and its get. */
    int right = (me + 1) % npes;
    shmem_barrier_all();
    *sum = 0;
    shmem_barrier_all();
    long mine = 0;
    for (int i = 1; i <= N; i++) {
        shmem_long_atomic_add(sum, i, right);
        mine += i;
        if (i % 500 == 0) {
            /* Only this PE adds to its right neighbour's word. */
            long f = shmem_long_atomic_fetch(sum, right);
            CHECK(f == mine, "fetch after %d adds: %ld, expected %ld", i, f, mine);
            shmem_long_atomic_add(sum, 1, right);
            mine += 1;
            /* A get is not ordered after AMOs: after a quiet. */
            shmem_quiet();
            long g = shmem_long_g(sum, right);
            CHECK(g == mine, "get after %d adds and a quiet: %ld, expected %ld", i, g, mine);
        }
    }

    /* 3. Adds, fence, flag: the left neighbour adds to this PE's word. */
    shmem_barrier_all();
    *sum = 0;
    shmem_barrier_all();
    for (int r = 1; r <= 20; r++) {
        for (int i = 0; i < 100; i++)
            shmem_long_atomic_add(sum, 1, right);
        shmem_fence();
        shmem_long_p(flag, r, right);
        shmem_long_wait_until(flag, SHMEM_CMP_GE, r);
        long seen = shmem_long_atomic_fetch(sum, me);
        CHECK(seen >= 100L * r, "round %d: the flag came before the adds (%ld of %ld)", r, seen,
              100L * r);
    }
    shmem_barrier_all();
    CHECK(*sum == 2000, "the adds came to %ld, expected 2000", *sum);
    func_pass("amo_stream");
    shmem_finalize();
    return 0;
}
