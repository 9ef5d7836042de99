/* plan_stream: the stream-ordered loop of a triggered plan (GPU builds).
 *
 * Every PE owns a block of ROWS rows of a matrix held in one symmetric buffer on
 * the device heap. Each round, a producer kernel rewrites the PE's rows and marks
 * each chunk ready as soon as its workgroups are done; the plan's copies (on the
 * copy engines) send the chunk to every other PE; a consumer kernel checks every
 * PE's rows of the round. The host only queues work: no synchronization inside
 * the loop.
 *
 *     for each round:
 *         shmemx_plan_start(plan, &view)            the round's view (device-visible)
 *         producer<<<...>>>(view, ...)              write rows, mark chunks ready
 *         shmemx_plan_wait_on_stream(plan, s)       the stream waits for every chunk
 *         consumer<<<...>>>(...)                    read every PE's rows
 *         shmemx_plan_next_round_on_stream(plan, s) done reading: peers may go on
 *
 * The data is checked once after the loop (the consumer counts wrong elements
 * on the GPU). Prints the host time per round (the loop's enqueueing, what
 * the host spends), the GPU time per round and the bandwidth every PE
 * receives. With -B, the same loop in blocking mode: shmemx_plan_wait and
 * shmemx_plan_next_round from the host, the stream synchronized before each.
 *
 * Build: oshcc (nvcc or hipcc) plan_stream.cu -o plan_stream
 * Run:   oshrun -np 2 ./plan_stream [-r rounds] [-k KiB per chunk] [-B] [-v: time per call]
 */
#include <shmem.h>
#include <shmem_device.h>
#include <shmemx.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if !defined(__HIPCC__)
#define hipStream_t cudaStream_t
#define hipStreamCreate cudaStreamCreate
#define hipStreamSynchronize cudaStreamSynchronize
#define hipMalloc cudaMalloc
#define hipMemset cudaMemset
#define hipDeviceSynchronize cudaDeviceSynchronize
#define hipMemcpy cudaMemcpy
#define hipMemcpyDeviceToHost cudaMemcpyDeviceToHost
#define hipGetLastError cudaGetLastError
#define hipGetErrorString cudaGetErrorString
#define hipSuccess cudaSuccess
#endif

#define CHUNKS 4  /* chunks per PE */
#define WRITERS 2 /* workgroups per chunk: the last one's mark releases it */
#define ROW_BYTES 4096

__device__ static unsigned value(size_t word, unsigned r) {
    return (unsigned)(word * 2654435761u) + r;
}

/* Workgroup b writes part b % WRITERS of chunk b / WRITERS, then marks it. */
__global__ void producer(shmemx_plan_view_t *view, unsigned *buf, size_t chunk_words, int me,
                         unsigned r) {
    int k = blockIdx.x / WRITERS, part = blockIdx.x % WRITERS;
    size_t first = ((size_t)me * CHUNKS + (size_t)k) * chunk_words;
    for (size_t i = part * blockDim.x + threadIdx.x; i < chunk_words; i += WRITERS * blockDim.x)
        buf[first + i] = value(first + i, r);
    /* Chunk ids are global: PE me's chunk k is me * CHUNKS + k here (equal schedules). */
    shmemx_plan_mark_ready(view, me * CHUNKS + k);
}

/* Every element of every PE's block has this round's value. */
__global__ void consumer(const unsigned *buf, size_t words, unsigned r, unsigned long long *bad) {
    unsigned long long mine = 0;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < words;
         i += (size_t)gridDim.x * blockDim.x)
        mine += buf[i] != value(i, r);
    if (mine)
        atomicAdd(bad, mine);
}

__global__ void empty(void) {}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#define CHECK(what, rc)                                                                            \
    do {                                                                                           \
        int rc_ = (rc);                                                                            \
        if (rc_) {                                                                                 \
            fprintf(stderr, "PE %d: %s: %s (%s)\n", me, what, shmemx_plan_strerror(rc_),           \
                    shmemx_plan_errmsg(plan));                                                     \
            shmem_global_exit(1);                                                                  \
        }                                                                                          \
    } while (0)

