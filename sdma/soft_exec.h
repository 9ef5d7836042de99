/* Private: the soft engine's packet interpreter. It executes one packet at a time from a
 * dword window and never touches memory the address check refuses, so random bytes can
 * be fed to it (tests/fuzz/fuzz_soft_decoder.c). The engine thread (engine_soft.c) drives
 * it per queue. */
#ifndef SDMA_SOFT_EXEC_H
#define SDMA_SOFT_EXEC_H

#include <stddef.h>
#include <stdint.h>

#include "sdma/sdma.h"

enum sdma_exec_result {
    SDMA_EXEC_DONE = 0, /* packet executed; *used dwords consumed */
    SDMA_EXEC_WAIT = 1, /* POLL not satisfied yet: call again with the same packet later */
    SDMA_EXEC_ERROR = 2 /* malformed or failed packet: ctx->msg says why; nothing consumed */
};

struct sdma_soft_ctx;

/* How decoded packets take effect. NULL in the context: on the host (memmove, CPU atomics:
 * the soft engine). Another engine (the cuda engine) queues the same operations on its
 * hardware instead. Addresses and shapes are checked before a call; each returns
 * SDMA_EXEC_DONE, or SDMA_EXEC_ERROR after sdma_exec_fail(). */
struct sdma_exec_ops {
    /* depth slices of rows rows of width bytes; pitches and slices are in bytes. */
    int (*copy)(struct sdma_soft_ctx *x, uint64_t dst, uint64_t dpitch, uint64_t dslice,
                uint64_t src, uint64_t spitch, uint64_t sslice, uint64_t width, uint64_t rows,
                uint64_t depth);
    /* 1: (*addr & mask) <func> ref holds, or the wait was handed to the hardware (the
     * packets behind it may be issued); 0: not yet (*seen: the word read); -1: failed
     * (after sdma_exec_fail). */
    int (*poll)(struct sdma_soft_ctx *x, uint64_t addr, uint32_t ref, uint32_t mask, unsigned func,
                uint32_t *seen);
    int (*fence)(struct sdma_soft_ctx *x, uint64_t addr, uint32_t value);
    /* base: SDMA_ATOMIC_ADD32 / CMPSWAP32 / SWAP32 */
    int (*atomic)(struct sdma_soft_ctx *x, uint64_t addr, unsigned base, int is64, uint64_t src,
                  uint64_t cmp);
    int (*fill)(struct sdma_soft_ctx *x, uint64_t dst, uint64_t bytes, uint32_t pattern,
                unsigned unit);
    int (*timestamp)(struct sdma_soft_ctx *x, uint64_t addr); /* nanoseconds, 8 bytes */
};

struct sdma_soft_ctx {
    /* Set by the owner. */
    const struct sdma_exec_ops *ops; /* NULL: the host executes */
    void *ops_arg;
    sdma_addr_check_fn check; /* NULL: sdma_soft_default_check */
    void *check_arg;
    void (*trap)(void *arg, uint32_t context); /* NULL: TRAP is a no-op */
    void *trap_arg;
    double poll_timeout_s;              /* safety deadline of one POLL, "forever" included */
    double poll_interval_max_s;         /* >0: an unsatisfied POLL is checked again at least this
                                   often, whatever its packet's interval */
    double (*clock)(void);              /* seconds, monotonic; NULL: CLOCK_MONOTONIC */
    const struct sdma_foreign *foreign; /* addresses its callbacks reach (host executor), or NULL */

    /* State of a POLL in progress at the head of the queue. */
    int poll_active;
    int poll_counted; /* it gives up after a number of checks: check it on its interval */
    uint32_t poll_checks;
    double poll_start;
    double wait_until; /* on SDMA_EXEC_WAIT: when to call again */

    /* Last decoded header and error text. */
    uint32_t op, sub_op;
    char msg[200];
};

/* The host executor (the soft engine's). */
extern const struct sdma_exec_ops sdma_host_exec;

/* Record why the current packet failed; returns SDMA_EXEC_ERROR. */
int sdma_exec_fail(struct sdma_soft_ctx *x, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* (v) <func> ref for SDMA_POLL_* */
int sdma_poll_holds(uint32_t v, uint32_t ref, unsigned func);

/* Accept any canonical user-space range above the first page. */
int sdma_soft_default_check(void *arg, uint64_t addr, uint64_t len, int write);

double sdma_soft_clock(void);

/* Execute the packet at dw[0] (avail dwords readable there). */
int sdma_soft_exec(struct sdma_soft_ctx *x, const uint32_t *dw, size_t avail, size_t *used);

#endif
