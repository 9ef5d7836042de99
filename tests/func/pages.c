/* How symmetric memory is backed (SHMEM_HEAP_POPULATE, the data segment's
 * remap): counted, never timed.
 *   - a large zero static array is not copied into the shared object at
 *     init (its pages stay unallocated until written: mincore), while a page
 *     of it written before shmem_init keeps its contents for every PE;
 *   - the first put and get of a fresh 8 MiB allocation take (almost) no
 *     page faults in the caller (transfer: the put maps the pages it covers
 *     in one call; alloc: they were mapped when the object was allocated),
 *     counted by the kernel's page-fault event of this thread; off: one a
 *     page (the counter itself is checked there);
 *   - transfer: a fresh allocation holds no pages until a transfer reaches
 *     them, and then only those the transfer covers; alloc: all of them;
 *   - transfer: a put into new parts of a peer's memory also maps, in this
 *     PE's view, the pages around it that the peer holds (present in this
 *     process's page table: /proc/self/pagemap), and allocates none that it
 *     does not hold. */
#include "check.h"

#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define BIG ((size_t)64 << 20)
#define MARK_AT ((size_t)40 << 20)
#define XFER ((size_t)8 << 20)
#define OBJ ((size_t)32 << 20)

static char big[BIG];

/* This thread's page faults taken in user mode: the CPU's, not those a
 * system call like madvise(MADV_POPULATE_WRITE) resolves (ru_minflt counts
 * both). -1 where perf events are not allowed. */
static int fault_counter(void) {
    struct perf_event_attr a;
    memset(&a, 0, sizeof(a));
    a.type = PERF_TYPE_SOFTWARE;
    a.size = sizeof(a);
    a.config = PERF_COUNT_SW_PAGE_FAULTS;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
}

static long faults(int fd) {
    long long v = 0;
    CHECK(read(fd, &v, sizeof(v)) == (ssize_t)sizeof(v), "reading the page-fault counter");
    return (long)v;
}

/* Pages of [p, p + len) that the object behind them holds. */
static size_t resident(const char *p, size_t len) {
    long page = sysconf(_SC_PAGESIZE);
    char *start = (char *)((uintptr_t)p & ~(uintptr_t)(page - 1));
    size_t npages = (size_t)((p + len - start + page - 1) / page), r = 0;
    unsigned char *v = malloc(npages);
    CHECK(v != NULL, "malloc");
    CHECK(mincore(start, npages * (size_t)page, v) == 0, "mincore");
    for (size_t i = 0; i < npages; i++)
        r += v[i] & 1;
    free(v);
    return r;
}

/* Pages of [p, p + len) present in this process's page table. */
static size_t present(const char *p, size_t len) {
    long page = sysconf(_SC_PAGESIZE);
    uintptr_t first = (uintptr_t)p / (uintptr_t)page,
              last = ((uintptr_t)p + len - 1) / (uintptr_t)page;
    int fd = open("/proc/self/pagemap", O_RDONLY);
    CHECK(fd >= 0, "opening /proc/self/pagemap");
    size_t r = 0;
    for (uintptr_t v = first; v <= last; v++) {
        uint64_t e = 0;
        CHECK(pread(fd, &e, sizeof(e), (off_t)(v * sizeof(e))) == (ssize_t)sizeof(e),
              "reading /proc/self/pagemap");
        r += (size_t)(e >> 63);
    }
    close(fd);
    return r;
}

/* Each PE fills the first of three parts of an allocation, then puts into
 * the second part of the next PE's: its view of the next PE's first part
 * (which that PE holds) is mapped too, and the third (which it does not)
 * stays unallocated. */
