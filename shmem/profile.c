/* The profiling interface's control routine, and the timer (shmemx_wtime).
 * Every other routine's pshmem_ twin is made where the routine is defined
 * (shmem/api.h). */
#include "shmem/shmemi.h"

#define SHMEMI_FILE profile
#include "shmem/api.h"

/* A profiling tool gives levels their meaning (the specification suggests
 * <= 0 off, 1 on, 2 on and flush); the library itself ignores the call. */
void shmem_pcontrol(const int level, ...) { (void)level; }

double shmemx_wtime(void) { return (double)shmemi_now_ns() * 1e-9; }