int main(int argc, char **argv) {
    unsigned rounds = 100;
    size_t chunk_kib = 64;
    int blocking = 0, verbose = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-r") && i + 1 < argc)
            rounds = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "-k") && i + 1 < argc)
            chunk_kib = (size_t)atol(argv[++i]);
        else if (!strcmp(argv[i], "-B"))
            blocking = 1;
        else if (!strcmp(argv[i], "-v"))
            verbose = 1;
    }
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    shmemx_plan_t plan = NULL;
    const size_t chunk_bytes = chunk_kib * 1024, chunk_words = chunk_bytes / 4;
    const size_t bytes = (size_t)npes * CHUNKS * chunk_bytes;
    unsigned *buf = (unsigned *)shmem_malloc(bytes);
    if (!buf) {
        fprintf(stderr, "PE %d: shmem_malloc(%zu) failed\n", me, bytes);
        shmem_global_exit(1);
    }
    hipMemset(buf, 0, bytes);
    hipDeviceSynchronize(); /* a memset returns before it is done: done before peers copy in */

    /* This PE's block, CHUNKS chunks of rows, WRITERS workgroups each. */
    shmemx_region_t regions[CHUNKS];
    shmemx_chunk_t chunks[CHUNKS];
    shmemx_plan_rows((size_t)me * CHUNKS * chunk_bytes, ROW_BYTES, CHUNKS * chunk_bytes / ROW_BYTES,
                     0, CHUNKS, WRITERS, regions, chunks);
    shmemx_plan_config_t cfg = SHMEMX_PLAN_CONFIG_INIT;
    cfg.timeout_s = 10.0;
    CHECK("shmemx_plan_create", shmemx_plan_create(buf, bytes, chunks, CHUNKS, &cfg, &plan));

    hipStream_t s;
    hipStreamCreate(&s);
    unsigned long long *bad;
    hipMalloc((void **)&bad, sizeof(*bad));
    hipMemset(bad, 0, sizeof(*bad));
    shmem_barrier_all();

    /* -v: what one launch costs on this node with the stream idle (the floor
     * of the loop's two launches per round). */
    double t_launch = 0;
    if (verbose) {
        empty<<<1, 1, 0, s>>>();
        hipStreamSynchronize(s);
        double l0 = now_s();
        for (int i = 0; i < 100; i++)
            empty<<<1, 1, 0, s>>>();
        t_launch = (now_s() - l0) / 100;
        hipStreamSynchronize(s);
        shmem_barrier_all();
    }

    double t0 = now_s(), t_host = 0, t_call[5] = {0, 0, 0, 0, 0};
    for (unsigned r = 1; r <= rounds; r++) {
        double h0 = now_s(), h1, h2, h3, h4;
        shmemx_plan_view_t *view;
        CHECK("shmemx_plan_start", shmemx_plan_start(plan, &view));
        h1 = now_s();
        producer<<<CHUNKS * WRITERS, 256, 0, s>>>(view, buf, chunk_words, me, r);
        h2 = now_s();
        if (blocking) {
            CHECK("shmemx_plan_wait", shmemx_plan_wait(plan, -1));
            consumer<<<64, 256, 0, s>>>(buf, bytes / 4, r, bad);
            hipStreamSynchronize(s); /* done reading before next_round */
            CHECK("shmemx_plan_next_round", shmemx_plan_next_round(plan));
            h3 = h4 = h2;
        } else {
            CHECK("shmemx_plan_wait_on_stream", shmemx_plan_wait_on_stream(plan, s));
            h3 = now_s();
            consumer<<<64, 256, 0, s>>>(buf, bytes / 4, r, bad);
            h4 = now_s();
            CHECK("shmemx_plan_next_round_on_stream", shmemx_plan_next_round_on_stream(plan, s));
        }
        double h5 = now_s();
        t_host += h5 - h0;
        t_call[0] += h1 - h0, t_call[1] += h2 - h1, t_call[2] += h3 - h2, t_call[3] += h4 - h3;
        t_call[4] += h5 - h4;
    }
    double t_loop = now_s() - t0;
    hipStreamSynchronize(s);
    double t_gpu = now_s() - t0;
    if (hipGetLastError() != hipSuccess) {
        fprintf(stderr, "PE %d: a kernel failed\n", me);
        shmem_global_exit(1);
    }
    /* Errors recorded on the GPU come back here, once. */
    if (!blocking)
        CHECK("shmemx_plan_wait (errors of the stream)", shmemx_plan_wait(plan, -1));
    unsigned long long nbad = 0;
    hipMemcpy(&nbad, bad, sizeof(nbad), hipMemcpyDeviceToHost);
    CHECK("shmemx_plan_close", shmemx_plan_close(plan, -1));

    double recv = (double)(npes - 1) * CHUNKS * (double)chunk_bytes;
    printf("PE %d: %u rounds (%s), %zu KiB chunks: host %.1f us/round (loop %.1f us/round), "
           "GPU %.1f us/round, %.2f GB/s received, %llu wrong elements\n",
           me, rounds, blocking ? "blocking" : "stream-ordered", chunk_kib, t_host * 1e6 / rounds,
           t_loop * 1e6 / rounds, t_gpu * 1e6 / rounds, recv * rounds / t_gpu / 1e9, nbad);
    if (verbose)
        printf("PE %d: us/round: start %.1f, producer launch %.1f, wait_on_stream %.1f, "
               "consumer launch %.1f, next_round_on_stream %.1f (an empty kernel's launch on "
               "an idle stream: %.1f)\n",
               me, t_call[0] * 1e6 / rounds, t_call[1] * 1e6 / rounds, t_call[2] * 1e6 / rounds,
               t_call[3] * 1e6 / rounds, t_call[4] * 1e6 / rounds, t_launch * 1e6);
    shmem_free(buf);
    shmem_finalize();
    return nbad ? 1 : 0;
}
