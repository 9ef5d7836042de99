/* Many contexts at once, more than a fabric gives endpoints of their own
 * (SHMEM_OFI_CTX_ENDPOINTS): each context increments the right neighbour's
 * counter and puts into its slot, each is quieted on its own, and every
 * update is there once the neighbour sees a flag put after those quiets
 * (through the default context: nothing but the contexts' quiets orders
 * it after their updates), and after a sync. Then all are destroyed and made
 * again: destroyed contexts give their endpoints back. */
#include "check.h"

#define NCTX 300

static long counter;
static long slots[NCTX];
static long flag;

static void round_of(int round, int me, int right, int left) {
    shmem_ctx_t ctx[NCTX];
    for (int i = 0; i < NCTX; i++)
        CHECK(shmem_ctx_create(i % 2 ? SHMEM_CTX_PRIVATE : 0, &ctx[i]) == 0,
              "round %d: shmem_ctx_create %d failed", round, i);
    for (int i = 0; i < NCTX; i++) {
        shmem_ctx_long_atomic_inc(ctx[i], &counter, right);
        shmem_ctx_long_p(ctx[i], &slots[i], 1000L * round + me, right);
    }
    for (int i = 0; i < NCTX; i++)
        shmem_ctx_quiet(ctx[i]);
    shmem_long_p(&flag, round, right);
    shmem_long_wait_until(&flag, SHMEM_CMP_EQ, round);
    CHECK(counter == (long)NCTX * round, "round %d: counter %ld after the flag, want %ld", round,
          counter, (long)NCTX * round);
    for (int i = 0; i < NCTX; i++)
        CHECK(slots[i] == 1000L * round + left, "round %d: slot %d is %ld after the flag, want %ld",
              round, i, slots[i], 1000L * round + left);
    shmem_sync_all();
    CHECK(counter == (long)NCTX * round, "round %d: counter %ld, want %ld", round, counter,
          (long)NCTX * round);
    for (int i = 0; i < NCTX; i++)
        CHECK(slots[i] == 1000L * round + left, "round %d: slot %d is %ld, want %ld", round, i,
              slots[i], 1000L * round + left);
    shmem_sync_all();
    for (int i = 0; i < NCTX; i++)
        shmem_ctx_destroy(ctx[i]);
}

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    for (int round = 1; round <= 2; round++)
        round_of(round, me, (me + 1) % n, (me + n - 1) % n);
    func_pass("many_ctx");
    shmem_finalize();
    return 0;
}
