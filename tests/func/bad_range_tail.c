/* Error check: with SHMEM_SYMMETRIC_SIZE=1m, a 70 KB put from the last
 * 64 bytes of the heap runs past its end (into what follows it: the
 * library's own words) and must end the job with "past the end of the
 * symmetric heap" instead of landing there. */
#include "check.h"

#include <string.h>

#define HEAP ((size_t)1 << 20)
#define LEN ((size_t)70 * 1024)

int main(void) {
    shmem_init();
    const int me = shmem_my_pe();
    char *all = shmem_malloc(HEAP);
    char *src = malloc(LEN);
    CHECK(all && src, "allocation failed");
    memset(src, 0x5a, LEN);
    shmem_barrier_all();
    if (me == 0)
        shmem_putmem(all + HEAP - 64, src, LEN, (me + 1) % shmem_n_pes());
    shmem_barrier_all();
    fprintf(stderr, "[PE %d] FAIL: a %zu B put from the last 64 B of the heap was accepted\n", me,
            LEN);
    shmem_global_exit(1);
    return 1;
}
