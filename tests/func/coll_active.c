/* Deprecated active-set collectives: broadcast, collect, fcollect, alltoall,
 * alltoalls (32 and 64) and <T>_<op>_to_all, over all PEs and over a strided
 * active set; pSync must be back to SHMEM_SYNC_VALUE after each call. */
#include "check.h"

#include <complex.h>
#include <stdint.h>

static long psync[SHMEM_REDUCE_SYNC_SIZE];
static long psync2[SHMEM_REDUCE_SYNC_SIZE];
static int64_t s64[256], d64[256];
static int32_t s32[256], d32[256];
static int isrc[64], idst[64], iwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + 64];
static double dsrc[64], ddst[64], dwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + 64];
static float _Complex csrc[8], cdst[8], cwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + 8];
static short ssrc[8], sdst[8], swrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + 8];

/* The active set run() works on, and a barrier pSync of its own for it. */
static int set_start, set_ls, set_size;
static long *set_bsync;
static long bsync[2][SHMEM_BARRIER_SYNC_SIZE];

/* pSync is back to SHMEM_SYNC_VALUE once every member returned: a member that
 * returned first may already count itself into the next call on the same
 * pSync, so look between two syncs of the set (on a pSync of their own). */
static void psync_clean(const long *p) {
    shmem_sync(set_start, set_ls, set_size, set_bsync);
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        CHECK(p[i] == SHMEM_SYNC_VALUE, "pSync[%d] = %ld after a collective", i, p[i]);
    shmem_sync(set_start, set_ls, set_size, set_bsync);
}

