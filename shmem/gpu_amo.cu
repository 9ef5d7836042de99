// The host API's atomics on the device heap: one thread applies one
// system-scope atomic (the word may be written at the same time by kernels
// on any GPU of the node, by copy engines and by other PEs' host AMOs, which
// all come here) and stores the old value. Compiled by nvcc or hipcc -x hip.
#include "device/gpu.h"
#include "shmem/gpu_amo.h"

// The values of enum shmemi_amo_op (shmem/shmemi.h, which is C only).
enum { AMO_FETCH, AMO_SET, AMO_SWAP, AMO_CSWAP, AMO_ADD, AMO_AND, AMO_OR, AMO_XOR };

template <typename U> __device__ static U amo(U *p, int op, U v, U c) {
    switch (op) {
    case AMO_FETCH: return atomicOr_system(p, (U)0); // an atomic read
    case AMO_SET:
    case AMO_SWAP: return atomicExch_system(p, v);
    case AMO_CSWAP: return atomicCAS_system(p, c, v);
    case AMO_ADD: return atomicAdd_system(p, v);
    case AMO_AND: return atomicAnd_system(p, v);
    case AMO_OR: return atomicOr_system(p, v);
    default: return atomicXor_system(p, v);
    }
}

__global__ static void amo_kernel(void *p, int op, int size, unsigned long long v,
                                  unsigned long long c, unsigned long long *old) {
    if (size == 4)
        *old = amo((unsigned int *)p, op, (unsigned int)v, (unsigned int)c);
    else
        *old = amo((unsigned long long *)p, op, v, c);
    // Visible to every agent of the system before the stream moves on.
    __threadfence_system();
}

extern "C" int shmemi_gpu_amo_launch(void *p, int op, int size, uint64_t value, uint64_t cond,
                                     uint64_t *old, void *stream) {
    amo_kernel<<<1, 1, 0, (hipStream_t)stream>>>(p, op, size, value, cond,
                                                 (unsigned long long *)old);
    return (int)hipGetLastError();
}
