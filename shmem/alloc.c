#include "shmem/alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MIN_ALIGN ((size_t)64) /* a cache line: no false sharing between objects */

static size_t round_up(size_t v, size_t a) { return (v + a - 1) & ~(a - 1); }

int shmemi_alloc_init(struct shmemi_alloc *a, size_t size) {
    memset(a, 0, sizeof(*a));
    a->cap = 64;
    a->blocks = malloc(a->cap * sizeof(*a->blocks));
    if (!a->blocks)
        return SHMEMI_ALLOC_INVAL;
    a->size = size;
    a->blocks[0] = (struct shmemi_block){0, size, 0, 0};
    a->n = size ? 1 : 0;
    return SHMEMI_ALLOC_OK;
}

void shmemi_alloc_fini(struct shmemi_alloc *a) {
    free(a->blocks);
    memset(a, 0, sizeof(*a));
}

static int reserve(struct shmemi_alloc *a, size_t extra) {
    if (a->n + extra <= a->cap)
        return 0;
    size_t cap = a->cap * 2 + extra;
    struct shmemi_block *b = realloc(a->blocks, cap * sizeof(*b));
    if (!b)
        return -1;
    a->blocks = b;
    a->cap = cap;
    return 0;
}

static void insert_at(struct shmemi_alloc *a, size_t i, struct shmemi_block b) {
    memmove(&a->blocks[i + 1], &a->blocks[i], (a->n - i) * sizeof(b));
    a->blocks[i] = b;
    a->n++;
}

static void remove_at(struct shmemi_alloc *a, size_t i) {
    memmove(&a->blocks[i], &a->blocks[i + 1], (a->n - i - 1) * sizeof(a->blocks[0]));
    a->n--;
}

static size_t obj(const struct shmemi_block *b) { return b->off + b->lead; }

/* Index of the block whose object starts exactly at off, or SIZE_MAX (objects
 * ascend with their blocks: a lead is shorter than any block). */
static size_t find(const struct shmemi_alloc *a, size_t off) {
    size_t lo = 0, hi = a->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (obj(&a->blocks[mid]) < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < a->n && obj(&a->blocks[lo]) == off ? lo : SIZE_MAX;
}

int shmemi_alloc_get(struct shmemi_alloc *a, size_t align, size_t size, size_t *off) {
    return shmemi_alloc_get_lead(a, align, 0, size, off);
}

int shmemi_alloc_get_lead(struct shmemi_alloc *a, size_t align, size_t lead, size_t size,
                          size_t *off) {
    if ((align & (align - 1)) || lead >= MIN_ALIGN)
        return SHMEMI_ALLOC_INVAL;
    if (align < MIN_ALIGN)
        align = MIN_ALIGN;
    if (size == 0 || size > a->size - lead)
        return SHMEMI_ALLOC_NOMEM;
    size = round_up(size + lead, MIN_ALIGN);
    if (reserve(a, 2))
        return SHMEMI_ALLOC_INVAL;
    for (size_t i = 0; i < a->n; i++) {
        struct shmemi_block b = a->blocks[i];
        if (b.used)
            continue;
        size_t start = round_up(b.off, align);
        if (start < b.off || start - b.off >= b.size || b.size - (start - b.off) < size)
            continue;
        size_t pad = start - b.off, rest = b.size - pad - size;
        /* [pad free][size used][rest free] */
        struct shmemi_block used = {start, size, (unsigned)lead, 1};
        if (pad) {
            a->blocks[i].size = pad;
            insert_at(a, ++i, used);
        } else {
            a->blocks[i] = used;
        }
        if (rest)
            insert_at(a, i + 1, (struct shmemi_block){start + size, rest, 0, 0});
        *off = start + lead;
        return SHMEMI_ALLOC_OK;
    }
    return SHMEMI_ALLOC_NOMEM;
}

int shmemi_alloc_put(struct shmemi_alloc *a, size_t off) {
    size_t i = find(a, off);
    if (i == SIZE_MAX || !a->blocks[i].used)
        return SHMEMI_ALLOC_NOTUSED;
    a->blocks[i].used = 0;
    a->blocks[i].lead = 0;
    if (i + 1 < a->n && !a->blocks[i + 1].used) {
        a->blocks[i].size += a->blocks[i + 1].size;
        remove_at(a, i + 1);
    }
    if (i > 0 && !a->blocks[i - 1].used) {
        a->blocks[i - 1].size += a->blocks[i].size;
        remove_at(a, i);
    }
    return SHMEMI_ALLOC_OK;
}

size_t shmemi_alloc_size(const struct shmemi_alloc *a, size_t off) {
    size_t i = find(a, off);
    return i == SIZE_MAX || !a->blocks[i].used ? 0 : a->blocks[i].size - a->blocks[i].lead;
}

int shmemi_alloc_resize(struct shmemi_alloc *a, size_t off, size_t size, size_t *newoff,
                        int *moved) {
    size_t i = find(a, off);
    if (i == SIZE_MAX || !a->blocks[i].used)
        return SHMEMI_ALLOC_NOTUSED;
    size_t lead = a->blocks[i].lead;
    if (size == 0 || size > a->size - lead)
        return SHMEMI_ALLOC_NOMEM;
    size = round_up(size + lead, MIN_ALIGN);
    if (reserve(a, 1))
        return SHMEMI_ALLOC_INVAL;
    struct shmemi_block *b = &a->blocks[i];
    int next_free = i + 1 < a->n && !a->blocks[i + 1].used;
    size_t avail = b->size + (next_free ? a->blocks[i + 1].size : 0);
    if (size <= avail) {
        /* In place: give back or take from the free block that follows. */
        if (next_free)
            remove_at(a, i + 1);
        b = &a->blocks[i];
        b->size = size;
        if (avail > size)
            insert_at(a, i + 1, (struct shmemi_block){b->off + size, avail - size, 0, 0});
        *newoff = off;
        *moved = 0;
        return SHMEMI_ALLOC_OK;
    }
    int rc = shmemi_alloc_get_lead(a, MIN_ALIGN, lead, size - lead, newoff);
    if (rc == SHMEMI_ALLOC_OK)
        *moved = 1;
    return rc;
}

void shmemi_alloc_stats(const struct shmemi_alloc *a, size_t *used, size_t *largest_free) {
    size_t u = 0, l = 0;
    for (size_t i = 0; i < a->n; i++) {
        if (a->blocks[i].used)
            u += a->blocks[i].size;
        else if (a->blocks[i].size > l)
            l = a->blocks[i].size;
    }
    *used = u;
    *largest_free = l;
}

int shmemi_heap_layout(size_t setting, size_t page, size_t extra, size_t align, size_t *user,
                       size_t *span) {
    size_t u, sp;
    if (setting == 0 || __builtin_add_overflow(setting, page - 1, &u))
        return SHMEMI_ALLOC_INVAL;
    u &= ~(page - 1);
    if (__builtin_add_overflow(u, extra, &sp) || __builtin_add_overflow(sp, align, &sp))
        return SHMEMI_ALLOC_INVAL;
    *user = u;
    *span = sp;
    return SHMEMI_ALLOC_OK;
}
