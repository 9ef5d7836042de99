/* Initialization and query routines: init_thread/query_thread, my_pe/n_pes,
 * info_get_version/name, pe_accessible, addr_accessible, shmem_ptr,
 * shmem_team_ptr, and query_initialized before and after, with nested
 * initialization calls (1.6). */
#include "check.h"

#include <stdint.h>
#include <string.h>

long g_word;            /* global, .bss: symmetric */
static long s_word = 5; /* static, .data: symmetric */

int main(void) {
    int provided = -1;

#if FUNC_SPEC_15
    int initialized = -1;
    shmem_query_initialized(&initialized);
    if (initialized != 0) {
        fprintf(stderr, "[PE ?] FAIL: shmem_query_initialized before init gave %d\n", initialized);
        return 1;
    }
#endif

    int rc = shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    CHECK(rc == 0, "shmem_init_thread returned %d", rc);
    CHECK(provided == SHMEM_THREAD_SINGLE || provided == SHMEM_THREAD_FUNNELED ||
              provided == SHMEM_THREAD_SERIALIZED || provided == SHMEM_THREAD_MULTIPLE,
          "provided level %d is not a thread level", provided);
    int queried = -1;
    shmem_query_thread(&queried);
    CHECK(queried == provided, "shmem_query_thread gave %d, init_thread provided %d", queried,
          provided);

#if FUNC_SPEC_15
    shmem_query_initialized(&initialized);
    CHECK(initialized != 0, "shmem_query_initialized after init gave %d", initialized);
#endif

    const int me = shmem_my_pe();
    const int npes = shmem_n_pes();
    CHECK(npes >= 1, "n_pes = %d", npes);
    CHECK(me >= 0 && me < npes, "my_pe = %d of %d", me, npes);

    /* Version and name. */
    int major = -1, minor = -1;
    shmem_info_get_version(&major, &minor);
    CHECK(major == SHMEM_MAJOR_VERSION && minor == SHMEM_MINOR_VERSION,
          "info_get_version %d.%d, header says %d.%d", major, minor, SHMEM_MAJOR_VERSION,
          SHMEM_MINOR_VERSION);
#ifndef FUNC_ALLOW_OLDER_SPEC /* defined only when cross-checking with a 1.4 library */
    CHECK(major == 1 && minor == 6, "library implements OpenSHMEM %d.%d, expected 1.6", major,
          minor);
#endif
    char name[SHMEM_MAX_NAME_LEN + 1];
    memset(name, 'X', sizeof name);
    shmem_info_get_name(name);
    size_t len = strnlen(name, sizeof name);
    CHECK(len > 0 && len < SHMEM_MAX_NAME_LEN, "info_get_name gave %zu characters", len);
    CHECK(strcmp(name, SHMEM_VENDOR_STRING) == 0, "info_get_name '%s' != SHMEM_VENDOR_STRING '%s'",
          name, SHMEM_VENDOR_STRING);

    /* Every PE is distinct: the sum of the PE numbers gathered on PE 0. */
    long *sum = shmem_malloc(sizeof *sum);
    CHECK(sum != NULL, "shmem_malloc of a long failed");
    *sum = 0;
    long *seen = shmem_calloc((size_t)npes, sizeof *seen);
    CHECK(seen != NULL, "shmem_calloc failed");
    shmem_barrier_all();
    shmem_long_atomic_add(sum, me, 0);
    shmem_long_atomic_add(&seen[me], 1, 0);
    shmem_barrier_all();
    if (me == 0) {
        CHECK(*sum == (long)npes * (npes - 1) / 2, "sum of PE numbers %ld", *sum);
        for (int pe = 0; pe < npes; pe++)
            CHECK(seen[pe] == 1, "PE number %d reported %ld times", pe, seen[pe]);
    }

    /* pe_accessible */
    for (int pe = 0; pe < npes; pe++)
        CHECK(shmem_pe_accessible(pe) == 1, "pe_accessible(%d) = 0", pe);
    CHECK(shmem_pe_accessible(-1) == 0, "pe_accessible(-1) != 0");
    CHECK(shmem_pe_accessible(npes) == 0, "pe_accessible(n_pes) != 0");

    /* addr_accessible: symmetric objects yes, private memory no. */
    long local = 0;
    long *priv = malloc(sizeof *priv);
    CHECK(priv != NULL, "malloc failed");
    for (int pe = 0; pe < npes; pe++) {
        CHECK(shmem_addr_accessible(sum, pe) == 1, "heap address not accessible on PE %d", pe);
        CHECK(shmem_addr_accessible(&g_word, pe) == 1, "global not accessible on PE %d", pe);
        CHECK(shmem_addr_accessible(&s_word, pe) == 1, "static not accessible on PE %d", pe);
        CHECK(shmem_addr_accessible(&local, pe) == 0, "stack address accessible on PE %d", pe);
        CHECK(shmem_addr_accessible(priv, pe) == 0, "malloc address accessible on PE %d", pe);
    }
    free(priv);

    /* shmem_ptr: self gives a usable pointer; a peer on this node too. */
    long *cell = shmem_malloc(sizeof *cell);
    CHECK(cell != NULL, "shmem_malloc failed");
    *cell = -1;
    long *self = shmem_ptr(cell, me);
    CHECK(self != NULL, "shmem_ptr(self) is NULL");
    *self = 1234 + me;
    CHECK(*cell == 1234 + me, "write through shmem_ptr(self) not seen: %ld", *cell);
    shmem_barrier_all();

    const int right = (me + 1) % npes;
    const int left = (me + npes - 1) % npes;
    /* A peer of this node (SHMEM_TEAM_SHARED) is mapped; one reached through
     * the fabric (another node, or SHMEM_FORCE_FABRIC=1) is not. */
    int right_shared = shmem_team_translate_pe(SHMEM_TEAM_WORLD, right, SHMEM_TEAM_SHARED) >= 0;
    long *peer = shmem_ptr(cell, right);
    CHECK((peer != NULL) == right_shared,
          "shmem_ptr(heap, PE %d) is %p, PE %d %s SHMEM_TEAM_SHARED", right, (void *)peer, right,
          right_shared ? "in" : "not in");
    if (peer)
        *peer = 5000 + me;
    else
        shmem_long_p(cell, 5000 + me, right);
    shmem_barrier_all();
    CHECK(*cell == 5000 + left, "value written through shmem_ptr by PE %d: %ld", left, *cell);
    shmem_barrier_all();

    /* Static data through shmem_ptr, when the library maps it. */
    long *speer = shmem_ptr(&s_word, right);
    CHECK(s_word == 5, "initialized static changed to %ld", s_word);
    shmem_barrier_all();
    int smapped = speer != NULL;
    if (smapped)
        *speer = 600 + me;
    shmem_barrier_all();
    int *flags = shmem_calloc((size_t)npes, sizeof *flags);
    CHECK(flags != NULL, "shmem_calloc failed");
    shmem_int_p(&flags[me], smapped, left);
    shmem_barrier_all();
    if (flags[left])
        CHECK(s_word == 600 + left, "static written through shmem_ptr: %ld", s_word);

#if FUNC_SPEC_15
    /* shmem_team_ptr on the world team behaves like shmem_ptr. */
    CHECK(shmem_team_my_pe(SHMEM_TEAM_WORLD) == me, "team_my_pe(WORLD) %d",
          shmem_team_my_pe(SHMEM_TEAM_WORLD));
    CHECK(shmem_team_n_pes(SHMEM_TEAM_WORLD) == npes, "team_n_pes(WORLD) %d",
          shmem_team_n_pes(SHMEM_TEAM_WORLD));
    long *tpeer = shmem_team_ptr(SHMEM_TEAM_WORLD, cell, right);
    CHECK(tpeer == peer, "shmem_team_ptr %p != shmem_ptr %p", (void *)tpeer, (void *)peer);
    shmem_barrier_all();
    if (tpeer)
        *tpeer = 7000 + me;
    else
        shmem_long_p(cell, 7000 + me, right);
    shmem_barrier_all();
    CHECK(*cell == 7000 + left, "value written through shmem_team_ptr: %ld", *cell);
#endif

    shmem_barrier_all();
    shmem_free(flags);
    shmem_free(cell);
    shmem_free(seen);
    shmem_free(sum);
#if FUNC_SPEC_16
    /* 1.6: initialization may be called again; the library stays initialized
     * until the shmem_finalize that matches the last call. */
    shmem_init();
    CHECK(shmem_init_thread(SHMEM_THREAD_SINGLE, &provided) == 0, "a third initialization");
    shmem_finalize();
    shmem_finalize();
    shmem_query_initialized(&initialized);
    CHECK(initialized != 0, "finalized by the 2nd of 3 shmem_finalize calls");
    CHECK(shmem_my_pe() == me, "my_pe after nested finalize calls");
    shmem_barrier_all();
#endif
    func_pass("init_query");
    shmem_finalize();

#if FUNC_SPEC_15
    shmem_query_initialized(&initialized);
    if (initialized != 0) {
        fprintf(stderr, "[PE %d] FAIL: shmem_query_initialized after finalize gave %d\n", me,
                initialized);
        return 1;
    }
#endif
    return 0;
}
