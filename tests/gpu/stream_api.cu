/* The stream-ordered host API (shmemx_*_on_stream, shmemx_collective_launch),
 * 2 PEs, each on its own stream:
 *  1. putmem / getmem / putmem_signal on a stream, data checked.
 *  2. Many operations queued without a host synchronization (chunked puts, each
 *     with a signal add), then one stream synchronize; the peer's stream waits
 *     for the count and a kernel checks every byte.
 *  3. Signal ordering: PE 0 fills and puts with a signal, PE 1's stream waits for
 *     it, a consumer kernel checks the data and PE 1 acknowledges with a signal
 *     PE 0's stream waits for; several rounds, all queued before one sync.
 *  4. Every comparison of signal_wait_until_on_stream on a word that holds.
 *  5. barrier_all_on_stream 100 times interleaved with puts (each barrier makes
 *     the peer's put visible to the kernel after it), then with a device-API
 *     barrier kernel on the same stream (one epoch) and after a host-API
 *     non-blocking put (quiet_on_stream orders it).
 *  6. collective_launch: a small grid runs, an oversized one is refused.
 *  7. Refusals: bad comparison, bad signal operation, an address off the
 *     device heap. */
#include "gpu_test.h"

#include <shmemx.h>

#include <stdint.h>

#if !defined(__HIPCC__)
#define hipDeviceGetAttribute cudaDeviceGetAttribute
#define hipDeviceAttributeMultiprocessorCount cudaDevAttrMultiProcessorCount
#define hipGetDevice cudaGetDevice
#endif

#define BIG ((size_t)8 << 20)
#define CHUNK ((size_t)64 << 10)
#define NCHUNK 64 /* CHUNK * NCHUNK <= BIG */
#define ROUNDS 10
#define NBAR 100

__device__ static unsigned char pattern(size_t i, unsigned seed) {
    return (unsigned char)((i * 2654435761u >> 7) + seed * 131u + 1u);
}

__global__ void k_fill(unsigned char *p, size_t n, unsigned seed) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        p[i] = pattern(i, seed);
}

/* Counts the bytes of p that differ from the pattern of `seed`. */
__global__ void k_check(const unsigned char *p, size_t n, unsigned seed, unsigned long long *bad) {
    unsigned long long b = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        b += ((volatile const unsigned char *)p)[i] != pattern(i, seed);
    if (b)
        atomicAdd(bad, b);
}

/* Slot i of the barrier test must hold the peer's value. */
__global__ void k_slot(const long *slots, int i, long want, unsigned long long *bad) {
    if (((volatile const long *)slots)[i] != want)
        atomicAdd(bad, 1ull);
}

/* The device API's barrier, on the same stream as the stream barriers. */
__global__ void k_dev_barrier(void) { shmem_barrier_all(); }

__global__ void k_mark(int *out) {
    if (threadIdx.x == 0)
        out[blockIdx.x] = (int)blockIdx.x + 1;
}

static long host_global; /* symmetric, but host memory */

static unsigned long long read_bad(unsigned long long *bad) {
    unsigned long long h = 0;
    GT_CK(hipMemcpy(&h, bad, sizeof h, hipMemcpyDeviceToHost));
    GT_CK(hipMemset(bad, 0, sizeof h));
    return h;
}

