/* Global and static variables are symmetric data objects: RMA and AMO
 * targets between PEs, initialized (.data) and zero-initialized (.bss),
 * file-scope and function-scope, scalars, arrays and arrays of structs. */
#include "check.h"

#include <string.h>

#define NARR 64
#define NREC 16
#define NADD 200

struct rec {
    int id;
    double v;
    char tag[12];
    short s;
};

long g_counter;          /* global .bss */
long g_checksum;         /* global .bss */
long g_init = 42;        /* global .data */
long g_cswap = -1;       /* global .data */
long g_winners;          /* global .bss */
int g_tickets;           /* global .bss */
struct rec g_recs[NREC]; /* global .bss array of structs */
static int s_arr[NARR];  /* file static .bss */
static double s_init_arr[8] = {1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5}; /* file static .data */
static char s_text[32] = "symmetric static text";

static long *fs_bss(void) {
    static long slot; /* function static .bss */
    return &slot;
}

static int *fs_data(void) {
    static int slot = 77; /* function static .data */
    return &slot;
}

static void fill_rec(struct rec *r, int pe, int i) {
    memset(r, 0, sizeof *r);
    r->id = pe * 100 + i;
    r->v = pe + i / 8.0;
    /* pe < 1000 and i < 1000 here; the bounds keep the compiler sure of it. */
    snprintf(r->tag, sizeof r->tag, "p%d-r%d", pe % 1000, i % 1000);
    r->s = (short)(-pe - i);
}

