/* Small collectives back to back (the barrier-free exchange of shmem/coll.c):
 * reductions (in place too), fcollects, alltoalls, broadcasts from every
 * root (and bursts from one root) and collects of sizes that differ by
 * member (none too), of a few bytes on SHMEM_TEAM_WORLD and on the active set of every PE,
 * hundreds of rounds in a row with values that change every round,
 * interleaved with larger ones (32 and 64 KiB: the barrier path on one node,
 * the mailboxes through a fabric, in several chunks a message, or the barrier
 * path past the row's mail size), with broadcasts and reductions of 256 KiB
 * (through a fabric: the root's pushes, the reduced slices followed by a
 * message), with fcollects and alltoalls of 512 KiB in all (through a fabric:
 * every member pushes its blocks, behind each one's word that it is in), and
 * with PEs that fall behind
 * now and then, and broadcasts from roots that take turns, after a barrier
 * or not, every result checked. A message read from the wrong round,
 * or overwritten before it was read, shows. */
#include "check.h"

#include <string.h>
#include <time.h>

#define ROUNDS 300
#define SMALL 4    /* longs: 32 bytes, the exchange */
#define LARGE 8192 /* longs: the barrier path, or mail (and LARGE / 2) */
#define HUGE 32768 /* longs: a broadcast the root pushes through a fabric */

static long src[2 * HUGE], dst[2 * HUGE], wrk[HUGE / 2 + 1 + SHMEM_REDUCE_MIN_WRKDATA_SIZE];
static long psync[SHMEM_REDUCE_SYNC_SIZE];

static long val(int pe, int round, int i) { return (long)pe * 1000003L + round * 101L + i; }

static void nap_us(long us) {
    struct timespec ts = {0, us * 1000};
    nanosleep(&ts, NULL);
}

