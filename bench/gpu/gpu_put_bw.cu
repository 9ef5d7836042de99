/* Device put bandwidth, PE 0 -> PE 1, by size (8 B .. 256 MiB): the whole grid
 * puts, each unit its contiguous slice (16-byte aligned), in three flavours
 * (one thread per slice: shmem_putmem_nbi; a wave per slice:
 * shmemx_putmem_nbi_wave; a workgroup per slice: shmemx_putmem_nbi_wg), each
 * thread quiets at the end; and cudaMemcpyAsync/hipMemcpyAsync of the same
 * bytes into the peer's buffer through shmem_ptr. Time: events around `-n`
 * kernels, median of `-r` repetitions. Only PE 0 measures; CSV on stdout. */
#include <shmem.h>
#include <shmem_device.h>

#include "gpu_bench.h"

enum { V_THREAD, V_WAVE, V_WG };

/* The grid's units (threads, waves or workgroups) split [0, size) into
 * 16-byte-aligned slices; unit u gets [u * slice, min(size, (u+1) * slice)). */
__global__ void k_put(char *dst, const char *src, size_t size, int variant, int pe) {
    size_t units, unit;
    unsigned ws = warpSize;
    if (variant == V_THREAD) {
        units = (size_t)gridDim.x * blockDim.x;
        unit = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    } else if (variant == V_WAVE) {
        size_t wpb = (blockDim.x + ws - 1) / ws;
        units = (size_t)gridDim.x * wpb;
        unit = (size_t)blockIdx.x * wpb + threadIdx.x / ws;
    } else {
        units = gridDim.x;
        unit = blockIdx.x;
    }
    size_t slice = ((size + units - 1) / units + 15) & ~(size_t)15;
    size_t off = unit * slice, len = off < size ? (size - off < slice ? size - off : slice) : 0;
    if (variant == V_THREAD) {
        if (len)
            shmem_putmem_nbi(dst + off, src + off, len, pe);
    } else if (variant == V_WAVE) {
        shmemx_putmem_nbi_wave(dst + off, src + off, len, pe);
    } else {
        shmemx_putmem_nbi_wg(dst + off, src + off, len, pe);
    }
    shmem_quiet();
}

int main(int argc, char **argv) {
    struct gb_opts o = {8, 256u << 20, 2, 20, 7, 528, 512};
    gb_parse(&o, argc, argv);
    shmem_init();
    int me = shmem_my_pe();
    char *dst = (char *)shmem_malloc(o.max_size), *src = (char *)shmem_malloc(o.max_size);
    if (!dst || !src) {
        fprintf(stderr, "gpu_put_bw: shmem_malloc(%zu) failed (raise SHMEM_SYMMETRIC_SIZE)\n",
                o.max_size);
        shmem_global_exit(2);
    }
    GB_CK(hipMemset(src, 1, o.max_size));
    char *peer_dst = (char *)shmem_ptr(dst, 1);
    hipStream_t st;
    hipEvent_t e0, e1;
    GB_CK(hipStreamCreate(&st));
    GB_CK(hipEventCreate(&e0));
    GB_CK(hipEventCreate(&e1));
    double *t = (double *)malloc(sizeof(double) * (size_t)o.reps);
    const char *names[4] = {"bw_thread", "bw_wave", "bw_wg", "bw_memcpy"};
    if (me == 0)
        gb_csv_header();
    shmem_barrier_all();
    for (size_t size = o.min_size; size <= o.max_size; size *= o.factor) {
        for (int v = 0; v < 4; ++v) {
            if (me == 0) {
                if (v == 3 && !peer_dst)
                    continue;
                for (long r = -1; r < o.reps; ++r) { /* r = -1: warm-up */
                    float ms = 0;
                    GB_CK(hipEventRecord(e0, st));
                    for (long i = 0; i < o.iters; ++i) {
                        if (v == 3)
                            GB_CK(hipMemcpyAsync(peer_dst, src, size, hipMemcpyDefault, st));
                        else
                            k_put<<<o.blocks, o.threads, 0, st>>>(dst, src, size, v, 1);
                    }
                    GB_CK(hipEventRecord(e1, st));
                    GB_CK(hipEventSynchronize(e1));
                    GB_CK(hipGetLastError());
                    GB_CK(hipEventElapsedTime(&ms, e0, e1));
                    if (r >= 0)
                        t[r] = (double)ms * 1e-3;
                }
                double sec = gb_median(t, o.reps);
                gb_csv("gpu_put_bw", size, names[v], (double)size * (double)o.iters / sec / 1e9,
                       "GB/s");
            }
        }
        if (size > o.max_size / o.factor)
            break;
    }
    shmem_barrier_all();
    free(t);
    GB_CK(hipEventDestroy(e0));
    GB_CK(hipEventDestroy(e1));
    GB_CK(hipStreamDestroy(st));
    shmem_free(src);
    shmem_free(dst);
    shmem_finalize();
    return 0;
}
