/* The library's one kernel: a system-scope atomic on a device-heap word,
 * launched by the host API's AMOs on the device heap (shmem/gpu.c). Shared
 * by the C side and the GPU source shmem/gpu_amo.cu. */
#ifndef SHMEMI_GPU_AMO_H
#define SHMEMI_GPU_AMO_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Launch one thread that applies `op` (enum shmemi_amo_op) to the `size`
 * (4 or 8) byte word at device pointer p and stores the old value, widened
 * to 64 bits, at device pointer old. On `stream` (the runtime's stream
 * type); returns the launch's runtime status (0 on success). */
int shmemi_gpu_amo_launch(void *p, int op, int size, uint64_t value, uint64_t cond, uint64_t *old,
                          void *stream);

#ifdef __cplusplus
}
#endif

#endif