/* The active set (start, log stride, size), this PE's index in it. */
static void run(int start, int ls, int size, int me_idx, long *ps) {
    int stride = 1 << ls, wme = shmem_my_pe();
    set_start = start, set_ls = ls, set_size = size, set_bsync = bsync[ps != psync];
    int pe_of[64];
    for (int i = 0; i < size; i++)
        pe_of[i] = start + i * stride;

    /* broadcast64 from the last member: the root's dest untouched */
    for (int i = 0; i < 10; i++) {
        s64[i] = me_idx == size - 1 ? 900 + i : -1;
        d64[i] = -2;
    }
    shmem_broadcast64(d64, s64, 10, size - 1, start, ls, size, ps);
    psync_clean(ps);
    for (int i = 0; i < 10; i++)
        CHECK(d64[i] == (me_idx == size - 1 ? -2 : 900 + i), "broadcast64[%d] = %lld", i,
              (long long)d64[i]);
    /* broadcast32 from member 0 */
    for (int i = 0; i < 7; i++) {
        s32[i] = me_idx == 0 ? 300 + i : -1;
        d32[i] = -2;
    }
    shmem_broadcast32(d32, s32, 7, 0, start, ls, size, ps);
    psync_clean(ps);
    for (int i = 0; i < 7; i++)
        CHECK(d32[i] == (me_idx == 0 ? -2 : 300 + i), "broadcast32[%d]", i);

    /* collect64: member i gives i + 1 elements */
    for (int i = 0; i <= me_idx; i++)
        s64[i] = wme * 100 + i;
    shmem_collect64(d64, s64, (size_t)me_idx + 1, start, ls, size, ps);
    psync_clean(ps);
    for (int i = 0, k = 0; i < size; i++)
        for (int j = 0; j <= i; j++, k++)
            CHECK(d64[k] == pe_of[i] * 100 + j, "collect64[%d] = %lld", k, (long long)d64[k]);
    /* fcollect32 */
    for (int i = 0; i < 3; i++)
        s32[i] = wme * 10 + i;
    shmem_fcollect32(d32, s32, 3, start, ls, size, ps);
    psync_clean(ps);
    for (int i = 0; i < size; i++)
        for (int j = 0; j < 3; j++)
            CHECK(d32[i * 3 + j] == pe_of[i] * 10 + j, "fcollect32");
    /* alltoall64 and alltoalls32 */
    for (int j = 0; j < size; j++)
        for (int e = 0; e < 2; e++)
            s64[j * 2 + e] = me_idx * 100 + j * 10 + e;
    shmem_alltoall64(d64, s64, 2, start, ls, size, ps);
    psync_clean(ps);
    for (int i = 0; i < size; i++)
        for (int e = 0; e < 2; e++)
            CHECK(d64[i * 2 + e] == i * 100 + me_idx * 10 + e, "alltoall64");
    for (int i = 0; i < 256; i++)
        d32[i] = -9;
    for (int j = 0; j < size; j++)
        for (int e = 0; e < 3; e++)
            s32[(j * 3 + e) * 2] = me_idx * 100 + j * 10 + e;
    shmem_alltoalls32(d32, s32, 3, 2, 3, start, ls, size, ps);
    psync_clean(ps);
    for (int i = 0; i < size; i++)
        for (int e = 0; e < 3; e++)
            CHECK(d32[(i * 3 + e) * 3] == i * 100 + me_idx * 10 + e &&
                      d32[(i * 3 + e) * 3 + 1] == -9,
                  "alltoalls32");

    /* reductions */
    long sum = 0;
    for (int i = 0; i < size; i++)
        sum += pe_of[i];
    for (int i = 0; i < 64; i++) {
        isrc[i] = wme + i;
        dsrc[i] = wme * 0.25 + i;
    }
    shmem_int_sum_to_all(idst, isrc, 64, start, ls, size, iwrk, ps);
    psync_clean(ps);
    for (int i = 0; i < 64; i++)
        CHECK(idst[i] == sum + (long)size * i, "int_sum_to_all[%d] = %d", i, idst[i]);
    shmem_int_max_to_all(idst, isrc, 5, start, ls, size, iwrk, ps);
    for (int i = 0; i < 5; i++)
        CHECK(idst[i] == pe_of[size - 1] + i, "int_max_to_all");
    shmem_int_xor_to_all(isrc, isrc, 64, start, ls, size, iwrk, ps); /* in place */
    psync_clean(ps);
    for (int i = 0; i < 64; i++) {
        int w = 0;
        for (int j = 0; j < size; j++)
            w ^= pe_of[j] + i;
        CHECK(isrc[i] == w, "in-place int_xor_to_all[%d]", i);
    }
    shmem_double_min_to_all(ddst, dsrc, 64, start, ls, size, dwrk, ps);
    for (int i = 0; i < 64; i++)
        CHECK(ddst[i] == pe_of[0] * 0.25 + i, "double_min_to_all");
    for (int i = 0; i < 8; i++) {
        csrc[i] = 1.0f + (float)i * I;
        ssrc[i] = (short)(wme + 1);
    }
    shmem_complexf_sum_to_all(cdst, csrc, 8, start, ls, size, cwrk, ps);
    for (int i = 0; i < 8; i++)
        CHECK(crealf(cdst[i]) == (float)size && cimagf(cdst[i]) == (float)(size * i),
              "complexf_sum_to_all");
    shmem_short_prod_to_all(sdst, ssrc, 8, start, ls, size, swrk, ps);
    long prod = 1;
    for (int j = 0; j < size; j++)
        prod *= pe_of[j] + 1;
    for (int i = 0; i < 8; i++)
        CHECK(sdst[i] == (short)prod, "short_prod_to_all %d", sdst[i]);
    psync_clean(ps);
}

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        psync[i] = psync2[i] = SHMEM_SYNC_VALUE;
    for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; i++)
        bsync[0][i] = bsync[1][i] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();

    for (int r = 0; r < 20; r++)
        run(0, 0, npes, me, psync); /* every PE, the same pSync back to back */
    /* Even PEs (stride 2), while odd PEs run their own set on another pSync. */
    int ne = (npes + 1) / 2, no = npes / 2;
    for (int r = 0; r < 20; r++) {
        if (me % 2 == 0)
            run(0, 1, ne, me / 2, psync);
        else
            run(1, 1, no, me / 2, psync2);
    }
    shmem_barrier_all();
    func_pass("coll_active");
    shmem_finalize();
    return 0;
}
