/* The stream-ordered host API (include/shmemx.h) in CPU builds: no GPU
 * runtime is linked, so every call refuses (shmem/gpu_stream.c has the GPU
 * builds' implementation). */
#include "shmem/shmemi.h"

static int unsupported(const char *fn) {
    shmemi_debug("%s: unsupported in a CPU build (no GPU runtime; configure with "
                 "-DSHMEM_GPU=hip or -DSHMEM_GPU=cuda)",
                 fn);
    return SHMEMX_STREAM_EUNSUPPORTED;
}

int shmemx_putmem_on_stream(void *dest, const void *src, size_t nbytes, int pe, void *stream) {
    (void)dest, (void)src, (void)nbytes, (void)pe, (void)stream;
    return unsupported(__func__);
}

int shmemx_getmem_on_stream(void *dest, const void *src, size_t nbytes, int pe, void *stream) {
    (void)dest, (void)src, (void)nbytes, (void)pe, (void)stream;
    return unsupported(__func__);
}

int shmemx_putmem_signal_on_stream(void *dest, const void *src, size_t nbytes, uint64_t *sig_addr,
                                   uint64_t signal, int sig_op, int pe, void *stream) {
    (void)dest, (void)src, (void)nbytes, (void)sig_addr, (void)signal, (void)sig_op, (void)pe;
    (void)stream;
    return unsupported(__func__);
}

int shmemx_signal_wait_until_on_stream(uint64_t *sig_addr, int cmp, uint64_t cmp_value,
                                       void *stream) {
    (void)sig_addr, (void)cmp, (void)cmp_value, (void)stream;
    return unsupported(__func__);
}

int shmemx_quiet_on_stream(void *stream) {
    (void)stream;
    return unsupported(__func__);
}

int shmemx_barrier_all_on_stream(void *stream) {
    (void)stream;
    return unsupported(__func__);
}

int shmemx_collective_launch(const void *func, unsigned grid[3], unsigned block[3], void **args,
                             size_t shared_bytes, void *stream) {
    (void)func, (void)grid, (void)block, (void)args, (void)shared_bytes, (void)stream;
    return unsupported(__func__);
}
