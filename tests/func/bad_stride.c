/* A block stride smaller than the block ends the job naming the routine
 * (ibput and ibget: blocks would overlap). */
#include "check.h"

int main(void) {
    shmem_init();
    long *t = shmem_malloc(16 * sizeof(long)), s[16] = {0};
    shmem_long_ibput(t, s, 1, 2, 2, 4, 0); /* target stride 1 < block of 2 */
    func_pass("bad_stride: not reached");
    shmem_finalize();
    return 0;
}
