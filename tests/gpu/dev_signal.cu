/* Device signals, wait/test and memory ordering between PEs 0 and 1.
 *  1. put_signal in every shape (typed, sized, bytes; blocking and _nbi; SET and ADD),
 *     signal_wait_until and signal_fetch.
 *  2. The wait_until/test families (scalar, all/any/some, vector forms, status masks).
 *  3. Ordering: many workgroups of PE 0 write their slices of a buffer on PE 1, each then
 *     adds 1 to a signal; PE 1's workgroups wait for the full count and check every byte,
 *     then acknowledge; several rounds with new data each round. */
#include "gpu_test.h"

#define NEL 1000

__global__ void k_put_signal(int *b, uint64_t *sig, int me) {
    if (me == 0) {
        shmem_int_put_signal(b + NEL, b, NEL, sig, 1, SHMEM_SIGNAL_ADD, 1);
        shmem_int_put_signal_nbi(b + 2 * NEL, b, NEL, sig, 1, SHMEM_SIGNAL_ADD, 1);
        shmem_put32_signal(b + 3 * NEL, b, NEL, sig, 1, SHMEM_SIGNAL_ADD, 1);
        shmem_put64_signal_nbi(b + 4 * NEL, b, NEL / 2, sig, 1, SHMEM_SIGNAL_ADD, 1);
        shmem_putmem_signal(b + 5 * NEL, b, NEL * sizeof(int), sig, 1, SHMEM_SIGNAL_ADD, 1);
        shmem_putmem_signal_nbi(b + 6 * NEL, b, NEL * sizeof(int), sig, 1, SHMEM_SIGNAL_ADD, 1);
        shmem_quiet();
        /* SET after the adds: PE 1 waits for 6 adds, then for the value 100. */
        shmem_uint64_wait_until(sig + 1, SHMEM_CMP_EQ, 1); /* PE 1 saw the adds */
        shmem_int_put_signal(b + 7 * NEL, b, NEL, sig, 100, SHMEM_SIGNAL_SET, 1);
    } else if (me == 1) {
        uint64_t v = shmem_signal_wait_until(sig, SHMEM_CMP_GE, 6);
        b[8 * NEL] = (int)v;
        b[8 * NEL + 1] = (int)shmem_signal_fetch(sig);
        shmem_uint64_p(sig + 1, 1, 0);
        b[8 * NEL + 2] = (int)shmem_signal_wait_until(sig, SHMEM_CMP_EQ, 100);
    }
}

/* PE 0 raises PE 1's ivars in steps; PE 1 watches with every wait/test form and
 * acknowledges each step on PE 0's ack word. */
