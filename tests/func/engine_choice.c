/* Which copy engine runs: the name given as the argument. SHMEM_COPY_ENGINE=auto with a
 * host heap must give "soft": a hardware engine would need every host buffer mapped for
 * its GPU, which only an explicit SHMEM_COPY_ENGINE=hsakmt sets up. With an engine asked
 * for, a non-blocking put from symmetric memory runs on it. */
#include <shmemx.h>
#include <string.h>

#include "check.h"

#define N (1 << 20)

int main(int argc, char **argv) {
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    const char *want = argc > 1 ? argv[1] : "soft";
    CHECK(!strcmp(shmemx_copy_engine_name(), want), "copy engine \"%s\", expected \"%s\"",
          shmemx_copy_engine_name(), want);
    char *src = shmem_malloc(N), *dst = shmem_malloc(N);
    CHECK(src && dst, "shmem_malloc");
    memset(src, 'a' + me, N);
    shmem_barrier_all();
    shmem_putmem_nbi(dst, src, N, (me + 1) % n);
    shmem_quiet();
    shmem_barrier_all();
    for (size_t i = 0; i < N; i += 4093)
        CHECK(dst[i] == 'a' + (me + n - 1) % n, "byte %zu = %d", i, dst[i]);
    shmem_free(dst);
    shmem_free(src);
    if (me == 0)
        printf("engine_choice: PASS (%d PEs, %s)\n", n, want);
    shmem_finalize();
    return 0;
}
