/* PE 0 reaches shmem_finalize late, while the others already wait there and
 * look at its liveness record. Through the fabric (SHMEM_FORCE_FABRIC=1) with
 * no progress thread (SHMEM_OFI_PROGRESS=caller), their last looks must still
 * be served once PE 0 has seen them all arrive: a finalize that then waited in
 * the bootstrap's barrier, running no progress, hung with its peers' gets
 * unanswered. */
#include "check.h"

#include <unistd.h>

int main(void) {
    shmem_init();
    if (shmem_my_pe() == 0)
        usleep(300 * 1000);
    func_pass("finalize_late");
    shmem_finalize();
    return 0;
}
