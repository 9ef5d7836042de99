/* Symmetric memory: the host heap (a shared memory object per PE that every
 * PE of the node maps), the device heap beside it in GPU builds (shmem/gpu.c)
 * and the static data segment (global and static variables, remapped onto a
 * shared memory object at init so that peers can map it).
 *
 * Host heap layout: [user heap | device control area | control block] with
 * the host heap kind; only [control block] with the device heap kind, whose
 * user heap and device control area are GPU memory. Global and static
 * variables always stay in host memory.
 *
 * Peers translate by offset from each PE's base, never by raw address: with
 * ASLR the same variable sits at different addresses on different PEs. */
#define _GNU_SOURCE
#include "shmem/shmemi.h"

#include "shmem/alloc.h"
#include "shmem/liveness.h"
#include "shmem/pages.h"

#include "sdma/copy.h"

#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define SHMEMI_FILE heap
#include "shmem/api.h"

static struct shmemi_alloc heap_alloc;
static struct shmemi_alloc words_alloc; /* device heap kind: the host words area */
static pthread_mutex_t heap_lock = PTHREAD_MUTEX_INITIALIZER;

/* ------------------------------------------- host access to the device heap */

/* A GPU build's heap is GPU memory by default, which host code cannot load
 * or store: a host program that reads its symmetric arrays directly (as CPU
 * OpenSHMEM codes do) faults there. Where the fault's address lies in a
 * device heap, the PE says why before it ends as it would have: through the
 * handler that was there before, or the default action (the access runs
 * again and ends the process with the same signal). Async-signal-safe. */
static struct sigaction guard_old[2]; /* SIGSEGV, SIGBUS */
static int guard_on;

static int on_a_device_heap(uintptr_t a) {
    if (a - (uintptr_t)shmemi.dev_base < shmemi.dev_size)
        return 1;
    for (int pe = 0; pe < shmemi.n_pes; pe++) {
        uintptr_t b = (uintptr_t)shmemi.peers[pe].dev;
        if (b && a - b < shmemi.dev_size)
            return 1;
    }
    return 0;
}

/* s at out, returns its length. */
static size_t put_str(char *out, const char *s) {
    size_t n = 0;
    while (s[n]) {
        out[n] = s[n];
        n++;
    }
    return n;
}
/* v in base 10 or 16 at out, returns its length. */
static size_t put_num(char *out, uintptr_t v, unsigned base) {
    char t[24];
    size_t n = 0, k = 0;
    do
        t[n++] = "0123456789abcdef"[v % base];
    while ((v /= base) && n < sizeof t);
    while (n)
        out[k++] = t[--n];
    return k;
}

static void guard_handler(int sig, siginfo_t *si, void *uc) {
    if (on_a_device_heap((uintptr_t)si->si_addr)) {
        char m[400];
        size_t n = put_str(m, "[PE ");
        n += put_num(m + n, (uintptr_t)shmemi.my_pe, 10);
        n += put_str(m + n, "] shmem: the host read or wrote symmetric memory at 0x");
        n += put_num(m + n, (uintptr_t)si->si_addr, 16);
        n += put_str(m + n, ", which is GPU memory (the device heap, the default of GPU builds): "
                            "host code reaches it only through shmem routines; run host "
                            "programs with SHMEM_HEAP=host\n");
        ssize_t w = write(2, m, n);
        (void)w;
    }
    const struct sigaction *old = &guard_old[sig == SIGBUS];
    if ((old->sa_flags & SA_SIGINFO) && old->sa_sigaction) {
        old->sa_sigaction(sig, si, uc);
    } else if (!(old->sa_flags & SA_SIGINFO) && old->sa_handler != SIG_DFL &&
               old->sa_handler != SIG_IGN) {
        old->sa_handler(sig);
    } else {
        struct sigaction dfl = {.sa_handler = SIG_DFL};
        sigemptyset(&dfl.sa_mask);
        sigaction(sig, &dfl, NULL);
    }
}

/* on: install the handler (after the device heap is mapped); off: put back
 * what was there, unless the program has replaced the handler since. */
