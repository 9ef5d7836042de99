/*
 * put_bw - windowed put bandwidth from PE 0 to PE 1, per message size.
 *
 * One iteration at PE 0 is a window of W puts of `size` bytes into the same
 * symmetric buffer at PE 1 (shmem_putmem, or shmem_putmem_nbi with --nbi)
 * followed by one shmem_quiet.  Bandwidth = size * W / (median iteration
 * time), in MB/s (10^6 bytes per second).  Other PEs wait in
 * shmem_barrier_all.
 */
#include "rma.h"

int main(int argc, char **argv) { return rma_main(argc, argv, RMA_PUT, RMA_BW); }
