/* Freeing the buffer of a plan that is not closed, or finalizing with a plan
 * open, ends the job with a message naming the plan. Failure-expected:
 *   plan_free_live free       shmem_free of the buffer of a live plan
 *   plan_free_live finalize   shmem_finalize with a live plan
 */
#include "check.h"

#include <shmemx.h>

#include <string.h>

int main(int argc, char **argv) {
    const char *what = argc > 1 ? argv[1] : "free";
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    size_t part = 256, size = (size_t)npes * part;
    unsigned char *buf = shmem_malloc(size);
    CHECK(buf, "shmem_malloc");
    memset(buf, 0, size);
    shmemx_region_t reg;
    shmemx_chunk_t ch;
    CHECK(shmemx_plan_whole((size_t)me * part, part, 1, &reg, &ch) == 1, "whole");
    shmemx_plan_t p = NULL;
    int rc = shmemx_plan_create(buf, size, &ch, 1, NULL, &p);
    CHECK(rc == 0, "create: %s", shmemx_plan_errmsg(NULL));
    CHECK(shmemx_plan_run(p, -1) == 0, "run: %s", shmemx_plan_errmsg(p));
    CHECK(shmemx_plan_next_round(p) == 0, "next_round: %s", shmemx_plan_errmsg(p));
    if (!strcmp(what, "free")) {
        shmem_free(buf); /* must not return */
        fprintf(stderr, "[PE %d] shmem_free of a live plan's buffer returned\n", me);
    } else {
        shmem_finalize(); /* must not return normally */
        fprintf(stderr, "[PE %d] shmem_finalize with a live plan returned\n", me);
    }
    /* Reaching here is the failure this test looks for: exit 0 so the
     * failure-expected test fails. */
    return 0;
}