static void neighbours(int me, int next) {
    const size_t part = (size_t)2 << 20;
    long page = sysconf(_SC_PAGESIZE);
    char *b = shmem_malloc(3 * part), *src = malloc(part);
    CHECK(b && src, "allocation");
    memset(b, me + 1, part);
    memset(src, me + 1, part);
    shmem_barrier_all();
    char *view = shmem_ptr(b, next);
    if (view && next != me) {
        size_t want = part / (size_t)page - 1, before = present(view, part - (size_t)page);
        /* (the allocator's own words may share the object's first page) */
        CHECK(before < 4, "%zu pages of the view of PE %d's first part were mapped before", before,
              next);
        shmem_putmem(b + part, src, part, next);
        size_t got = present(view, part - (size_t)page);
        CHECK(got >= want,
              "a put into PE %d's second part left %zu of %zu pages of its first "
              "part (held there) unmapped here",
              next, want - got, want);
        CHECK(resident(view + 2 * part + page, part - (size_t)page) == 0,
              "a put into PE %d's second part allocated pages of its third", next);
    }
    shmem_barrier_all();
    shmem_free(b);
    free(src);
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
    const char *mode = getenv("SHMEM_HEAP_POPULATE");
    mode = mode ? mode : "transfer";
    char *buf = shmem_malloc(OBJ);
    char *src = malloc(XFER), *dst = malloc(XFER);
    CHECK(buf && src && dst, "allocation");
    size_t obj_pages = OBJ / (size_t)page, xfer_pages = XFER / (size_t)page;
    size_t held = resident(buf, OBJ);
    if (!strcmp(mode, "alloc"))
        CHECK(held + 1 >= obj_pages, "alloc: %zu of %zu pages held after shmem_malloc", held,
              obj_pages);
    else
        CHECK(held < 16, "%s: %zu of %zu pages held after shmem_malloc", mode, held, obj_pages);
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
    int fd = fault_counter();
    long f0 = fd >= 0 ? faults(fd) : 0;
    shmem_putmem(buf, src, XFER, next);
    shmem_barrier_all();
    shmem_getmem(dst, buf, XFER, next);
    long taken = fd >= 0 ? faults(fd) - f0 : 0;
    if (fd < 0) {
        printf("PE %d: no perf page-fault counter here; fault counts not checked\n", me);
    } else if (!strcmp(mode, "off")) {
        /* Only where the put is a copy through a mapping (not a fabric's,
         * whose bytes the kernel's socket calls store). */
        if (shmem_ptr(buf, next))
            CHECK(taken >= (long)xfer_pages / 2,
                  "off: %ld page faults in the first 8 MiB put of a fresh allocation (%zu pages): "
                  "the counter does not see them",
                  taken, xfer_pages);
    } else {
        /* Not one a page; a sanitizer's shadow of the destination may take
         * one per eight. */
        CHECK(taken < (long)xfer_pages / 4,
              "%s: %ld page faults in the first 8 MiB put and get of a fresh allocation "
              "(%zu pages)",
              mode, taken, xfer_pages);
    }
    if (fd >= 0)
        close(fd);
    shmem_barrier_all();
    /* transfer and off: the pages the put reached, and only those (where
     * shared memory gets transparent huge pages, up to one more at each end). */
    held = resident(buf, OBJ);
    size_t slack = 2 * (((size_t)2 << 20) / (size_t)page) + 2;
    if (strcmp(mode, "alloc"))
        CHECK(held >= xfer_pages && held <= xfer_pages + slack,
              "%s: %zu pages held after a put of %zu pages into a fresh allocation", mode, held,
              xfer_pages);
    int prev = (me + n - 1) % n;
    CHECK(buf[0] == prev + 1 && buf[XFER - 1] == prev + 1, "put data wrong");
    CHECK(dst[0] == me + 1 && dst[XFER - 1] == me + 1, "get data wrong");
    shmem_barrier_all();
    if (!strcmp(mode, "transfer") && n > 1)
        neighbours(me, next);
    shmem_free(buf);
    shmem_free(warm);
    free(src);
    free(dst);
    shmem_finalize();
    return 0;
}
