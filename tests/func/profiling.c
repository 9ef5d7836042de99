/* The profiling interface as a tool uses it: this program defines
 * shmem_long_put, shmem_ctx_long_put and shmem_quiet itself, counts the calls
 * and forwards them to pshmem_long_put, pshmem_ctx_long_put and pshmem_quiet.
 * Its definitions must take the place of the library's (weak) ones whether
 * the library is linked dynamically or statically, the data must still
 * arrive, and the type-generic shmem_put on long must reach the tool too. */
#include "check.h"

#include <pshmem.h>
#include <time.h>

static int puts_seen, ctx_puts_seen, quiets_seen;

void shmem_long_put(long *dest, const long *source, size_t nelems, int pe) {
    puts_seen++;
    pshmem_long_put(dest, source, nelems, pe);
}
void shmem_ctx_long_put(shmem_ctx_t ctx, long *dest, const long *source, size_t nelems, int pe) {
    ctx_puts_seen++;
    pshmem_ctx_long_put(ctx, dest, source, nelems, pe);
}
void shmem_quiet(void) {
    quiets_seen++;
    pshmem_quiet();
}

int main(void) {
    shmem_init();
    shmem_pcontrol(1); /* the library's no-op */
    int me = shmem_my_pe(), npes = shmem_n_pes(), peer = (me + 1) % npes;
    int left = (me + npes - 1) % npes;
    long *x = (long *)shmem_calloc(8, sizeof(long));
    long src[8];
    CHECK(x != NULL, "shmem_calloc failed");
    for (int i = 0; i < 8; i++)
        src[i] = 1000L * me + i;
    shmem_barrier_all();

    shmem_long_put(x, src, 4, peer);
    shmem_put(&x[4], &src[4], 4, peer); /* C11: the generic selects shmem_long_put */
    shmem_quiet();
    shmem_barrier_all();
    for (int i = 0; i < 8; i++)
        CHECK(x[i] == 1000L * left + i, "x[%d] = %ld, want %ld", i, x[i], 1000L * left + i);
    CHECK(puts_seen == 2, "the tool saw %d of 2 shmem_long_put calls", puts_seen);
    CHECK(quiets_seen == 1, "the tool saw %d of 1 shmem_quiet calls", quiets_seen);

    shmem_ctx_long_put(SHMEM_CTX_DEFAULT, x, src, 8, peer);
    pshmem_long_put(x, src, 8, peer); /* straight to the library: not counted */
    shmem_barrier_all();
    CHECK(ctx_puts_seen == 1 && puts_seen == 2, "the tool saw %d ctx puts and %d puts",
          ctx_puts_seen, puts_seen);

    /* The timer other libraries' benchmarks call: monotonic, in seconds. */
    double t0 = shmemx_wtime();
    struct timespec ten_ms = {0, 10 * 1000 * 1000};
    nanosleep(&ten_ms, NULL);
    double t1 = shmemx_wtime();
    CHECK(t1 - t0 >= 0.0095 && t1 - t0 < 10.0, "shmemx_wtime advanced %g s over a 10 ms sleep",
          t1 - t0);

    shmem_free(x);
    func_pass("profiling");
    shmem_finalize();
    return 0;
}
