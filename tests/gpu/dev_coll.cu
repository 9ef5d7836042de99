/* Device collectives on WORLD, one workgroup per PE: broadcastmem, fcollectmem
 * and the sum reductions (separate and in-place), repeated. */
#include "gpu_test.h"

#define NRED 1000 /* more than one workgroup's worth of elements */

__global__ void k_coll(char *bdst, const char *bsrc, size_t bn, char *fdst, const char *fsrc,
                       size_t fn, int root) {
    shmemx_broadcastmem_wg(bdst, bsrc, bn, root);
    shmemx_fcollectmem_wg(fdst, fsrc, fn);
}

#define RED_KERNEL(T, N)                                                                           \
    __global__ void k_red_##N(T *dst, T *src, T *inplace, size_t n) {                              \
        shmemx_##N##_sum_reduce_wg(dst, src, n);                                                   \
        shmemx_##N##_sum_reduce_wg(inplace, inplace, n);                                           \
    }
RED_KERNEL(int, int)
RED_KERNEL(long, long)
RED_KERNEL(float, float)
RED_KERNEL(double, double)

static int byteval(int pe, size_t i, int rep) { return (int)((pe * 13 + i * 7 + rep) & 0xFF); }

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    size_t bn = 100003, fn = 7777;
    char *bsrc = (char *)shmem_malloc(bn), *bdst = (char *)shmem_malloc(bn);
    char *fsrc = (char *)shmem_malloc(fn), *fdst = (char *)shmem_malloc(fn * (size_t)npes);
    char *h = (char *)malloc(fn * (size_t)npes + bn);
    for (int rep = 0; rep < 4; ++rep) {
        int root = rep % npes;
        for (size_t i = 0; i < bn; ++i)
            h[i] = (char)byteval(me, i, rep);
        GT_H2D(bsrc, h, bn);
        for (size_t i = 0; i < fn; ++i)
            h[i] = (char)byteval(me + 100, i, rep);
        GT_H2D(fsrc, h, fn);
        shmem_barrier_all();
        k_coll<<<1, 512>>>(bdst, bsrc, bn, fdst, fsrc, fn, root);
        GT_SYNC();
        GT_CK(hipMemcpy(h, bdst, bn, hipMemcpyDeviceToHost));
        for (size_t i = 0; i < bn; ++i)
            GT_EXPECT((unsigned char)h[i] == byteval(root, i, rep), "broadcast rep %d byte %zu",
                      rep, i);
        GT_CK(hipMemcpy(h, fdst, fn * (size_t)npes, hipMemcpyDeviceToHost));
        for (int pe = 0; pe < npes; ++pe)
            for (size_t i = 0; i < fn; ++i)
                GT_EXPECT((unsigned char)h[(size_t)pe * fn + i] == byteval(pe + 100, i, rep),
                          "fcollect rep %d from PE %d byte %zu", rep, pe, i);
    }

#define RED_RUN(T, N)                                                                              \
    {                                                                                              \
        T *dst = (T *)shmem_malloc(NRED * sizeof(T)), *src = (T *)shmem_malloc(NRED * sizeof(T));  \
        T *inp = (T *)shmem_malloc(NRED * sizeof(T));                                              \
        T hv[NRED];                                                                                \
        for (int rep = 0; rep < 3; ++rep) {                                                        \
            for (size_t i = 0; i < NRED; ++i)                                                      \
                hv[i] = (T)(me + 1) * (T)(i % 50 + rep);                                           \
            GT_H2D(src, hv, sizeof hv);                                                            \
            GT_H2D(inp, hv, sizeof hv);                                                            \
            shmem_barrier_all();                                                                   \
            k_red_##N<<<1, 256>>>(dst, src, inp, NRED);                                            \
            GT_SYNC();                                                                             \
            T want_f = (T)(npes * (npes + 1) / 2);                                                 \
            GT_CK(hipMemcpy(hv, dst, sizeof hv, hipMemcpyDeviceToHost));                           \
            for (size_t i = 0; i < NRED; ++i)                                                      \
                GT_EXPECT(hv[i] == want_f * (T)(i % 50 + rep), #N " sum_reduce [%zu]", i);         \
            GT_CK(hipMemcpy(hv, inp, sizeof hv, hipMemcpyDeviceToHost));                           \
            for (size_t i = 0; i < NRED; ++i)                                                      \
                GT_EXPECT(hv[i] == want_f * (T)(i % 50 + rep), #N " in-place sum_reduce [%zu]",    \
                          i);                                                                      \
            shmem_barrier_all();                                                                   \
        }                                                                                          \
        shmem_free(inp);                                                                           \
        shmem_free(src);                                                                           \
        shmem_free(dst);                                                                           \
    }
    RED_RUN(int, int)
    RED_RUN(long, long)
    RED_RUN(float, float)
    RED_RUN(double, double)

    free(h);
    shmem_free(fdst);
    shmem_free(fsrc);
    shmem_free(bdst);
    shmem_free(bsrc);
    return gt_finish("dev_coll");
}
