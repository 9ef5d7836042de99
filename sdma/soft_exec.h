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
    SDMA_EXEC_DONE = 0,  /* packet executed; *used dwords consumed */
    SDMA_EXEC_WAIT = 1,  /* POLL not satisfied yet: call again with the same packet later */
    SDMA_EXEC_ERROR = 2  /* malformed or failed packet: ctx->msg says why; nothing consumed */
};

struct sdma_soft_ctx {
    /* Set by the owner. */
    sdma_addr_check_fn check; /* NULL: sdma_soft_default_check */
    void *check_arg;
    void (*trap)(void *arg, uint32_t context); /* NULL: TRAP is a no-op */
    void *trap_arg;
    double poll_timeout_s; /* safety deadline of one POLL, "forever" included */
    double (*clock)(void); /* seconds, monotonic; NULL: CLOCK_MONOTONIC */

    /* State of a POLL in progress at the head of the queue. */
    int poll_active;
    uint32_t poll_checks;
    double poll_start;
    double wait_until; /* on SDMA_EXEC_WAIT: when to call again */

    /* Last decoded header and error text. */
    uint32_t op, sub_op;
    char msg[200];
};

/* Accept any canonical user-space range above the first page. */
int sdma_soft_default_check(void *arg, uint64_t addr, uint64_t len, int write);

double sdma_soft_clock(void);

/* Execute the packet at dw[0] (avail dwords readable there). */
int sdma_soft_exec(struct sdma_soft_ctx *x, const uint32_t *dw, size_t avail, size_t *used);

#endif