#define OK(call)                                                                                   \
    do {                                                                                           \
        int ok_rc_ = (call);                                                                       \
        GT_EXPECT(ok_rc_ == SHMEMX_STREAM_OK, "%s returned %d", #call, ok_rc_);                    \
    } while (0)

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    if (npes != 2) {
        if (me == 0)
            fprintf(stderr, "stream_api: needs 2 PEs (got %d)\n", npes);
        shmem_finalize();
        return 2;
    }
    int peer = 1 - me;
    hipStream_t s;
    GT_CK(hipStreamCreate(&s));
    void *st = (void *)s;

    unsigned char *dst = (unsigned char *)shmem_malloc(BIG); /* symmetric */
    unsigned char *gsrc = (unsigned char *)shmem_malloc(BIG);
    uint64_t *sig = (uint64_t *)shmem_calloc(4, sizeof(uint64_t));
    long *slots = (long *)shmem_calloc(NBAR, sizeof(long));
    unsigned char *src, *local;
    unsigned long long *bad;
    long *vals;
    GT_CK(hipMalloc((void **)&src, BIG));
    GT_CK(hipMalloc((void **)&local, BIG));
    GT_CK(hipMalloc((void **)&bad, sizeof(*bad)));
    GT_CK(hipMalloc((void **)&vals, NBAR * sizeof(long)));
    GT_CK(hipMemset(bad, 0, sizeof(*bad)));
    if (!dst || !gsrc || !sig || !slots) {
        fprintf(stderr, "[PE %d] shmem_malloc failed\n", me);
        shmem_global_exit(2);
    }

    /* 1. put, get, put with signal. */
    k_fill<<<64, 256, 0, s>>>(src, BIG, 10 + me);
    k_fill<<<64, 256, 0, s>>>(gsrc, BIG, 20 + me);
    GT_CK(hipGetLastError());
    GT_CK(hipStreamSynchronize(s));
    shmem_barrier_all(); /* both PEs' gsrc filled */
    OK(shmemx_putmem_on_stream(dst, src, BIG, peer, st));
    OK(shmemx_getmem_on_stream(local, gsrc, BIG, peer, st));
    GT_CK(hipStreamSynchronize(s));
    shmem_barrier_all(); /* both puts landed */
    k_check<<<64, 256, 0, s>>>(dst, BIG, 10 + peer, bad);
    k_check<<<64, 256, 0, s>>>(local, BIG, 20 + peer, bad);
    GT_CK(hipStreamSynchronize(s));
    unsigned long long b = read_bad(bad);
    GT_EXPECT(b == 0, "put/get on a stream: %llu bytes wrong", b);

    shmem_barrier_all(); /* the checks read dst before it is overwritten */
    k_fill<<<4, 256, 0, s>>>(local, 4096, 30 + me); /* before the put: same stream */
    OK(shmemx_putmem_signal_on_stream(dst, local, 4096, &sig[0], 7, SHMEM_SIGNAL_SET, peer, st));
    OK(shmemx_signal_wait_until_on_stream(&sig[0], SHMEM_CMP_EQ, 7, st));
    k_check<<<4, 256, 0, s>>>(dst, 4096, 30 + peer, bad);
    GT_CK(hipGetLastError());
    GT_CK(hipStreamSynchronize(s));
    b = read_bad(bad);
    GT_EXPECT(b == 0, "put_signal on a stream: %llu bytes wrong", b);
    uint64_t hs = 0;
    GT_CK(hipMemcpy(&hs, &sig[0], sizeof hs, hipMemcpyDeviceToHost));
    GT_EXPECT(hs == 7, "put_signal SET: signal %llu, want 7", (unsigned long long)hs);

    /* 2. Many operations, one synchronize: NCHUNK puts, each adding 1 to the
     * peer's sig[1]; the peer's stream waits for all of them, then checks. */
    shmem_barrier_all();
    for (int c = 0; c < NCHUNK; ++c)
        OK(shmemx_putmem_signal_on_stream(dst + c * CHUNK, src + c * CHUNK, CHUNK, &sig[1], 1,
                                          SHMEM_SIGNAL_ADD, peer, st));
    OK(shmemx_signal_wait_until_on_stream(&sig[1], SHMEM_CMP_GE, NCHUNK, st));
    k_check<<<64, 256, 0, s>>>(dst, NCHUNK * CHUNK, 10 + peer, bad);
    GT_CK(hipGetLastError());
    GT_CK(hipStreamSynchronize(s));
    b = read_bad(bad);
    GT_EXPECT(b == 0, "%d chunked puts with signals: %llu bytes wrong", NCHUNK, b);
    GT_CK(hipMemcpy(&hs, &sig[1], sizeof hs, hipMemcpyDeviceToHost));
    GT_EXPECT(hs == NCHUNK, "signal adds: %llu, want %d", (unsigned long long)hs, NCHUNK);

    /* 3. Signal ordering, ROUNDS rounds queued at once. sig[2]: data signal on
     * PE 1, sig[3]: acknowledgement on PE 0. */
    shmem_barrier_all();
    const size_t RB = (size_t)1 << 20;
    for (unsigned r = 1; r <= ROUNDS; ++r) {
        if (me == 0) {
            OK(shmemx_signal_wait_until_on_stream(&sig[3], SHMEM_CMP_GE, r - 1, st));
            k_fill<<<64, 256, 0, s>>>(src, RB, 100 + r);
            OK(shmemx_putmem_signal_on_stream(dst, src, RB, &sig[2], r, SHMEM_SIGNAL_SET, 1, st));
        } else {
            OK(shmemx_signal_wait_until_on_stream(&sig[2], SHMEM_CMP_GE, r, st));
            k_check<<<64, 256, 0, s>>>(dst, RB, 100 + r, bad);
            OK(shmemx_putmem_signal_on_stream(dst, src, 0, &sig[3], r, SHMEM_SIGNAL_SET, 0, st));
        }
    }
    GT_CK(hipGetLastError());
    GT_CK(hipStreamSynchronize(s));
    b = read_bad(bad);
    GT_EXPECT(b == 0, "signal ordering over %d rounds: %llu bytes wrong", ROUNDS, b);

    /* 4. Every comparison, on a word that already satisfies it. */
    uint64_t five = 5;
    GT_H2D(&sig[1], &five, sizeof five);
    OK(shmemx_signal_wait_until_on_stream(&sig[1], SHMEM_CMP_EQ, 5, st));
    OK(shmemx_signal_wait_until_on_stream(&sig[1], SHMEM_CMP_NE, 4, st));
    OK(shmemx_signal_wait_until_on_stream(&sig[1], SHMEM_CMP_GT, 4, st));
    OK(shmemx_signal_wait_until_on_stream(&sig[1], SHMEM_CMP_GE, 5, st));
    OK(shmemx_signal_wait_until_on_stream(&sig[1], SHMEM_CMP_LT, 6, st));
    OK(shmemx_signal_wait_until_on_stream(&sig[1], SHMEM_CMP_LE, 5, st));
    OK(shmemx_quiet_on_stream(st));
    GT_CK(hipStreamSynchronize(s));

    /* 5. Stream barriers interleaved with puts: slot i of the peer gets this
     * PE's value before barrier i; after it, slot i here holds the peer's. */
    long hv[NBAR];
    for (int i = 0; i < NBAR; ++i)
        hv[i] = 1000L * i + me + 1;
    GT_H2D(vals, hv, sizeof hv);
    shmem_barrier_all();
    for (int i = 0; i < NBAR; ++i) {
        OK(shmemx_putmem_on_stream(&slots[i], &vals[i], sizeof(long), peer, st));
        OK(shmemx_barrier_all_on_stream(st));
        k_slot<<<1, 1, 0, s>>>(slots, i, 1000L * i + peer + 1, bad);
    }
    /* The device API's barrier on the same epoch, between stream barriers. */
    k_dev_barrier<<<1, 1, 0, s>>>();
    OK(shmemx_barrier_all_on_stream(st));
    k_dev_barrier<<<1, 1, 0, s>>>();
    GT_CK(hipGetLastError());
    GT_CK(hipStreamSynchronize(s));
    b = read_bad(bad);
    GT_EXPECT(b == 0, "%d stream barriers: %llu slots not yet written after one", NBAR, b);

    /* A host-API non-blocking put (library stream), then quiet_on_stream and a
     * stream barrier: the peer's kernel after its barrier sees it. */
    shmem_barrier_all();
    shmem_putmem_nbi(&slots[0], &vals[NBAR - 1], sizeof(long), peer);
    OK(shmemx_barrier_all_on_stream(st)); /* includes quiet_on_stream */
    k_slot<<<1, 1, 0, s>>>(slots, 0, 1000L * (NBAR - 1) + peer + 1, bad);
    GT_CK(hipGetLastError());
    GT_CK(hipStreamSynchronize(s));
    shmem_quiet();
    b = read_bad(bad);
    GT_EXPECT(b == 0, "host nbi put not ordered by barrier_all_on_stream");

    /* 6. collective_launch. */
    int *marks;
    GT_CK(hipMalloc((void **)&marks, 4 * sizeof(int)));
    GT_CK(hipMemset(marks, 0, 4 * sizeof(int)));
    unsigned grid[3] = {4, 1, 1}, block[3] = {64, 1, 1};
    void *args[] = {&marks};
    OK(shmemx_collective_launch((const void *)k_mark, grid, block, args, 0, st));
    GT_CK(hipStreamSynchronize(s));
    int hm[4] = {0, 0, 0, 0};
    GT_CK(hipMemcpy(hm, marks, sizeof hm, hipMemcpyDeviceToHost));
    GT_EXPECT(hm[0] == 1 && hm[1] == 2 && hm[2] == 3 && hm[3] == 4,
              "collective_launch: marks %d %d %d %d", hm[0], hm[1], hm[2], hm[3]);
    int dev = 0, mps = 0;
    GT_CK(hipGetDevice(&dev));
    GT_CK(hipDeviceGetAttribute(&mps, hipDeviceAttributeMultiprocessorCount, dev));
    unsigned huge[3] = {(unsigned)mps * 64u + 1u, 1, 1}, wide[3] = {1024, 1, 1};
    int rc = shmemx_collective_launch((const void *)k_mark, huge, wide, args, 0, st);
    GT_EXPECT(rc == SHMEMX_STREAM_ENOTRESIDENT, "oversized collective_launch returned %d", rc);
    unsigned zero[3] = {0, 1, 1};
    rc = shmemx_collective_launch((const void *)k_mark, zero, block, args, 0, st);
    GT_EXPECT(rc == SHMEMX_STREAM_EINVAL, "empty grid returned %d", rc);

    /* 7. Refusals. */
    rc = shmemx_signal_wait_until_on_stream(&sig[1], 42, 0, st);
    GT_EXPECT(rc == SHMEMX_STREAM_EINVAL, "bad comparison returned %d", rc);
    rc = shmemx_putmem_signal_on_stream(dst, src, 8, &sig[1], 1, 42, peer, st);
    GT_EXPECT(rc == SHMEMX_STREAM_EINVAL, "bad signal operation returned %d", rc);
    rc = shmemx_putmem_on_stream(&host_global, src, sizeof(long), peer, st);
    GT_EXPECT(rc == SHMEMX_STREAM_EINVAL, "host-memory destination returned %d", rc);
    GT_CK(hipStreamSynchronize(s));

    GT_CK(hipFree(marks));
    GT_CK(hipFree(vals));
    GT_CK(hipFree(bad));
    GT_CK(hipFree(local));
    GT_CK(hipFree(src));
    shmem_barrier_all();
    shmem_free(slots);
    shmem_free(sig);
    shmem_free(gsrc);
    shmem_free(dst);
    GT_CK(hipStreamDestroy(s));
    return gt_finish("stream_api");
}
