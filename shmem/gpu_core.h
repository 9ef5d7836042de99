/* What shmem/gpu.c (the device heap, the device row's operations) gives the
 * other C files of a GPU build's core, and what they give it back: the
 * stream-ordered host API (shmem/gpu_stream.c) reaches this PE's GPU and the
 * library stream through these. GPU builds only. */
#ifndef SHMEMI_GPU_CORE_H
#define SHMEMI_GPU_CORE_H

#include "device/gpu.h"

/* Make this PE's GPU current in the calling thread (the runtime's current
 * device is per thread; ends the job when it cannot); returns its number. */
int shmemi_gpu_enter(const char *fn);
/* The library stream when it holds non-blocking host-API work that no quiet
 * has completed yet (the stream-ordered API orders a stream after it); NULL
 * when there is none. */
hipStream_t shmemi_gpu_lib_pending(void);

/* gpu_stream.c: the stream-ordered API's part of the device row's check.
 * drain (finalize): every stream wait of this PE ends first (met or timed
 * out). Then a wait that timed out ends the job naming fn. Nothing before the
 * API's first use. */
void shmemi_stream_check(int drain, const char *fn);

#endif
