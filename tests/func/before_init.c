/* Error check: OpenSHMEM calls before shmem_init must end the job with
 * "[PE n] ... before shmem_init". argv[1] picks the call: my_pe | putmem. */
#include "check.h"

#include <string.h>

static long target;

int main(int argc, char **argv) {
    const char *what = argc > 1 ? argv[1] : "my_pe";
    if (strcmp(what, "putmem") == 0) {
        long v = 1;
        shmem_putmem(&target, &v, sizeof v, 0);
    } else {
        int pe = shmem_my_pe();
        fprintf(stderr, "shmem_my_pe returned %d without initialization\n", pe);
    }
    fprintf(stderr, "FAIL: %s was accepted without initialization\n", what);
    return 1;
}
