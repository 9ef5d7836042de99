/* Team collectives (OpenSHMEM 1.5) on WORLD and on split teams: broadcast,
 * collect, fcollect, alltoall, alltoalls and reductions, several types and
 * sizes, in place and back to back. */
#include "check.h"

#include <complex.h>
#include <string.h>

#define BIG 70000 /* elements: several reduction chunks per member */

static long lsrc[BIG], ldst[BIG];
static double dsrc[BIG], ddst[BIG];
static int isrc[1024], idst[1024 * 8];
static unsigned int usrc[64], udst[64];
static double _Complex csrc[16], cdst[16];
static char chsrc[40], chdst[40];
static float fsrc[33], fdst[33];
static unsigned char bsrc[4096 * 8], bdst[4096 * 8];

/* Longs member i gives to a large collect: none for every third, else more
 * than 64 KiB (61,000 in all at 8 members: within BIG). */
static size_t big_collect_len(int i) { return i % 3 == 1 ? 0 : 9000 + 1000 * (size_t)i; }

/* Team index i's world PE. */
static int wpe(shmem_team_t t, int i) { return shmem_team_translate_pe(t, i, SHMEM_TEAM_WORLD); }

static void run(shmem_team_t t, const char *name) {
    int me = shmem_team_my_pe(t), n = shmem_team_n_pes(t);
    int wme = shmem_my_pe();

    /* broadcast: every root, dest on the root updated too */
    for (int root = 0; root < n; root++) {
        for (int i = 0; i < 100; i++) {
            isrc[i] = me == root ? 7000 + root * 100 + i : -1;
            idst[i] = -2;
        }
        CHECK(shmem_int_broadcast(t, idst, isrc, 100, root) == 0, "%s int_broadcast", name);
        for (int i = 0; i < 100; i++)
            CHECK(idst[i] == 7000 + root * 100 + i, "%s broadcast root %d [%d] = %d", name, root, i,
                  idst[i]);
    }
    for (size_t i = 0; i < sizeof bsrc / 8; i++)
        bsrc[i] = func_byte(wme, i, 3);
    CHECK(shmem_broadcastmem(t, bdst, bsrc, sizeof bsrc / 8, n - 1) == 0, "broadcastmem");
    for (size_t i = 0; i < sizeof bsrc / 8; i++)
        CHECK(bdst[i] == func_byte(wpe(t, n - 1), i, 3), "%s broadcastmem[%zu]", name, i);

    /* collect: member i contributes i + 1 longs */
    for (int i = 0; i <= me; i++)
        lsrc[i] = wme * 1000L + i;
    CHECK(shmem_long_collect(t, ldst, lsrc, (size_t)me + 1) == 0, "long_collect");
    for (int i = 0, k = 0; i < n; i++)
        for (int j = 0; j <= i; j++, k++)
            CHECK(ldst[k] == wpe(t, i) * 1000L + j, "%s collect[%d] = %ld", name, k, ldst[k]);
    /* collectmem with a member that contributes nothing */
    size_t mine = me == 0 ? 0 : 3;
    for (size_t i = 0; i < mine; i++)
        bsrc[i] = (unsigned char)(wme + 10 * i);
    CHECK(shmem_collectmem(t, bdst, bsrc, mine) == 0, "collectmem");
    for (int i = 1, k = 0; i < n; i++)
        for (int j = 0; j < 3; j++, k++)
            CHECK(bdst[k] == (unsigned char)(wpe(t, i) + 10 * j), "%s collectmem[%d]", name, k);

    /* collect of more than a message (64 KiB) a member, with members that
     * give nothing among them, back to back */
    for (int r = 0; r < 3; r++) {
        size_t mine = big_collect_len(me), at = 0;
        for (size_t j = 0; j < mine; j++)
            lsrc[j] = wme * 100000L + (long)j + r;
        CHECK(shmem_long_collect(t, ldst, lsrc, mine) == 0, "large long_collect");
        for (int i = 0; i < n; i++)
            for (size_t j = 0; j < big_collect_len(i); j++, at++)
                CHECK(ldst[at] == wpe(t, i) * 100000L + (long)j + r,
                      "%s round %d large collect from %d [%zu] = %ld", name, r, i, j, ldst[at]);
    }
    /* fcollect */
    for (int i = 0; i < 1024; i++)
        isrc[i] = wme * 100000 + i;
    CHECK(shmem_int_fcollect(t, idst, isrc, 1024) == 0, "int_fcollect");
    for (int i = 0; i < n; i++)
        for (int j = 0; j < 1024; j++)
            CHECK(idst[i * 1024 + j] == wpe(t, i) * 100000 + j, "%s fcollect", name);
    for (int i = 0; i < 4096; i++)
        bsrc[i] = func_byte(wme, (size_t)i, 5);
    CHECK(shmem_fcollectmem(t, bdst, bsrc, 4096) == 0, "fcollectmem");
    for (int i = 0; i < n; i++)
        for (int j = 0; j < 4096; j++)
            CHECK(bdst[i * 4096 + j] == func_byte(wpe(t, i), (size_t)j, 5), "%s fcollectmem", name);

    /* alltoall: block j of member me holds me * 100 + j */
    for (int j = 0; j < n; j++)
        for (int e = 0; e < 5; e++)
            lsrc[j * 5 + e] = me * 100 + j + e * 10000;
    CHECK(shmem_long_alltoall(t, ldst, lsrc, 5) == 0, "long_alltoall");
    for (int i = 0; i < n; i++)
        for (int e = 0; e < 5; e++)
            CHECK(ldst[i * 5 + e] == i * 100 + me + e * 10000, "%s alltoall", name);
    for (int j = 0; j < n; j++)
        for (int e = 0; e < 7; e++)
            bsrc[j * 7 + e] = (unsigned char)(me * 16 + j + e * 3);
    CHECK(shmem_alltoallmem(t, bdst, bsrc, 7) == 0, "alltoallmem");
    for (int i = 0; i < n; i++)
        for (int e = 0; e < 7; e++)
            CHECK(bdst[i * 7 + e] == (unsigned char)(i * 16 + me + e * 3), "%s alltoallmem", name);

    /* alltoalls: source stride 3, dest stride 2 */
    for (int i = 0; i < 3 * 4 * n; i++)
        isrc[i] = -1;
    for (int j = 0; j < n; j++)
        for (int e = 0; e < 4; e++)
            isrc[(j * 4 + e) * 3] = me * 100 + j * 10 + e;
    for (int i = 0; i < 2 * 4 * n; i++)
        idst[i] = -5;
    CHECK(shmem_int_alltoalls(t, idst, isrc, 2, 3, 4) == 0, "int_alltoalls");
    for (int i = 0; i < n; i++)
        for (int e = 0; e < 4; e++) {
            CHECK(idst[(i * 4 + e) * 2] == i * 100 + me * 10 + e, "%s alltoalls", name);
            CHECK(idst[(i * 4 + e) * 2 + 1] == -5, "%s alltoalls gap written", name);
        }

    /* reductions */
    long wsum = 0;
    for (int i = 0; i < n; i++)
        wsum += wpe(t, i);
    for (int i = 0; i < BIG; i++) {
        lsrc[i] = wme + i;
        dsrc[i] = 0.5 * wme + i;
    }
    CHECK(shmem_long_sum_reduce(t, ldst, lsrc, BIG) == 0, "long_sum_reduce");
    for (int i = 0; i < BIG; i++)
        CHECK(ldst[i] == wsum + (long)n * i, "%s sum[%d] = %ld", name, i, ldst[i]);
    CHECK(shmem_long_max_reduce(t, ldst, lsrc, 100) == 0, "long_max_reduce");
    for (int i = 0; i < 100; i++)
        CHECK(ldst[i] == wpe(t, n - 1) + i, "%s max[%d]", name, i);
    CHECK(shmem_double_min_reduce(t, ddst, dsrc, 3) == 0, "double_min_reduce");
    for (int i = 0; i < 3; i++)
        CHECK(ddst[i] == 0.5 * wpe(t, 0) + i, "%s dmin[%d]", name, i);
    /* in place, large: dest == source */
    CHECK(shmem_double_sum_reduce(t, dsrc, dsrc, BIG) == 0, "double_sum_reduce in place");
    for (int i = 0; i < BIG; i++)
        CHECK(dsrc[i] == 0.5 * wsum + (double)n * i, "%s in-place dsum[%d] = %g", name, i, dsrc[i]);
    /* in place, small, bitwise */
    for (int i = 0; i < 64; i++)
        usrc[i] = 1u << ((wme + i) % 32);
    unsigned want_or[64], want_xor[64], want_and[64];
    for (int i = 0; i < 64; i++) {
        want_or[i] = want_xor[i] = 0;
        want_and[i] = ~0u;
        for (int j = 0; j < n; j++) {
            unsigned v = 1u << ((wpe(t, j) + i) % 32);
            want_or[i] |= v;
            want_xor[i] ^= v;
            want_and[i] &= v;
        }
    }
    CHECK(shmem_uint_or_reduce(t, udst, usrc, 64) == 0, "uint_or_reduce");
    for (int i = 0; i < 64; i++)
        CHECK(udst[i] == want_or[i], "%s or[%d]", name, i);
    CHECK(shmem_uint_and_reduce(t, udst, usrc, 64) == 0, "uint_and_reduce");
    for (int i = 0; i < 64; i++)
        CHECK(udst[i] == want_and[i], "%s and[%d]", name, i);
    CHECK(shmem_uint_xor_reduce(t, usrc, usrc, 64) == 0, "uint_xor_reduce in place");
    for (int i = 0; i < 64; i++)
        CHECK(usrc[i] == want_xor[i], "%s in-place xor[%d]", name, i);
    /* complex sum and prod, char max, float min (odd count) */
    for (int i = 0; i < 16; i++)
        csrc[i] = (double)(wme + 1) + (double)i * I;
    CHECK(shmem_complexd_sum_reduce(t, cdst, csrc, 16) == 0, "complexd_sum_reduce");
    for (int i = 0; i < 16; i++)
        CHECK(creal(cdst[i]) == (double)(wsum + n) && cimag(cdst[i]) == (double)n * i,
              "%s csum[%d]", name, i);
    for (int i = 0; i < 40; i++)
        chsrc[i] = (char)((wme * 7 + i) % 100);
    CHECK(shmem_char_max_reduce(t, chdst, chsrc, 40) == 0, "char_max_reduce");
    for (int i = 0; i < 40; i++) {
        char w = 0;
        for (int j = 0; j < n; j++)
            if ((char)((wpe(t, j) * 7 + i) % 100) > w)
                w = (char)((wpe(t, j) * 7 + i) % 100);
        CHECK(chdst[i] == w, "%s char max[%d]", name, i);
    }
    for (int i = 0; i < 33; i++)
        fsrc[i] = (float)(wme - i);
    CHECK(shmem_float_min_reduce(t, fdst, fsrc, 33) == 0, "float_min_reduce");
    for (int i = 0; i < 33; i++)
        CHECK(fdst[i] == (float)(wpe(t, 0) - i), "%s fmin[%d]", name, i);
    CHECK(shmem_int_prod_reduce(t, idst, isrc, 0) == 0, "empty reduce");

    /* back to back: no sync between rounds, sources changed right after */
    for (int r = 0; r < 300; r++) {
        lsrc[0] = wme + r;
        lsrc[1] = r;
        CHECK(shmem_long_sum_reduce(t, ldst, lsrc, 2) == 0, "sum");
        CHECK(ldst[0] == wsum + (long)n * r && ldst[1] == (long)n * r, "%s round %d: %ld %ld", name,
              r, ldst[0], ldst[1]);
        isrc[0] = me == r % n ? r : -1;
        CHECK(shmem_int_broadcast(t, idst, isrc, 1, r % n) == 0, "bcast");
        CHECK(idst[0] == r, "%s round %d broadcast %d", name, r, idst[0]);
        lsrc[0] = r * 10 + me;
        CHECK(shmem_long_fcollect(t, ldst, lsrc, 1) == 0, "fcollect");
        for (int i = 0; i < n; i++)
            CHECK(ldst[i] == r * 10 + i, "%s round %d fcollect", name, r);
        /* collects: small ones, and now and then one past the messages */
        size_t cl = r % 25 == 0 ? big_collect_len(me) : (size_t)(me % 2) + 1, at = 0;
        for (size_t j = 0; j < cl; j++)
            lsrc[j] = r * 7L + wme * 3L + (long)j;
        CHECK(shmem_long_collect(t, ldst, lsrc, cl) == 0, "collect");
        for (int i = 0; i < n; i++)
            for (size_t j = 0; j < (r % 25 == 0 ? big_collect_len(i) : (size_t)(i % 2) + 1);
                 j++, at++)
                CHECK(ldst[at] == r * 7L + wpe(t, i) * 3L + (long)j, "%s round %d collect from %d",
                      name, r, i);
        lsrc[0] = r;
        CHECK(shmem_long_sum_reduce(t, lsrc, lsrc, 1) == 0, "in-place sum");
        CHECK(lsrc[0] == (long)n * r, "%s round %d in-place %ld", name, r, lsrc[0]);
    }
}

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    CHECK(npes <= 8, "at most 8 PEs");

    run(SHMEM_TEAM_WORLD, "WORLD");
    run(SHMEM_TEAM_SHARED, "SHARED");

    shmem_team_t odd, tail;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, npes > 1 ? 1 : 0, 2,
                                   npes / 2 > 0 ? npes / 2 : 1, NULL, 0, &odd) == 0,
          "split odd");
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, npes > 1 ? 1 : 0, 1, npes > 1 ? npes - 1 : 1,
                                   NULL, 0, &tail) == 0,
          "split tail");
    if (odd != SHMEM_TEAM_INVALID)
        run(odd, "odd");
    if (tail != SHMEM_TEAM_INVALID)
        run(tail, "tail");
    /* Collectives on two overlapping teams, interleaved with WORLD. */
    for (int r = 0; r < 50; r++) {
        lsrc[0] = 1;
        if (tail != SHMEM_TEAM_INVALID)
            CHECK(shmem_long_sum_reduce(tail, ldst, lsrc, 1) == 0 &&
                      ldst[0] == shmem_team_n_pes(tail),
                  "tail");
        if (odd != SHMEM_TEAM_INVALID)
            CHECK(shmem_long_sum_reduce(odd, ldst, lsrc, 1) == 0 &&
                      ldst[0] == shmem_team_n_pes(odd),
                  "odd");
        CHECK(shmem_long_sum_reduce(SHMEM_TEAM_WORLD, ldst, lsrc, 1) == 0 && ldst[0] == npes,
              "world");
    }
    shmem_team_destroy(odd);
    shmem_team_destroy(tail);
    CHECK(shmem_long_sum_reduce(SHMEM_TEAM_INVALID, ldst, lsrc, 1) != 0, "invalid team accepted");
    (void)me;
    func_pass("coll_team");
    shmem_finalize();
    return 0;
}
