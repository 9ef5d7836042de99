/* Triggered plans from kernels, stream-ordered, 2 PEs (buffers on the device heap,
 * chains on the cuda engine):
 *  1. 2D tiles with unaligned edges (a 300 x 200 matrix of floats in 64 x 48 tiles, 3
 *     tiles per chunk), 3 writer workgroups per chunk marking in turn, 100 rounds with
 *     no host synchronization inside the loop; a consumer kernel checks every element
 *     of every PE's block each round; the mismatch count is checked after the loop.
 *  2. Rows, blocking mode on the same device heap: start, producer kernel, host wait,
 *     stream sync, next_round; 20 rounds.
 *  3. Errors returned once: PE 0's producer marks a chunk once more than it has
 *     writers in the last round: the next blocking wait returns EMARKS, the one after
 *     ESTATE; close returns 0 (already reported).
 *  4. A peer that never reaches the fence: PE 1 stops after round 1's wait; PE 0
 *     queues round 1's fence and then three more rounds; the fence's timeout (1 s) is
 *     returned once by the next wait, the queued rounds end at once after it (the
 *     whole stream takes about one timeout), and the library's barriers and puts work
 *     afterwards. */
#include <time.h>

#include "gpu_test.h"

#define ROUNDS 100
#define M 300
#define N 200
#define TR 64
#define TC 48
#define TILES_PER_CHUNK 3
#define WRITERS 3

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

__device__ static float fval(int pe, size_t i, size_t j, unsigned r) {
    return (float)(pe * 1000000 + (int)(i * N + j)) + (float)r * 0.5f;
}

/* PE blocks are stacked: rows [pe * M, (pe + 1) * M). Chunk k of PE me holds tiles
 * [k * 3, k * 3 + 3) in row-major tile order; workgroup w of the chunk writes every
 * WRITERS-th row of them, then marks. */
__global__ void k_tiles(shmemx_plan_view_t *view, float *a, int me, int chunk0, unsigned r) {
    const int gc = (N + TC - 1) / TC, ntiles = ((M + TR - 1) / TR) * gc;
    int k = blockIdx.x / WRITERS, w = blockIdx.x % WRITERS;
    for (int t = k * TILES_PER_CHUNK; t < (k + 1) * TILES_PER_CHUNK && t < ntiles; t++) {
        int r0 = (t / gc) * TR, c0 = (t % gc) * TC;
        for (int i = r0 + w; i < r0 + TR && i < M; i += WRITERS)
            for (int j = c0 + threadIdx.x; j < c0 + TC && j < N; j += blockDim.x)
                a[((size_t)me * M + i) * N + j] = fval(me, i, j, r);
    }
    shmemx_plan_mark_ready(view, chunk0 + k);
}

__global__ void k_check(const float *a, int npes, unsigned r, unsigned long long *bad) {
    for (size_t x = (size_t)blockIdx.x * blockDim.x + threadIdx.x; x < (size_t)npes * M * N;
         x += (size_t)gridDim.x * blockDim.x) {
        int pe = (int)(x / ((size_t)M * N));
        size_t e = x % ((size_t)M * N);
        if (a[x] != fval(pe, e / N, e % N, r))
            atomicAdd(bad, 1ull);
    }
}

/* Rows: chunk k of PE me is rows [k * 8, k * 8 + 8) of the PE's 32-row block of 1 KiB rows. */
__global__ void k_rows(shmemx_plan_view_t *view, unsigned *b, int me, int chunk0, unsigned r) {
    int k = blockIdx.x;
    for (int i = threadIdx.x; i < 8 * 256; i += blockDim.x)
        b[(size_t)me * 32 * 256 + (size_t)k * 8 * 256 + i] = r * 7u + (unsigned)me;
    shmemx_plan_mark_ready(view, chunk0 + k);
}

__global__ void k_mark(shmemx_plan_view_t *view, int c) { shmemx_plan_mark_ready(view, c); }

