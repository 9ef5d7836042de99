/* The symmetric heap allocator: deterministic, driven only by collective
 * calls, so that every PE returns the same offset for the same sequence of
 * calls. It manages offsets; its bookkeeping lives outside the heap, so a
 * user's overflow cannot corrupt it and a bad free is always detected. */
#ifndef SHMEMI_ALLOC_H
#define SHMEMI_ALLOC_H

#include <stddef.h>

struct shmemi_block {
    size_t off, size; /* the block: whole cache lines */
    unsigned lead;    /* bytes from the block's start to its object's (used blocks) */
    int used;
};

struct shmemi_alloc {
    size_t size;                 /* bytes managed: offsets [0, size) */
    struct shmemi_block *blocks; /* sorted by offset, covering [0, size) */
    size_t n, cap;
};

enum {
    SHMEMI_ALLOC_OK = 0,
    SHMEMI_ALLOC_NOMEM = -1,   /* no free range large enough */
    SHMEMI_ALLOC_NOTUSED = -2, /* offset is not the start of a live block */
    SHMEMI_ALLOC_INVAL = -3,   /* bad alignment, or bookkeeping allocation failed */
};

int shmemi_alloc_init(struct shmemi_alloc *a, size_t size);
void shmemi_alloc_fini(struct shmemi_alloc *a);
/* First fit; align must be a power of two. */
int shmemi_alloc_get(struct shmemi_alloc *a, size_t align, size_t size, size_t *off);
/* The same with the object `lead` bytes (less than a cache line) into an
 * aligned block: *off is the object's offset, the one the other calls take. */
int shmemi_alloc_get_lead(struct shmemi_alloc *a, size_t align, size_t lead, size_t size,
                          size_t *off);
int shmemi_alloc_put(struct shmemi_alloc *a, size_t off);
/* Usable size of the live object at off, or 0. */
size_t shmemi_alloc_size(const struct shmemi_alloc *a, size_t off);
/* Grow or shrink in place when possible (*moved = 0), else allocate anew
 * with the same lead (*moved = 1, *newoff set, old block still live: the
 * caller copies and frees it). */
int shmemi_alloc_resize(struct shmemi_alloc *a, size_t off, size_t size, size_t *newoff,
                        int *moved);
/* The address range of a heap whose size setting is `setting` bytes: the
 * user heap (`setting` rounded up to whole pages of `page` bytes, a power of
 * two) and the span of address space reserved to place the user heap plus up
 * to `extra` bytes of control areas on an `align` boundary (user + extra +
 * align). 0, or SHMEMI_ALLOC_INVAL when the user heap would be empty or a sum
 * overflows (the outputs are then left alone). */
int shmemi_heap_layout(size_t setting, size_t page, size_t extra, size_t align, size_t *user,
                       size_t *span);
/* Bytes in use and largest free range (for messages). */
void shmemi_alloc_stats(const struct shmemi_alloc *a, size_t *used, size_t *largest_free);

#endif
