/* How symmetric memory is backed (SHMEM_HEAP_POPULATE, the data segment's
 * remap): counted, never timed.
 *   - a large zero static array is not copied into the shared object at
 *     init (its pages stay unallocated until written: mincore), while a page
 *     of it written before shmem_init keeps its contents for every PE;
 *   - the first put and get of a fresh 8 MiB allocation take (almost) no
 *     page faults in the caller (its pages were mapped into every PE's view
 *     when it was allocated). */
#include "check.h"

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#define BIG ((size_t)64 << 20)
#define MARK_AT ((size_t)40 << 20)
#define XFER ((size_t)8 << 20)

static char big[BIG];

static long minor_faults(void) {
    struct rusage r;
    getrusage(RUSAGE_SELF, &r);
    return r.ru_minflt;
}

int main(void) {
    /* Before init: one page of the .bss array holds something. */
    memset(big + MARK_AT, 0x5a, 4096);
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes(), next = (me + 1) % n;
    long page = sysconf(_SC_PAGESIZE);

    /* The written page survived the remap, here and for the peers. */
    CHECK(big[MARK_AT] == 0x5a && big[MARK_AT + 4095] == 0x5a, "pre-init contents lost");
    char got[64];
    shmem_getmem(got, big + MARK_AT, sizeof(got), next);
    for (size_t i = 0; i < sizeof(got); i++)
        CHECK(got[i] == 0x5a, "PE %d's pre-init contents read as %d", next, got[i]);

    if (n > 1) {
        /* The rest of the array was not copied into the shared object. */
        size_t npages = BIG / (size_t)page, resident = 0;
        unsigned char *v = malloc(npages);
        CHECK(v != NULL, "malloc");
        char *start = (char *)(((uintptr_t)big + (uintptr_t)page - 1) & ~(uintptr_t)(page - 1));
        CHECK(mincore(start, BIG - (size_t)page, v) == 0, "mincore");
        for (size_t i = 0; i + 1 < npages; i++)
            resident += v[i] & 1;
        free(v);
        CHECK(resident < 64, "%zu of %zu pages of a zero static array were allocated at init",
              resident, npages);
    }
    shmem_barrier_all();

    /* Fresh heap memory: no faults in the first transfers. */
    char *buf = shmem_malloc(XFER);
    char *src = malloc(XFER), *dst = malloc(XFER);
    CHECK(buf && src && dst, "allocation");
    memset(src, me + 1, XFER);
    memset(dst, 0x11, XFER); /* touched (memset to 0 after malloc may become calloc) */
    /* Whatever a path allocates on its first transfer of this size (a fabric
     * provider's bounce buffers) is not the heap's: through another
     * allocation first. */
    char *warm = shmem_malloc(XFER);
    CHECK(warm != NULL, "allocation");
    shmem_putmem(warm, src, XFER, next);
    shmem_barrier_all();
    shmem_getmem(dst, warm, XFER, next);
    shmem_barrier_all();
    long f0 = minor_faults();
    shmem_putmem(buf, src, XFER, next);
    shmem_barrier_all();
    shmem_getmem(dst, buf, XFER, next);
    long faults = minor_faults() - f0;
    /* Unpopulated, the put alone faults once per page (2048); a sanitizer's
     * shadow of the destination takes an eighth of that. */
    long pages = (long)(XFER / (size_t)page);
    CHECK(faults < pages / 4,
          "%ld page faults in the first 8 MiB put and get of a fresh "
          "allocation (%ld pages)",
          faults, pages);
    int prev = (me + n - 1) % n;
    CHECK(buf[0] == prev + 1 && buf[XFER - 1] == prev + 1, "put data wrong");
    CHECK(dst[0] == me + 1 && dst[XFER - 1] == me + 1, "get data wrong");
    shmem_barrier_all();
    shmem_free(buf);
    shmem_free(warm);
    free(src);
    free(dst);
    shmem_finalize();
    return 0;
}
