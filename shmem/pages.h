/* How symmetric memory is backed: page size and population (shmem/pages.c). */
#ifndef SHMEMI_PAGES_H
#define SHMEMI_PAGES_H

#include "shmem/shmemi.h"

#include <sys/types.h>

#define SHMEMI_HUGE_PAGE ((size_t)2 << 20)

enum { SHMEMI_PAGES_SMALL, SHMEMI_PAGES_THP, SHMEMI_PAGES_HUGETLB };

/* Decide from SHMEM_HUGEPAGES and what the kernel allows (shmem_init, before the heap). */
int shmemi_pages_init(void);
void shmemi_pages_fini(void);
int shmemi_pages_mode(void);
/* One line for SHMEM_DEBUG and the README: what backs symmetric memory. */
const char *shmemi_pages_describe(void);
/* A memfd of `size` bytes (heap: on hugetlb pages in that mode); -1 after a warning. */
int shmemi_pages_memfd(const char *name, size_t size, int heap);
/* The heap's size rounded to what the page size needs. */
size_t shmemi_pages_round(size_t bytes);
/* Map `len` bytes of fd from `off`, shared, at an address congruent to off modulo align
 * (a power of two; huge pages need it), advised for huge pages; NULL after a warning. */
void *shmemi_pages_map(int fd, size_t len, off_t off, size_t align, const char *what);
/* MADV_HUGEPAGE where transparent huge pages are in use. */
void shmemi_pages_advise(void *addr, size_t len);
/* Map the pages of heap offsets [off, off + len) into this PE's mapping of every PE's heap
 * (SHMEM_HEAP_POPULATE=alloc; host heap kind). Call on every PE: allocations are collective. */
void shmemi_pages_populate_heap(size_t off, size_t len);
/* SHMEM_HEAP_POPULATE=transfer (and pages of 4 KiB): transfers of at least this many bytes
 * through a mapping of a host heap or static data first map the pages they cover that this
 * PE has not mapped yet. */
extern int shmemi_pages_lazy;
#define SHMEMI_PAGES_MAP_MIN ((size_t)64 << 10)
void shmemi_pages_map_range(int pe, int region, size_t off, size_t len);
static inline void shmemi_pages_ready(int pe, int region, size_t off, size_t len) {
    if (len >= SHMEMI_PAGES_MAP_MIN && shmemi_pages_lazy && region != SHMEMI_REGION_DEVICE)
        shmemi_pages_map_range(pe, region, off, len);
}
/* Map the parts of fd's [off, off + len) that hold pages (not its holes) at `map`. */
void shmemi_pages_populate_file(int fd, char *map, size_t len, off_t off);

#endif