static void guard_device_heap(int on) {
    static const int sigs[2] = {SIGSEGV, SIGBUS};
    if (on == guard_on)
        return;
    for (int i = 0; i < 2; i++) {
        if (on) {
            struct sigaction sa = {.sa_sigaction = guard_handler,
                                   .sa_flags = SA_SIGINFO | SA_ONSTACK};
            sigemptyset(&sa.sa_mask);
            sigaction(sigs[i], &sa, &guard_old[i]);
        } else {
            struct sigaction now;
            if (sigaction(sigs[i], NULL, &now) == 0 && (now.sa_flags & SA_SIGINFO) &&
                now.sa_sigaction == guard_handler)
                sigaction(sigs[i], &guard_old[i], NULL);
        }
    }
    guard_on = on;
}

/* What each PE tells the others at init. */
struct pe_card {
    int32_t pid;
    int32_t heap_fd;
    int32_t data_fd;
    int32_t data_off; /* where the data segment starts in its object (see remap_data_segment) */
    uint64_t heap_size;
    uint64_t data_size;
    uint64_t node[3]; /* shmemi_node_key(): PEs with equal keys map each other's memory */
    cpu_set_t cpus;   /* the CPUs the PE may run on */
};

/* A node key's first word: a hash of the kernel's boot id; this where the
 * boot id could not be read. */
#define KERNEL_KEY_UNKNOWN 1469598103934665603ull

/* The PEs that run on this kernel (the same boot id: network and PID
 * namespaces share the CPUs) and the CPUs they may run on, all together: what
 * a launcher that pins each PE to a core of its own leaves them. Two "hosts"
 * made of network namespaces, each with its PE pinned to its first core, put
 * both PEs on one CPU. */
static void node_cpus(const struct pe_card *cards, const struct pe_card *me) {
    cpu_set_t all;
    CPU_ZERO(&all);
    int pes = 0;
    for (int pe = 0; pe < shmemi.n_pes; pe++) {
        int same = me->node[0] != KERNEL_KEY_UNKNOWN
                       ? cards[pe].node[0] == me->node[0]
                       : !memcmp(cards[pe].node, me->node, sizeof(me->node));
        if (same) {
            CPU_OR(&all, &all, &cards[pe].cpus);
            pes++;
        }
    }
    shmemi_wait_node_cpus(pes, CPU_COUNT(&all));
}

/* Which PEs can map each other's memory through /proc/<pid>/fd: those of one
 * kernel (its boot id), one PID namespace and one network namespace. A launcher
 * that places PEs in other network namespaces of the same machine treats them
 * as other hosts, and so does the library: they are reached through the
 * fabric. */
void shmemi_node_key(uint64_t key[3]) {
    char id[64] = "";
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f) {
        if (!fgets(id, sizeof(id), f))
            id[0] = '\0';
        fclose(f);
    }
    uint64_t h = KERNEL_KEY_UNKNOWN; /* FNV-1a of the boot id */
    for (const char *c = id; *c; c++)
        h = (h ^ (unsigned char)*c) * 1099511628211ull;
    struct stat st;
    key[0] = h;
    key[1] = stat("/proc/self/ns/pid", &st) ? 0 : (uint64_t)st.st_ino;
    key[2] = stat("/proc/self/ns/net", &st) ? 0 : (uint64_t)st.st_ino;
}

/* ------------------------------------------------------------ data segment */

struct seg_search {
    uintptr_t start, end, file_end, relro_end;
};

static int find_main_rw(struct dl_phdr_info *info, size_t size, void *arg) {
    (void)size;
    struct seg_search *s = arg;
    /* The first object is the main program. */
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_W) && !s->start) {
            s->start = lo;
            s->end = hi;
            s->file_end = lo + ph->p_filesz; /* beyond it: .bss, zero until written */
        }
        if (ph->p_type == PT_GNU_RELRO)
            s->relro_end = hi;
    }
    return 1;
}

static int data_fd = -1;
static off_t data_off; /* the segment's offset in data_fd */

