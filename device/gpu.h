/* The GPU runtime and atomic primitives the library uses, under their HIP
 * names. AMD builds (SHMEM_GPU_HIP) take them from the HIP runtime; NVIDIA
 * builds (SHMEM_GPU_CUDA) map each name onto the CUDA runtime. Nothing else
 * in the tree names a vendor: add a primitive here, on both sides, before
 * using it anywhere.
 *
 * Compiles from C (the host library: only the runtime API) and from HIP or
 * CUDA sources (nvcc, hipcc -x hip: the runtime and the device atomics). */
#ifndef SHMEM_DEVICE_GPU_H
#define SHMEM_DEVICE_GPU_H

#include <string.h>

#if defined(SHMEM_GPU_HIP)
/* ------------------------------------------------------------ AMD (HIP) */
#if !defined(__HIP_PLATFORM_AMD__) && !defined(__HIP_PLATFORM_HCC__)
#define __HIP_PLATFORM_AMD__ 1
#endif
#if defined(__HIPCC__)
#include <hip/hip_runtime.h>
#else
#include <hip/hip_runtime_api.h>
#endif
/* Fine-grained device memory: coherent for system-scope atomics, peers and
 * copy engines while kernels run. */
#define shmemi_gpu_malloc_coherent(ptr, size)                                                      \
    hipExtMallocWithFlags((ptr), (size), hipDeviceMallocFinegrained)
#define SHMEMI_GPU_VENDOR "HIP"

/* The GPU's 16-byte UUID, to tell whether two PEs use one GPU. */
static inline hipError_t shmemi_gpu_uuid(int dev, unsigned char out[16]) {
    hipUUID u;
    hipError_t e = hipDeviceGetUuid(&u, dev);
    if (e == hipSuccess)
        memcpy(out, u.bytes, 16);
    return e;
}
/* No sharing server: processes on one AMD GPU get queues of their own. */
#define SHMEMI_GPU_HAS_MPS 0

#elif defined(SHMEM_GPU_CUDA)
/* -------------------------------------------------------- NVIDIA (CUDA) */
#if defined(__CUDACC__)
#include <cuda_runtime.h>
#else
#include <cuda_runtime_api.h>
#endif

typedef cudaError_t hipError_t;
typedef cudaStream_t hipStream_t;
typedef cudaEvent_t hipEvent_t;
typedef cudaIpcMemHandle_t hipIpcMemHandle_t;
typedef enum cudaMemcpyKind hipMemcpyKind;
typedef struct cudaPointerAttributes hipPointerAttribute_t;

#define hipSuccess cudaSuccess
#define hipErrorNoDevice cudaErrorNoDevice
#define hipErrorInsufficientDriver cudaErrorInsufficientDriver
#define hipErrorInvalidPitchValue cudaErrorInvalidPitchValue
#define hipErrorPeerAccessAlreadyEnabled cudaErrorPeerAccessAlreadyEnabled
#define hipMemcpyDefault cudaMemcpyDefault
#define hipMemcpyHostToDevice cudaMemcpyHostToDevice
#define hipMemcpyDeviceToHost cudaMemcpyDeviceToHost
#define hipMemcpyDeviceToDevice cudaMemcpyDeviceToDevice
#define hipIpcMemLazyEnablePeerAccess cudaIpcMemLazyEnablePeerAccess
#define hipStreamNonBlocking cudaStreamNonBlocking
#define hipHostMallocDefault cudaHostAllocDefault
#define hipHostMallocMapped cudaHostAllocMapped
#define hipHostMallocPortable cudaHostAllocPortable
#define hipHostRegisterPortable cudaHostRegisterPortable
#define hipHostRegisterDefault cudaHostRegisterDefault
#define hipHostRegisterMapped cudaHostRegisterMapped
#define hipEventDisableTiming cudaEventDisableTiming
#define hipDeviceAttributeMultiprocessorCount cudaDevAttrMultiProcessorCount

