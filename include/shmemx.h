/* SDMA-SHMEM extensions: copy-engine puts, triggered plans, GPU helpers.
 * Everything here is outside the OpenSHMEM specification and carries the
 * shmemx_ prefix. */
#ifndef SHMEMX_H
#define SHMEMX_H

#include <shmem.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Name of the copy engine the library runs ("soft", "hsakmt", "cuda" or
 * "none"); valid after shmem_init. */
const char *shmemx_copy_engine_name(void);

#ifdef __cplusplus
}
#endif

#endif
