/* The device side of copy-engine queues on a real GPU: many workgroups write
 * COPY_LINEAR packets (one reservation per wave, device/ring_dev.h) into an
 * SDMA ring in host memory mapped to the GPU; the soft engine, given that ring
 * (sdma_queue_open_attr with caller-provided memory), executes them on the
 * host. The ring is much smaller than the packets written, so producers wrap
 * it and wait for space while the engine runs. Waves call twice with
 * different active lanes (divergent callers) and some lanes pass 0 bytes
 * (NOPs). Every destination byte is checked. Needs no shmem_init. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/ring_dev.h"
#include "sdma/sdma.h"
#include "gpu_test.h"

#define CHUNK 4096
#define RING_BYTES (64 * 1024)

static __host__ __device__ uint64_t chunk_bytes(uint64_t id) {
    return id % 97 == 5 ? 0 : 1 + (id * 37) % CHUNK;
}

struct ring_words {
    struct sdma_ring_ctl ctl;
    uint64_t rptr, pad0[7], wptr, pad1[7], doorbell, pad2[7];
};

__global__ void k_enqueue(struct sdma_ring ring, uint64_t dst, uint64_t src, int *errors) {
    uint64_t id = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    int rc;
    /* Even lanes first, then odd lanes: two calls per wave with partial masks. */
    if (threadIdx.x % 2 == 0)
        rc = shmemi_dev_ring_copy_wave(&ring, dst + id * CHUNK, src + id * CHUNK, chunk_bytes(id),
                                       20ull * 1000000000ull, NULL);
    else
        rc = shmemi_dev_ring_copy_wave(&ring, dst + id * CHUNK, src + id * CHUNK, chunk_bytes(id),
                                       20ull * 1000000000ull, NULL);
    if (rc != SDMA_OK)
        atomicAdd(errors, 1);
}

int main(void) {
    shmem_init(); /* only for the PE number in messages and the job's exit */
    const int blocks = 64, threads = 256;
    size_t n = (size_t)blocks * threads, bytes = n * CHUNK;
    char err[256] = "";
    struct sdma_engine *eng = NULL;
    struct sdma_queue *q = NULL;
    void *ring_h, *ring_d;
    struct ring_words *w_h, *w_d;
    unsigned char *src, *dst;
    int *errors, herr = 0;

    int rc = sdma_engine_open("soft", NULL, &eng, err, sizeof err);
    if (rc) {
        fprintf(stderr, "sdma_engine_open(soft): %s %s\n", sdma_strerror(rc), err);
        return 1;
    }
    GT_CK(hipHostMalloc(&ring_h, RING_BYTES, hipHostMallocMapped));
    GT_CK(hipHostMalloc((void **)&w_h, sizeof *w_h, hipHostMallocMapped));
    GT_CK(hipHostMalloc((void **)&src, bytes, hipHostMallocMapped));
    GT_CK(hipHostMalloc((void **)&dst, bytes, hipHostMallocMapped));
    memset(ring_h, 0, RING_BYTES);
    memset(w_h, 0, sizeof *w_h);
    memset(dst, 0, bytes);
    for (size_t i = 0; i < bytes; ++i)
        src[i] = (unsigned char)(i * 131 + (i >> 12));
    GT_CK(hipHostGetDevicePointer(&ring_d, ring_h, 0));
    GT_CK(hipHostGetDevicePointer((void **)&w_d, w_h, 0));
    GT_CK(hipMalloc((void **)&errors, sizeof(int)));
    GT_CK(hipMemset(errors, 0, sizeof(int)));

    struct sdma_queue_attr a;
    sdma_queue_attr_init(&a);
    a.ring_bytes = RING_BYTES;
    a.label = "gpu-producers";
    a.flags = SDMA_QUEUE_GPU_PRODUCER; /* kernels write it: nobody kicks the engine */
    a.ring = ring_h;
    a.ctl = &w_h->ctl;
    a.rptr = &w_h->rptr;
    a.wptr = &w_h->wptr;
    a.doorbell = &w_h->doorbell;
    rc = sdma_queue_open_attr(eng, &a, &q);
    if (rc) {
        fprintf(stderr, "sdma_queue_open_attr: %s %s\n", sdma_strerror(rc), sdma_last_error());
        return 1;
    }
    /* The kernel's view: the same ring through device pointers. Packet
     * addresses stay host addresses: the soft engine executes them. */
    struct sdma_ring ring = *sdma_queue_ring(q);
    ring.base = (uint32_t *)ring_d;
    ring.ctl = &w_d->ctl;
    ring.rptr = &w_d->rptr;
    ring.wptr = &w_d->wptr;
    ring.doorbell = &w_d->doorbell;

    k_enqueue<<<blocks, threads>>>(ring, (uint64_t)(uintptr_t)dst, (uint64_t)(uintptr_t)src,
                                   errors);
    GT_SYNC();
    GT_CK(hipMemcpy(&herr, errors, sizeof herr, hipMemcpyDeviceToHost));
    GT_EXPECT(herr == 0, "%d lanes failed to enqueue", herr);
    rc = sdma_queue_quiet(q, 30.0);
    GT_EXPECT(rc == SDMA_OK, "quiet: %s", sdma_strerror(rc));
    if (sdma_queue_error(q, err, sizeof err))
        GT_EXPECT(0, "queue error: %s", err);
    GT_EXPECT(w_h->wptr == w_h->ctl.reserve, "wptr %llu, reserved %llu",
              (unsigned long long)w_h->wptr, (unsigned long long)w_h->ctl.reserve);
    GT_EXPECT(w_h->wptr > RING_BYTES, "the ring did not wrap (wptr %llu)",
              (unsigned long long)w_h->wptr);
    size_t bad = 0;
    for (size_t id = 0; id < n; ++id) {
        uint64_t len = chunk_bytes(id);
        for (size_t j = 0; j < CHUNK; ++j) {
            size_t i = id * CHUNK + j;
            unsigned char want = j < len ? src[i] : 0;
            if (dst[i] != want && bad++ < 10)
                GT_EXPECT(0, "chunk %zu byte %zu: %u, want %u", id, j, dst[i], want);
        }
    }
    GT_EXPECT(bad == 0, "%zu bytes wrong", bad);

    sdma_queue_close(q);
    sdma_engine_close(eng);
    GT_CK(hipFree(errors));
    GT_CK(hipHostFree(dst));
    GT_CK(hipHostFree(src));
    GT_CK(hipHostFree(w_h));
    GT_CK(hipHostFree(ring_h));
    return gt_finish("ring_soft");
}
