/* The header's place before OpenSHMEM 1.1 (SGI SHMEM, Cray SHMEM and the
 * codes written for them include <mpp/shmem.h>): the same API as <shmem.h>. */
#ifndef SHMEM_MPP_SHMEM_H
#define SHMEM_MPP_SHMEM_H
#include <shmem.h>
#endif