__global__ void k_wait(long *iv, long *ack, long *out, int me) {
    if (me == 0) {
        shmem_long_p(&iv[2], 1, 1); /* step 1: only ivars[2] */
        shmem_quiet();
        shmem_long_wait_until(ack, SHMEM_CMP_GE, 1);
        for (int i = 0; i < 4; ++i) /* step 2: all of them */
            shmem_long_p(&iv[i], 1, 1);
        shmem_quiet();
        shmem_long_wait_until(ack, SHMEM_CMP_GE, 2);
        shmem_long_atomic_set(&iv[3], 7, 1); /* step 3: ivars[3] = 7 */
    } else if (me == 1) {
        size_t idx[4] = {9, 9, 9, 9};
        int status[4] = {0, 0, 1, 0};
        long cmpv[4] = {1, 1, 1, 7};
        out[0] = (long)shmem_long_wait_until_any(iv, 4, NULL, SHMEM_CMP_EQ, 1); /* 2 */
        out[1] = (long)shmem_long_test_any(iv, 4, NULL, SHMEM_CMP_EQ, 1);       /* 2 */
        out[2] = (long)shmem_long_test_some(iv, 4, idx, NULL, SHMEM_CMP_EQ, 1); /* 1 */
        out[3] = (long)idx[0];                                                  /* 2 */
        out[4] = shmem_long_test_all(iv, 4, NULL, SHMEM_CMP_EQ, 1);             /* 0 */
        out[5] = (long)shmem_long_test_any(iv, 4, status, SHMEM_CMP_EQ, 1);     /* none */
        out[6] = shmem_long_test(&iv[2], SHMEM_CMP_NE, 0);                      /* 1 */
        shmem_long_atomic_set(ack, 1, 0);
        shmem_long_wait_until_all(iv, 4, NULL, SHMEM_CMP_EQ, 1);
        out[7] = shmem_long_test_all(iv, 4, NULL, SHMEM_CMP_GE, 1);                     /* 1 */
        out[8] = (long)shmem_long_wait_until_some(iv, 4, idx, status, SHMEM_CMP_EQ, 1); /* 3 */
        out[9] = (long)(idx[0] + idx[1] * 10 + idx[2] * 100);                           /* 310 */
        shmem_long_atomic_set(ack, 2, 0);
        shmem_long_wait_until(&iv[3], SHMEM_CMP_GT, 1);
        out[10] = iv[3]; /* 7 */
        shmem_long_wait_until_all_vector(iv, 4, NULL, SHMEM_CMP_EQ, cmpv);
        out[11] = shmem_long_test_all_vector(iv, 4, NULL, SHMEM_CMP_EQ, cmpv); /* 1 */
        /* A wait whose comparisons can never hold would block for ever: test. */
        out[12] = (long)shmem_long_test_any_vector(iv, 4, status, SHMEM_CMP_GT,
                                                   cmpv); /* SIZE_MAX: none > */
        out[16] = (long)shmem_long_wait_until_any_vector(iv, 4, status, SHMEM_CMP_GE, cmpv); /* 0 */
        out[13] = (long)shmem_long_test_some_vector(iv, 4, idx, NULL, SHMEM_CMP_LE, cmpv);   /* 4 */
        out[14] =
            (long)shmem_long_wait_until_some_vector(iv, 4, idx, status, SHMEM_CMP_EQ, cmpv); /* 3 */
        out[15] = (long)shmem_long_test_any_vector(iv, 4, NULL, SHMEM_CMP_NE, cmpv); /* none */
    }
}

