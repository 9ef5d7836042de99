/* How symmetric memory is backed: its page size and when its pages are
 * mapped (shmem/pages.h).
 *
 * Page size (SHMEM_HUGEPAGES). A 4 KiB page costs a page fault the first
 * time each process touches it and a TLB entry for every 4 KiB of a large
 * array. The heap and the static data are shared memory objects (memfd), so
 * transparent huge pages reach them only where the kernel gives them to
 * shared memory (/sys/kernel/mm/transparent_hugepage/shmem_enabled, or its
 * per-size knob for 2 MiB): advise (then only with MADV_HUGEPAGE, which we
 * give), within_size or always. A huge page also needs the mapping's virtual
 * address and file offset to agree modulo 2 MiB, so every mapping here is
 * placed that way. hugetlb puts the heap on MFD_HUGETLB pages instead (the
 * administrator reserves them: vm.nr_hugepages).
 *
 * Population (SHMEM_HEAP_POPULATE). A page of another PE's heap that this PE
 * has not mapped yet costs a page fault in the first transfer that touches it
 * (and the first use of the page anywhere allocates and zeroes it): 8000
 * faults for a 33 MB put, and again for every region a PE writes that
 * another PE wrote before it. By default (transfer) a put or get of at least
 * SHMEMI_PAGES_MAP_MIN maps the pages it covers in this PE's view with one
 * MADV_POPULATE_WRITE before it copies, and remembers them (a bit a page, per
 * PE and region): the pages a program never reaches stay unallocated (codes
 * allocate for the worst case: a 1 GiB key buffer of which 33 MB are used).
 * A transfer that reaches new pages of another PE also maps the pages around
 * it that the owner already holds (shmemi_pages_map_range).
 * alloc maps each symmetric allocation's pages into this PE's view of every
 * PE's heap when it is made (collective, so every PE does its share at once),
 * in 2 MiB chunks that are populated once, and reads a byte of each page: on
 * a hypervisor that builds its own entry for a page when a process first
 * reaches it through a mapping, that first access costs about 5 us even
 * after MADV_POPULATE_WRITE (a 33 MB put into a populated view: 45-50 ms,
 * the next 2 ms), and it belongs in the allocation, not in the transfers. */
#define _GNU_SOURCE
#include "shmem/pages.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

#define CHUNK SHMEMI_HUGE_PAGE

static struct {
    int mode;        /* SHMEMI_PAGES_* */
    const char *why; /* what decided it, for SHMEM_DEBUG */
    uint64_t *done;  /* heap chunks populated in every PE's mapping (bitmap) */
    size_t nchunks;
    int populate_works; /* MADV_POPULATE_WRITE known (0: touch the pages instead) */
    /* SHMEM_HEAP_POPULATE=transfer: the pages of each PE's heap and static
     * data mapped in this PE's view, a bit a page, made at first need
     * (anonymous memory: the words never touched take none). */
    uint64_t **seen;    /* [pe * 2 + region] */
    size_t seen_len[2]; /* bytes of a bitmap of each region */
    unsigned shift;     /* log2 of the page size */
} pg = {.populate_works = 1};
int shmemi_pages_lazy;
static pthread_mutex_t populate_lock = PTHREAD_MUTEX_INITIALIZER;

/* The bracketed word of a sysfs choice file ("always [madvise] never"). */
static int sysfs_choice(const char *path, char *out, size_t len) {
    char buf[256];
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *a = strchr(buf, '['), *b = a ? strchr(a, ']') : NULL;
    if (!a || !b || (size_t)(b - a) > len)
        return -1;
    snprintf(out, len, "%.*s", (int)(b - a - 1), a + 1);
    return 0;
}

/* Whether the kernel gives transparent huge pages to shared memory objects
 * that ask for them with MADV_HUGEPAGE. */
static int shmem_thp(const char **why) {
    char top[32] = "", size2m[32] = "";
    const char *dir = "/sys/kernel/mm/transparent_hugepage/";
    char path[128];
    snprintf(path, sizeof(path), "%sshmem_enabled", dir);
    if (sysfs_choice(path, top, sizeof(top))) {
        *why = "no transparent huge pages for shared memory in this kernel";
        return 0;
    }
    snprintf(path, sizeof(path), "%shugepages-2048kB/shmem_enabled", dir);
    const char *eff = top;
    if (!sysfs_choice(path, size2m, sizeof(size2m)) && strcmp(size2m, "inherit"))
        eff = size2m;
    int yes = !strcmp(eff, "always") || !strcmp(eff, "within_size") || !strcmp(eff, "advise") ||
              !strcmp(eff, "force");
    *why = yes ? "transparent huge pages for shared memory (shmem_enabled allows them)"
               : "4 KiB pages: transparent_hugepage/shmem_enabled is never or deny";
    return yes;
}

