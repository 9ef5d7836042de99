/* libFuzzer target: random bytes into the soft engine's packet interpreter.
 *
 * Memory the packets may name is a sandbox window mapped at a fixed low address (so random
 * address dwords with a zero high half can land in it); the address check refuses anything
 * else, exactly as the engine's own check refuses memory it cannot touch. A fake clock
 * moves one second per reading so polls run into their retry count or deadline at once.
 *
 * Built with -DSDMA_FUZZ_SEEDS it is instead a seed generator: it writes a few valid packet
 * streams (naming sandbox addresses) into the directory given as argv[1]. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "sdma/packets.h"
#include "sdma/soft_exec.h"

#define SANDBOX_BASE 0x100000ull
#define SANDBOX_SIZE (1ull << 20)

#ifndef SDMA_FUZZ_SEEDS

static unsigned char *sandbox;

static void sandbox_init(void) {
    if (sandbox)
        return;
    sandbox = mmap((void *)(uintptr_t)SANDBOX_BASE, SANDBOX_SIZE, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (sandbox == MAP_FAILED || (uintptr_t)sandbox != SANDBOX_BASE) {
        /* Anywhere will do; only fewer random addresses hit it. */
        sandbox =
            mmap(NULL, SANDBOX_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (sandbox == MAP_FAILED)
            abort();
    }
}

static int in_sandbox(void *arg, uint64_t addr, uint64_t len, int write) {
    uint64_t base = (uint64_t)(uintptr_t)sandbox;
    (void)arg;
    (void)write;
    return addr >= base && len <= SANDBOX_SIZE && addr - base <= SANDBOX_SIZE - len;
}

static double fake_now;
static double fake_clock(void) { return fake_now += 1.0; }

static void on_trap(void *arg, uint32_t context) {
    (void)arg;
    (void)context;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static uint32_t dw[4096];
    struct sdma_soft_ctx x;
    size_t ndw = size / 4, pos = 0, waits = 0;

    sandbox_init();
    if (ndw > sizeof dw / 4)
        ndw = sizeof dw / 4;
    memcpy(dw, data, ndw * 4);
    memset(&x, 0, sizeof x);
    x.check = in_sandbox;
    x.trap = on_trap;
    x.poll_timeout_s = 3.0;
    x.clock = fake_clock;
    while (pos < ndw) {
        size_t used = 0;
        int rc = sdma_soft_exec(&x, dw + pos, ndw - pos, &used);
        if (rc == SDMA_EXEC_ERROR)
            break;
        if (rc == SDMA_EXEC_WAIT) {
            if (++waits > 16)
                break;
            continue;
        }
        if (used == 0 || used > ndw - pos)
            abort(); /* the interpreter must always make progress within the window */
        pos += used;
    }
    return 0;
}

#else

static void put(const char *dir, const char *name, const uint32_t *dw, size_t n) {
    char path[512];
    FILE *f;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    f = fopen(path, "wb");
    if (!f) {
        perror(path);
        exit(1);
    }
    fwrite(dw, 4, n, f);
    fclose(f);
}

int main(int argc, char **argv) {
    uint32_t dw[256];
    size_t n = 0;
    uint64_t b = SANDBOX_BASE;
    if (argc < 2) {
        fprintf(stderr, "usage: %s <corpus dir>\n", argv[0]);
        return 1;
    }
    n += sdma_pkt_nop(dw + n, 3);
    n += sdma_pkt_copy_linear(dw + n, b + 0x1000, b, 256);
    n += sdma_pkt_const_fill(dw + n, b + 0x2000, 0xA5A5A5A5u, 100);
    n += sdma_pkt_fence(dw + n, b + 0x3000, 1);
    put(argv[1], "seed_copy", dw, n);
    n = 0;
    n += sdma_pkt_poll(dw + n, b + 0x10, 0, 0, SDMA_POLL_EQ, 10, 3);
    n += sdma_pkt_atomic(dw + n, b + 0x20, SDMA_ATOMIC_ADD64, 1, 0);
    n += sdma_pkt_atomic(dw + n, b + 0x28, SDMA_ATOMIC_CMPSWAP32, 1, 0);
    n += sdma_pkt_trap(dw + n, 5);
    n += sdma_pkt_timestamp(dw + n, b + 0x40);
    put(argv[1], "seed_sync", dw, n);
    n = 0;
    n += sdma_pkt_copy_2d(dw + n, b + 0x8000, 64, b, 32, 20, 9);
    n += sdma_pkt_copy_2d_sw13(dw + n, b + 0x9000, 64, b + 4, 32, 20, 9);
    put(argv[1], "seed_2d", dw, n);
    return 0;
}

#endif