/* Ordering across many workgroups. */
__global__ void k_order(unsigned char *data, size_t slice, uint64_t *sig, uint64_t *ack, int rounds,
                        int me) {
    unsigned char *mine = data + (size_t)blockIdx.x * slice;
    unsigned char *src = data + (size_t)gridDim.x * slice + (size_t)blockIdx.x * slice;
    __shared__ int bad;
    for (int r = 1; r <= rounds; ++r) {
        if (me == 0) {
            if (threadIdx.x == 0) /* PE 1 checked round r - 1 everywhere */
                shmem_signal_wait_until(ack, SHMEM_CMP_GE, (uint64_t)gridDim.x * (r - 1));
            __syncthreads();
            for (size_t i = threadIdx.x; i < slice; i += blockDim.x)
                src[i] = (unsigned char)(i * 7 + blockIdx.x * 3 + r);
            __syncthreads();
            shmemx_putmem_nbi_wg(mine, src, slice, 1);
            shmem_quiet(); /* each thread: its stores, released at system scope */
            __syncthreads();
            if (threadIdx.x == 0) /* one signal per workgroup, after every thread's quiet */
                shmem_putmem_signal(data, data, 0, sig, 1, SHMEM_SIGNAL_ADD, 1);
        } else if (me == 1) {
            if (threadIdx.x == 0) {
                bad = 0;
                shmem_signal_wait_until(sig, SHMEM_CMP_GE, (uint64_t)gridDim.x * r);
            }
            __syncthreads();
            /* Every thread acquires, then reads the whole buffer (all workgroups' slices). */
            (void)shmem_signal_fetch(sig);
            for (size_t i = threadIdx.x; i < slice * gridDim.x; i += blockDim.x) {
                size_t b = i / slice, j = i % slice;
                if (data[i] != (unsigned char)(j * 7 + b * 3 + r))
                    atomicAdd(&bad, 1);
            }
            __syncthreads();
            if (threadIdx.x == 0) {
                if (bad)
                    atomicAdd((unsigned long long *)&ack[1],
                              (unsigned long long)bad); /* local tally */
                shmem_uint64_atomic_add(ack, 1, 0);
            }
            /* Nobody may read round r + 1 data before every workgroup checked round r:
             * PE 0 waits for all acks before writing again. */
        }
    }
}

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    if (npes < 2) {
        fprintf(stderr, "dev_signal needs 2 PEs\n");
        return 1;
    }
    size_t bsz = 64 << 20;
    char *buf = (char *)shmem_calloc(1, bsz);

    /* 1. put_signal. */
    {
        int *b = (int *)buf;
        uint64_t *sig = (uint64_t *)(buf + (1 << 20));
        int h[9 * NEL];
        memset(h, 0, sizeof h);
        for (int i = 0; i < NEL; ++i)
            h[i] = i * 5 + 1;
        GT_H2D(b, h, sizeof h);
        shmem_barrier_all();
        k_put_signal<<<1, 1>>>(b, sig, me);
        GT_SYNC();
        shmem_barrier_all();
        if (me == 1) {
            GT_CK(hipMemcpy(h, b, sizeof h, hipMemcpyDeviceToHost));
            for (int r = 1; r <= 7; ++r)
                for (int i = 0; i < NEL; ++i)
                    GT_EXPECT(h[r * NEL + i] == i * 5 + 1, "put_signal shape %d elem %d", r, i);
            GT_EXPECT(h[8 * NEL] >= 6, "signal_wait_until returned %d", h[8 * NEL]);
            GT_EXPECT(h[8 * NEL + 1] >= 6, "signal_fetch returned %d", h[8 * NEL + 1]);
            GT_EXPECT(h[8 * NEL + 2] == 100, "SET signal: %d", h[8 * NEL + 2]);
        }
    }

    /* 2. wait/test. */
    {
        long *iv = (long *)(buf + (2 << 20)), *ack = iv + 8, *out;
        long ho[17];
        GT_CK(hipMalloc((void **)&out, sizeof ho));
        GT_CK(hipMemset(out, 0, sizeof ho));
        shmem_barrier_all();
        k_wait<<<1, 1>>>(iv, ack, out, me);
        GT_SYNC();
        shmem_barrier_all();
        if (me == 1) {
            long want[17] = {2,
                             2,
                             1,
                             2,
                             0,
                             (long)SIZE_MAX,
                             1,
                             1,
                             3,
                             310,
                             7,
                             1,
                             (long)SIZE_MAX,
                             4,
                             3,
                             (long)SIZE_MAX,
                             0};
            GT_CK(hipMemcpy(ho, out, sizeof ho, hipMemcpyDeviceToHost));
            for (int i = 0; i < 17; ++i)
                GT_EXPECT(ho[i] == want[i], "wait/test step %d: %ld, want %ld", i, ho[i], want[i]);
        }
        GT_CK(hipFree(out));
    }

    /* 3. Ordering. */
    {
        const int blocks = 64, threads = 256, rounds = 8;
        size_t slice = 96 * 1024 + 8;
        unsigned char *data = (unsigned char *)buf + (4 << 20);
        uint64_t *sig = (uint64_t *)(buf + (3 << 20)), *ack = sig + 16;
        uint64_t host_ack[2];
        shmem_barrier_all();
        k_order<<<blocks, threads>>>(data, slice, sig, ack, rounds, me);
        GT_SYNC();
        shmem_barrier_all();
        if (me == 1) {
            GT_CK(hipMemcpy(host_ack, ack, sizeof host_ack, hipMemcpyDeviceToHost));
            GT_EXPECT(host_ack[1] == 0, "ordering: %llu stale bytes seen after the signal",
                      (unsigned long long)host_ack[1]);
        } else if (me == 0) {
            GT_CK(hipMemcpy(host_ack, ack, sizeof host_ack, hipMemcpyDeviceToHost));
            GT_EXPECT(host_ack[0] == (uint64_t)blocks * rounds, "ordering: %llu acks",
                      (unsigned long long)host_ack[0]);
        }
    }

    shmem_free(buf);
    return gt_finish("dev_signal");
}