int shmemi_pages_init(void) {
    const char *want = shmemi.cfg.HUGEPAGES;
    pg.mode = SHMEMI_PAGES_SMALL;
    pg.why = "4 KiB pages (SHMEM_HUGEPAGES=off)";
    if (!strcmp(want, "hugetlb")) {
        pg.mode = SHMEMI_PAGES_HUGETLB;
        pg.why = "hugetlb pages (SHMEM_HUGEPAGES=hugetlb)";
    } else if (!strcmp(want, "auto") || !strcmp(want, "thp")) {
        const char *why;
        if (shmem_thp(&why)) {
            pg.mode = SHMEMI_PAGES_THP;
        } else if (!strcmp(want, "thp")) {
            shmemi_warn("SHMEM_HUGEPAGES=thp: %s; the symmetric memory has 4 KiB pages", why);
        }
        pg.why = why;
    }
    shmemi_debug("symmetric memory: %s", pg.why);
    /* Huge pages fault once per 2 MiB: nothing to gain there. */
    if (!strcmp(shmemi.cfg.HEAP_POPULATE, "transfer") && pg.mode != SHMEMI_PAGES_HUGETLB) {
        pg.seen = calloc((size_t)shmemi.n_pes * 2, sizeof(*pg.seen));
        pg.shift = (unsigned)__builtin_ctzl((unsigned long)sysconf(_SC_PAGESIZE));
        shmemi_pages_lazy = pg.seen != NULL;
    }
    return 0;
}

int shmemi_pages_mode(void) { return pg.mode; }

