/* Deprecated names that older codes still call (built with
 * -Wno-deprecated-declarations): start_pes, _my_pe, _num_pes, shmalloc,
 * shfree, shrealloc, shmemalign, the old AMO names, shmem_<T>_wait, the
 * active-set shmem_barrier and collectives, and the cache routines (no-ops). */
#include "check.h"

#include <stdint.h>
#include <string.h>

static int me, npes, right, left;

static long psync_a[SHMEM_BARRIER_SYNC_SIZE];
static long psync_b[SHMEM_BARRIER_SYNC_SIZE];
static long psync_r[SHMEM_REDUCE_SYNC_SIZE];
static long psync_c[SHMEM_BCAST_SYNC_SIZE];
static int pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + 16];
static int red_src[4], red_dst[4];
static long bc_src[8], bc_dst[8];

int main(void) {
    start_pes(0);
    me = _my_pe();
    npes = _num_pes();
    CHECK(me == shmem_my_pe() && npes == shmem_n_pes(), "_my_pe/_num_pes %d/%d", me, npes);
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; i++)
        psync_a[i] = psync_b[i] = SHMEM_SYNC_VALUE;
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        psync_r[i] = SHMEM_SYNC_VALUE;
    for (int i = 0; i < SHMEM_BCAST_SYNC_SIZE; i++)
        psync_c[i] = SHMEM_SYNC_VALUE;

    /* old allocation names */
    long *w = shmalloc(8 * sizeof(long));
    CHECK(w != NULL, "shmalloc failed");
    memset(w, 0, 8 * sizeof(long));
    double *d = shmemalign(64, sizeof(double));
    CHECK(d != NULL && (uintptr_t)d % 64 == 0, "shmemalign(64) = %p", (void *)d);
    *d = 0.0;
    float *f = shmalloc(sizeof(float));
    CHECK(f != NULL, "shmalloc failed");
    *f = 0.0f;
    int *iv = shmalloc(8 * sizeof(int));
    CHECK(iv != NULL, "shmalloc failed");
    memset(iv, 0, 8 * sizeof(int));
    shmem_barrier_all();

    /* old AMO names */
    int old = shmem_int_fadd(&iv[0], 3, 0);
    CHECK(old >= 0 && old % 3 == 0, "shmem_int_fadd returned %d", old);
    shmem_int_add(&iv[1], 2, 0);
    shmem_int_inc(&iv[2], 0);
    long l = shmem_long_finc(&w[0], 0);
    CHECK(l >= 0 && l < npes, "shmem_long_finc returned %ld", l);
    shmem_long_add(&w[1], 5, 0);
    shmem_long_inc(&w[2], 0);
    long long ll = shmem_longlong_fadd((long long *)&w[3], 7, 0);
    CHECK(ll >= 0 && ll % 7 == 0, "shmem_longlong_fadd returned %lld", ll);
    shmem_barrier_all();
    if (me == 0) {
        CHECK(iv[0] == 3 * npes && iv[1] == 2 * npes && iv[2] == npes, "int AMO totals %d %d %d",
              iv[0], iv[1], iv[2]);
        CHECK(w[0] == npes && w[1] == 5L * npes && w[2] == npes && w[3] == 7L * npes,
              "long AMO totals %ld %ld %ld %ld", w[0], w[1], w[2], w[3]);
    }
    shmem_barrier_all();
    shmem_int_set(&iv[3], 100 + me, right);
    shmem_long_set(&w[4], 200 + me, right);
    shmem_barrier_all();
    CHECK(shmem_int_fetch(&iv[3], left) == 100 + (left + npes - 1) % npes, "shmem_int_fetch");
    CHECK(iv[3] == 100 + left && w[4] == 200 + left, "shmem_*_set: %d %ld", iv[3], w[4]);
    CHECK(shmem_long_fetch(&w[4], right) == 200 + me, "shmem_long_fetch");
    shmem_barrier_all();
    int s = shmem_int_swap(&iv[3], 300 + me, right);
    CHECK(s == 100 + me, "shmem_int_swap returned %d", s);
    int c = shmem_int_cswap(&iv[3], 300 + me, 400 + me, right);
    CHECK(c == 300 + me, "shmem_int_cswap returned %d", c);
    c = shmem_int_cswap(&iv[3], -5, 500, right);
    CHECK(c == 400 + me, "failing shmem_int_cswap returned %d", c);
    long ls = shmem_long_swap(&w[4], 600 + me, right);
    CHECK(ls == 200 + me, "shmem_long_swap returned %ld", ls);
    long lc = shmem_long_cswap(&w[4], 600 + me, 700 + me, right);
    CHECK(lc == 600 + me, "shmem_long_cswap returned %ld", lc);
    double ds = shmem_double_swap(d, 1.5 + me, right);
    float fs = shmem_float_swap(f, 2.5f + (float)me, right);
    CHECK(fs == 0.0f, "shmem_float_swap returned %g", (double)fs);
    shmem_barrier_all();
    CHECK(ds == 0.0, "shmem_double_swap returned %g", ds);
    CHECK(*d == 1.5 + left && *f == 2.5f + (float)left, "after swaps: %g %g", *d, (double)*f);
    CHECK(iv[3] == 400 + left && w[4] == 700 + left, "after swaps: %d %ld", iv[3], w[4]);
    shmem_barrier_all();

    /* shrealloc keeps content */
    for (int i = 0; i < 8; i++)
        iv[i] = i * 11 + me;
    shmem_barrier_all();
    iv = shrealloc(iv, 4096 * sizeof(int));
    CHECK(iv != NULL, "shrealloc failed");
    for (int i = 0; i < 8; i++)
        CHECK(iv[i] == i * 11 + me, "shrealloc lost element %d", i);

    /* shmem_int_wait (wait while equal) and wait_until, producer on the left */
    iv[100] = 0;
    shmem_barrier_all();
    shmem_int_p(&iv[100], 42, right);
    shmem_int_wait(&iv[100], 0);
    CHECK(iv[100] == 42, "shmem_int_wait returned with %d", iv[100]);
    shmem_long_p(&w[6], 43, right);
    shmem_long_wait(&w[6], 0);
    CHECK(w[6] == 43, "shmem_long_wait returned with %ld", w[6]);
    shmem_int_p(&iv[101], 44, right);
    shmem_int_wait_until(&iv[101], SHMEM_CMP_EQ, 44);
    shmem_barrier_all();

    /* active-set barrier among even PEs: PE_start 0, logPE_stride 1 */
    const int nev = (npes + 1) / 2;
    if (me % 2 == 0) {
        const int next = (me + 2) % (2 * nev);
        const int prev = (me - 2 + 2 * nev) % (2 * nev);
        for (int round = 0; round < 20; round++) {
            long *ps = round & 1 ? psync_b : psync_a;
            shmem_long_p(&w[7], 1000 + round * 10 + me, next);
            shmem_barrier(0, 1, nev, ps);
            CHECK(w[7] == 1000 + round * 10 + prev, "active-set barrier round %d: %ld", round,
                  w[7]);
            shmem_barrier(0, 1, nev, ps == psync_a ? psync_b : psync_a);
        }
    }
    shmem_barrier_all();

    /* active-set collectives over all PEs */
    for (int i = 0; i < 4; i++)
        red_src[i] = me + i;
    shmem_int_sum_to_all(red_dst, red_src, 4, 0, 0, npes, pwrk, psync_r);
    for (int i = 0; i < 4; i++)
        CHECK(red_dst[i] == npes * (npes - 1) / 2 + i * npes, "shmem_int_sum_to_all[%d] = %d", i,
              red_dst[i]);
    shmem_barrier_all();
    for (int i = 0; i < 8; i++) {
        bc_src[i] = me == 0 ? 5000 + i : -1;
        bc_dst[i] = -2;
    }
    shmem_barrier_all();
    shmem_broadcast64(bc_dst, bc_src, 8, 0, 0, 0, npes, psync_c);
    shmem_barrier_all();
    for (int i = 0; i < 8; i++)
        CHECK(me == 0 ? bc_dst[i] == -2 : bc_dst[i] == 5000 + i, "shmem_broadcast64[%d] = %ld", i,
              bc_dst[i]);

    /* cache routines: deprecated no-ops */
    shmem_clear_cache_inv();
    shmem_set_cache_inv();
    shmem_udcflush();

    shmem_barrier_all();
    shfree(iv);
    shfree(f);
    shfree(d);
    shfree(w);
    func_pass("deprecated");
    shmem_finalize();
    return 0;
}
