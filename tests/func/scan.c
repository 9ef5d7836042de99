/* Scans (1.6): shmem_<T>_sum_inscan and _exscan over WORLD and over a split
 * team, out of place and in place, with arrays larger than one pass of the
 * summing loop and short ones (exchanges of messages on WORLD), on integer,
 * floating and complex types; back-to-back scans on the same arrays; and
 * scans without elements (NULL buffers). */
#include "check.h"

#include <complex.h>
#include <stdint.h>

/* longs: more than one chunk of what a scan sums at a time (8 KiB; 256 KiB
 * through a fabric) */
#define BIG 40000

static int me, npes;

/* The value member m contributes at element j. */
static long contrib(int m, size_t j) { return (long)(m + 1) * 1000 + (long)(j % 97); }
/* The sum of contrib over members 0..last (-1: none). */
static long prefix(int last, size_t j) {
    long s = 0;
    for (int m = 0; m <= last; m++)
        s += contrib(m, j);
    return s;
}

/* src and dst: BIG longs each, allocated by every PE (allocation is a
 * collective over WORLD, the team may be smaller). */
static void scans_on(shmem_team_t team, const char *name, long *src, long *dst) {
    int tme = shmem_team_my_pe(team);
    for (int round = 0; round < 2; round++) {
        for (size_t j = 0; j < BIG; j++) {
            src[j] = contrib(tme, j);
            dst[j] = -1;
        }
        shmem_team_sync(team);
        CHECK(shmem_long_sum_inscan(team, dst, src, BIG) == 0, "inscan on %s", name);
        for (size_t j = 0; j < BIG; j++)
            CHECK(dst[j] == prefix(tme, j), "%s inscan round %d [%zu] = %ld, want %ld", name, round,
                  j, dst[j], prefix(tme, j));
        CHECK(shmem_long_sum_exscan(team, dst, src, BIG) == 0, "exscan on %s", name);
        for (size_t j = 0; j < BIG; j++)
            CHECK(dst[j] == prefix(tme - 1, j), "%s exscan [%zu] = %ld, want %ld", name, j, dst[j],
                  prefix(tme - 1, j));
        /* in place: the source is overwritten by the result */
        CHECK(shmem_long_sum_exscan(team, src, src, BIG) == 0, "in-place exscan on %s", name);
        for (size_t j = 0; j < BIG; j++)
            CHECK(src[j] == prefix(tme - 1, j), "%s in-place exscan [%zu]", name, j);
        for (size_t j = 0; j < BIG; j++)
            src[j] = contrib(tme, j);
        shmem_team_sync(team);
        CHECK(shmem_long_sum_inscan(team, src, src, BIG) == 0, "in-place inscan on %s", name);
        for (size_t j = 0; j < BIG; j++)
            CHECK(src[j] == prefix(tme, j), "%s in-place inscan [%zu]", name, j);
    }
    shmem_team_sync(team);
}

/* Short scans, each size back to back with a reduction on the same team and
 * in place: on WORLD they are exchanges of messages (the slots of 496 bytes,
 * then a fabric's mail), which share their slots with the reductions. */