int shmemi_pages_memfd(const char *name, size_t size, int heap) {
    unsigned flags = MFD_CLOEXEC;
    if (heap && pg.mode == SHMEMI_PAGES_HUGETLB)
        flags |= MFD_HUGETLB;
    int fd = memfd_create(name, flags);
    if (fd < 0) {
        shmemi_warn("memfd_create(%s%s): %s", name, (flags & MFD_HUGETLB) ? ", MFD_HUGETLB" : "",
                    strerror(errno));
        return -1;
    }
    if (ftruncate(fd, (off_t)size)) {
        shmemi_warn("cannot size the %s to %zu bytes: %s", name, size, strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

size_t shmemi_pages_round(size_t bytes) {
    if (pg.mode != SHMEMI_PAGES_HUGETLB)
        return bytes;
    return (bytes + SHMEMI_HUGE_PAGE - 1) & ~(SHMEMI_HUGE_PAGE - 1);
}

void shmemi_pages_advise(void *addr, size_t len) {
    if (pg.mode != SHMEMI_PAGES_THP || !len)
        return;
    /* Only whole aligned 2 MiB ranges can take huge pages; advising the rest is harmless. */
    if (madvise(addr, len, MADV_HUGEPAGE))
        shmemi_debug("madvise(MADV_HUGEPAGE) on %zu bytes at %p: %s", len, addr, strerror(errno));
}

void *shmemi_pages_map(int fd, size_t len, off_t off, size_t align, const char *what) {
    /* Reserve address space, then map at an address congruent to the file
     * offset modulo `align`: huge pages need the two to agree. */
    size_t span = len + align;
    char *res = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (res == MAP_FAILED) {
        shmemi_warn("cannot reserve %zu bytes of address space for the %s: %s", span, what,
                    strerror(errno));
        return NULL;
    }
    uintptr_t a = ((uintptr_t)res + align - 1) & ~(uintptr_t)(align - 1);
    a += (uintptr_t)off & (align - 1);
    if (a < (uintptr_t)res)
        a += align;
    if (a + len > (uintptr_t)res + span)
        a -= align;
    char *at = (char *)a;
    void *p = mmap(at, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, off);
    if (p == MAP_FAILED) {
        int e = errno;
        munmap(res, span);
        shmemi_warn("cannot map the %s (%zu bytes%s): %s", what, len,
                    pg.mode == SHMEMI_PAGES_HUGETLB ? " of hugetlb pages: are enough reserved "
                                                      "(vm.nr_hugepages)?"
                                                    : "",
                    strerror(e));
        return NULL;
    }
    if (at > res)
        munmap(res, (size_t)(at - res));
    if (res + span > at + len)
        munmap(at + len, (size_t)(res + span - (at + len)));
    shmemi_pages_advise(at, len);
    return at;
}

/* Read a byte of every page of [addr, addr + len). */
static void touch(const char *addr, size_t len) {
    long page = sysconf(_SC_PAGESIZE);
    for (size_t i = 0; i < len; i += (size_t)page)
        (void)*(const volatile char *)(addr + i);
}

/* Map [addr, addr + len) of a shared mapping now, writable. */
static void populate(char *addr, size_t len) {
    if (pg.populate_works && madvise(addr, len, MADV_POPULATE_WRITE) == 0)
        return;
    if (pg.populate_works && errno == EINVAL) {
        /* A kernel older than 5.14: fault the pages in by reading them (a read
         * fault maps a shared memory page writable: no dirty tracking). */
        pg.populate_works = 0;
        shmemi_debug("MADV_POPULATE_WRITE is not supported: symmetric pages are touched");
    }
    if (pg.populate_works)
        return; /* out of memory now: the first access faults (and may fail) as before */
    touch(addr, len);
}

void shmemi_pages_populate_heap(size_t off, size_t len) {
    if (strcmp(shmemi.cfg.HEAP_POPULATE, "alloc") || !len || shmemi.heap_kind != SHMEMI_HEAP_HOST)
        return;
    pthread_mutex_lock(&populate_lock);
    if (!pg.done) {
        pg.nchunks = (shmemi.heap_size + CHUNK - 1) / CHUNK;
        pg.done = calloc((pg.nchunks + 63) / 64, sizeof(uint64_t));
    }
    size_t first = off / CHUNK, last = (off + len - 1) / CHUNK;
    for (size_t c = first; pg.done && c <= last && c < pg.nchunks; c++) {
        if (pg.done[c / 64] & (1ull << (c % 64)))
            continue;
        size_t lo = c * CHUNK, n = shmemi.heap_size - lo < CHUNK ? shmemi.heap_size - lo : CHUNK;
        /* Start with this PE's own mapping (it allocates the pages most of
         * the time: each PE populates its own heap first), then the others'. */
        for (int k = 0; k < shmemi.n_pes; k++) {
            int pe = (shmemi.my_pe + k) % shmemi.n_pes;
            if (shmemi.peers[pe].heap) {
                populate(shmemi.peers[pe].heap + lo, n);
                touch(shmemi.peers[pe].heap + lo, n);
            }
        }
        pg.done[c / 64] |= 1ull << (c % 64);
    }
    pthread_mutex_unlock(&populate_lock);
}

void shmemi_pages_populate_file(int fd, char *map, size_t len, off_t off) {
    /* Only the parts of the object that hold pages: populating a hole would
     * allocate it (a large zero static array stays unallocated until used). */
    off_t pos = off, end = off + (off_t)len;
    while (pos < end) {
        off_t d = lseek(fd, pos, SEEK_DATA);
        if (d < 0 || d >= end)
            return;
        off_t h = lseek(fd, d, SEEK_HOLE);
        if (h < 0 || h > end)
            h = end;
        populate(map + (d - off), (size_t)(h - d));
        pos = h;
    }
}

/* The bitmap of PE pe's region in this PE's view, made at first need. */
static uint64_t *seen_bits(int pe, int region) {
    uint64_t **slot = &pg.seen[(size_t)pe * 2 + (size_t)region];
    uint64_t *b = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (b)
        return b;
    size_t size = region == SHMEMI_REGION_HEAP ? shmemi.heap_size : shmemi.data_size;
    size_t len = ((size >> pg.shift) / 64 + 1) * sizeof(uint64_t);
    void *m =
        mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED)
        return NULL; /* the transfer faults its pages in, as without this */
    pg.seen_len[region] = len;
    if (!__atomic_compare_exchange_n(slot, &b, (uint64_t *)m, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE)) {
        munmap(m, len); /* another thread made it first */
        return b;
    }
    return m;
}

static int seen_page(const uint64_t *bits, size_t p) {
    return (int)((__atomic_load_n(&bits[p / 64], __ATOMIC_RELAXED) >> (p % 64)) & 1);
}

/* Mark pages [p, q) as mapped in this view. */
static void mark_seen(uint64_t *bits, size_t p, size_t q) {
    for (size_t i = p; i < q;) {
        size_t k = i % 64, n = q - i < 64 - k ? q - i : 64 - k;
        uint64_t mask = (n == 64 ? ~0ull : (1ull << n) - 1) << k;
        __atomic_fetch_or(&bits[i / 64], mask, __ATOMIC_RELAXED);
        i += n;
    }
}

/* The first page from p on, up to last, that this view has not mapped, or
 * last + 1. */
static size_t next_unseen(const uint64_t *bits, size_t p, size_t last) {
    while (p <= last) {
        if (__atomic_load_n(&bits[p / 64], __ATOMIC_RELAXED) == ~0ull)
            p = (p / 64 + 1) * 64; /* a word's pages all mapped */
        else if (seen_page(bits, p))
            p++;
        else
            return p;
    }
    return last + 1;
}

/* Map the pages of [off, off + len) that this view has not mapped yet, a run
 * at a time (two threads may map the same run; no harm). Returns how many. */
static size_t map_unseen(char *base, uint64_t *bits, size_t off, size_t len) {
    size_t last = (off + len - 1) >> pg.shift, mapped = 0;
    for (size_t p = next_unseen(bits, off >> pg.shift, last), q; p <= last;
         p = next_unseen(bits, q, last)) {
        for (q = p + 1; q <= last && !seen_page(bits, q);)
            q++;
        populate(base + (p << pg.shift), (q - p) << pg.shift);
        mark_seen(bits, p, q);
        mapped += q - p;
    }
    return mapped;
}

/* Map, and reach, the pages of [off, off + len) that the owner's memory
 * object holds (mincore: its pages in memory) and this view has not mapped:
 * no page is allocated here. */
static void map_held(char *base, uint64_t *bits, size_t off, size_t len) {
    enum { PROBE = 256 };
    unsigned char vec[PROBE];
    size_t last = (off + len - 1) >> pg.shift;
    for (size_t p = next_unseen(bits, off >> pg.shift, last), q; p <= last;
         p = next_unseen(bits, q, last)) {
        for (q = p + 1; q <= last && q - p < PROBE && !seen_page(bits, q);)
            q++;
        if (mincore(base + (p << pg.shift), (q - p) << pg.shift, vec))
            continue; /* not a mapping mincore reads: leave it */
        for (size_t i = 0; i < q - p;) {
            size_t j = i;
            while (j < q - p && (vec[j] & 1) == (vec[i] & 1))
                j++;
            if (vec[i] & 1) {
                char *a = base + ((p + i) << pg.shift);
                populate(a, (j - i) << pg.shift);
                touch(a, (j - i) << pg.shift);
                mark_seen(bits, p + i, p + j);
            }
            i = j;
        }
    }
}

void shmemi_pages_map_range(int pe, int region, size_t off, size_t len) {
    char *base = shmemi.peers[pe].base[region];
    uint64_t *bits = base && pg.populate_works ? seen_bits(pe, region) : NULL;
    if (!bits || !map_unseen(base, bits, off, len) || pe == shmemi.my_pe)
        return;
    /* A transfer into new parts of another PE's memory: the pages around it
     * that the owner already holds, up to the transfer's length on either
     * side, are mapped (and reached) now too. Exchange buffers are filled at offsets that
     * other PEs' fetch-adds decide (a bucket sort's keys land in the part
     * its owner filled itself last time when another PE's add comes first),
     * and on a hypervisor that builds its own entry for each page a process
     * first reaches through a mapping, a later put there would stall for
     * about 5 us a page (33 MB: 45-50 ms against 4). At most NEAR_MAX a side:
     * what this costs at once stays bounded (64 MiB: about 90 ms there). */
    enum { NEAR_MAX = 64 << 20 };
    size_t size = region == SHMEMI_REGION_HEAP ? shmemi.heap_size : shmemi.data_size;
    size_t near = len < (size_t)NEAR_MAX ? len : (size_t)NEAR_MAX;
    size_t lo = off > near ? off - near : 0;
    size_t hi = size - (off + len) > near ? off + len + near : size;
    if (lo < off)
        map_held(base, bits, lo, off - lo);
    if (off + len < hi)
        map_held(base, bits, off + len, hi - (off + len));
}

void shmemi_pages_fini(void) {
    free(pg.done);
    pg.done = NULL;
    pg.nchunks = 0;
    if (pg.seen) {
        for (size_t i = 0; i < (size_t)shmemi.n_pes * 2; i++)
            if (pg.seen[i])
                munmap(pg.seen[i], pg.seen_len[i % 2]);
        free(pg.seen);
        pg.seen = NULL;
    }
    shmemi_pages_lazy = 0;
}

const char *shmemi_pages_describe(void) { return pg.why ? pg.why : "4 KiB pages"; }
