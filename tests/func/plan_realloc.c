/* shmem_realloc of a buffer a triggered plan uses. The plan's chains hold the
 * peers' addresses of the buffer, so the realloc must not move it or give
 * back a part of it; growing in place is fine.
 *   plan_realloc grow     grow in place and shrink outside the plan's range:
 *                         the pointer stays, rounds keep delivering (passes)
 *   plan_realloc move     grow where the next object blocks growing in place:
 *                         the job ends with a message naming the plan
 *   plan_realloc shrink   shrink into the plan's range: the same
 */
#include "check.h"

#include <shmemx.h>

#include <string.h>

#define PART 4096

static int me, npes;

static shmemx_plan_t make_plan(unsigned char *buf, size_t size) {
    shmemx_region_t reg;
    shmemx_chunk_t ch;
    CHECK(shmemx_plan_whole((size_t)me * PART, PART, 1, &reg, &ch) == 1, "whole");
    shmemx_plan_t p = NULL;
    int rc = shmemx_plan_create(buf, size, &ch, 1, NULL, &p);
    CHECK(rc == 0, "create: %s (%s)", shmemx_plan_strerror(rc), shmemx_plan_errmsg(NULL));
    return p;
}

/* One round: every PE's part arrives everywhere. */
static void round_ok(shmemx_plan_t p, unsigned char *buf, unsigned tag) {
    for (size_t i = 0; i < PART; i++)
        buf[(size_t)me * PART + i] = func_byte(me, i, tag);
    int rc = shmemx_plan_run(p, -1);
    CHECK(rc == 0, "round %u: run: %s", tag, shmemx_plan_errmsg(p));
    for (int q = 0; q < npes; q++)
        for (size_t i = 0; i < PART; i++)
            CHECK(buf[(size_t)q * PART + i] == func_byte(q, i, tag),
                  "round %u: byte %zu of PE %d is %d, expected %d", tag, i, q,
                  buf[(size_t)q * PART + i], func_byte(q, i, tag));
    CHECK(shmemx_plan_next_round(p) == 0, "round %u: next_round: %s", tag, shmemx_plan_errmsg(p));
}

int main(int argc, char **argv) {
    const char *what = argc > 1 ? argv[1] : "grow";
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    size_t size = (size_t)npes * PART;
    /* Room for a shrink that stays outside the plan's range. */
    unsigned char *buf = shmem_malloc(size + 4 * PART);
    CHECK(buf, "shmem_malloc");
    memset(buf, 0, size);
    /* "grow": a free megabyte after the buffer (the plan's own words are
     * allocated after this spacer); "move": an object right after it. */
    unsigned char *next = shmem_malloc(!strcmp(what, "grow") ? (size_t)1 << 20 : PART);
    CHECK(next, "shmem_malloc");
    shmemx_plan_t p = make_plan(buf, size);
    round_ok(p, buf, 1);

    if (!strcmp(what, "grow")) {
        shmem_free(next);
        unsigned char *b2 = shmem_realloc(buf, size + PART); /* shrink, outside the range */
        CHECK(b2 == buf, "a shrink moved the buffer (%p -> %p)", (void *)buf, (void *)b2);
        b2 = shmem_realloc(buf, size + ((size_t)1 << 19)); /* grow in place, into the hole */
        CHECK(b2 == buf, "growing into free memory moved the buffer (%p -> %p)", (void *)buf,
              (void *)b2);
        round_ok(p, buf, 2);
        CHECK(shmemx_plan_close(p, -1) == 0, "close: %s", shmemx_plan_errmsg(p));
        /* Closed: it may shrink and move again. */
        b2 = shmem_realloc(buf, PART);
        CHECK(b2 == buf, "a shrink moved the buffer (%p -> %p)", (void *)buf, (void *)b2);
        b2 = shmem_realloc(b2, (size_t)4 << 20);
        CHECK(b2, "shmem_realloc to 4 MiB");
        for (size_t i = 0; i < PART; i++)
            CHECK(b2[i] == func_byte(0, i, 2), "byte %zu lost by realloc", i);
        shmem_free(b2);
        func_pass("plan_realloc");
        shmem_finalize();
        return 0;
    }
    /* Must not return. */
    size_t to = !strcmp(what, "move") ? size + ((size_t)64 << 10) : size / 2;
    unsigned char *b2 = shmem_realloc(buf, to);
    fprintf(stderr,
            "[PE %d] shmem_realloc of a live plan's buffer to %zu bytes returned %p "
            "(was %p)\n",
            me, to, (void *)b2, (void *)buf);
    /* Reaching here is the failure this test looks for: exit 0 so the
     * failure-expected test fails. */
    return 0;
}
