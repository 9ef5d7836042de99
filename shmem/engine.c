/* The core's copy engine: non-blocking transfers that proceed beside the
 * caller. */
#include "shmem/engine.h"

static const char *engine_name = "none";

int shmemi_engine_init(void) { return 0; }
void shmemi_engine_fini(void) {}

int shmemi_engine_copy(struct shmemi_ctx *c, void *dst, const void *src, size_t bytes, int pe) {
    (void)c, (void)dst, (void)src, (void)bytes, (void)pe;
    return 0;
}

int shmemi_engine_copy_signal(struct shmemi_ctx *c, void *dst, const void *src, size_t bytes,
                              uint64_t *sig, uint64_t signal, int sig_op, int pe) {
    (void)c, (void)dst, (void)src, (void)bytes, (void)sig, (void)signal, (void)sig_op, (void)pe;
    return 0;
}

void shmemi_engine_quiet(struct shmemi_ctx *c, int pe) { (void)c, (void)pe; }

const char *shmemi_copy_engine_name(void) { return engine_name; }
const char *shmemx_copy_engine_name(void) { return engine_name; }
