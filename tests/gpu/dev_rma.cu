/* Device RMA: every typed put/get/p/g/iput/iget/_nbi, the sized and byte forms
 * at every alignment, the workgroup and wave variants, shmem_ptr. Each PE
 * puts to its right neighbour and gets from it. */
#include "gpu_test.h"

#define NEL 67 /* odd: exercises the tails of the vector copies */

static __host__ __device__ int val(int pe, size_t i) { return (int)((pe * 37 + i * 3 + 1) % 100); }

/* One thread: all shapes of one type. Regions (NEL elements each):
 * 0 src, 1 put, 2 put_nbi, 3 p, 4 iput (stride 2: 2 * NEL), 6 get, 7 get_nbi, 8 g, 9 iget. */
#define RMA_KERNEL(T, N)                                                                           \
    __global__ void k_##N(T *b, int pe) {                                                          \
        T *src = b;                                                                                \
        shmem_##N##_put(b + 1 * NEL, src, NEL, pe);                                                \
        shmem_##N##_put_nbi(b + 2 * NEL, src, NEL, pe);                                            \
        for (size_t i = 0; i < NEL; ++i)                                                           \
            shmem_##N##_p(b + 3 * NEL + i, src[i], pe);                                            \
        shmem_##N##_iput(b + 4 * NEL, src, 2, 1, NEL, pe);                                         \
        shmem_quiet();                                                                             \
        shmem_barrier_all();                                                                       \
        shmem_##N##_get(b + 6 * NEL, src, NEL, pe);                                                \
        shmem_##N##_get_nbi(b + 7 * NEL, src, NEL, pe);                                            \
        for (size_t i = 0; i < NEL; ++i)                                                           \
            b[8 * NEL + i] = shmem_##N##_g(src + i, pe);                                           \
        shmem_##N##_iget(b + 9 * NEL, src, 1, 2, NEL / 2, pe);                                     \
        shmem_quiet();                                                                             \
    }
#define SHMEMI_DEV_X RMA_KERNEL
SHMEMI_RMA_TYPES(SHMEMI_DEV_FILTER)
#undef SHMEMI_DEV_X

