/* Shared bits of the GPU benchmarks: the runtime names they use (HIP, mapped
 * onto CUDA for NVIDIA builds), checked calls, the median, the CSV line
 * (bench,size,metric,value,unit: bench/common.h's format) and the options
 *   -b MIN -e MAX -f FACTOR   sizes (K/M/G suffixes)
 *   -n ITERS -r REPS          operations per timed repetition, repetitions (median)
 *   -B BLOCKS -T THREADS      grid of the bandwidth kernels */
#ifndef SHMEM_BENCH_GPU_H
#define SHMEM_BENCH_GPU_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__HIPCC__)
#include <hip/hip_runtime.h>
#else
#include <cuda_runtime.h>
#define hipError_t cudaError_t
#define hipSuccess cudaSuccess
#define hipGetErrorString cudaGetErrorString
#define hipMalloc cudaMalloc
#define hipFree cudaFree
#define hipMemset cudaMemset
#define hipMemcpy cudaMemcpy
#define hipMemcpyDeviceToHost cudaMemcpyDeviceToHost
#define hipDeviceSynchronize cudaDeviceSynchronize
#define hipGetLastError cudaGetLastError
#define hipEvent_t cudaEvent_t
#define hipEventCreate cudaEventCreate
#define hipEventRecord cudaEventRecord
#define hipEventSynchronize cudaEventSynchronize
#define hipEventElapsedTime cudaEventElapsedTime
#define hipEventDestroy cudaEventDestroy
#define hipStream_t cudaStream_t
#define hipStreamCreate cudaStreamCreate
#define hipStreamDestroy cudaStreamDestroy
#define hipMemcpyAsync cudaMemcpyAsync
#define hipMemcpyDefault cudaMemcpyDefault
#endif

#define GB_CK(call)                                                                                \
    do {                                                                                           \
        hipError_t gb_rc_ = (call);                                                                \
        if (gb_rc_ != hipSuccess) {                                                                \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                          \
                    hipGetErrorString(gb_rc_));                                                    \
            exit(2);                                                                               \
        }                                                                                          \
    } while (0)

struct gb_opts {
    size_t min_size, max_size, factor;
    long iters, reps;
    int blocks, threads;
};

static size_t gb_size(const char *s) {
    char *end;
    size_t v = strtoull(s, &end, 10);
    if (*end == 'k' || *end == 'K')
        v <<= 10;
    else if (*end == 'm' || *end == 'M')
        v <<= 20;
    else if (*end == 'g' || *end == 'G')
        v <<= 30;
    return v;
}

static inline void gb_parse(struct gb_opts *o, int argc, char **argv) {
    for (int i = 1; i + 1 < argc; i += 2) {
        const char *k = argv[i], *v = argv[i + 1];
        if (!strcmp(k, "-b"))
            o->min_size = gb_size(v);
        else if (!strcmp(k, "-e"))
            o->max_size = gb_size(v);
        else if (!strcmp(k, "-f"))
            o->factor = gb_size(v);
        else if (!strcmp(k, "-n"))
            o->iters = atol(v);
        else if (!strcmp(k, "-r"))
            o->reps = atol(v);
        else if (!strcmp(k, "-B"))
            o->blocks = atoi(v);
        else if (!strcmp(k, "-T"))
            o->threads = atoi(v);
        else {
            fprintf(stderr,
                    "usage: %s [-b MIN] [-e MAX] [-f FACTOR] [-n ITERS] [-r REPS] "
                    "[-B BLOCKS] [-T THREADS]\n",
                    argv[0]);
            exit(2);
        }
    }
    if (o->factor < 2)
        o->factor = 2;
    if (o->reps < 1)
        o->reps = 1;
    if (o->iters < 1)
        o->iters = 1;
}

static inline int gb_cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
static inline double gb_median(double *v, long n) {
    qsort(v, (size_t)n, sizeof *v, gb_cmp);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The dependent fetch_add kernel of both latency benches (FADD: the library's
 * long fetch_add, NOW: its device clock in ns): on PE 1, over n words (a power
 * of two) GB_SPREAD_STRIDE longs apart in turn; each address depends on the
 * last result, so every fetch is one round trip. One word's latency depends on
 * where its line lands in the target GPU's L2; GB_SPREAD words average over
 * placements. Microseconds per fetch in *out. */
#define GB_SPREAD 32
#define GB_SPREAD_STRIDE ((long)((4096 + 128) / sizeof(long)))
#define GB_FETCH_ADD_KERNEL(FADD, NOW)                                                             \
    __global__ void k_fetch_add(long *words, long n, long iters, double *out) {                    \
        long sink = 0;                                                                             \
        uint64_t t0 = NOW();                                                                       \
        for (long i = 0; i < iters; ++i)                                                           \
            sink += FADD(words + (i & (n - 1)) * GB_SPREAD_STRIDE + (sink == -1), 1, 1);           \
        *out = (double)(NOW() - t0) / (double)iters / 1000.0;                                      \
        if (sink == -1)                                                                            \
            *out = 0; /* keep the fetches */                                                       \
    }

static inline void gb_csv_header(void) { printf("bench,size,metric,value,unit\n"); }
static inline void gb_csv(const char *bench, size_t size, const char *metric, double value,
                          const char *unit) {
    printf("%s,%zu,%s,%.3f,%s\n", bench, size, metric, value, unit);
    fflush(stdout);
}

#endif
