/* The extensions' header at the pre-1.1 place, beside <mpp/shmem.h>. */
#ifndef SHMEM_MPP_SHMEMX_H
#define SHMEM_MPP_SHMEMX_H
#include <shmemx.h>
#endif