#define RMA_RUN(T, N)                                                                              \
    {                                                                                              \
        T h[10 * NEL];                                                                             \
        for (size_t i = 0; i < 10 * NEL; ++i)                                                      \
            h[i] = (T)0;                                                                           \
        for (size_t i = 0; i < NEL; ++i)                                                           \
            h[i] = (T)val(me, i);                                                                  \
        GT_H2D(buf, h, sizeof h);                                                                  \
        shmem_barrier_all();                                                                       \
        k_##N<<<1, 1>>>((T *)buf, right);                                                          \
        GT_SYNC();                                                                                 \
        shmem_barrier_all();                                                                       \
        GT_CK(hipMemcpy(h, buf, sizeof h, hipMemcpyDeviceToHost));                                 \
        for (size_t i = 0; i < NEL; ++i) {                                                         \
            GT_EXPECT(h[1 * NEL + i] == (T)val(left, i), #N " put [%zu]", i);                      \
            GT_EXPECT(h[2 * NEL + i] == (T)val(left, i), #N " put_nbi [%zu]", i);                  \
            GT_EXPECT(h[3 * NEL + i] == (T)val(left, i), #N " p [%zu]", i);                        \
            GT_EXPECT(h[4 * NEL + 2 * i] == (T)val(left, i), #N " iput [%zu]", i);                 \
            GT_EXPECT(h[6 * NEL + i] == (T)val(right, i), #N " get [%zu]", i);                     \
            GT_EXPECT(h[7 * NEL + i] == (T)val(right, i), #N " get_nbi [%zu]", i);                 \
            GT_EXPECT(h[8 * NEL + i] == (T)val(right, i), #N " g [%zu]", i);                       \
            if (i < NEL / 2)                                                                       \
                GT_EXPECT(h[9 * NEL + i] == (T)val(right, 2 * i), #N " iget [%zu]", i);            \
        }                                                                                          \
    }

/* Sized and byte forms: region 0 source bytes, region 1.. destinations. */
#define SIZED_KERNEL(B)                                                                            \
    __global__ void k_sized##B(unsigned char *b, size_t bytes, int pe) {                           \
        size_t n = bytes / (B / 8);                                                                \
        shmem_put##B(b + bytes, b, n, pe);                                                         \
        shmem_put##B##_nbi(b + 2 * bytes, b, n, pe);                                               \
        shmem_iput##B(b + 3 * bytes, b, 1, 1, n, pe);                                              \
        shmem_quiet();                                                                             \
        shmem_barrier_all();                                                                       \
        shmem_get##B(b + 4 * bytes, b, n, pe);                                                     \
        shmem_get##B##_nbi(b + 5 * bytes, b, n, pe);                                               \
        shmem_iget##B(b + 6 * bytes, b, 1, 1, n, pe);                                              \
    }
SHMEMI_RMA_SIZES(SIZED_KERNEL)

/* Byte copies at every (dest, source) misalignment and odd sizes. */
/* Slot of one (d, s) case: room for d + len (at most 15 + 1255) and a zero byte. */
#define MISALIGNED_SLOT 1280

__global__ void k_mem(unsigned char *b, size_t region, int pe) {
    for (int d = 0; d < 16; ++d)
        for (int s = 0; s < 16; ++s) {
            size_t len = 1000 + (size_t)(d * 16 + s);
            unsigned char *dst = b + region + (size_t)(d * 16 + s) * MISALIGNED_SLOT + (size_t)d;
            if ((d + s) & 1)
                shmem_putmem(dst, b + s, len, pe);
            else
                shmem_putmem_nbi(dst, b + s, len, pe);
        }
    shmem_quiet();
}

/* Group forms: block 0 uses the workgroup forms, each wave of block 1 its own
 * slice through the wave forms. */
__global__ void k_group(unsigned char *b, size_t region, size_t len, int pe) {
    unsigned wave = threadIdx.x / warpSize, nwaves = (blockDim.x + warpSize - 1) / warpSize;
    size_t slice = len / nwaves;
    if (blockIdx.x == 0) {
        shmemx_putmem_wg(b + region + 3, b + 3, len, pe);
        shmemx_putmem_nbi_wg(b + 2 * region + 1, b + 1, len, pe);
        shmemx_int_put_wg((int *)(b + 5 * region), (const int *)b, len / sizeof(int), pe);
    } else {
        shmemx_putmem_wave(b + 3 * region + wave * slice, b + wave * slice, slice, pe);
        shmemx_putmem_nbi_wave(b + 4 * region + wave * slice + 7, b + wave * slice + 7, slice, pe);
    }
    shmem_quiet();
}
__global__ void k_group_get(unsigned char *b, size_t region, size_t len, int pe) {
    unsigned wave = threadIdx.x / warpSize, nwaves = (blockDim.x + warpSize - 1) / warpSize;
    size_t slice = len / nwaves;
    if (blockIdx.x == 0) {
        shmemx_getmem_wg(b + 6 * region, b, len, pe);
        shmemx_int_get_wg((int *)(b + 7 * region), (const int *)b, len / sizeof(int), pe);
    } else {
        shmemx_getmem_wave(b + 8 * region + wave * slice, b + wave * slice, slice, pe);
    }
}

__global__ void k_ptr(int *x, int *out, int npes) {
    for (int pe = 0; pe < npes; ++pe) {
        int *p = (int *)shmem_ptr(x, pe);
        out[pe] = p != NULL;
        if (p && pe != shmem_my_pe())
            p[1 + shmem_my_pe()] = 1000 + shmem_my_pe(); /* plain store through the pointer */
    }
    out[npes] = shmem_ptr(x, npes) == NULL && shmem_ptr(x, -1) == NULL;
    out[npes + 1] = shmem_my_pe();
    out[npes + 2] = shmem_n_pes();
    shmem_quiet();
}

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    size_t bufsz = 4 << 20;
    unsigned char *buf = (unsigned char *)shmem_malloc(bufsz);
    if (!buf) {
        fprintf(stderr, "shmem_malloc failed\n");
        return 2;
    }

#define SHMEMI_DEV_X RMA_RUN
    SHMEMI_RMA_TYPES(SHMEMI_DEV_FILTER)
#undef SHMEMI_DEV_X

    /* Sized. */
    {
        size_t bytes = 16 * 40;
        unsigned char h[7 * 16 * 40];
#define SIZED_RUN(B)                                                                               \
    memset(h, 0, sizeof h);                                                                        \
    for (size_t i = 0; i < bytes; ++i)                                                             \
        h[i] = (unsigned char)val(me + B, i);                                                      \
    GT_H2D(buf, h, sizeof h);                                                                      \
    shmem_barrier_all();                                                                           \
    k_sized##B<<<1, 1>>>(buf, bytes, right);                                                       \
    GT_SYNC();                                                                                     \
    shmem_barrier_all();                                                                           \
    GT_CK(hipMemcpy(h, buf, sizeof h, hipMemcpyDeviceToHost));                                     \
    for (size_t i = 0; i < bytes; ++i) {                                                           \
        for (int r = 1; r <= 3; ++r)                                                               \
            GT_EXPECT(h[r * bytes + i] == (unsigned char)val(left + B, i),                         \
                      "put%d shape %d byte %zu", B, r, i);                                         \
        for (int r = 4; r <= 6; ++r)                                                               \
            GT_EXPECT(h[r * bytes + i] == (unsigned char)val(right + B, i),                        \
                      "get%d shape %d byte %zu", B, r, i);                                         \
    }
        SHMEMI_RMA_SIZES(SIZED_RUN)
#undef SIZED_RUN
    }

    /* Misaligned byte copies. */
    {
        size_t region = 2048, total = region + 256 * MISALIGNED_SLOT + 64;
        unsigned char *h = (unsigned char *)calloc(total, 1);
        for (size_t i = 0; i < region; ++i)
            h[i] = (unsigned char)val(me, i);
        GT_H2D(buf, h, total);
        shmem_barrier_all();
        k_mem<<<1, 1>>>(buf, region, right);
        GT_SYNC();
        shmem_barrier_all();
        GT_CK(hipMemcpy(h, buf, total, hipMemcpyDeviceToHost));
        for (int d = 0; d < 16; ++d)
            for (int s = 0; s < 16; ++s) {
                size_t len = 1000 + (size_t)(d * 16 + s);
                unsigned char *dst = h + region + (size_t)(d * 16 + s) * MISALIGNED_SLOT;
                for (int j = 0; j < d; ++j)
                    GT_EXPECT(dst[j] == 0, "putmem d=%d s=%d wrote before dest", d, s);
                for (size_t i = 0; i < len; ++i)
                    GT_EXPECT(dst[d + i] == (unsigned char)val(left, i + (size_t)s),
                              "putmem d=%d s=%d byte %zu", d, s, i);
                GT_EXPECT(dst[d + len] == 0, "putmem d=%d s=%d wrote past the end", d, s);
            }
        free(h);
    }

    /* Group forms. */
    {
        size_t len = 96 * 1024 + 12, region = 128 * 1024, total = 9 * region;
        unsigned char *h = (unsigned char *)calloc(total, 1);
        for (size_t i = 0; i < region; ++i)
            h[i] = (unsigned char)val(me, i);
        GT_H2D(buf, h, total);
        shmem_barrier_all();
        k_group<<<2, 256>>>(buf, region, len, right);
        GT_SYNC();
        shmem_barrier_all();
        k_group_get<<<2, 256>>>(buf, region, len, right);
        GT_SYNC();
        shmem_barrier_all();
        GT_CK(hipMemcpy(h, buf, total, hipMemcpyDeviceToHost));
        for (size_t i = 0; i < len; ++i) {
            if (i >= 3)
                GT_EXPECT(h[region + i] == (unsigned char)val(left, i), "putmem_wg byte %zu", i);
            if (i >= 1)
                GT_EXPECT(h[2 * region + i] == (unsigned char)val(left, i),
                          "putmem_nbi_wg byte %zu", i);
            if (i < len / sizeof(int) * sizeof(int)) {
                GT_EXPECT(h[5 * region + i] == (unsigned char)val(left, i), "int_put_wg byte %zu",
                          i);
                GT_EXPECT(h[7 * region + i] == (unsigned char)val(right, i), "int_get_wg byte %zu",
                          i);
            }
            GT_EXPECT(h[6 * region + i] == (unsigned char)val(right, i), "getmem_wg byte %zu", i);
        }
        /* Wave forms: each wave's slice; check the first 64 KiB every wave size covers. */
        for (size_t i = 0; i < 64 * 1024; ++i) {
            GT_EXPECT(h[3 * region + i] == (unsigned char)val(left, i), "putmem_wave byte %zu", i);
            if (i >= 7)
                GT_EXPECT(h[4 * region + i] == (unsigned char)val(left, i),
                          "putmem_nbi_wave byte %zu", i);
            GT_EXPECT(h[8 * region + i] == (unsigned char)val(right, i), "getmem_wave byte %zu", i);
        }
        free(h);
    }

    /* shmem_ptr. */
    {
        int *out;
        int hx[64] = {0}, ho[64];
        GT_H2D(buf, hx, sizeof hx);
        GT_CK(hipMalloc((void **)&out, sizeof ho));
        shmem_barrier_all();
        k_ptr<<<1, 1>>>((int *)buf, out, npes);
        GT_SYNC();
        shmem_barrier_all();
        GT_CK(hipMemcpy(ho, out, sizeof(int) * (size_t)(npes + 3), hipMemcpyDeviceToHost));
        GT_CK(hipMemcpy(hx, buf, sizeof hx, hipMemcpyDeviceToHost));
        for (int pe = 0; pe < npes; ++pe) {
            GT_EXPECT(ho[pe] == 1, "shmem_ptr(x, %d) is NULL", pe);
            if (pe != me)
                GT_EXPECT(hx[1 + pe] == 1000 + pe, "store through shmem_ptr from PE %d", pe);
        }
        GT_EXPECT(ho[npes] == 1, "shmem_ptr out of range is not NULL");
        GT_EXPECT(ho[npes + 1] == me && ho[npes + 2] == npes, "device my_pe/n_pes %d/%d",
                  ho[npes + 1], ho[npes + 2]);
        GT_CK(hipFree(out));
    }

    shmem_free(buf);
    return gt_finish("dev_rma");
}