static void short_scans_on(shmem_team_t team, const char *name, long *src, long *dst) {
    static const size_t sizes[] = {1, 5, 14, 15, 62, 63, 64, 1000};
    int tme = shmem_team_my_pe(team), tn = shmem_team_n_pes(team);
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        size_t n = sizes[s];
        for (size_t j = 0; j < n; j++) {
            src[j] = contrib(tme, j);
            dst[j] = -1;
        }
        shmem_team_sync(team);
        CHECK(shmem_long_sum_inscan(team, dst, src, n) == 0, "inscan of %zu on %s", n, name);
        for (size_t j = 0; j < n; j++)
            CHECK(dst[j] == prefix(tme, j), "%s inscan of %zu [%zu] = %ld, want %ld", name, n, j,
                  dst[j], prefix(tme, j));
        CHECK(shmem_long_sum_reduce(team, dst, src, n) == 0, "reduce of %zu on %s", n, name);
        for (size_t j = 0; j < n; j++)
            CHECK(dst[j] == prefix(tn - 1, j), "%s reduce of %zu [%zu]", name, n, j);
        CHECK(shmem_long_sum_exscan(team, dst, src, n) == 0, "exscan of %zu on %s", n, name);
        for (size_t j = 0; j < n; j++)
            CHECK(dst[j] == prefix(tme - 1, j), "%s exscan of %zu [%zu] = %ld, want %ld", name, n,
                  j, dst[j], prefix(tme - 1, j));
        CHECK(shmem_long_sum_inscan(team, src, src, n) == 0, "in-place inscan of %zu", n);
        for (size_t j = 0; j < n; j++)
            CHECK(src[j] == prefix(tme, j), "%s in-place inscan of %zu [%zu]", name, n, j);
        CHECK(shmem_long_sum_exscan(team, src, src, n) == 0, "in-place exscan of %zu", n);
        /* the prefix sums of the prefix sums: member m's term is prefix(m) */
        for (size_t j = 0; j < n; j++) {
            long want = 0;
            for (int m = 0; m < tme; m++)
                want += prefix(m, j);
            CHECK(src[j] == want, "%s in-place exscan of %zu [%zu] = %ld, want %ld", name, n, j,
                  src[j], want);
        }
    }
    shmem_team_sync(team);
}

int main(void) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();

    long *buf = shmem_malloc(2 * BIG * sizeof(long));
    CHECK(buf, "shmem_malloc failed");
    scans_on(SHMEM_TEAM_WORLD, "WORLD", buf, buf + BIG);
    short_scans_on(SHMEM_TEAM_WORLD, "WORLD", buf, buf + BIG);
    shmem_team_t even = SHMEM_TEAM_INVALID;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &even);
    if (even != SHMEM_TEAM_INVALID)
        scans_on(even, "the even PEs", buf, buf + BIG);
    if (even != SHMEM_TEAM_INVALID)
        short_scans_on(even, "the even PEs", buf, buf + BIG);
    shmem_barrier_all();
    shmem_free(buf);

    /* Floating and complex types: exact with small integers. */
    double *d = shmem_malloc(4 * sizeof(double));
    double _Complex *z = shmem_malloc(4 * sizeof(double _Complex));
    float _Complex *c = shmem_malloc(4 * sizeof(float _Complex));
    CHECK(d && z && c, "shmem_malloc failed");
    d[0] = me + 0.5;
    z[0] = (me + 1) + (double)me * I;
    c[0] = 1.0f + 2.0f * I;
    shmem_barrier_all();
    CHECK(shmem_double_sum_inscan(SHMEM_TEAM_WORLD, &d[1], &d[0], 1) == 0, "double inscan");
    CHECK(d[1] == me * (me + 1) / 2.0 + (me + 1) * 0.5, "double inscan: %g", d[1]);
    CHECK(shmem_complexd_sum_exscan(SHMEM_TEAM_WORLD, &z[1], &z[0], 1) == 0, "complexd exscan");
    CHECK(creal(z[1]) == me * (me + 1) / 2.0 && cimag(z[1]) == (me - 1) * me / 2.0,
          "complexd exscan: %g%+gi", creal(z[1]), cimag(z[1]));
    CHECK(shmem_complexf_sum_inscan(SHMEM_TEAM_WORLD, &c[1], &c[0], 1) == 0, "complexf inscan");
    CHECK(crealf(c[1]) == me + 1.0f && cimagf(c[1]) == 2.0f * (me + 1), "complexf inscan");

    /* Nothing to scan: NULL buffers, every member passes 0. */
    CHECK(shmem_int_sum_inscan(SHMEM_TEAM_WORLD, NULL, NULL, 0) == 0, "empty inscan");
    CHECK(shmem_uint64_sum_exscan(SHMEM_TEAM_WORLD, NULL, NULL, 0) == 0, "empty exscan");
    /* An invalid team: nonzero, nothing done. */
    CHECK(shmem_long_sum_inscan(SHMEM_TEAM_INVALID, NULL, NULL, 1) != 0, "inscan on no team");

    shmem_barrier_all();
    shmem_free(c);
    shmem_free(z);
    shmem_free(d);
    if (even != SHMEM_TEAM_INVALID)
        shmem_team_destroy(even);
    func_pass("scan");
    shmem_finalize();
    return 0;
}
