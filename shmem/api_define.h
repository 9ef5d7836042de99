/* The generated definitions of this file's op-table rows (see shmem/api.h):
 * included once, after the SHMEMI_B_* body macros the rows name. */
#ifndef SHMEMI_API_H
#error "include shmem/api.h first"
#endif
#define SHMEMI_API_MODE define
SHMEMI_OPS_ALL()
#undef SHMEMI_API_MODE