/* Page-aligned bounds of this program's writable data segment (.data and
 * .bss), without the part that is read-only after relocation; *file_end: the
 * first page past the part the program file initializes. */
static int data_segment(uintptr_t *start, size_t *len, uintptr_t *file_end) {
    struct seg_search s = {0, 0, 0, 0};
    dl_iterate_phdr(find_main_rw, &s);
    if (!s.start)
        return -1;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    uintptr_t lo = s.start;
    if (s.relro_end > lo && s.relro_end < s.end)
        lo = s.relro_end;
    lo &= ~(uintptr_t)(page - 1);
    uintptr_t hi = (s.end + page - 1) & ~(uintptr_t)(page - 1);
    *start = lo;
    *len = hi - lo;
    *file_end = (s.file_end + page - 1) & ~(uintptr_t)(page - 1);
    if (*file_end < lo)
        *file_end = lo;
    return 0;
}

/* Whether the page at p is all zero. Not instrumented: the segment holds
 * sanitizer redzones between variables. */
__attribute__((no_sanitize_address)) static int zero_page(const char *p, size_t page) {
    const uint64_t *w = (const uint64_t *)p;
    for (size_t i = 0; i < page / 8; i++)
        if (w[i])
            return 0;
    return 1;
}

/* Copy the segment into the object: the file-initialized part whole, of the
 * rest (.bss) only pages that hold something -- resident (mincore: a page
 * never touched is not) and not all zero. A zero page stays a hole of the
 * object, allocated when first written as it would have been before: a
 * program with a large static array does not pay for it at init. A raw
 * system call: the segment holds sanitizer redzones between variables, which
 * an intercepted pwrite would refuse to read. */
static int copy_segment(int fd, uintptr_t start, size_t len, uintptr_t file_end) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    uintptr_t end = start + len, run = start;
    size_t nbss = (end - file_end) / page;
    unsigned char *res = nbss ? malloc(nbss) : NULL;
    if (res && mincore((void *)file_end, end - file_end, res))
        memset(res, 1, nbss); /* unknown: look at every page */
    for (uintptr_t p = start; p <= end; p += page) {
        int skip = p == end;
        if (!skip && p >= file_end) {
            size_t i = (p - file_end) / page;
            skip = (res && !(res[i] & 1)) || zero_page((const char *)p, page);
        }
        if (!skip)
            continue;
        /* Write the run [run, p) of pages that hold data. */
        while (run < p) {
            ssize_t w = syscall(SYS_pwrite64, fd, (void *)run, (size_t)(p - run),
                                (off_t)(data_off + (off_t)(run - start)));
            if (w <= 0) {
                shmemi_warn("cannot copy the data segment: %s",
                            w < 0 ? strerror(errno) : "short write");
                free(res);
                return -1;
            }
            run += (uintptr_t)w;
        }
        run = p + page;
    }
    free(res);
    return 0;
}

/* Move the data segment onto a shared memory object at the same address:
 * copy the pages out, map the object over them. Runs before any other
 * thread of the library exists. */
static int remap_data_segment(uintptr_t start, size_t len, uintptr_t file_end) {
    /* The segment sits in its object at its own address's offset modulo the
     * huge page size, so that the object's huge pages (where the kernel gives
     * them, shmem/pages.c) line up with the addresses of the program's own
     * mapping and of every peer's. */
    data_off = (off_t)(start & (SHMEMI_HUGE_PAGE - 1));
    int fd = shmemi_pages_memfd("shmem-data", (size_t)data_off + len, 0);
    if (fd < 0)
        return -1;
    if (copy_segment(fd, start, len, file_end)) {
        close(fd);
        return -1;
    }
    void *p =
        mmap((void *)start, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, data_off);
    if (p == MAP_FAILED) {
        /* MAP_FIXED failing leaves the old mapping in place. */
        shmemi_warn("cannot remap the data segment: %s", strerror(errno));
        close(fd);
        return -1;
    }
    shmemi_pages_advise(p, len);
    data_fd = fd;
    return 0;
}

