/* Symmetric memory ends where the user heap ends (SHMEM_SYMMETRIC_SIZE=1m):
 * shmem_addr_accessible and shmem_ptr refuse the first byte past it, which
 * on this library is where its own barrier and team words begin, and accept
 * the last byte of it. */
#include "check.h"

#define HEAP ((size_t)1 << 20)

int main(void) {
    shmem_init();
    const int me = shmem_my_pe(), npes = shmem_n_pes();
    char *all = shmem_malloc(HEAP); /* the whole heap: it starts at the heap's start */
    CHECK(all, "shmem_malloc of the whole %zu-byte heap failed", HEAP);
    for (int pe = 0; pe < npes; pe++) {
        CHECK(shmem_addr_accessible(all, pe) && shmem_addr_accessible(all + HEAP - 1, pe),
              "the heap's first and last bytes are symmetric (PE %d)", pe);
        /* Mapped here: the PEs of this node (SHMEM_TEAM_SHARED). */
        if (shmem_team_translate_pe(SHMEM_TEAM_WORLD, pe, SHMEM_TEAM_SHARED) >= 0)
            CHECK(shmem_ptr(all + HEAP - 1, pe) != NULL, "shmem_ptr of the last byte (PE %d)", pe);
        CHECK(!shmem_addr_accessible(all + HEAP, pe),
              "the byte past the heap is symmetric "
              "(PE %d)",
              pe);
        CHECK(shmem_ptr(all + HEAP, pe) == NULL, "shmem_ptr of the byte past the heap (PE %d)", pe);
        CHECK(!shmem_addr_accessible(all + HEAP + 70 * 1024, pe), "70 KB past the heap (PE %d)",
              pe);
    }
    /* A put that ends exactly at the end of the heap is fine. */
    char last[64] = {0};
    shmem_putmem(all + HEAP - sizeof(last), last, sizeof(last), (me + 1) % npes);
    shmem_barrier_all();
    shmem_free(all);
    func_pass("heap_bounds");
    shmem_finalize();
    return 0;
}