/* cnt longs of round r from root, checked (an active set's root gets none). */
static void broadcast(int r, int root, size_t cnt, const char *what) {
    int me = shmem_my_pe(), n = shmem_n_pes();
#if FUNC_SPEC_15
    (void)n;
    shmem_long_broadcast(SHMEM_TEAM_WORLD, dst, src, cnt, root);
#else
    shmem_broadcast64(dst, src, cnt, root, 0, 0, n, psync);
    shmem_barrier_all();
#endif
    if (me != root || FUNC_SPEC_15)
        for (size_t i = 0; i < cnt; i++)
            CHECK(dst[i] == val(root, r, (int)i), "%s %d: broadcast from %d [%zu] = %ld", what, r,
                  root, i, dst[i]);
}

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    if (n > 8) {
        func_pass("coll_small (up to 8 PEs)");
        shmem_finalize();
        return 0;
    }
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        psync[i] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();
    for (int r = 0; r < ROUNDS; r++) {
        int k = r % 6;
        size_t cnt = (r % 7 == 6) ? LARGE >> (r / 7 % 2) : SMALL;
        if ((k == 0 || k == 3 || k == 4) && (r / 6) % 2 == 0)
            cnt = HUGE;
        if ((k == 1 || k == 2) && (r / 6) % 2 == 1)
            cnt = 2 * HUGE; /* all the members' blocks together */
        for (size_t i = 0; i < (cnt > LARGE ? cnt : LARGE); i++)
            src[i] = val(me, r, (int)i);
        if ((r * 7 + me) % 13 == 0)
            nap_us(200); /* fall behind: the others run ahead into the next round */
        if (k == 0 || k == 3) {
#if FUNC_SPEC_15
            if (k == 0 && (r & 8)) { /* in place */
                memcpy(dst, src, cnt * sizeof(long));
                shmem_long_sum_reduce(SHMEM_TEAM_WORLD, dst, dst, cnt);
            } else if (k == 0)
                shmem_long_sum_reduce(SHMEM_TEAM_WORLD, dst, src, cnt);
            else
#endif
            {
                shmem_long_sum_to_all(dst, src, (int)cnt, 0, 0, n, wrk, psync);
                shmem_barrier_all(); /* pSync reuse (the active-set rule) */
            }
            for (size_t i = 0; i < cnt; i++) {
                long want = 0;
                for (int p = 0; p < n; p++)
                    want += val(p, r, (int)i);
                CHECK(dst[i] == want, "round %d: sum[%zu] = %ld, expected %ld", r, i, dst[i], want);
            }
        } else if (k == 5) {
            /* collect: member p gives (p + r) % 3 blocks */
            size_t blk = cnt == SMALL ? 1 : 700, mine = (size_t)((me + r) % 3) * blk;
#if FUNC_SPEC_15
            shmem_long_collect(SHMEM_TEAM_WORLD, dst, src, mine);
#else
            shmem_collect64(dst, src, mine, 0, 0, n, psync);
            shmem_barrier_all();
#endif
            size_t off = 0;
            for (int p = 0; p < n; p++)
                for (size_t i = 0; i < (size_t)((p + r) % 3) * blk; i++, off++)
                    CHECK(dst[off] == val(p, r, (int)i), "round %d: collect from PE %d [%zu] = %ld",
                          r, p, i, dst[off]);
        } else if (k == 4) {
            broadcast(r, (r / 5) % n, cnt, "round"); /* a root that moves every time */
        } else {
            /* k == 1: fcollect (every member's block 0); k == 2: alltoall (block me). */
            size_t per = cnt == SMALL ? 2 : cnt == 2 * HUGE ? cnt / (size_t)n : 64;
#if FUNC_SPEC_15
            if (k == 1)
                shmem_fcollectmem(SHMEM_TEAM_WORLD, dst, src, per * sizeof(long));
            else
                shmem_alltoallmem(SHMEM_TEAM_WORLD, dst, src, per * sizeof(long));
#else
            if (k == 1)
                shmem_fcollect64(dst, src, per, 0, 0, n, psync);
            else
                shmem_alltoall64(dst, src, per, 0, 0, n, psync);
            shmem_barrier_all();
#endif
            size_t first = k == 1 ? 0 : (size_t)me * per;
            for (int p = 0; p < n; p++)
                for (size_t i = 0; i < per; i++)
                    CHECK(dst[(size_t)p * per + i] == val(p, r, (int)(first + i)),
                          "round %d: %s block from PE %d [%zu] = %ld", r,
                          k == 1 ? "fcollect" : "alltoall", p, i, dst[(size_t)p * per + i]);
        }
    }
    /* Broadcasts back to back from one root, then another: the root returns
     * as soon as its messages are out, and changes its source at once. */
    for (int r = 0; r < 2 * ROUNDS; r++) {
        int root = r < ROUNDS ? 0 : n - 1;
        size_t cnt = (r % 5 == 4) ? LARGE >> (r / 5 % 2) : r % 11 == 10 ? HUGE : SMALL;
        for (size_t i = 0; i < cnt; i++)
            src[i] = val(me, r, (int)i);
        if ((r * 3 + me) % 17 == 0)
            nap_us(100);
        broadcast(r, root, cnt, "burst");
    }
    /* Broadcasts whose roots take turns, most after a barrier (then the
     * members tell the root nothing, until a broadcast without one: its
     * root reads the members' words later), some right after the last one,
     * with reductions on the same team between now and then (which read
     * what such a root left unread). */
    for (int r = 0; r < 2 * ROUNDS; r++) {
        int root = (r + r / 7) % n;
        size_t cnt = r % 13 == 12 ? LARGE : SMALL;
        for (size_t i = 0; i < cnt; i++)
            src[i] = val(me, r, (int)i);
        if ((r * 5 + me) % 19 == 0)
            nap_us(150);
        if (r % 5 != 0)
            shmem_barrier_all();
        broadcast(r, root, cnt, "turns");
        if (r % 4 == 3) {
#if FUNC_SPEC_15
            shmem_long_sum_reduce(SHMEM_TEAM_WORLD, dst, src, SMALL);
#else
            shmem_long_sum_to_all(dst, src, SMALL, 0, 0, n, wrk, psync);
            shmem_barrier_all();
#endif
            for (int i = 0; i < SMALL; i++) {
                long want = 0;
                for (int p = 0; p < n; p++)
                    want += val(p, r, i);
                CHECK(dst[i] == want, "turns %d: sum[%d] = %ld, expected %ld", r, i, dst[i], want);
            }
        }
    }
    shmem_barrier_all();
    func_pass("coll_small");
    shmem_finalize();
    return 0;
}