static int tile_chunks(int me, shmemx_region_t *regs, shmemx_chunk_t *chunks) {
    shmemx_tiling_t t = {
        (size_t)me * M * N * sizeof(float), sizeof(float), N * sizeof(float), M, N, TR, TC};
    return shmemx_plan_tiles(&t, NULL, 0, TILES_PER_CHUNK, WRITERS, regs, chunks);
}

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    hipStream_t s;
    GT_CK(hipStreamCreate(&s));
    unsigned long long *bad;
    GT_CK(hipMalloc((void **)&bad, sizeof(*bad)));
    GT_CK(hipMemset(bad, 0, sizeof(*bad)));

    /* ---- 1. tiles, stream-ordered */
    float *a = (float *)shmem_calloc((size_t)npes * M * N, sizeof(float));
    shmemx_region_t regs[64];
    shmemx_chunk_t chunks[64];
    int nch = tile_chunks(me, regs, chunks);
    /* 5 x 5 tiles (the last row and column partial), 3 per chunk */
    GT_EXPECT(nch == 9, "tile schedule: %d chunks, expected 9", nch);
    shmemx_plan_config_t cfg = SHMEMX_PLAN_CONFIG_INIT;
    cfg.timeout_s = 10.0;
    shmemx_plan_t p;
    int rc =
        shmemx_plan_create(a, (size_t)npes * M * N * sizeof(float), chunks, (size_t)nch, &cfg, &p);
    GT_EXPECT(rc == 0, "create (tiles): %s", shmemx_plan_errmsg(NULL));
    int c0 = shmemx_plan_chunk_id(p, me, 0);
    double t0 = now_s();
    for (unsigned r = 1; r <= ROUNDS && !rc; r++) {
        shmemx_plan_view_t *v;
        rc = shmemx_plan_start(p, &v);
        if (!rc) {
            k_tiles<<<nch * WRITERS, 64, 0, s>>>(v, a, me, c0, r);
            rc = shmemx_plan_wait_on_stream(p, s);
        }
        if (!rc) {
            k_check<<<80, 256, 0, s>>>(a, npes, r, bad);
            rc = shmemx_plan_next_round_on_stream(p, s);
        }
    }
    double host = now_s() - t0;
    GT_CK(hipStreamSynchronize(s));
    double all = now_s() - t0;
    GT_EXPECT(rc == 0, "stream loop: %s (%s)", shmemx_plan_strerror(rc), shmemx_plan_errmsg(p));
    rc = shmemx_plan_wait(p, -1);
    GT_EXPECT(rc == 0, "errors of the stream: %s (%s)", shmemx_plan_strerror(rc),
              shmemx_plan_errmsg(p));
    unsigned long long nbad = 0;
    GT_CK(hipMemcpy(&nbad, bad, sizeof(nbad), hipMemcpyDeviceToHost));
    GT_EXPECT(nbad == 0, "tiles: %llu wrong elements over %d rounds", nbad, ROUNDS);
    printf("[PE %d] tiles: %d rounds, host %.1f us/round, GPU %.1f us/round\n", me, ROUNDS,
           host * 1e6 / ROUNDS, all * 1e6 / ROUNDS);
    GT_EXPECT(shmemx_plan_close(p, -1) == 0, "close (tiles): %s", shmemx_plan_errmsg(p));

    /* ---- 2. rows, blocking */
    unsigned *b = (unsigned *)shmem_calloc((size_t)npes * 32 * 256, sizeof(unsigned));
    shmemx_region_t rregs[4];
    shmemx_chunk_t rch[4];
    shmemx_plan_rows((size_t)me * 32 * 1024, 1024, 32, 0, 4, 1, rregs, rch);
    rc = shmemx_plan_create(b, (size_t)npes * 32 * 1024, rch, 4, &cfg, &p);
    GT_EXPECT(rc == 0, "create (rows): %s", shmemx_plan_errmsg(NULL));
    c0 = shmemx_plan_chunk_id(p, me, 0);
    unsigned *hb = (unsigned *)malloc((size_t)npes * 32 * 1024);
    for (unsigned r = 1; r <= 20 && !rc; r++) {
        shmemx_plan_view_t *v;
        rc = shmemx_plan_start(p, &v);
        if (!rc) {
            k_rows<<<4, 256, 0, s>>>(v, b, me, c0, r);
            rc = shmemx_plan_wait(p, -1);
        }
        if (!rc) {
            GT_CK(hipMemcpy(hb, b, (size_t)npes * 32 * 1024, hipMemcpyDeviceToHost));
            for (int q = 0; q < npes; q++)
                if (hb[(size_t)q * 32 * 256 + 5] != r * 7u + (unsigned)q ||
                    hb[(size_t)q * 32 * 256 + 32 * 256 - 1] != r * 7u + (unsigned)q) {
                    GT_EXPECT(0, "rows round %u: PE %d's block holds %u", r, q,
                              hb[(size_t)q * 32 * 256 + 5]);
                    break;
                }
            rc = shmemx_plan_next_round(p);
        }
    }
    GT_EXPECT(rc == 0, "blocking loop: %s (%s)", shmemx_plan_strerror(rc), shmemx_plan_errmsg(p));
    GT_EXPECT(shmemx_plan_close(p, -1) == 0, "close (rows): %s", shmemx_plan_errmsg(p));

    /* ---- 3. an extra mark, returned once */
    rc = shmemx_plan_create(b, (size_t)npes * 32 * 1024, rch, 4, &cfg, &p);
    GT_EXPECT(rc == 0, "create (marks): %s", shmemx_plan_errmsg(NULL));
    for (unsigned r = 1; r <= 3; r++) {
        shmemx_plan_view_t *v;
        GT_EXPECT(shmemx_plan_start(p, &v) == 0, "marks: start %u: %s", r, shmemx_plan_errmsg(p));
        k_rows<<<4, 256, 0, s>>>(v, b, me, c0, r);
        if (r == 3 && me == 0)
            k_mark<<<1, 32, 0, s>>>(v, c0); /* one more mark than chunk c0 has writers */
        GT_EXPECT(shmemx_plan_wait_on_stream(p, s) == 0, "marks: wait_on_stream %u", r);
        if (r < 3)
            GT_EXPECT(shmemx_plan_next_round_on_stream(p, s) == 0, "marks: next_round %u", r);
    }
    GT_CK(hipStreamSynchronize(s));
    rc = shmemx_plan_wait(p, -1);
    if (me == 0) {
        GT_EXPECT(rc == SHMEMX_PLAN_EMARKS, "extra mark: wait gave %d, expected EMARKS", rc);
        printf("[PE 0] extra mark reported: %s\n", shmemx_plan_errmsg(p));
        rc = shmemx_plan_wait(p, -1);
        GT_EXPECT(rc == SHMEMX_PLAN_ESTATE, "extra mark, second wait: %d, expected ESTATE", rc);
    } else {
        GT_EXPECT(rc == 0, "PE 1 saw an error: %s", shmemx_plan_errmsg(p));
    }
    rc = shmemx_plan_close(p, -1);
    GT_EXPECT(rc == 0, "close after a reported error: %d (%s)", rc, shmemx_plan_errmsg(p));

    /* ---- 4. a peer that never reaches the fence */
    cfg.timeout_s = 1.0;
    rc = shmemx_plan_create(b, (size_t)npes * 32 * 1024, rch, 4, &cfg, &p);
    GT_EXPECT(rc == 0, "create (fence): %s", shmemx_plan_errmsg(NULL));
    shmemx_plan_view_t *v;
    GT_EXPECT(shmemx_plan_start(p, &v) == 0, "fence: start");
    k_rows<<<4, 256, 0, s>>>(v, b, me, c0, 1);
    GT_EXPECT(shmemx_plan_wait_on_stream(p, s) == 0, "fence: wait_on_stream");
    if (me == 0) {
        t0 = now_s();
        GT_EXPECT(shmemx_plan_next_round_on_stream(p, s) == 0, "fence: next_round_on_stream");
        for (unsigned r = 2; r <= 4; r++) {
            GT_EXPECT(shmemx_plan_start(p, &v) == 0, "fence: start %u: %s", r,
                      shmemx_plan_errmsg(p));
            GT_EXPECT(shmemx_plan_wait_on_stream(p, s) == 0, "fence: wait_on_stream %u", r);
            GT_EXPECT(shmemx_plan_next_round_on_stream(p, s) == 0, "fence: next_round %u", r);
        }
        GT_CK(hipStreamSynchronize(s));
        double dt = now_s() - t0;
        rc = shmemx_plan_wait(p, -1);
        GT_EXPECT(rc == SHMEMX_PLAN_ETIMEDOUT, "missing fence: wait gave %d, expected ETIMEDOUT",
                  rc);
        printf("[PE 0] missing fence reported after %.2f s: %s\n", dt, shmemx_plan_errmsg(p));
        GT_EXPECT(dt > 0.9 && dt < 2.5,
                  "three queued rounds after the timeout took %.2f s "
                  "(expected about one timeout)",
                  dt);
        GT_EXPECT(shmemx_plan_wait(p, -1) == SHMEMX_PLAN_ESTATE, "returned twice");
    } else {
        GT_CK(hipStreamSynchronize(s));
    }
    shmemx_plan_close(p, -1);
    /* The library's own barriers and puts still work. */
    shmem_barrier_all();
    int *x = (int *)shmem_calloc(1, sizeof(int));
    shmem_int_p(x, 40 + me, (me + 1) % npes);
    shmem_barrier_all();
    int got = 0;
    GT_CK(hipMemcpy(&got, x, sizeof(int), hipMemcpyDeviceToHost));
    GT_EXPECT(got == 40 + (me + npes - 1) % npes, "put after the failed plan: %d", got);

    printf("[PE %d] plan_stream: %s\n", me, gt_failures ? "FAILED" : "ok");
    shmem_finalize();
    return gt_failures ? 1 : 0;
}