static int data_init(void) {
    uintptr_t start, file_end;
    size_t len;
    if (!shmemi.cfg.SHARE_STATIC_DATA || data_segment(&start, &len, &file_end))
        return 0; /* global and static variables are not symmetric */
    /* With one PE nobody maps the segment: it is symmetric as it stands. */
    if (shmemi.n_pes > 1 && remap_data_segment(start, len, file_end))
        return -1;
    shmemi.data_base = (char *)start;
    shmemi.data_size = len;
    return 0;
}

/* ---------------------------------------------------------------- exchange */

/* Map a peer's object (size bytes from off), placed for huge pages; the data
 * segment's pages that exist are mapped at once (its holes fault when used). */
static char *map_peer(const struct pe_card *c, int fd, size_t size, off_t off, int pe,
                      const char *what) {
    char path[64], name[64];
    snprintf(path, sizeof(path), "/proc/%d/fd/%d", c->pid, fd);
    int pfd = open(path, O_RDWR | O_CLOEXEC);
    if (pfd < 0) {
        shmemi_warn("cannot open PE %d's %s (%s): %s", pe, what, path, strerror(errno));
        return NULL;
    }
    snprintf(name, sizeof(name), "PE %d's %s", pe, what);
    char *p = shmemi_pages_map(pfd, size, off, SHMEMI_HUGE_PAGE, name);
    if (p && fd == c->data_fd && strcmp(shmemi.cfg.HEAP_POPULATE, "off"))
        shmemi_pages_populate_file(pfd, p, size, off);
    close(pfd);
    return p;
}

