/* The fabric row of a build without libfabric: it reaches nothing, and a job
 * whose PEs do not all map each other (PEs on several nodes, or
 * SHMEM_FORCE_FABRIC=1) stops at shmem_init saying why. */
#include "shmem/shmemi.h"

static int none_setup(void) {
    for (int pe = 0; pe < shmemi.n_pes; pe++)
        if (pe != shmemi.my_pe && !shmemi.peers[pe].heap)
            shmemi_fatal("PE %d %s: PEs that do not share a node need the fabric path, and "
                         "this library was built without libfabric (install libfabric's "
                         "development files, e.g. Debian's libfabric-dev, and rebuild)",
                         pe,
                         shmemi.cfg.FORCE_FABRIC ? "is to be reached through the fabric "
                                                   "(SHMEM_FORCE_FABRIC=1)"
                                                 : "runs on another node");
    return 0;
}

void *shmemi_fabric_window(int pe, int region, size_t off) {
    (void)pe, (void)region, (void)off;
    return NULL;
}

const struct sdma_foreign *shmemi_fabric_foreign(void) { return NULL; }

const struct shmemi_path_ops shmemi_path_fabric = {
    .name = "fabric",
    .caps = 0,
    .refusal = "is on another node",
    .setup = none_setup,
};
