/* ibput and ibget (1.6): nblocks blocks of bsize elements, dst and sst
 * elements apart at the target and the source; typed, sized (8..128 bits)
 * and on a team's context, where PE numbers are the team's. Blocks that
 * touch, blocks with gaps, one block, a block size of one (iput's case), and
 * calls without elements (NULL buffers) are checked. Each PE writes into its
 * right neighbour and checks what its left neighbour wrote into it. */
#include "check.h"

#include <stdint.h>
#include <string.h>

#define CAP 4096 /* elements of each buffer */

static int me, npes, right, left;

static long val(int pe, size_t i) { return (long)pe * 100000 + (long)i + 1; }

/* One shape: the blocks land where they should and nothing else moves. */
static void shape(long *buf, size_t bsize, size_t nblocks, ptrdiff_t dst, ptrdiff_t sst) {
    long *target = buf, *source = buf + CAP, got[CAP];
    for (size_t i = 0; i < CAP; i++) {
        target[i] = -1;
        source[i] = val(me, i);
    }
    shmem_barrier_all();
    shmem_long_ibput(target, source, dst, sst, bsize, nblocks, right);
    shmem_barrier_all();
    for (size_t k = 0, i = 0; i < CAP; i++) {
        /* element i of the target is element b of block k, or untouched */
        size_t blk = i / (size_t)dst, b = i % (size_t)dst;
        long want = blk < nblocks && b < bsize ? val(left, blk * (size_t)sst + b) : -1;
        CHECK(target[i] == want, "ibput %zu x %zu (dst %td, sst %td): [%zu] = %ld, want %ld",
              nblocks, bsize, dst, sst, i, target[i], want);
        (void)k;
    }
    /* ibget reads the same blocks back from the right neighbour's target,
     * which holds this PE's values, into a buffer laid out like the source. */
    memset(got, 0xff, sizeof got);
    shmem_long_ibget(got, target, sst, dst, bsize, nblocks, right);
    for (size_t i = 0; i < nblocks * (size_t)sst && i < CAP; i++) {
        size_t blk = i / (size_t)sst, b = i % (size_t)sst;
        long want = blk < nblocks && b < bsize ? val(me, i) : -1;
        CHECK(got[i] == want, "ibget %zu x %zu: [%zu] = %ld, want %ld", nblocks, bsize, i, got[i],
              want);
    }
    shmem_barrier_all();
}

int main(void) {
    shmem_init();
    func_ring(&me, &npes, &right, &left);
    long *buf = shmem_malloc(2 * CAP * sizeof(long));
    CHECK(buf, "shmem_malloc failed");

    shape(buf, 1, 100, 1, 1);     /* contiguous */
    shape(buf, 1, 100, 3, 2);     /* iput's case */
    shape(buf, 3, 40, 3, 5);      /* blocks touching at the target */
    shape(buf, 2, 50, 4, 2);      /* gaps at the target, touching at the source */
    shape(buf, 7, 1, 7, 7);       /* one block */
    shape(buf, 500, 6, 600, 512); /* large blocks */

    /* Nothing to move: zero blocks or a zero block size, NULL buffers. */
    shmem_long_ibput(NULL, NULL, 1, 1, 0, 5, right);
    shmem_long_ibput(NULL, NULL, 1, 1, 4, 0, right);
    shmem_ibget64(NULL, NULL, 1, 1, 0, 3, right);
    shmem_ctx_ibput8(SHMEM_CTX_DEFAULT, NULL, NULL, 1, 1, 2, 0, right);

    /* Sized forms: 16-byte elements, blocks of 2 elements 3 apart. */
    {
        uint64_t *t = (uint64_t *)buf, s[16];
        for (int i = 0; i < 16; i++)
            s[i] = (uint64_t)val(me, (size_t)i);
        memset(t, 0, 24 * sizeof(uint64_t) * 2);
        shmem_barrier_all();
        shmem_ibput128(t, s, 3, 2, 2, 4, right); /* 128-bit elements: 2 words each */
        shmem_barrier_all();
        for (int k = 0; k < 4; k++)
            for (int b = 0; b < 2; b++)
                for (int w = 0; w < 2; w++)
                    CHECK(t[2 * (3 * k + b) + w] ==
                              (uint64_t)val(left, (size_t)(2 * (2 * k + b) + w)),
                          "shmem_ibput128 block %d element %d word %d", k, b, w);
        uint64_t g[16] = {0};
        shmem_ibget128(g, t, 2, 3, 2, 4, right);
        for (int i = 0; i < 16; i++)
            CHECK(g[i] == (uint64_t)val(me, (size_t)i), "shmem_ibget128 [%d]", i);
        uint32_t s32[8], g32[8] = {0};
        for (int i = 0; i < 8; i++)
            s32[i] = (uint32_t)(me * 10 + i);
        shmem_barrier_all();
        shmem_ibput32(t, s32, 2, 1, 1, 8, right);
        shmem_barrier_all();
        shmem_ibget32(g32, t, 1, 2, 1, 8, right);
        for (int i = 0; i < 8; i++)
            CHECK(g32[i] == (uint32_t)(me * 10 + i), "shmem_ibput32/ibget32 [%d]", i);
        shmem_barrier_all();
    }

    /* On a team's context the PE number is the team's: the odd PEs. */
    shmem_team_t odd = SHMEM_TEAM_INVALID;
    if (npes > 1) {
        shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, npes / 2, NULL, 0, &odd);
        if (odd != SHMEM_TEAM_INVALID) {
            shmem_ctx_t ctx;
            CHECK(shmem_team_create_ctx(odd, 0, &ctx) == 0, "shmem_team_create_ctx");
            int tme = shmem_team_my_pe(odd), tn = shmem_team_n_pes(odd);
            long *t = buf, s[6];
            for (int i = 0; i < 6; i++)
                s[i] = val(me, (size_t)i);
            for (int i = 0; i < 9; i++)
                t[i] = -1;
            shmem_team_sync(odd);
            shmem_ctx_long_ibput(ctx, t, s, 3, 2, 2, 3, (tme + 1) % tn);
            shmem_ctx_quiet(ctx);
            shmem_team_sync(odd);
            int from = shmem_team_translate_pe(odd, (tme + tn - 1) % tn, SHMEM_TEAM_WORLD);
            for (int k = 0; k < 3; k++) {
                CHECK(t[3 * k] == val(from, (size_t)(2 * k)) &&
                          t[3 * k + 1] == val(from, (size_t)(2 * k + 1)) && t[3 * k + 2] == -1,
                      "shmem_ctx_long_ibput on the odd team, block %d", k);
            }
            long g[6] = {0};
            shmem_ctx_long_ibget(ctx, g, t, 2, 3, 2, 3, (tme + 1) % tn);
            for (int i = 0; i < 6; i++)
                CHECK(g[i] == val(me, (size_t)i), "shmem_ctx_long_ibget on the odd team [%d]", i);
            shmem_team_sync(odd);
            shmem_ctx_destroy(ctx);
            shmem_team_destroy(odd);
        }
    }

    shmem_barrier_all();
    shmem_free(buf);
    func_pass("ibput_ibget");
    shmem_finalize();
    return 0;
}
