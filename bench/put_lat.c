/*
 * put_lat - latency of a put from PE 0 to PE 1, per message size.
 *
 * One iteration at PE 0 is  shmem_putmem(dst, src, size, 1); shmem_quiet();
 * (with --nbi: shmem_putmem_nbi + shmem_quiet), i.e. the time until the data
 * is delivered at PE 1 (OSU's osu_oshm_put times the put alone; the quiet
 * makes the figure comparable across libraries whose blocking put returns at
 * local completion).  PE 1 and any other PE wait in shmem_barrier_all.
 * Reported: median over iterations, microseconds.
 */
#include "rma.h"

int main(int argc, char **argv) { return rma_main(argc, argv, RMA_PUT, RMA_LAT); }
