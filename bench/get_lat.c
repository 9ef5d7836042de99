/*
 * get_lat - latency of a get by PE 0 from PE 1, per message size.
 *
 * One iteration at PE 0 is  shmem_getmem(dst, src, size, 1);
 * (with --nbi: shmem_getmem_nbi + shmem_quiet).  A blocking get returns with
 * the data in place, so no quiet is needed there.  PE 1 and any other PE
 * wait in shmem_barrier_all.  Reported: median over iterations, microseconds.
 */
#include "rma.h"

int main(int argc, char **argv) { return rma_main(argc, argv, RMA_GET, RMA_LAT); }
