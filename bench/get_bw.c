/*
 * get_bw - windowed get bandwidth, PE 0 reading from PE 1, per message size.
 *
 * One iteration at PE 0 is a window of W gets of `size` bytes from the same
 * symmetric buffer at PE 1 into one local buffer (shmem_getmem, or
 * shmem_getmem_nbi with --nbi, then one shmem_quiet).  Bandwidth =
 * size * W / (median iteration time), in MB/s (10^6 bytes per second).
 * Other PEs wait in shmem_barrier_all.
 */
#include "rma.h"

int main(int argc, char **argv) { return rma_main(argc, argv, RMA_GET, RMA_BW); }
