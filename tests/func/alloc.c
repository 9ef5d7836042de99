/* Symmetric heap management: malloc, calloc (zeroed), realloc (content kept),
 * align (alignment), free, malloc_with_hints; allocations are symmetric
 * (same object on every PE, checked by communication); many alloc/free
 * cycles; size 0; an impossible request returns NULL on every PE and the
 * library keeps working. */
#include "check.h"

#include <stdint.h>
#include <string.h>

static int me, npes, right, left;

/* Write my number at both ends of the object on my right neighbour and
 * check what my left neighbour wrote into mine: fails unless the object is
 * at the same place in every PE's heap and is at least `size` bytes. */
static void check_symmetric(void *obj, size_t size, const char *what) {
    long mark[2] = {1000 + me, 2000 + me};
    CHECK(size >= 2 * sizeof(long), "%s too small for the check", what);
    shmem_barrier_all();
    shmem_putmem(obj, &mark[0], sizeof(long), right);
    shmem_putmem((char *)obj + size - sizeof(long), &mark[1], sizeof(long), right);
    shmem_barrier_all();
    long a, b;
    memcpy(&a, obj, sizeof a);
    memcpy(&b, (char *)obj + size - sizeof(long), sizeof b);
    CHECK(a == 1000 + left && b == 2000 + left, "%s (%zu B) not symmetric: %ld %ld", what, size, a,
          b);
    long far = 0;
    shmem_getmem(&far, (char *)obj + size - sizeof(long), sizeof far, right);
    CHECK(far == 2000 + me, "%s: get from PE %d gave %ld", what, right, far);
    shmem_barrier_all();
}

