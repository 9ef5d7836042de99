/* Contexts created on a split team take team-relative PE numbers in every
 * point-to-point call (OpenSHMEM 1.5, "Communication Contexts"): p, g, put,
 * get, their _nbi forms, iput/iget, AMOs and put-with-signal on a context
 * over the even PEs (or the odd ones) reach the team's members, completed by
 * quiet, fence and pe_quiet on that context. PEs outside a team get
 * SHMEM_CTX_INVALID, on which quiet, fence and destroy do nothing. */
#include "check.h"

#include <string.h>

#define N 64
#define BIG (256 * 1024) /* large enough for the copy engine's _nbi path */

static long pv, gv;
static int arr[N], got[N];
static long ctr, word;
static unsigned long bits;
static int stride_dst[2 * N];
static uint64_t sig;

int main(void) {
    shmem_init();
    const int me = shmem_my_pe(), npes = shmem_n_pes();
    CHECK(npes >= 2, "needs at least 2 PEs");
    char *big = shmem_calloc(1, BIG);
    char *src = malloc(BIG), *back = malloc(BIG);
    CHECK(big && src && back, "allocation failed");

    /* Even PEs in one team, odd PEs in the other: world PE start + 2 i is
     * member i. */
    shmem_team_t even, odd;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &even) == 0,
          "even split");
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, npes / 2, NULL, 0, &odd) == 0,
          "odd split");
    shmem_team_t t = me % 2 ? odd : even;
    CHECK(t != SHMEM_TEAM_INVALID, "PE %d is in no team", me);
    const int n = shmem_team_n_pes(t), i = shmem_team_my_pe(t);
    const int right = (i + 1) % n, left = (i + n - 1) % n;
    const int wright = shmem_team_translate_pe(t, right, SHMEM_TEAM_WORLD);
    const int wleft = shmem_team_translate_pe(t, left, SHMEM_TEAM_WORLD);
    CHECK(wright == me % 2 + 2 * right && wleft == me % 2 + 2 * left, "translate");

    shmem_ctx_t ctx;
    CHECK(shmem_team_create_ctx(t, 0, &ctx) == 0 && ctx != SHMEM_CTX_INVALID, "create_ctx");

    /* p and g */
    gv = 2000 + me;
    shmem_team_sync(t);
    shmem_ctx_long_p(ctx, &pv, 1000 + me, right);
    shmem_ctx_quiet(ctx);
    CHECK(shmem_ctx_long_g(ctx, &gv, right) == 2000 + wright, "g from team PE %d", right);
    shmem_team_sync(t);
    CHECK(pv == 1000 + wleft, "p: %ld, want %d (from world PE %d)", pv, 1000 + wleft, wleft);

    /* put and get */
    int loc[N];
    for (int k = 0; k < N; k++)
        loc[k] = me * 100 + k;
    shmem_ctx_int_put(ctx, arr, loc, N, right);
    shmem_ctx_quiet(ctx);
    shmem_team_sync(t);
    for (int k = 0; k < N; k++)
        CHECK(arr[k] == wleft * 100 + k, "put: arr[%d] = %d", k, arr[k]);
    shmem_ctx_int_get(ctx, got, arr, N, left);
    for (int k = 0; k < N; k++) {
        int from = shmem_team_translate_pe(t, (left + n - 1) % n, SHMEM_TEAM_WORLD);
        CHECK(got[k] == from * 100 + k, "get: got[%d] = %d, want %d", k, got[k], from * 100 + k);
    }
    shmem_team_sync(t);

    /* _nbi forms, completed by quiet on the context */
    for (size_t k = 0; k < BIG; k++)
        src[k] = (char)func_byte(me, k, 1);
    shmem_ctx_putmem_nbi(ctx, big, src, BIG, right);
    shmem_ctx_quiet(ctx);
    shmem_team_sync(t);
    for (size_t k = 0; k < BIG; k++)
        CHECK(big[k] == (char)func_byte(wleft, k, 1), "put_nbi byte %zu", k);
    shmem_ctx_getmem_nbi(ctx, back, big, BIG, right);
    shmem_ctx_quiet(ctx);
    for (size_t k = 0; k < BIG; k++)
        CHECK(back[k] == (char)func_byte(me, k, 1), "get_nbi byte %zu", k);
    shmem_team_sync(t);

    /* strided */
    shmem_ctx_int_iput(ctx, stride_dst, loc, 2, 1, N, right);
    shmem_ctx_quiet(ctx);
    shmem_team_sync(t);
    for (int k = 0; k < N; k++)
        CHECK(stride_dst[2 * k] == wleft * 100 + k, "iput element %d", k);
    shmem_ctx_int_iget(ctx, got, stride_dst, 1, 2, N, left);
    for (int k = 0; k < N; k++) {
        int from = shmem_team_translate_pe(t, (left + n - 1) % n, SHMEM_TEAM_WORLD);
        CHECK(got[k] == from * 100 + k, "iget element %d", k);
    }
    shmem_team_sync(t);

    /* AMOs: every member adds to its right neighbour's counter. */
    shmem_ctx_long_atomic_add(ctx, &ctr, me + 1, right);
    long old = shmem_ctx_long_atomic_fetch_add(ctx, &ctr, 10, right);
    CHECK(old == me + 1, "fetch_add saw %ld, want %d", old, me + 1);
    shmem_ctx_long_atomic_inc(ctx, &ctr, right);
    shmem_ctx_long_atomic_set(ctx, &word, 7, right);
    shmem_ctx_quiet(ctx);
    shmem_team_sync(t);
    CHECK(ctr == wleft + 1 + 10 + 1, "counter %ld, want %d", ctr, wleft + 12);
    CHECK(word == 7, "set: %ld", word);
    shmem_team_sync(t);
    CHECK(shmem_ctx_long_atomic_compare_swap(ctx, &word, 7, 100 + me, right) == 7, "cswap");
    shmem_team_sync(t);
    CHECK(word == 100 + wleft, "cswap wrote %ld", word);
    shmem_team_sync(t);
    /* Each word is swapped by its right neighbour only. */
    const int wll = shmem_team_translate_pe(t, (left + n - 1) % n, SHMEM_TEAM_WORLD);
    old = shmem_ctx_long_atomic_swap(ctx, &word, 5, left);
    CHECK(old == 100 + wll, "swap saw %ld, want %d", old, 100 + wll);
    shmem_team_sync(t);
    CHECK(shmem_ctx_long_atomic_fetch(ctx, &word, right) == 5, "fetch after swap");
    bits = 0;
    shmem_team_sync(t);
    shmem_ctx_ulong_atomic_or(ctx, &bits, 1UL << i, right);
    unsigned long f;
    shmem_ctx_ulong_atomic_fetch_xor_nbi(ctx, &f, &bits, 0, right);
    shmem_ctx_quiet(ctx);
    shmem_team_sync(t);
    CHECK(bits == 1UL << left, "or: bits %lx, want %lx", bits, 1UL << left);

    /* put-with-signal, blocking and nbi, with new data (signals add 1, then 2) */
    for (int k = 0; k < N; k++)
        loc[k] = 50000 + me * 100 + k;
    for (size_t k = 0; k < BIG; k++)
        src[k] = (char)func_byte(me, k, 2);
    shmem_ctx_int_put_signal(ctx, arr, loc, N, &sig, 1, SHMEM_SIGNAL_ADD, right);
    shmem_signal_wait_until(&sig, SHMEM_CMP_GE, 1);
    for (int k = 0; k < N; k++)
        CHECK(arr[k] == 50000 + wleft * 100 + k, "put_signal: arr[%d] = %d", k, arr[k]);
    shmem_team_sync(t);
    shmem_ctx_putmem_signal_nbi(ctx, big, src, BIG, &sig, 2, SHMEM_SIGNAL_ADD, right);
    shmem_ctx_fence(ctx);
    shmem_ctx_pe_quiet(ctx, &right, 1);
    shmem_signal_wait_until(&sig, SHMEM_CMP_GE, 3);
    for (size_t k = 0; k < BIG; k++)
        CHECK(big[k] == (char)func_byte(wleft, k, 2), "put_signal_nbi byte %zu", k);
    shmem_team_sync(t);
    CHECK(sig == 3, "signal %llu", (unsigned long long)sig);

    /* A team some PEs are not in: those get SHMEM_CTX_INVALID, on which
     * quiet, fence and destroy do nothing (the specification's example). */
    shmem_team_t third;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 3, (npes + 2) / 3, NULL, 0, &third) == 0,
          "split of every third PE");
    shmem_ctx_t c3 = SHMEM_CTX_INVALID;
    if (third != SHMEM_TEAM_INVALID)
        CHECK(shmem_team_create_ctx(third, 0, &c3) == 0, "create_ctx on the third team");
    else
        CHECK(shmem_team_create_ctx(third, 0, &c3) != 0 && c3 == SHMEM_CTX_INVALID,
              "create_ctx on SHMEM_TEAM_INVALID");
    shmem_ctx_quiet(c3);
    shmem_ctx_fence(c3);
    shmem_ctx_destroy(c3);
    shmem_barrier_all();

    shmem_ctx_destroy(ctx);
    shmem_team_destroy(third);
    shmem_team_destroy(even);
    shmem_team_destroy(odd);
    shmem_free(big);
    free(src);
    free(back);
    func_pass("team_ctx");
    shmem_finalize();
    return 0;
}
