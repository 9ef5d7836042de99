/* The cuda copy engine (sdma/engine_cuda.c) through the sdma/ API, on one GPU:
 *   - 64 MiB in 1,024 adjacent COPY packets (merged by the proxy), and a 2D window;
 *   - a POLL on a mapped host gate: nothing behind it runs until the host opens it;
 *   - ATOMIC add and CONST_FILL on GPU memory, a FENCE on host memory;
 *   - 12 queues whose streams wait on gates in GPU memory (cuStreamWaitValue32), then
 *     a kernel launched on another stream opens them: with CUDA_DEVICE_MAX_CONNECTIONS=32
 *     (oshrun and the library set it) the kernel is not starved by the waiting streams;
 *   - a copy to a bad address puts its queue in the error state with the CUDA message.
 * Every PE runs it on its own GPU. Needs no shmem_init (libshmem's constructor sets the
 * environment before CUDA starts). In HIP builds the cuda engine does not exist: the
 * program checks that opening it says so. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sdma/sdma.h"
#include "gpu_test.h"

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        fprintf(stderr, "engine_cuda: " __VA_ARGS__);                                              \
        fprintf(stderr, "\n");                                                                     \
        ++gt_failures;                                                                             \
    } while (0)
#define SD(call)                                                                                   \
    do {                                                                                           \
        int sd_rc_ = (call);                                                                       \
        if (sd_rc_ != SDMA_OK) {                                                                   \
            fprintf(stderr, "engine_cuda: %s:%d: %s: %s (%s)\n", __FILE__, __LINE__, #call,        \
                    sdma_strerror(sd_rc_), sdma_last_error());                                     \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* Runtime calls (before any shmem_init: GT_CK would ask for the PE). */
#define CK(call)                                                                                   \
    do {                                                                                           \
        hipError_t ck_rc_ = (call);                                                                \
        if (ck_rc_ != hipSuccess) {                                                                \
            fprintf(stderr, "engine_cuda: %s:%d: %s: %s\n", __FILE__, __LINE__, #call,             \
                    hipGetErrorString(ck_rc_));                                                    \
            exit(2);                                                                               \
        }                                                                                          \
    } while (0)

/* A memset returns before it is done, and the engine copies on streams of its
 * own that nothing orders after it: zero, then wait. */
#define ZERO(p, n)                                                                                 \
    do {                                                                                           \
        CK(hipMemset((p), 0, (n)));                                                                \
        CK(hipDeviceSynchronize());                                                                \
    } while (0)

#define NWAIT 12

#if !defined(__HIPCC__)

__global__ void k_pattern(unsigned char *p, size_t n, unsigned seed) {
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        p[i] = (unsigned char)(i * 131 + seed);
}