int shmemi_heap_init(void) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE), setting = shmemi.cfg.SYMMETRIC_SIZE;
    size_t user, span;
    /* Every sum below is at most user + extra, which the layout checked. */
    const size_t extra = SHMEMI_CTL_SIZE + SHMEMI_DEV_CTL_SIZE + SHMEMI_WORDS_SIZE;
    if (shmemi_heap_layout(setting, page, extra, SHMEMI_HEAP_ALIGN, &user, &span))
        shmemi_fatal("SHMEM_SYMMETRIC_SIZE=%zu cannot be a heap size: rounded up to whole "
                     "pages, with %zu bytes of control areas and a %zu-byte alignment, it does "
                     "not fit in the address space",
                     setting, extra, SHMEMI_HEAP_ALIGN);
    int on_device = shmemi.heap_kind == SHMEMI_HEAP_DEVICE;
    size_t total = SHMEMI_CTL_SIZE + (on_device ? SHMEMI_WORDS_SIZE : user + SHMEMI_DEV_CTL_SIZE);
    if (shmemi_pages_init())
        return -1;
    total = shmemi_pages_round(total); /* hugetlb: whole huge pages (the control block ends it) */
    int heap_fd = shmemi_pages_memfd("shmem-heap", total, 1);
    if (heap_fd < 0)
        return -1;
    /* Reserve address space, then map the heap at an aligned address in it. */
    span = total + SHMEMI_HEAP_ALIGN;
    char *res = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (res == MAP_FAILED) {
        shmemi_warn("cannot reserve %zu bytes of address space for the heap (SHMEM_SYMMETRIC_SIZE"
                    "=%zu): %s",
                    span, setting, strerror(errno));
        return -1;
    }
    char *aligned =
        (char *)(((uintptr_t)res + SHMEMI_HEAP_ALIGN - 1) & ~(uintptr_t)(SHMEMI_HEAP_ALIGN - 1));
    void *base = mmap(aligned, total, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, heap_fd, 0);
    if (base == MAP_FAILED) {
        shmemi_warn("cannot map the symmetric heap (%zu bytes%s): %s", total,
                    shmemi_pages_mode() == SHMEMI_PAGES_HUGETLB
                        ? " of hugetlb pages: are enough reserved (vm.nr_hugepages)?"
                        : "",
                    strerror(errno));
        return -1;
    }
    shmemi_pages_advise(base, total);
    if (aligned > res)
        munmap(res, (size_t)(aligned - res));
    if (res + span > aligned + total)
        munmap(aligned + total, (size_t)(res + span - (aligned + total)));
    shmemi.heap_base = base;
    shmemi.heap_size = total;
    shmemi.user_base = base;
    shmemi.user_size = user;
    shmemi.user_region = SHMEMI_REGION_HEAP;
    shmemi.heap_align = SHMEMI_HEAP_ALIGN;
    if (shmemi_alloc_init(&heap_alloc, user) ||
        (on_device && shmemi_alloc_init(&words_alloc, SHMEMI_WORDS_SIZE)))
        return -1;

    shmemi.peers = calloc((size_t)shmemi.n_pes, sizeof(*shmemi.peers));
    struct pe_card *cards = calloc((size_t)shmemi.n_pes, sizeof(*cards));
    if (!shmemi.peers || !cards)
        return -1;
    if (data_init())
        return -1;

    struct pe_card me = {.pid = getpid(),
                         .heap_fd = heap_fd,
                         .data_fd = data_fd,
                         .data_off = (int32_t)data_off,
                         .heap_size = total,
                         .data_size = shmemi.data_size};
    shmemi_node_key(me.node);
    if (sched_getaffinity(0, sizeof(me.cpus), &me.cpus))
        CPU_ZERO(&me.cpus); /* unknown: counts as none (shmemi_wait_node_cpus) */
    struct boot *b = shmemi.boot;
    if (b->allgather(b, &me, cards, sizeof(me)))
        shmemi_fatal("bootstrap allgather failed during init");
    node_cpus(cards, &me);
    for (int pe = 0; pe < shmemi.n_pes; pe++) {
        if (cards[pe].heap_size != total)
            shmemi_fatal("PE %d has a symmetric heap of %llu bytes and PE %d one of %zu: every "
                         "PE must see the same SHMEM_SYMMETRIC_SIZE",
                         pe, (unsigned long long)cards[pe].heap_size, shmemi.my_pe, total);
        if (pe == shmemi.my_pe) {
            shmemi.peers[pe].heap = shmemi.heap_base;
            shmemi.peers[pe].data = shmemi.data_base;
            continue;
        }
        if (cards[pe].data_size != shmemi.data_size)
            shmemi_fatal("PE %d's data segment is %llu bytes and PE %d's %zu: every PE must run "
                         "the same program",
                         pe, (unsigned long long)cards[pe].data_size, shmemi.my_pe,
                         shmemi.data_size);
        /* A PE of another node (or every other PE, with SHMEM_FORCE_FABRIC) is
         * not mapped: the fabric row reaches it (shmem/path_fabric.c). */
        if (memcmp(cards[pe].node, me.node, sizeof(me.node)) || shmemi.cfg.FORCE_FABRIC)
            continue;
        shmemi_live_watch(pe, cards[pe].pid);
        shmemi.peers[pe].heap = map_peer(&cards[pe], cards[pe].heap_fd, total, 0, pe, "heap");
        if (!shmemi.peers[pe].heap)
            return -1;
        if (shmemi.data_size) {
            shmemi.peers[pe].data = map_peer(&cards[pe], cards[pe].data_fd, shmemi.data_size,
                                             cards[pe].data_off, pe, "data segment");
            if (!shmemi.peers[pe].data)
                return -1;
        }
    }
    free(cards);
    /* Everyone has opened our objects through /proc: our descriptors can go. */
    if (b->barrier(b))
        shmemi_fatal("bootstrap barrier failed during init");
    close(heap_fd);
    if (data_fd >= 0)
        close(data_fd);
    data_fd = -1;
    shmemi_debug("host heap %zu bytes at %p, data segment %zu bytes at %p; %s", total,
                 (void *)shmemi.heap_base, shmemi.data_size, (void *)shmemi.data_base,
                 shmemi_pages_describe());
    if (on_device) {
        /* The user heap and the device control area on the GPU. */
        if (shmemi.dev->heap_init(user + SHMEMI_DEV_CTL_SIZE))
            return -1;
        shmemi.user_base = shmemi.dev_base;
        shmemi.user_region = SHMEMI_REGION_DEVICE;
        guard_device_heap(1);
    }
    return 0;
}