#define hipGetErrorString cudaGetErrorString
#define hipGetErrorName cudaGetErrorName
#define hipGetLastError cudaGetLastError
#define hipGetDeviceCount cudaGetDeviceCount
#define hipGetDevice cudaGetDevice
#define hipSetDevice cudaSetDevice
#define hipDeviceSynchronize cudaDeviceSynchronize
#define hipDeviceCanAccessPeer cudaDeviceCanAccessPeer
#define hipDeviceEnablePeerAccess cudaDeviceEnablePeerAccess
#define hipDriverGetVersion cudaDriverGetVersion
#define hipRuntimeGetVersion cudaRuntimeGetVersion
#define hipMalloc cudaMalloc
#define hipFree cudaFree
#define hipHostMalloc cudaHostAlloc
#define hipHostFree cudaFreeHost
#define hipHostRegister cudaHostRegister
#define hipHostUnregister cudaHostUnregister
#define hipMemset cudaMemset
#define hipMemsetAsync cudaMemsetAsync
#define hipMemcpy cudaMemcpy
#define hipMemcpyAsync cudaMemcpyAsync
#define hipMemcpy2DAsync cudaMemcpy2DAsync
#define hipMemcpyToSymbol cudaMemcpyToSymbol
#define hipMemcpyToSymbolAsync cudaMemcpyToSymbolAsync
#define hipPointerGetAttributes cudaPointerGetAttributes
#define hipIpcGetMemHandle cudaIpcGetMemHandle
#define hipIpcOpenMemHandle cudaIpcOpenMemHandle
#define hipIpcCloseMemHandle cudaIpcCloseMemHandle
#define hipStreamCreate cudaStreamCreate
#define hipStreamCreateWithFlags cudaStreamCreateWithFlags
#define hipStreamSynchronize cudaStreamSynchronize
#define hipStreamDestroy cudaStreamDestroy
#define hipEventCreate cudaEventCreate
#define hipEventRecord cudaEventRecord
#define hipEventSynchronize cudaEventSynchronize
#define hipEventDestroy cudaEventDestroy
#define hipEventCreateWithFlags cudaEventCreateWithFlags
#define hipStreamWaitEvent cudaStreamWaitEvent
#define hipHostGetDevicePointer cudaHostGetDevicePointer
#define hipDeviceGetAttribute cudaDeviceGetAttribute
#define hipDeviceGetPCIBusId cudaDeviceGetPCIBusId
#define hipOccupancyMaxActiveBlocksPerMultiprocessor cudaOccupancyMaxActiveBlocksPerMultiprocessor
#define hipLaunchKernel cudaLaunchKernel

/* A __device__ variable as the runtime's symbol argument. Under nvcc's C++
 * runtime, cudaMemcpyToSymbol is a template that takes the variable itself
 * (passing its address would name a temporary pointer); HIP takes the
 * address. Always write hipMemcpyToSymbol(HIP_SYMBOL(var), ...). */
#define HIP_SYMBOL(x) x

/* Plain device memory: on NVIDIA, cudaMalloc memory is coherent for
 * system-scope atomics and IPC peers. */
#define shmemi_gpu_malloc_coherent(ptr, size) cudaMalloc((ptr), (size))
#define SHMEMI_GPU_VENDOR "CUDA"

/* The GPU's 16-byte UUID (a MIG instance has its own), to tell whether two
 * PEs use one GPU. */
static inline hipError_t shmemi_gpu_uuid(int dev, unsigned char out[16]) {
    struct cudaDeviceProp p;
    hipError_t e = cudaGetDeviceProperties(&p, dev);
    if (e == cudaSuccess)
        memcpy(out, &p.uuid, 16);
    return e;
}
/* Whether this process's contexts on the GPU go through the MPS server (NVIDIA's
 * Multi-Process Service, which lets kernels of several processes run at once
 * instead of taking turns): 1, 0, or -1 where the runtime cannot say. */
#define SHMEMI_GPU_HAS_MPS 1
static inline int shmemi_gpu_mps(int dev) {
#if CUDART_VERSION >= 12060
    int v = 0;
    if (cudaDeviceGetAttribute(&v, cudaDevAttrMpsEnabled, dev) == cudaSuccess)
        return v != 0;
    (void)cudaGetLastError();
#else
    (void)dev;
#endif
    return -1;
}

/* Device side: atomicAdd_system, atomicCAS_system, atomicExch_system,
 * atomicAnd/Or/Xor_system, __threadfence_system and the launch syntax carry
 * the same names in both dialects. */

#else
#error "device/gpu.h is for GPU builds (SHMEM_GPU_HIP or SHMEM_GPU_CUDA)"
#endif

#endif