int main(void) {
    shmem_init();
    const int me = shmem_my_pe();
    const int npes = shmem_n_pes();
    const int right = (me + 1) % npes;
    const int left = (me + npes - 1) % npes;

    /* Initial values survive init on every PE. */
    CHECK(g_init == 42 && g_cswap == -1 && *fs_data() == 77 && s_init_arr[7] == 8.5,
          "initialized data changed by init: g_init=%ld g_cswap=%ld fs=%d", g_init, g_cswap,
          *fs_data());
    CHECK(g_counter == 0 && *fs_bss() == 0 && s_arr[NARR - 1] == 0, "bss not zero");
    CHECK(strcmp(s_text, "symmetric static text") == 0, "static text changed: %s", s_text);

    /* get of initialized data from a peer, before anyone modifies it. */
    double darr[8];
    shmem_double_get(darr, s_init_arr, 8, right);
    for (int i = 0; i < 8; i++)
        CHECK(darr[i] == i + 1.5, "get s_init_arr[%d] from PE %d: %g", i, right, darr[i]);
    char text[32];
    shmem_getmem(text, s_text, sizeof text, right);
    CHECK(strcmp(text, "symmetric static text") == 0, "getmem static text: %.31s", text);
    CHECK(shmem_long_g(&g_init, right) == 42, "g of g_init from PE %d", right);
    shmem_barrier_all();

    /* put into a file-scope static array of the right neighbour. */
    int src[NARR];
    for (int i = 0; i < NARR; i++)
        src[i] = me * 1000 + i;
    shmem_int_put(s_arr, src, NARR, right);
    /* p into globals and function statics */
    g_init = 42 + me;
    shmem_long_p(fs_bss(), 900 + me, right);
    shmem_int_p(fs_data(), 300 + me, right);
    shmem_barrier_all();
    for (int i = 0; i < NARR; i++)
        CHECK(s_arr[i] == left * 1000 + i, "s_arr[%d] = %d after put from PE %d", i, s_arr[i],
              left);
    CHECK(*fs_bss() == 900 + left, "function static bss = %ld", *fs_bss());
    CHECK(*fs_data() == 300 + left, "function static data = %d", *fs_data());
    CHECK(shmem_long_g(&g_init, right) == 42 + right, "g of modified g_init from PE %d", right);
    CHECK(shmem_int_g(fs_data(), right) == 300 + me, "g of function static");
    shmem_barrier_all();

    /* Arrays of structs: put a block of records, get another back. */
    struct rec mine[NREC];
    for (int i = 0; i < NREC; i++)
        fill_rec(&mine[i], me, i);
    shmem_putmem(g_recs, mine, sizeof mine, right);
    shmem_barrier_all();
    for (int i = 0; i < NREC; i++) {
        struct rec want;
        fill_rec(&want, left, i);
        CHECK(memcmp(&g_recs[i], &want, sizeof want) == 0, "g_recs[%d] id %d tag %.11s", i,
              g_recs[i].id, g_recs[i].tag);
    }
    struct rec got[4];
    shmem_getmem(got, &g_recs[3], sizeof got, right);
    for (int i = 0; i < 4; i++) {
        struct rec want;
        fill_rec(&want, me, 3 + i); /* right's g_recs hold my records */
        CHECK(memcmp(&got[i], &want, sizeof want) == 0, "getmem of g_recs[%d]", 3 + i);
    }
    /* a single struct field as target (after everyone has read its records) */
    shmem_barrier_all();
    shmem_double_p(&g_recs[5].v, 0.25 * me, right);
    shmem_barrier_all();
    CHECK(g_recs[5].v == 0.25 * left, "struct field p: %g", g_recs[5].v);

    /* AMO contention: every PE adds 1 NADD times to every PE's g_counter;
     * fetched values from one target are all distinct, so their sum is exact. */
    long fsum = 0;
    for (int k = 0; k < NADD; k++) {
        for (int pe = 0; pe < npes; pe++) {
            long old = shmem_long_atomic_fetch_add(&g_counter, 1, pe);
            CHECK(old >= 0 && old < (long)npes * NADD, "fetch_add returned %ld", old);
            if (pe == 0)
                fsum += old;
        }
    }
    shmem_long_atomic_add(&g_checksum, fsum, 0);
    shmem_barrier_all();
    CHECK(g_counter == (long)npes * NADD, "g_counter = %ld, expected %ld", g_counter,
          (long)npes * NADD);
    if (me == 0) {
        long n = (long)npes * NADD;
        CHECK(g_checksum == n * (n - 1) / 2, "sum of fetched values %ld, expected %ld", g_checksum,
              n * (n - 1) / 2);
    }
    /* atomic fetch of a peer's static */
    CHECK(shmem_long_atomic_fetch(&g_counter, right) == (long)npes * NADD, "atomic_fetch");

    /* compare_swap on a global: exactly one PE wins. */
    long prev = shmem_long_atomic_compare_swap(&g_cswap, -1, me, 0);
    if (prev == -1)
        shmem_long_atomic_inc(&g_winners, 0);
    else
        CHECK(prev >= 0 && prev < npes, "compare_swap returned %ld", prev);
    shmem_barrier_all();
    if (me == 0) {
        CHECK(g_winners == 1, "%ld PEs won the compare_swap", g_winners);
        CHECK(g_cswap >= 0 && g_cswap < npes, "g_cswap = %ld", g_cswap);
    }

    /* compare_swap loop as an increment on a static int of the last PE. */
    const int owner = npes - 1;
    for (int k = 0; k < 50; k++) {
        int cur = shmem_int_atomic_fetch(&g_tickets, owner);
        for (;;) {
            int seen = shmem_int_atomic_compare_swap(&g_tickets, cur, cur + 1, owner);
            if (seen == cur)
                break;
            cur = seen;
        }
    }
    /* atomics on function statics */
    shmem_int_atomic_add(fs_data(), 1, right);
    shmem_barrier_all();
    if (me == owner)
        CHECK(g_tickets == 50 * npes, "g_tickets = %d, expected %d", g_tickets, 50 * npes);
    CHECK(*fs_data() == 300 + left + 1, "atomic add on function static: %d", *fs_data());

    shmem_barrier_all();
    func_pass("static_data");
    shmem_finalize();
    return 0;
}
