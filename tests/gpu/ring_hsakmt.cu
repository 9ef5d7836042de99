/* Kernels ringing a hardware SDMA queue (AMD, the hsakmt engine): many waves each queue a
 * COPY_LINEAR and a FENCE with the doorbell protocol (device/ring_dev.h,
 * shmemi_dev_ring_copy_fenced) into a queue whose ring is in the GPU's memory; the ring is
 * smaller than what they write, so producers wrap it and wait for the engine. Every byte is
 * checked. Run by scripts/amd-check.sh on an MI200/MI300 node; elsewhere it reports a skip
 * (exit 77). Needs no shmem_init. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/ring_dev.h"
#include "sdma/sdma.h"
#include "gpu_test.h"

#define CHUNK 8192
#define RING_BYTES (16 * 1024)

__global__ void k_enqueue(struct sdma_ring ring, uint64_t dst, uint64_t src, uint64_t complete,
                          uint64_t *last, int *errors) {
    unsigned wave = (blockIdx.x * blockDim.x + threadIdx.x) / warpSize;
    uint64_t end = 0;
    if (threadIdx.x % warpSize != 0)
        return; /* one producer per wave */
    int rc = shmemi_dev_ring_copy_fenced(&ring, dst + (uint64_t)wave * CHUNK,
                                         src + (uint64_t)wave * CHUNK, CHUNK, complete,
                                         20ull * 1000000000ull, &end);
    if (rc != SDMA_OK)
        atomicAdd(errors, 1);
    else
        atomicMax((unsigned long long *)last, (unsigned long long)end);
}

int main(int argc, char **argv) {
    const int blocks = 128, threads = 256;
    char err[512] = "", bus[32] = "";
    struct sdma_engine_config cfg;
    struct sdma_engine *eng = NULL;
    struct sdma_queue *q = NULL;
    struct sdma_queue_attr a;
    struct sdma_ring view;
    struct sdma_ring_ctl *ctl_d, ctl_h;
    unsigned char *src, *dst, *hsrc, *hdst;
    uint64_t *complete, *last, hlast = 0;
    int *errors, herr = 0, dev = argc > 1 ? atoi(argv[1]) : 0, ws = 64;
    size_t waves, bytes, i, bad = 0;

    GT_CK(hipSetDevice(dev));
    GT_CK(hipDeviceGetAttribute(&ws, hipDeviceAttributeWarpSize, dev));
    GT_CK(hipDeviceGetPCIBusId(bus, sizeof bus, dev));
    waves = (size_t)blocks * threads / (size_t)ws;
    bytes = waves * CHUNK;
    memset(&cfg, 0, sizeof cfg);
    if (sdma_config_set_pci(&cfg, bus)) {
        fprintf(stderr, "ring_hsakmt: PCI bus id \"%s\" not understood\n", bus);
        return 1;
    }
    int rc = sdma_engine_open("hsakmt", &cfg, &eng, err, sizeof err);
    if (rc) {
        printf("ring_hsakmt: SKIP: %s\n", err);
        return 77;
    }
    sdma_queue_attr_init(&a);
    a.ring_bytes = RING_BYTES;
    a.label = "kernels";
    a.flags = SDMA_QUEUE_GPU_PRODUCER;
    rc = sdma_queue_open_attr(eng, &a, &q);
    if (rc) {
        fprintf(stderr, "ring_hsakmt: queue: %s (%s)\n", sdma_strerror(rc), sdma_last_error());
        return 1;
    }
    GT_CK(hipMalloc((void **)&src, bytes));
    GT_CK(hipMalloc((void **)&dst, bytes));
    GT_CK(hipExtMallocWithFlags((void **)&complete, sizeof(uint64_t), hipDeviceMallocFinegrained));
    GT_CK(hipMalloc((void **)&last, sizeof(uint64_t)));
    GT_CK(hipMalloc((void **)&errors, sizeof(int)));
    GT_CK(hipMalloc((void **)&ctl_d, sizeof *ctl_d));
    hsrc = (unsigned char *)malloc(bytes);
    hdst = (unsigned char *)malloc(bytes);
    if (!hsrc || !hdst)
        return 1;
    for (i = 0; i < bytes; ++i)
        hsrc[i] = (unsigned char)(i * 131 + (i >> 12));
    GT_CK(hipMemcpy(src, hsrc, bytes, hipMemcpyHostToDevice));
    GT_CK(hipMemset(dst, 0, bytes));
    GT_CK(hipMemset(complete, 0, sizeof(uint64_t)));
    GT_CK(hipMemset(last, 0, sizeof(uint64_t)));
    GT_CK(hipMemset(errors, 0, sizeof(int)));
    /* HIP's memory is mapped for this GPU by HIP (a libhsakmt of its own may not know it). */
    sdma_engine_declare(eng, src, bytes, 1);
    sdma_engine_declare(eng, dst, bytes, 1);
    sdma_engine_declare(eng, complete, sizeof(uint64_t), 1);
    /* The producers' shared words in GPU memory, starting where the queue is. */
    view = *sdma_queue_ring(q);
    memset(&ctl_h, 0, sizeof ctl_h);
    ctl_h.reserve = ctl_h.committed = ctl_h.cached_rptr = *view.wptr;
    GT_CK(hipMemcpy(ctl_d, &ctl_h, sizeof ctl_h, hipMemcpyHostToDevice));
    view.ctl = ctl_d;
    hipLaunchKernelGGL(k_enqueue, dim3(blocks), dim3(threads), 0, 0, view, (uint64_t)(uintptr_t)dst,
                       (uint64_t)(uintptr_t)src, (uint64_t)(uintptr_t)complete, last, errors);
    GT_CK(hipDeviceSynchronize());
    GT_CK(hipMemcpy(&herr, errors, sizeof(int), hipMemcpyDeviceToHost));
    GT_CK(hipMemcpy(&hlast, last, sizeof hlast, hipMemcpyDeviceToHost));
    /* The engine's FENCE writes the low 32 bits of the ring index past each copy. */
    for (int spin = 0; spin < 200000; ++spin) {
        uint64_t c = 0;
        GT_CK(hipMemcpy(&c, complete, sizeof c, hipMemcpyDeviceToHost));
        if ((int32_t)((uint32_t)c - (uint32_t)hlast) >= 0)
            break;
        if (sdma_queue_error(q, err, sizeof err)) {
            fprintf(stderr, "ring_hsakmt: FAIL: %s\n", err);
            return 1;
        }
        sdma_engine_check(eng);
    }
    GT_CK(hipMemcpy(hdst, dst, bytes, hipMemcpyDeviceToHost));
    for (i = 0; i < bytes; ++i)
        bad += hdst[i] != hsrc[i];
    printf("ring_hsakmt: %s: %zu waves x %d bytes through a %d-byte ring in the GPU's memory, "
           "%d producer errors, %zu bad bytes\n",
           herr || bad ? "FAIL" : "PASS", waves, CHUNK, RING_BYTES, herr, bad);
    sdma_queue_close(q);
    sdma_engine_close(eng);
    return herr || bad ? 1 : 0;
}