int shmemi_data_init(void) { return 0; } /* done with the heap, in one exchange */

void shmemi_heap_fini(void) {
    guard_device_heap(0);
    shmemi_pages_fini();
}

/* -------------------------------------------------------- allocation front */

static char *user_base(void) { return shmemi.user_base; }

/* Local buffers: the GPU runtime copies when either is on the device heap.
 * Host copies store each element's bytes once (sdma/copy.h: a PE that waits
 * on an element a strided put writes may clear it at once). */
void shmemi_local_copy(void *dst, const void *src, size_t n, const char *fn) {
    if (SHMEMI_UNLIKELY(shmemi_on_device(dst) || shmemi_on_device(src)))
        shmemi.dev->copy(dst, src, n, 0, fn);
    else
        sdma_copy_bytes(dst, src, n);
}

void shmemi_local_copy_2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                          size_t rows, const char *fn) {
    if (SHMEMI_UNLIKELY(shmemi_on_device(dst) || shmemi_on_device(src))) {
        shmemi.dev->copy_2d(dst, dpitch, src, spitch, width, rows, fn);
        return;
    }
    char *d = dst;
    const char *s = src;
    for (size_t i = 0; i < rows; i++, d += dpitch, s += spitch)
        sdma_copy_bytes(d, s, width);
}

static int heap_offset(const void *ptr, size_t *off) {
    uintptr_t p = (uintptr_t)ptr, b = (uintptr_t)user_base();
    if (p < b || p - b >= heap_alloc.size)
        return -1;
    *off = p - b;
    return 0;
}

static void *alloc_failed(size_t size, const char *fn) {
    size_t used, largest;
    shmemi_alloc_stats(&heap_alloc, &used, &largest);
    shmemi_debug("%s(%zu) returns NULL: the symmetric heap has %zu of %zu bytes in use, the "
                 "largest free range is %zu bytes (raise SHMEM_SYMMETRIC_SIZE)",
                 fn, size, used, heap_alloc.size, largest);
    return NULL;
}

/* Large objects of a heap in host memory start where the C library's malloc
 * starts large blocks in their page (glibc: a 16-byte header, then the
 * object): a copy between such an object and a malloc'd buffer then has its
 * source and destination at one offset in their cache lines, which lets the
 * processor's string copy move whole lines without reading the destination
 * first (sdma/copy.h; 1.5x from 32 KiB on AMD Zen 5). The same rule on every
 * PE, so offsets stay symmetric; alignment requests, smaller objects and an
 * object that fits only without the lead keep their cache line. */
#if defined(__GLIBC__)
#define HEAP_LEAD (2 * sizeof(size_t))
#else
#define HEAP_LEAD 0
#endif
#define HEAP_LEAD_MIN ((size_t)128 << 10) /* glibc's malloc maps blocks this large */

static size_t heap_lead(size_t align, size_t size) {
    return !align && size >= HEAP_LEAD_MIN && shmemi.heap_kind != SHMEMI_HEAP_DEVICE ? HEAP_LEAD
                                                                                     : 0;
}

/* The allocation routines' failure return: NULL on every PE (each passed the
 * same arguments), past the routine's barrier. */
static void *nothing_allocated(const char *fn) {
    shmemi_barrier_all(fn);
    return NULL;
}

/* An alignment the spec leaves undefined gets that failure return, as
 * verification suites expect, and says why. */
static void *bad_alignment(size_t align, const char *fn) {
    shmemi_warn("%s: alignment %zu is not a power of two: nothing allocated, NULL returned", fn,
                align);
    return nothing_allocated(fn);
}

