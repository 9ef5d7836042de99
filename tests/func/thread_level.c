/* shmem_init_thread provides the level requested (every level is supported)
 * and shmem_query_thread reports it: programs compare the two with what
 * they asked for. The level is the program's argument (default FUNNELED). */
#include "check.h"

#include <string.h>

int main(int argc, char **argv) {
    int want = SHMEM_THREAD_FUNNELED, got = -1, queried = -1;
    if (argc > 1)
        want = !strcmp(argv[1], "single")       ? SHMEM_THREAD_SINGLE
               : !strcmp(argv[1], "serialized") ? SHMEM_THREAD_SERIALIZED
               : !strcmp(argv[1], "multiple")   ? SHMEM_THREAD_MULTIPLE
                                                : SHMEM_THREAD_FUNNELED;
    int rc = shmem_init_thread(want, &got);
    CHECK(rc == 0 && got == want, "shmem_init_thread(%d) returned %d, provided %d", want, rc, got);
    shmem_query_thread(&queried);
    CHECK(queried == want, "shmem_query_thread gave %d, requested %d", queried, want);
    func_pass("thread_level");
    shmem_finalize();
    return 0;
}