__global__ void k_open(uint32_t *gates, int n) {
    for (int i = threadIdx.x; i < n; i += blockDim.x)
        atomicExch_system(&gates[i], 1u);
    __threadfence_system();
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int check_pattern(const unsigned char *dev, size_t off, size_t n, unsigned seed,
                         size_t src_off, const char *what) {
    unsigned char *h = (unsigned char *)malloc(n);
    CK(hipMemcpy(h, dev + off, n, hipMemcpyDeviceToHost));
    for (size_t i = 0; i < n; i++)
        if (h[i] != (unsigned char)((src_off + i) * 131 + seed)) {
            FAIL("%s: byte %zu is %u, expected %u", what, i, h[i],
                 (unsigned char)((src_off + i) * 131 + seed));
            free(h);
            return 1;
        }
    free(h);
    return 0;
}

#endif

int main(void) {
    struct sdma_engine *e = NULL;
    char err[256];
    int rc = sdma_engine_open("cuda", NULL, &e, err, sizeof(err));
#if defined(__HIPCC__)
    if (rc != SDMA_ERR_NOT_BUILT) {
        FAIL("HIP build: opening the cuda engine gave %d (%s)", rc, err);
        return 1;
    }
    printf("engine_cuda: not in HIP builds (%s)\n", err);
    return 0;
#else
    const char *lr = getenv("SHMEM_LOCAL_RANK") ? getenv("SHMEM_LOCAL_RANK") : "0";
    int ndev = 0;
    CK(cudaGetDeviceCount(&ndev));
    CK(cudaSetDevice(atoi(lr) % ndev));
    if (e) /* opened on the device current before: start again on ours */
        sdma_engine_close(e);
    SD(sdma_engine_open("cuda", NULL, &e, err, sizeof(err)));
    printf("engine_cuda: %s engine on GPU %d\n", sdma_engine_name(e), atoi(lr) % ndev);

    const size_t N = 64u << 20;
    unsigned char *a, *b;
    CK(hipMalloc((void **)&a, N));
    CK(hipMalloc((void **)&b, N));
    k_pattern<<<256, 256>>>(a, N, 7);
    CK(hipGetLastError());
    CK(hipDeviceSynchronize());
    ZERO(b, N);
    struct sdma_queue *q;
    SD(sdma_queue_open(e, 0, "test queue", &q));

    /* 1. Linear copies: 1,024 packets of 64 KiB, adjacent. */
    for (size_t off = 0; off < N; off += N / 1024)
        SD(sdma_copy(q, b + off, a + off, N / 1024));
    SD(sdma_queue_quiet(q, 10.0));
    check_pattern(b, 0, N, 7, 0, "linear copies");

    /* 2. A 2D window: 100 rows of 1000 bytes, source pitch 4096, destination pitch 2048. */
    ZERO(b, N);
    SD(sdma_copy_2d(q, b + 64, 2048, a + 128, 4096, 1000, 100));
    SD(sdma_queue_quiet(q, 10.0));
    for (int r = 0; r < 100; r += 33)
        check_pattern(b, 64 + (size_t)r * 2048, 1000, 7, 128 + (size_t)r * 4096, "2D window");

    /* 3. A gate in mapped host memory, polled by the proxy. */
    uint32_t *hw;
    CK(hipHostMalloc((void **)&hw, 4096, hipHostMallocMapped));
    memset(hw, 0, 4096);
    volatile uint32_t *gate = hw, *flag = hw + 16;
    ZERO(b, N);
    SD(sdma_poll(q, (const uint32_t *)gate, 1, UINT32_MAX, SDMA_POLL_GE));
    SD(sdma_copy(q, b, a, 1 << 20));
    SD(sdma_fence(q, (uint32_t *)flag, 42));
    double t0 = now();
    while (now() - t0 < 0.05)
        sdma_engine_progress(e);
    if (*flag != 0)
        FAIL("the fence behind a closed gate ran (flag %u)", *flag);
    __atomic_store_n(gate, 1u, __ATOMIC_RELEASE);
    SD(sdma_queue_quiet(q, 10.0));
    if (*flag != 42)
        FAIL("the fence behind the opened gate did not run (flag %u)", *flag);
    check_pattern(b, 0, 1 << 20, 7, 0, "copy behind a host gate");

    /* 4. ATOMIC and CONST_FILL on GPU memory; FENCE on unregistered host memory. */
    uint64_t *word;
    CK(hipMalloc((void **)&word, 64));
    ZERO(word, 64);
    for (int i = 0; i < 10; i++)
        SD(sdma_atomic(q, word, SDMA_ATOMIC_ADD64, 5, 0));
    SD(sdma_atomic(q, word + 1, SDMA_ATOMIC_CMPSWAP64, 99, 0));
    SD(sdma_const_fill(q, b, 0xA5A5A5A5u, 4096));
    uint32_t *plain = (uint32_t *)calloc(16, sizeof(uint32_t));
    SD(sdma_fence(q, plain, 7));
    SD(sdma_queue_quiet(q, 10.0));
    uint64_t got[2];
    CK(hipMemcpy(got, word, sizeof(got), hipMemcpyDeviceToHost));
    if (got[0] != 50 || got[1] != 99)
        FAIL("atomics: %llu and %llu, expected 50 and 99", (unsigned long long)got[0],
             (unsigned long long)got[1]);
    unsigned char fill[4096];
    CK(hipMemcpy(fill, b, sizeof(fill), hipMemcpyDeviceToHost));
    for (int i = 0; i < 4096; i++)
        if (fill[i] != 0xA5) {
            FAIL("fill: byte %d is 0x%02x", i, fill[i]);
            break;
        }
    if (__atomic_load_n(plain, __ATOMIC_ACQUIRE) != 7)
        FAIL("fence on plain host memory: %u, expected 7", plain[0]);

    /* 5. NWAIT streams waiting on gates in GPU memory; a kernel on another stream opens
     * them. */
    uint32_t *gates;
    CK(hipMalloc((void **)&gates, NWAIT * sizeof(uint32_t)));
    ZERO(gates, NWAIT * sizeof(uint32_t));
    ZERO(b, N);
    struct sdma_queue *wq[NWAIT];
    const size_t piece = 1 << 20;
    for (int i = 0; i < NWAIT; i++) {
        char label[32];
        snprintf(label, sizeof(label), "waiting queue %d", i);
        SD(sdma_queue_open(e, 0, label, &wq[i]));
        SD(sdma_poll(wq[i], &gates[i], 1, UINT32_MAX, SDMA_POLL_GE));
        SD(sdma_copy(wq[i], b + i * piece, a + i * piece, piece));
        SD(sdma_fence(wq[i], (uint32_t *)(flag + 32 + i), 1));
    }
    t0 = now();
    while (now() - t0 < 0.05)
        sdma_engine_progress(e);
    for (int i = 0; i < NWAIT; i++)
        if (flag[32 + i])
            FAIL("waiting queue %d ran before its gate opened", i);
    hipStream_t s;
    CK(hipStreamCreate(&s));
    k_open<<<1, 32, 0, s>>>(gates, NWAIT);
    CK(hipGetLastError());
    t0 = now();
    while (cudaStreamQuery(s) == cudaErrorNotReady && now() - t0 < 10.0)
        ;
    if (cudaStreamQuery(s) != cudaSuccess)
        FAIL("a kernel launched beside %d waiting streams did not finish in 10 s", NWAIT);
    for (int i = 0; i < NWAIT; i++) {
        rc = sdma_queue_quiet(wq[i], 10.0);
        if (rc)
            FAIL("waiting queue %d: %s (%s)", i, sdma_strerror(rc), sdma_last_error());
        else if (flag[32 + i] != 1)
            FAIL("waiting queue %d: its fence did not land", i);
    }
    check_pattern(b, 0, NWAIT * piece, 7, 0, "copies behind stream waits");
    printf("engine_cuda: %d streams waited in the GPU, the kernel beside them ran in %.1f ms\n",
           NWAIT, (now() - t0) * 1e3);
    for (int i = 0; i < NWAIT; i++)
        sdma_queue_close(wq[i]);

    /* 6. A copy to an address no one mapped: the queue fails and says why. */
    struct sdma_queue *bad;
    SD(sdma_queue_open(e, 0, "bad queue", &bad));
    SD(sdma_copy(bad, b + N - 4096, a, 8192)); /* runs past the end of b's allocation */
    rc = sdma_queue_quiet(bad, 5.0);
    char msg[400] = "";
    if (rc != SDMA_ERR_QUEUE || !sdma_queue_error(bad, msg, sizeof(msg)) || !strstr(msg, "cuda"))
        FAIL("a copy to a bad address: quiet gave %d (%s), queue message \"%s\"", rc,
             sdma_strerror(rc), msg);
    else
        printf("engine_cuda: bad copy reported: %s\n", msg);
    sdma_queue_close(bad);

    sdma_queue_close(q);
    sdma_engine_close(e);
    free(plain);
    printf("engine_cuda: %s\n", gt_failures ? "FAILED" : "all checks passed");
    return gt_failures ? 1 : 0;
#endif
}