static uint32_t lcg(uint32_t *s) {
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

int main(void) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;

    /* size 0: no allocation, NULL; free(NULL) does nothing */
    CHECK(shmem_malloc(0) == NULL, "shmem_malloc(0) is not NULL");
    CHECK(shmem_calloc(0, 8) == NULL && shmem_calloc(8, 0) == NULL, "shmem_calloc with 0 not NULL");
    shmem_free(NULL);

    /* malloc: symmetric objects of several sizes, all alive together */
    static const size_t sizes[] = {16, 24, 100, 4096, 4097, 65536, (size_t)1 << 20};
    enum { NS = sizeof sizes / sizeof sizes[0] };
    unsigned char *objs[NS];
    for (int i = 0; i < NS; i++) {
        objs[i] = shmem_malloc(sizes[i]);
        CHECK(objs[i] != NULL, "shmem_malloc(%zu) failed", sizes[i]);
        CHECK((uintptr_t)objs[i] % 8 == 0, "shmem_malloc(%zu) = %p not 8-aligned", sizes[i],
              (void *)objs[i]);
        for (int j = 0; j < i; j++)
            CHECK(objs[i] + sizes[i] <= objs[j] || objs[j] + sizes[j] <= objs[i],
                  "objects %d and %d overlap", i, j);
        check_symmetric(objs[i], sizes[i], "shmem_malloc object");
    }
    for (int i = 0; i < NS; i++)
        memset(objs[i], 0x40 + i, sizes[i]);

    /* calloc: zeroed even where freed memory held data */
    shmem_free(objs[NS - 1]);
    unsigned char *z = shmem_calloc(1 << 18, 4);
    CHECK(z != NULL, "shmem_calloc failed");
    for (size_t i = 0; i < (size_t)1 << 20; i++)
        if (z[i] != 0)
            CHECK(0, "shmem_calloc memory byte %zu = %u", i, z[i]);
    check_symmetric(z, (size_t)1 << 20, "shmem_calloc object");
    objs[NS - 1] = z;
    memset(z, 0x40 + NS - 1, (size_t)1 << 20);

    /* realloc: content kept when growing and shrinking; object symmetric */
    unsigned char *r = shmem_malloc(1000);
    CHECK(r != NULL, "shmem_malloc failed");
    for (size_t i = 0; i < 1000; i++)
        r[i] = func_byte(me, i, 1);
    shmem_barrier_all();
    r = shmem_realloc(r, (size_t)1 << 20);
    CHECK(r != NULL, "shmem_realloc to 1 MiB failed");
    for (size_t i = 0; i < 1000; i++)
        CHECK(r[i] == func_byte(me, i, 1), "realloc (grow) lost byte %zu", i);
    shmem_barrier_all();
    r = shmem_realloc(r, 200);
    CHECK(r != NULL, "shmem_realloc to 200 B failed");
    for (size_t i = 0; i < 200; i++)
        CHECK(r[i] == func_byte(me, i, 1), "realloc (shrink) lost byte %zu", i);
    check_symmetric(r, 200, "shmem_realloc object");
    unsigned char *r0 = shmem_realloc(NULL, 64);
    CHECK(r0 != NULL, "shmem_realloc(NULL, 64) failed");
    check_symmetric(r0, 64, "shmem_realloc(NULL) object");
    shmem_free(r0);

    /* align */
    for (size_t al = 8; al <= ((size_t)1 << 20); al <<= 1) {
        unsigned char *a = shmem_align(al, 24 + al / 2);
        CHECK(a != NULL, "shmem_align(%zu) failed", al);
        CHECK((uintptr_t)a % al == 0, "shmem_align(%zu) returned %p", al, (void *)a);
        check_symmetric(a, 24 + al / 2, "shmem_align object");
        shmem_free(a);
    }

#if FUNC_SPEC_15
    /* malloc_with_hints: usable for remote atomics and signals */
    static const long hints[] = {0, SHMEM_MALLOC_ATOMICS_REMOTE, SHMEM_MALLOC_SIGNAL_REMOTE,
                                 SHMEM_MALLOC_ATOMICS_REMOTE | SHMEM_MALLOC_SIGNAL_REMOTE};
    for (int h = 0; h < 4; h++) {
        long *w = shmem_malloc_with_hints(4 * sizeof(long), hints[h]);
        CHECK(w != NULL, "shmem_malloc_with_hints(%ld) failed", hints[h]);
        w[0] = 0;
        check_symmetric(w, 4 * sizeof(long), "shmem_malloc_with_hints object");
        w[0] = 0;
        shmem_barrier_all();
        for (int k = 0; k < 10; k++)
            shmem_long_atomic_add(&w[0], 1, 0);
        shmem_barrier_all();
        if (me == 0)
            CHECK(w[0] == 10L * npes, "atomics on a hinted object: %ld", w[0]);
        shmem_free(w);
    }
#endif

    /* many cycles: same pseudo-random sequence on every PE, up to 16 live
     * objects, each filled with a tag that must survive other operations */
    enum { LIVE = 16, CYCLES = 1500 };
    unsigned char *live[LIVE] = {0};
    size_t lsize[LIVE] = {0};
    uint32_t seed = 12345;
    for (int c = 0; c < CYCLES; c++) {
        const int slot = (int)(lcg(&seed) % LIVE);
        if (live[slot]) {
            for (size_t i = 0; i < lsize[slot]; i++)
                if (live[slot][i] != (unsigned char)(slot * 7 + me))
                    CHECK(0, "cycle %d: object %d byte %zu overwritten", c, slot, i);
            shmem_free(live[slot]);
            live[slot] = NULL;
        } else {
            size_t sz = 1 + lcg(&seed) % 20000;
            if (lcg(&seed) % 4 == 0)
                live[slot] = shmem_align((size_t)64 << (lcg(&seed) % 6), sz);
            else
                live[slot] = shmem_malloc(sz);
            CHECK(live[slot] != NULL, "cycle %d: allocation of %zu B failed", c, sz);
            lsize[slot] = sz;
            memset(live[slot], slot * 7 + me, sz);
        }
        if (c % 100 == 0 && live[slot] && lsize[slot] >= 2 * sizeof(long)) {
            check_symmetric(live[slot], lsize[slot], "cycled object");
            memset(live[slot], slot * 7 + me, lsize[slot]);
        }
    }
    for (int s = 0; s < LIVE; s++)
        shmem_free(live[s]);

    /* earlier objects untouched by all of that */
    for (int i = 0; i < NS; i++)
        for (size_t k = 0; k < sizes[i]; k++)
            if (objs[i][k] != (unsigned char)(0x40 + i))
                CHECK(0, "object %d byte %zu changed by other allocations", i, k);
    for (size_t i = 0; i < 200; i++)
        if (i >= sizeof(long) && i < 200 - sizeof(long))
            CHECK(r[i] == func_byte(me, i, 1), "realloc'd object byte %zu changed", i);

    /* impossible request: NULL on every PE, then everything still works */
    void *huge = shmem_malloc((size_t)1 << 40);
    CHECK(huge == NULL, "shmem_malloc(1 TiB) did not return NULL");
    void *huge2 = shmem_align(4096, (size_t)1 << 40);
    CHECK(huge2 == NULL, "shmem_align(4096, 1 TiB) did not return NULL");
    /* alignments that are not powers of two: the failure return, NULL (with a warning) */
    CHECK(shmem_align(0, 64) == NULL, "shmem_align(0, 64) did not return NULL");
    CHECK(shmem_align(24, 64) == NULL, "shmem_align(24, 64) did not return NULL");
    /* shmem_realloc of an object freed already: NULL (with a warning) */
    void *gone = shmem_malloc(256);
    CHECK(gone != NULL, "shmem_malloc(256) failed");
    shmem_free(gone);
    CHECK(shmem_realloc(gone, 512) == NULL, "shmem_realloc of a freed object did not return NULL");
    unsigned char *after = shmem_malloc(4096);
    CHECK(after != NULL, "shmem_malloc after a failed request");
    check_symmetric(after, 4096, "object allocated after a failed request");
    shmem_free(after);

    shmem_barrier_all();
    shmem_free(r);
    for (int i = 0; i < NS; i++)
        shmem_free(objs[i]);
    func_pass("alloc");
    shmem_finalize();
    return 0;
}
