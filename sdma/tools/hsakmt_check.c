/* The host-driven checks of scripts/amd-check.sh: one hsakmt SDMA queue on a real AMD GPU
 * (or on the KFD model), each check one line, "PASS name: detail" or "FAIL name: detail".
 * Exit status: the number of failed checks (77 when the engine cannot open: no GPU).
 *
 *   hsakmt_check [gpu-index]
 *
 * The deliberate bad address comes last: a VM fault stops every queue of this process on
 * the GPU. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "sdma/sdma.h"

static int failures;
static void *buffers[16]; /* mapped for the engine: freed after it closes */
static int nbuffers;

static void report(int ok, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void report(int ok, const char *name, const char *fmt, ...) {
    va_list ap;
    printf("%s %s: ", ok ? "PASS" : "FAIL", name);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
    failures += !ok;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Host memory mapped for the engine's GPU (until the engine closes). */
static void *buffer(struct sdma_engine *e, size_t bytes) {
    void *p;
    bytes = (bytes + 4095) & ~(size_t)4095;
    if (nbuffers == (int)(sizeof buffers / sizeof buffers[0]) || !(p = aligned_alloc(4096, bytes)))
        return NULL;
    memset(p, 0, bytes);
    if (sdma_engine_map(e, p, bytes)) {
        free(p);
        return NULL;
    }
    buffers[nbuffers++] = p;
    return p;
}

static int quiet(struct sdma_queue *q, const char *name) {
    int rc = sdma_queue_quiet(q, 30.0);
    if (rc) {
        char msg[512] = "";
        sdma_queue_error(q, msg, sizeof msg);
        report(0, name, "%s: %s %s", sdma_strerror(rc), sdma_last_error(), msg);
    }
    return rc;
}

static void copy_fence(struct sdma_engine *e) {
    const size_t n = 64u << 20;
    struct sdma_queue *q = NULL;
    unsigned char *a = buffer(e, n), *b = buffer(e, n);
    uint32_t *word = buffer(e, 4096);
    double t;
    size_t i, bad = 0;
    if (!a || !b || !word || sdma_queue_open(e, 0, "copy", &q)) {
        report(0, "copy + fence", "setup: %s", sdma_last_error());
        return;
    }
    for (i = 0; i < n; i++)
        a[i] = (unsigned char)(i * 131 + (i >> 16));
    t = now_s();
    if (sdma_copy(q, b, a, n) || sdma_fence(q, word, 0xC0FFEE) || quiet(q, "copy + fence"))
        goto out;
    t = now_s() - t;
    for (i = 0; i < n; i++)
        bad += a[i] != b[i];
    report(!bad && *word == 0xC0FFEE, "copy + fence",
           "64 MiB host to host, %zu bad bytes, fence "
           "0x%x, %.2f GB/s",
           bad, *word, n / t * 1e-9);
out:
    sdma_queue_close(q);
}

static void ring_wrap(struct sdma_engine *e) {
    struct sdma_queue *q = NULL;
    uint32_t *w = buffer(e, 1 << 16);
    int i, rounds = 20000, ok = 1;
    if (!w || sdma_queue_open(e, 1 << 16, "wrap", &q)) {
        report(0, "ring wrap", "setup: %s", sdma_last_error());
        return;
    }
    for (i = 1; i <= rounds && ok; i++) /* 11 dwords a round: the 64 KiB ring wraps 13 times */
        ok = !sdma_copy(q, w + 64 + (i % 64) * 4, w, 16) && !sdma_fence(q, w + 1, (uint32_t)i);
    if (!ok) {
        report(0, "ring wrap", "submit: %s", sdma_last_error());
        goto out;
    }
    if (quiet(q, "ring wrap"))
        goto out;
    report(w[1] == (uint32_t)rounds, "ring wrap",
           "%d copy+fence pairs through a 64 KiB ring, last "
           "fence %u",
           rounds, w[1]);
out:
    sdma_queue_close(q);
}

static void full_ring(struct sdma_engine *e) {
    struct sdma_queue *q = NULL;
    uint32_t *gate = buffer(e, 4096), *out = gate + 64;
    const struct sdma_ring *r;
    struct sdma_ring_slot s;
    int n = 0;
    uint64_t ahead;
    if (!gate || sdma_queue_open(e, 4096, "full", &q) ||
        sdma_poll(q, gate, 1, 0xFFFFFFFFu, SDMA_POLL_GE)) {
        report(0, "full ring", "setup: %s", sdma_last_error());
        return;
    }
    while (sdma_queue_reserve(q, SDMA_FENCE_DW, &s) == SDMA_OK) {
        sdma_pkt_fence(s.dw, (uintptr_t)out, (uint32_t)++n);
        sdma_queue_commit(q, &s);
    }
    r = sdma_queue_ring(q);
    ahead = *r->wptr - *r->rptr;
    __atomic_store_n(gate, 1, __ATOMIC_RELEASE);
    if (quiet(q, "full ring"))
        goto out;
    report(*out == (uint32_t)n && ahead < r->size, "full ring",
           "%d fences behind a gate filled a "
           "4 KiB ring to %llu bytes; all ran once it opened",
           n, (unsigned long long)ahead);
out:
    sdma_queue_close(q);
}

static void fill(struct sdma_engine *e) {
    const size_t n = 8u << 20;
    struct sdma_queue *q = NULL;
    uint32_t *b = buffer(e, n);
    size_t i, bad = 0;
    if (!b || sdma_queue_open(e, 0, "fill", &q)) {
        report(0, "8 MiB fill", "setup: %s", sdma_last_error());
        return;
    }
    if (sdma_const_fill(q, b, 0xA5C3F00Du, n) || quiet(q, "8 MiB fill"))
        goto out;
    for (i = 0; i < n / 4; i++)
        bad += b[i] != 0xA5C3F00Du;
    report(!bad, "8 MiB fill", "CONST_FILL in packets of at most 0x3FFFE0 bytes, %zu bad dwords",
           bad);
out:
    sdma_queue_close(q);
}

static void sub_window(struct sdma_engine *e) {
    enum { SP = 1024 + 40, DP = 2048 + 4, W = 1001, H = 300 };
    struct sdma_queue *q = NULL;
    unsigned char *a = buffer(e, SP * H + 64), *b = buffer(e, DP * H + 64);
    size_t r, c, bad = 0;
    if (!a || !b || sdma_queue_open(e, 0, "2d", &q)) {
        report(0, "2D sub-window", "setup: %s", sdma_last_error());
        return;
    }
    for (r = 0; r < (size_t)SP * H; r++)
        a[r] = (unsigned char)(r * 7 + 3);
    if (sdma_copy_2d(q, b + 3, DP, a + 1, SP, W, H) || quiet(q, "2D sub-window"))
        goto out;
    for (r = 0; r < H; r++)
        for (c = 0; c < W; c++)
            bad += b[3 + r * DP + c] != a[1 + r * SP + c];
    report(!bad, "2D sub-window", "%dx%d window, unaligned bases (13-dword packet), %zu bad bytes",
           W, H, bad);
out:
    sdma_queue_close(q);
}

static void bad_address(struct sdma_engine *e) {
    struct sdma_queue *q = NULL;
    uint32_t *ok = buffer(e, 4096), dw[SDMA_COPY_LINEAR_DW];
    void *bad = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    /* Kept mapped in the process: only the GPU must not know it. */
    char msg[512] = "", want[32];
    double t;
    int rc;
    if (!ok || bad == MAP_FAILED || sdma_queue_open(e, 0, "fault", &q)) {
        report(0, "bad address reported", "setup: %s", sdma_last_error());
        return;
    }
    /* A raw packet: the layer would refuse the address (SDMA_ERR_UNMAPPED) itself. */
    sdma_pkt_copy_linear(dw, (uintptr_t)ok, (uintptr_t)bad, 256);
    sdma_queue_submit(q, dw, SDMA_COPY_LINEAR_DW);
    t = now_s();
    rc = sdma_queue_quiet(q, 30.0);
    t = now_s() - t;
    sdma_queue_error(q, msg, sizeof msg);
    snprintf(want, sizeof want, "0x%llx", (unsigned long long)(uintptr_t)bad);
    report(rc == SDMA_ERR_QUEUE && strstr(msg, want) != NULL, "bad address reported",
           "after %.2f s: %s", t, rc == SDMA_ERR_QUEUE ? msg : sdma_last_error());
    sdma_queue_close(q);
    munmap(bad, 4096);
}

int main(int argc, char **argv) {
    struct sdma_engine_config cfg;
    struct sdma_engine *e = NULL;
    char err[512] = "";
    memset(&cfg, 0, sizeof cfg);
    cfg.gpu = argc > 1 ? atoi(argv[1]) : 0;
    if (sdma_engine_open("hsakmt", &cfg, &e, err, sizeof err)) {
        printf("SKIP hsakmt engine: %s\n", err);
        return 77;
    }
    printf("INFO engine: %s\n", sdma_engine_target(e));
    fflush(stdout);
    copy_fence(e);
    ring_wrap(e);
    full_ring(e);
    fill(e);
    sub_window(e);
    bad_address(e);
    sdma_engine_close(e);
    while (nbuffers > 0)
        free(buffers[--nbuffers]);
    return failures;
}
