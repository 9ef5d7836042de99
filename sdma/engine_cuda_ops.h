/* Private to sdma/: the cuda engine's kernels (engine_cuda_ops.cu), one thread or one small
 * grid each, queued on a queue's stream. Each returns the launch's cudaError_t (0: ok). */
#ifndef SDMA_ENGINE_CUDA_OPS_H
#define SDMA_ENGINE_CUDA_OPS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { SDMA_CUDA_ADD = 0, SDMA_CUDA_SWAP = 1, SDMA_CUDA_CAS = 2 };

/* A system-scope atomic on a 32- or 64-bit word. */
int sdma_cuda_atomic_launch(void *stream, uint64_t addr, int op, int is64, uint64_t src,
                            uint64_t cmp);
/* bytes at dst filled with the low `unit` (1, 2 or 4) bytes of pattern, repeated. */
int sdma_cuda_fill_launch(void *stream, uint64_t dst, uint64_t bytes, uint32_t pattern,
                          unsigned unit);
/* The GPU's global timer (nanoseconds) at addr. */
int sdma_cuda_timestamp_launch(void *stream, uint64_t addr);

#ifdef __cplusplus
}
#endif

#endif
