/* Soft-engine copy bandwidth against plain memcpy, 64 KiB .. 256 MiB.
 * Usage: sdma_bw [max_bytes] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sdma/sdma.h"

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    size_t max = argc > 1 ? strtoull(argv[1], NULL, 0) : (size_t)256 << 20;
    struct sdma_engine *e;
    struct sdma_queue *q;
    char err[256];
    char *src, *dst;
    size_t n;
    int rc;

    rc = sdma_engine_open("soft", NULL, &e, err, sizeof err);
    if (rc) {
        fprintf(stderr, "sdma_bw: %s\n", err);
        return 1;
    }
    if ((rc = sdma_queue_open(e, 0, "bw", &q))) {
        fprintf(stderr, "sdma_bw: %s\n", sdma_strerror(rc));
        return 1;
    }
    src = malloc(max);
    dst = malloc(max);
    if (!src || !dst) {
        fprintf(stderr, "sdma_bw: cannot allocate 2 x %zu bytes\n", max);
        return 1;
    }
    memset(src, 1, max);
    memset(dst, 2, max);
    printf("%12s %8s %12s %12s %8s\n", "bytes", "iters", "memcpy GB/s", "soft GB/s", "ratio");
    for (n = 64 << 10; n <= max; n *= 4) {
        int iters = (int)(((size_t)1 << 30) / n), i;
        double t0, tm, ts;
        if (iters < 4)
            iters = 4;
        if (iters > 2000)
            iters = 2000;
        memcpy(dst, src, n); /* warm */
        t0 = now_s();
        for (i = 0; i < iters; i++)
            memcpy(dst, src, n);
        tm = now_s() - t0;
        t0 = now_s();
        for (i = 0; i < iters; i++) {
            if ((rc = sdma_copy(q, dst, src, n)) || (rc = sdma_queue_quiet(q, 30.0))) {
                fprintf(stderr, "sdma_bw: %s: %s\n", sdma_strerror(rc), sdma_last_error());
                return 1;
            }
        }
        ts = now_s() - t0;
        printf("%12zu %8d %12.2f %12.2f %8.2f\n", n, iters, (double)n * iters / tm / 1e9,
               (double)n * iters / ts / 1e9, tm / ts);
    }
    sdma_queue_close(q);
    sdma_engine_close(e);
    free(src);
    free(dst);
    return 0;
}
