/* The host API on the device heap: put/get (blocking, _nbi, strided, p/g),
 * put-with-signal, atomics from the host with contention from both PEs,
 * wait_until on a device ivar, barrier_all ordering, calloc/realloc, and
 * shmem_ptr giving the peer's device pointer. Data is checked by copying the
 * device heap back to the host. */
#include "gpu_test.h"

#define N 4096

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes(), right = (me + 1) % n, left = (me + n - 1) % n;
    long *dst = (long *)shmem_calloc(N, sizeof(long));
    long *src = (long *)shmem_malloc(N * sizeof(long));
    long *ctr = (long *)shmem_calloc(4, sizeof(long));
    uint64_t *sig = (uint64_t *)shmem_calloc(1, sizeof(uint64_t));
    long h[N];
    for (int i = 0; i < N; i++)
        h[i] = me * 1000000L + i;
    /* Host buffers as sources, device-heap buffers as targets and sources. */
    GT_H2D(src, h, sizeof h);
    long *z = (long *)gt_to_host(dst, sizeof h);
    for (int i = 0; i < N; i++)
        GT_EXPECT(z[i] == 0, "shmem_calloc: element %d is %ld", i, z[i]);
    free(z);
    shmem_barrier_all();

    /* 1. Blocking put from host memory, then from the device heap. */
    shmem_long_put(dst, h, N / 2, right);
    shmem_long_put(dst + N / 2, src + N / 2, N / 2, right);
    shmem_barrier_all();
    long *g = (long *)gt_to_host(dst, sizeof h);
    for (int i = 0; i < N; i++)
        GT_EXPECT(g[i] == left * 1000000L + i, "put: [%d] = %ld", i, g[i]);
    free(g);

    /* 2. Get into host memory, _nbi forms completed by quiet. */
    long back[N];
    shmem_long_get(back, src, N, right);
    for (int i = 0; i < N; i++)
        GT_EXPECT(back[i] == right * 1000000L + i, "get: [%d] = %ld", i, back[i]);
    shmem_barrier_all();
    for (int i = 0; i < N; i++)
        h[i] = -(me * 1000000L + i);
    shmem_long_put_nbi(dst, h, N, right);
    shmem_quiet();
    shmem_barrier_all();
    shmem_long_get_nbi(back, dst, N, me);
    shmem_quiet();
    for (int i = 0; i < N; i++)
        GT_EXPECT(back[i] == -(left * 1000000L + i), "put_nbi/get_nbi: [%d] = %ld", i, back[i]);
    shmem_barrier_all();

    /* 3. p/g and strided puts. */
    shmem_long_p(&dst[7], 4242 + me, right);
    shmem_barrier_all();
    GT_EXPECT(shmem_long_g(&dst[7], me) == 4242 + left, "p/g: %ld", shmem_long_g(&dst[7], me));
    shmem_barrier_all();
    long s3[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    shmem_long_iput(dst + 100, s3, 3, 1, 8, right);
    shmem_barrier_all();
    for (int i = 0; i < 8; i++)
        GT_EXPECT(shmem_long_g(&dst[100 + 3 * i], me) == s3[i], "iput: [%d]", i);
    shmem_barrier_all();

    /* 4. Atomics from the host, every PE on every PE's counter. */
    for (int k = 0; k < 50; k++)
        for (int pe = 0; pe < n; pe++)
            shmem_long_atomic_add(&ctr[0], 1, pe);
    long old = shmem_long_atomic_fetch_add(&ctr[1], 5, 0);
    GT_EXPECT(old % 5 == 0, "fetch_add returned %ld", old);
    shmem_long_atomic_compare_swap(&ctr[2], 0, me + 1, 0);
    shmem_barrier_all();
    GT_EXPECT(shmem_long_atomic_fetch(&ctr[0], me) == 50L * n, "atomic_add total %ld",
              shmem_long_atomic_fetch(&ctr[0], me));
    if (me == 0) {
        GT_EXPECT(shmem_long_g(&ctr[1], 0) == 5L * n, "fetch_add total %ld",
                  shmem_long_g(&ctr[1], 0));
        long w = shmem_long_g(&ctr[2], 0);
        GT_EXPECT(w >= 1 && w <= n, "compare_swap winner %ld", w);
    }
    shmem_barrier_all();

    /* 5. put-with-signal and a host wait on a device-heap signal word. */
    for (int i = 0; i < N; i++)
        h[i] = 7 * i + me;
    shmem_long_put_signal(dst, h, N, sig, 1, SHMEM_SIGNAL_ADD, right);
    shmem_signal_wait_until(sig, SHMEM_CMP_GE, 1);
    shmem_long_get(back, dst, N, me);
    for (int i = 0; i < N; i++)
        GT_EXPECT(back[i] == 7 * i + left, "put_signal data [%d] = %ld", i, back[i]);
    shmem_long_atomic_set(&ctr[3], 9, right);
    shmem_long_wait_until(&ctr[3], SHMEM_CMP_EQ, 9);
    shmem_barrier_all();

    /* 6. shmem_ptr: the peer's device pointer, usable in a device copy, for a
     * peer of this node (SHMEM_TEAM_SHARED); NULL for one reached through the
     * fabric (SHMEM_FORCE_FABRIC=1), which gets a put instead. */
    int shared = shmem_team_translate_pe(SHMEM_TEAM_WORLD, right, SHMEM_TEAM_SHARED) >= 0;
    long *peer = (long *)shmem_ptr(dst, right);
    GT_EXPECT((peer != NULL) == shared, "shmem_ptr(dst, %d) is %p", right, (void *)peer);
    shmem_barrier_all();
    if (peer)
        GT_COPY(peer, src, N * sizeof(long)); /* complete before the barrier */
    else
        shmem_putmem(dst, src, N * sizeof(long), right);
    shmem_barrier_all();
    g = (long *)gt_to_host(dst, sizeof h);
    for (int i = 0; i < N; i++)
        GT_EXPECT(g[i] == left * 1000000L + i, "copy through shmem_ptr: [%d] = %ld", i, g[i]);
    free(g);

    /* 7. realloc keeps the content. */
    shmem_barrier_all();
    long *bigger = (long *)shmem_realloc(src, 4 * N * sizeof(long));
    GT_EXPECT(bigger != NULL, "shmem_realloc failed");
    if (bigger) {
        g = (long *)gt_to_host(bigger, N * sizeof(long));
        for (int i = 0; i < N; i++)
            GT_EXPECT(g[i] == me * 1000000L + i, "realloc content [%d] = %ld", i, g[i]);
        free(g);
        src = bigger;
    }
    shmem_free(src);
    shmem_free(dst);
    shmem_free(ctr);
    shmem_free(sig);
    return gt_finish("host_api");
}
