/* Device AMOs: every typed AMO once (set/fetch/swap/compare_swap/fetch_add/
 * inc/bitwise, fetching and not, _nbi), then contention: many threads of every
 * PE add to and increment words on every PE, and the totals must be exact. */
#include "gpu_test.h"

/* One thread: the whole AMO vocabulary of one type on the right neighbour's
 * word w[0] (w[1] receives fetches). Results land in r[0..]. */
#define AMO_EXT_KERNEL(T, N)                                                                       \
    __global__ void k_ext_##N(T *w, T *r, int pe) {                                                \
        shmem_##N##_atomic_set(w, (T)5, pe);                                                       \
        r[0] = shmem_##N##_atomic_fetch(w, pe);                                                    \
        r[1] = shmem_##N##_atomic_swap(w, (T)9, pe);                                               \
        shmem_##N##_atomic_fetch_nbi(&r[2], w, pe);                                                \
        shmem_##N##_atomic_swap_nbi(&r[3], w, (T)11, pe);                                          \
        r[4] = shmem_##N##_atomic_fetch(w, pe);                                                    \
    }
SHMEMI_AMO_EXT_TYPES(AMO_EXT_KERNEL)
#define AMO_STD_KERNEL(T, N)                                                                       \
    __global__ void k_std_##N(T *w, T *r, int pe) {                                                \
        shmem_##N##_atomic_set(w, (T)1, pe);                                                       \
        r[0] = shmem_##N##_atomic_compare_swap(w, (T)1, (T)7, pe);       /* 1, now 7 */            \
        r[1] = shmem_##N##_atomic_compare_swap(w, (T)1, (T)8, pe);       /* 7, stays */            \
        r[2] = shmem_##N##_atomic_fetch_inc(w, pe);                      /* 7 -> 8 */              \
        shmem_##N##_atomic_inc(w, pe);                                   /* 9 */                   \
        r[3] = shmem_##N##_atomic_fetch_add(w, (T)10, pe);               /* 9 -> 19 */             \
        shmem_##N##_atomic_add(w, (T)2, pe);                             /* 21 */                  \
        shmem_##N##_atomic_compare_swap_nbi(&r[4], w, (T)21, (T)30, pe); /* 21 -> 30 */            \
        shmem_##N##_atomic_fetch_inc_nbi(&r[5], w, pe);                  /* 30 -> 31 */            \
        shmem_##N##_atomic_fetch_add_nbi(&r[6], w, (T)4, pe);            /* 31 -> 35 */            \
        r[7] = shmem_##N##_atomic_fetch(w, pe);                          /* 35 */                  \
    }
SHMEMI_AMO_STD_TYPES(AMO_STD_KERNEL)
#define AMO_BIT_KERNEL(T, N)                                                                       \
    __global__ void k_bit_##N(T *w, T *r, int pe) {                                                \
        shmem_##N##_atomic_set(w, (T)0xF0, pe);                                                    \
        r[0] = shmem_##N##_atomic_fetch_and(w, (T)0x3C, pe); /* F0 -> 30 */                        \
        shmem_##N##_atomic_or(w, (T)0x05, pe);               /* 35 */                              \
        r[1] = shmem_##N##_atomic_fetch_xor(w, (T)0xFF, pe); /* 35 -> CA */                        \
        shmem_##N##_atomic_and(w, (T)0x0F, pe);              /* 0A */                              \
        r[2] = shmem_##N##_atomic_fetch_or(w, (T)0x50, pe);  /* 0A -> 5A */                        \
        shmem_##N##_atomic_xor(w, (T)0x0F, pe);              /* 55 */                              \
        shmem_##N##_atomic_fetch_and_nbi(&r[3], w, (T)0xFF, pe);                                   \
        shmem_##N##_atomic_fetch_or_nbi(&r[4], w, (T)0, pe);                                       \
        shmem_##N##_atomic_fetch_xor_nbi(&r[5], w, (T)0x55, pe); /* 55 -> 0 */                     \
        r[6] = shmem_##N##_atomic_fetch(w, pe);                                                    \
    }
SHMEMI_AMO_BIT_TYPES(AMO_BIT_KERNEL)

/* Contention: every thread of every PE adds its value to counter[0] and
 * increments counter[1] on every PE; 64-bit and 32-bit words. */