void *shmemi_heap_malloc(size_t align, size_t size, const char *fn) {
    shmemi_check_init(fn);
    if (align & (align - 1))
        return bad_alignment(align, fn);
    if (align > shmemi.heap_align) {
        shmemi_debug("%s: alignment %zu is larger than the %zu the heap guarantees", fn, align,
                     shmemi.heap_align);
        return nothing_allocated(fn);
    }
    void *p = NULL;
    if (size) {
        pthread_mutex_lock(&heap_lock);
        size_t off;
        size_t lead = heap_lead(align, size);
        int rc = shmemi_alloc_get_lead(&heap_alloc, align, lead, size, &off);
        if (rc == SHMEMI_ALLOC_NOMEM && lead) /* the object fits only on its line */
            rc = shmemi_alloc_get(&heap_alloc, align, size, &off);
        pthread_mutex_unlock(&heap_lock);
        p = rc == SHMEMI_ALLOC_OK ? user_base() + off : alloc_failed(size, fn);
        if (p) /* every PE maps the new object's pages at once (shmem/pages.c) */
            shmemi_pages_populate_heap(off, size);
    }
    /* The allocation routines end with a barrier (the spec's rule): the
     * object exists on every PE before any PE uses it. */
    shmemi_barrier_all(fn);
    return p;
}

static size_t checked_offset(void *ptr, const char *fn) {
    size_t off;
    if (heap_offset(ptr, &off))
        shmemi_fatal("%s: %p is not a symmetric heap address (it was not returned by "
                     "shmem_malloc)",
                     fn, ptr);
    return off;
}

void shmemi_heap_free(void *ptr, const char *fn) {
    shmemi_check_init(fn);
    if (!ptr)
        return;
    size_t off = checked_offset(ptr, fn);
    pthread_mutex_lock(&heap_lock);
    size_t len = shmemi_alloc_size(&heap_alloc, off);
    pthread_mutex_unlock(&heap_lock);
    if (len)
        shmemi_plan_check_free(ptr, len, fn);
    /* Every PE is done with the object before anyone reuses its memory. */
    shmemi_barrier_all(fn);
    pthread_mutex_lock(&heap_lock);
    int rc = shmemi_alloc_put(&heap_alloc, off);
    pthread_mutex_unlock(&heap_lock);
    if (rc)
        shmemi_fatal("%s: %p is not an allocated symmetric object (double free, or not a pointer "
                     "shmem_malloc returned)",
                     fn, ptr);
}

void *shmemi_heap_realloc(void *ptr, size_t size, const char *fn) {
    shmemi_check_init(fn);
    if (!ptr)
        return shmemi_heap_malloc(0, size, fn);
    if (!size) {
        shmemi_heap_free(ptr, fn);
        return NULL;
    }
    size_t off = checked_offset(ptr, fn), newoff = 0;
    shmemi_barrier_all(fn);
    pthread_mutex_lock(&heap_lock);
    size_t old = shmemi_alloc_size(&heap_alloc, off);
    int moved = 0;
    /* A live plan's buffer may grow in place, never shrink or move (every PE
     * decides alike: the plans and the allocator are the same everywhere). */
    if (old)
        shmemi_plan_check_realloc(ptr, old, size, 0, fn);
    int rc =
        old ? shmemi_alloc_resize(&heap_alloc, off, size, &newoff, &moved) : SHMEMI_ALLOC_NOTUSED;
    if (rc == SHMEMI_ALLOC_OK && moved) {
        shmemi_plan_check_realloc(ptr, old, size, 1, fn);
        shmemi_local_copy(user_base() + newoff, ptr, old < size ? old : size, fn);
        shmemi_alloc_put(&heap_alloc, off);
    }
    pthread_mutex_unlock(&heap_lock);
    /* A heap address that is no object (one freed already): the routine's
     * failure return, NULL, as for an object that cannot grow, and why. */
    if (rc == SHMEMI_ALLOC_NOTUSED)
        shmemi_warn("%s: %p is not an allocated symmetric object (freed already?): nothing "
                    "reallocated, NULL returned",
                    fn, ptr);
    void *p = rc == SHMEMI_ALLOC_OK        ? user_base() + newoff
              : rc == SHMEMI_ALLOC_NOTUSED ? NULL
                                           : alloc_failed(size, fn);
    if (p)
        shmemi_pages_populate_heap(newoff, size);
    shmemi_barrier_all(fn);
    return p;
}

