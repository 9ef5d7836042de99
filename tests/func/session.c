/* Sessions (1.6): shmem_ctx_session_start and _stop on created contexts and
 * on the default one, with the batch and same-AMO options, a configuration
 * and its mask, sessions started twice (options combine), a quiet inside a
 * session, sessions on SHMEM_CTX_INVALID (no-ops), a stop without a start,
 * and the draft spelling shmem_session_start/stop. Data moved inside a
 * session arrives at the quiet after it, whichever path moved it (run also
 * with SHMEM_NBI_THRESHOLD=0: every non-blocking put goes to the engine,
 * whose doorbell a batch session rings once). */
#include "check.h"

#include <stdint.h>
#include <string.h>

#define NPUT 64
#define LEN 256

static int me, npes, right, left;

static void batch(shmem_ctx_t ctx, char *dst, const char *src, size_t hint, int quiet_inside) {
    const shmem_ctx_session_config_t cfg = {.total_ops = hint};
    memset(dst, 0, NPUT * LEN);
    shmem_barrier_all();
    shmem_ctx_session_start(ctx, SHMEM_CTX_SESSION_BATCH, &cfg, SHMEM_CTX_SESSION_TOTAL_OPS);
    for (int i = 0; i < NPUT; i++) {
        shmem_ctx_putmem_nbi(ctx, dst + i * LEN, src + i * LEN, LEN, right);
        if (quiet_inside && i == NPUT / 2)
            shmem_ctx_quiet(ctx); /* allowed inside a session: completes the first half */
    }
    shmem_ctx_session_stop(ctx);
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    for (int i = 0; i < NPUT * LEN; i++)
        CHECK(dst[i] == (char)(left * 7 + i), "byte %d from PE %d after a batch session", i, left);
    shmem_barrier_all();
}

int main(void) {
    shmem_init();
    func_ring(&me, &npes, &right, &left);
    char *dst = shmem_malloc(NPUT * LEN), *src = malloc(NPUT * LEN);
    long *counter = shmem_calloc(1, sizeof(long));
    CHECK(dst && src && counter, "allocation failed");
    for (int i = 0; i < NPUT * LEN; i++)
        src[i] = (char)(me * 7 + i);

    shmem_ctx_t ctx;
    CHECK(shmem_ctx_create(0, &ctx) == 0, "shmem_ctx_create");
    batch(ctx, dst, src, NPUT, 0);
    batch(ctx, dst, src, SIZE_MAX, 1);
    batch(SHMEM_CTX_DEFAULT, dst, src, 3, 0);

    /* Started twice: the options combine; same-AMO atomics on the counter. */
    shmem_ctx_session_start(ctx, SHMEM_CTX_SESSION_BATCH, NULL, 0);
    shmem_ctx_session_start(ctx, SHMEM_CTX_SESSION_SAME_AMO, NULL, 0);
    for (int i = 0; i < 100; i++)
        shmem_ctx_long_atomic_inc(ctx, counter, right);
    shmem_ctx_session_stop(ctx);
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    CHECK(*counter == 100, "counter %ld after a same-AMO session", *counter);
    shmem_barrier_all(); /* every PE read its counter before the next adds */

    /* The draft spelling, on the default context. */
    shmem_session_start(SHMEM_SESSION_UNIFORM_AMO, SHMEM_CTX_DEFAULT);
    for (int i = 0; i < 100; i++)
        shmem_long_atomic_add(counter, 2, right);
    shmem_session_stop(SHMEM_CTX_DEFAULT);
    shmem_barrier_all();
    CHECK(*counter == 300, "counter %ld after a draft-spelling session", *counter);
    shmem_barrier_all();

    /* No-ops: invalid contexts, and a stop without a start. */
    shmem_ctx_session_start(SHMEM_CTX_INVALID, SHMEM_CTX_SESSION_BATCH, NULL, 0);
    shmem_ctx_session_stop(SHMEM_CTX_INVALID);
    shmem_ctx_session_stop(ctx);
    /* A context destroyed in a session completes its transfers. */
    shmem_ctx_t ctx2;
    CHECK(shmem_ctx_create(0, &ctx2) == 0, "shmem_ctx_create");
    memset(dst, 0, NPUT * LEN);
    shmem_barrier_all();
    shmem_ctx_session_start(ctx2, SHMEM_CTX_SESSION_BATCH, NULL, 0);
    shmem_ctx_putmem_nbi(ctx2, dst, src, NPUT * LEN, right);
    shmem_ctx_destroy(ctx2);
    shmem_barrier_all();
    for (int i = 0; i < NPUT * LEN; i++)
        CHECK(dst[i] == (char)(left * 7 + i), "byte %d after destroying a context in a session", i);

    shmem_barrier_all();
    shmem_ctx_destroy(ctx);
    shmem_free(counter);
    shmem_free(dst);
    free(src);
    func_pass("session");
    shmem_finalize();
    return 0;
}