__global__ void k_contend(unsigned long long *c64, unsigned int *c32, int npes, int iters) {
    int me = shmem_my_pe();
    for (int it = 0; it < iters; ++it)
        for (int k = 0; k < npes; ++k) {
            int pe = (me + k) % npes;
            shmem_ulonglong_atomic_add(&c64[0], (unsigned long long)(threadIdx.x + 1), pe);
            shmem_ulonglong_atomic_inc(&c64[1], pe);
            (void)shmem_uint_atomic_fetch_add(&c32[0], 1u, pe);
        }
}

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes(), right = (me + 1) % npes;
    char *buf = (char *)shmem_calloc(1, 4096);
    char *res;
    GT_CK(hipMalloc((void **)&res, 256));

#define RUN(KIND, T, N, CHECKS)                                                                    \
    {                                                                                              \
        T r[8];                                                                                    \
        GT_MEMSET(buf, 0, 64); /* done before the peer's atomics on it */                          \
        GT_MEMSET(res, 0, 256);                                                                    \
        shmem_barrier_all();                                                                       \
        k_##KIND##_##N<<<1, 1>>>((T *)buf, (T *)res, right);                                       \
        GT_SYNC();                                                                                 \
        shmem_barrier_all();                                                                       \
        GT_CK(hipMemcpy(r, res, sizeof r, hipMemcpyDeviceToHost));                                 \
        CHECKS                                                                                     \
    }
#define EXT_RUN(T, N)                                                                              \
    RUN(ext, T, N,                                                                                 \
        GT_EXPECT(r[0] == (T)5 && r[1] == (T)5 && r[2] == (T)9 && r[3] == (T)9 && r[4] == (T)11,   \
                  #N " ext: %g %g %g %g %g", (double)r[0], (double)r[1], (double)r[2],             \
                  (double)r[3], (double)r[4]);)
    SHMEMI_AMO_EXT_TYPES(EXT_RUN)
#define STD_RUN(T, N)                                                                              \
    RUN(std, T, N,                                                                                 \
        GT_EXPECT(r[0] == (T)1 && r[1] == (T)7 && r[2] == (T)7 && r[3] == (T)9 && r[4] == (T)21 && \
                      r[5] == (T)30 && r[6] == (T)31 && r[7] == (T)35,                             \
                  #N " std: %lld %lld %lld %lld %lld %lld %lld %lld", (long long)r[0],             \
                  (long long)r[1], (long long)r[2], (long long)r[3], (long long)r[4],              \
                  (long long)r[5], (long long)r[6], (long long)r[7]);)
    SHMEMI_AMO_STD_TYPES(STD_RUN)
#define BIT_RUN(T, N)                                                                              \
    RUN(bit, T, N,                                                                                 \
        GT_EXPECT(r[0] == (T)0xF0 && r[1] == (T)0x35 && r[2] == (T)0x0A && r[3] == (T)0x55 &&      \
                      r[4] == (T)0x55 && r[5] == (T)0x55 && r[6] == (T)0,                          \
                  #N " bit: %llx %llx %llx %llx %llx %llx %llx", (unsigned long long)r[0],         \
                  (unsigned long long)r[1], (unsigned long long)r[2], (unsigned long long)r[3],    \
                  (unsigned long long)r[4], (unsigned long long)r[5], (unsigned long long)r[6]);)
    SHMEMI_AMO_BIT_TYPES(BIT_RUN)

    /* Contention. */
    {
        const int blocks = 64, threads = 256, iters = 20;
        unsigned long long h64[2];
        unsigned int h32;
        GT_MEMSET(buf, 0, 64);
        shmem_barrier_all();
        k_contend<<<blocks, threads>>>((unsigned long long *)buf, (unsigned int *)(buf + 16), npes,
                                       iters);
        GT_SYNC();
        shmem_barrier_all();
        GT_CK(hipMemcpy(h64, buf, sizeof h64, hipMemcpyDeviceToHost));
        GT_CK(hipMemcpy(&h32, buf + 16, sizeof h32, hipMemcpyDeviceToHost));
        unsigned long long per = (unsigned long long)threads * (threads + 1) / 2;
        unsigned long long want = per * blocks * iters * (unsigned long long)npes;
        unsigned long long ops = (unsigned long long)blocks * threads * iters * npes;
        GT_EXPECT(h64[0] == want, "contended add: %llu, want %llu", h64[0], want);
        GT_EXPECT(h64[1] == ops, "contended inc: %llu, want %llu", h64[1], ops);
        GT_EXPECT(h32 == (unsigned int)ops, "contended 32-bit fetch_add: %u, want %llu", h32, ops);
    }

    GT_CK(hipFree(res));
    shmem_free(buf);
    return gt_finish("dev_amo");
}
