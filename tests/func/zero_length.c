/* Zero-length transfers and collectives do nothing and return, with NULL
 * buffers: put, get, their _nbi, strided and context forms, team and
 * active-set collectives and reductions. A zero-length put-with-signal still
 * updates the signal (no data comes before it). A collect in which some
 * members contribute nothing still gathers the others' elements. */
#include "check.h"

#include <string.h>

static long psync[SHMEM_COLLECT_SYNC_SIZE];
static long pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE];
static uint64_t sig;
static long gathered[64];
static long one;

int main(void) {
    shmem_init();
    const int me = shmem_my_pe(), npes = shmem_n_pes();
    const int right = (me + 1) % npes;
    for (int i = 0; i < SHMEM_COLLECT_SYNC_SIZE; i++)
        psync[i] = SHMEM_SYNC_VALUE;
    shmem_ctx_t ctx;
    CHECK(shmem_ctx_create(0, &ctx) == 0, "ctx_create");
    shmem_barrier_all();

    /* RMA */
    shmem_putmem(NULL, NULL, 0, right);
    shmem_getmem(NULL, NULL, 0, right);
    shmem_putmem_nbi(NULL, NULL, 0, right);
    shmem_getmem_nbi(NULL, NULL, 0, right);
    shmem_long_put(NULL, NULL, 0, right);
    shmem_long_get(NULL, NULL, 0, right);
    shmem_int_put_nbi(NULL, NULL, 0, right);
    shmem_double_get_nbi(NULL, NULL, 0, right);
    shmem_long_iput(NULL, NULL, 1, 1, 0, right);
    shmem_long_iget(NULL, NULL, 1, 1, 0, right);
    shmem_iput64(NULL, NULL, 0, 0, 0, right); /* strides unused */
    shmem_ctx_putmem(ctx, NULL, NULL, 0, right);
    shmem_ctx_getmem_nbi(ctx, NULL, NULL, 0, right);
    shmem_ctx_long_iget(ctx, NULL, NULL, 1, 1, 0, right);
    shmem_quiet();
    shmem_ctx_quiet(ctx);

    /* put-with-signal: the signal alone */
    shmem_putmem_signal(NULL, NULL, 0, &sig, 1, SHMEM_SIGNAL_ADD, right);
    shmem_long_put_signal_nbi(NULL, NULL, 0, &sig, 2, SHMEM_SIGNAL_ADD, right);
    shmem_ctx_putmem_signal(ctx, NULL, NULL, 0, &sig, 4, SHMEM_SIGNAL_ADD, right);
    shmem_quiet();
    CHECK(shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, 7) == 7, "signal %llu",
          (unsigned long long)sig);
    shmem_barrier_all();

    /* Team collectives */
    CHECK(shmem_broadcastmem(SHMEM_TEAM_WORLD, NULL, NULL, 0, 0) == 0, "broadcastmem");
    CHECK(shmem_long_broadcast(SHMEM_TEAM_WORLD, NULL, NULL, 0, 0) == 0, "long_broadcast");
    CHECK(shmem_fcollectmem(SHMEM_TEAM_WORLD, NULL, NULL, 0) == 0, "fcollectmem");
    CHECK(shmem_long_collect(SHMEM_TEAM_WORLD, NULL, NULL, 0) == 0, "collect");
    CHECK(shmem_alltoallmem(SHMEM_TEAM_WORLD, NULL, NULL, 0) == 0, "alltoallmem");
    CHECK(shmem_long_alltoalls(SHMEM_TEAM_WORLD, NULL, NULL, 1, 1, 0) == 0, "alltoalls");
    CHECK(shmem_long_sum_reduce(SHMEM_TEAM_WORLD, NULL, NULL, 0) == 0, "sum_reduce");
    CHECK(shmem_int_max_reduce(SHMEM_TEAM_WORLD, NULL, NULL, 0) == 0, "max_reduce");

    /* Active sets (every PE) */
    shmem_broadcast64(NULL, NULL, 0, 0, 0, 0, npes, psync);
    shmem_fcollect64(NULL, NULL, 0, 0, 0, npes, psync);
    shmem_collect64(NULL, NULL, 0, 0, 0, npes, psync);
    shmem_alltoall64(NULL, NULL, 0, 0, 0, npes, psync);
    shmem_long_sum_to_all(NULL, NULL, 0, 0, 0, npes, pwrk, psync);
    shmem_barrier_all();

    /* A collect where only the odd PEs contribute (one element each); the
     * source is the same symmetric object everywhere. */
    one = 100 + me;
    CHECK(shmem_long_collect(SHMEM_TEAM_WORLD, gathered, &one, me % 2) == 0, "collect of odd PEs");
    for (int pe = 1, k = 0; pe < npes; pe += 2, k++)
        CHECK(gathered[k] == 100 + pe, "gathered[%d] = %ld, want %d", k, gathered[k], 100 + pe);
    shmem_barrier_all();
    shmem_ctx_destroy(ctx);
    func_pass("zero_length");
    shmem_finalize();
    return 0;
}