/* ------------------------------------------------------------ public names */

void *shmemi_words_malloc(size_t size, const char *fn) {
    if (shmemi.heap_kind != SHMEMI_HEAP_DEVICE)
        return shmemi_heap_malloc(64, size, fn);
    size_t off = 0;
    pthread_mutex_lock(&heap_lock);
    int rc = shmemi_alloc_get(&words_alloc, 64, size ? size : 64, &off);
    pthread_mutex_unlock(&heap_lock);
    if (rc != SHMEMI_ALLOC_OK)
        shmemi_debug("%s: the %zu-byte words area has no room for %zu bytes", fn, SHMEMI_WORDS_SIZE,
                     size);
    shmemi_barrier_all(fn); /* like every symmetric allocation */
    return rc == SHMEMI_ALLOC_OK ? shmemi.heap_base + off : NULL;
}

void shmemi_words_free(void *ptr, const char *fn) {
    if (shmemi.heap_kind != SHMEMI_HEAP_DEVICE) {
        shmemi_heap_free(ptr, fn);
        return;
    }
    if (!ptr)
        return;
    shmemi_barrier_all(fn);
    pthread_mutex_lock(&heap_lock);
    int rc = shmemi_alloc_put(&words_alloc, (size_t)((char *)ptr - shmemi.heap_base));
    pthread_mutex_unlock(&heap_lock);
    if (rc)
        shmemi_fatal("%s: %p is not an allocation of the words area", fn, ptr);
}

void *shmem_malloc(size_t size) { return shmemi_heap_malloc(0, size, __func__); }

void *shmem_calloc(size_t count, size_t size) {
    size_t bytes;
    if (__builtin_mul_overflow(count, size, &bytes)) {
        shmemi_check_init(__func__);
        shmemi_barrier_all(__func__);
        return alloc_failed(SIZE_MAX, __func__);
    }
    void *p = shmemi_heap_malloc(0, bytes, __func__);
    if (p && shmemi_on_device(p))
        shmemi.dev->fill(p, 0, bytes, __func__);
    else if (p)
        memset(p, 0, bytes);
    /* Zeroed everywhere before any peer writes into it. */
    shmemi_barrier_all(__func__);
    return p;
}

void *shmem_align(size_t alignment, size_t size) {
    if (alignment == 0) { /* elsewhere 0 asks for the heap's own alignment */
        shmemi_check_init(__func__);
        return bad_alignment(alignment, __func__);
    }
    return shmemi_heap_malloc(alignment, size, __func__);
}

void *shmem_realloc(void *ptr, size_t size) { return shmemi_heap_realloc(ptr, size, __func__); }

void shmem_free(void *ptr) { shmemi_heap_free(ptr, __func__); }

/* The hints (SHMEM_MALLOC_ATOMICS_REMOTE, SHMEM_MALLOC_SIGNAL_REMOTE) ask for
 * memory where remote atomics or signals are fast. With a host heap every
 * object is already such memory: peers update it with CPU atomics through
 * their mapping. With a device heap (GPU builds) the user heap is GPU memory,
 * which kernels and copy engines update at full speed and host threads
 * through the atomic kernel; objects that host threads poll are better in
 * global or static variables. Any hint, or none, gives the same symmetric
 * object as shmem_malloc; bits that name no hint are ignored (the
 * specification leaves hints to the implementation). */
void *shmem_malloc_with_hints(size_t size, long hints) {
    if (hints & ~(SHMEM_MALLOC_ATOMICS_REMOTE | SHMEM_MALLOC_SIGNAL_REMOTE))
        shmemi_debug("%s: hints %#lx name no hint of this library; ignored", __func__,
                     (unsigned long)hints);
    return shmemi_heap_malloc(0, size, __func__);
}

void *shmalloc(size_t size) { return shmem_malloc(size); }
void shfree(void *ptr) { shmem_free(ptr); }
void *shrealloc(void *ptr, size_t size) { return shmem_realloc(ptr, size); }
void *shmemalign(size_t alignment, size_t size) { return shmem_align(alignment, size); }
