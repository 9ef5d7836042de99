/* Ordering: data, then shmem_fence (or shmem_quiet, or shmem_pe_quiet), then
 * a flag. The receiver waits for the flag and must see all of the data,
 * for many iterations and sizes up to 2 MiB (so an asynchronous copy path,
 * if any, is exercised), with blocking and _nbi data puts. */
#include "check.h"

#include <string.h>

#define MAXB ((size_t)2 << 20)

enum { ORDER_FENCE, ORDER_QUIET, ORDER_PE_QUIET, ORDER_PE_QUIET_ALL, NORDER };
static const char *order_name[] = {"fence", "quiet", "pe_quiet", "pe_quiet(all)"};

static int me, npes, right, left;

int main(void) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;

    unsigned char *src = shmem_malloc(MAXB), *dst = shmem_malloc(MAXB);
    long *flag = shmem_calloc(1, sizeof(long)), *ack = shmem_calloc(1, sizeof(long));
    int *all = malloc(sizeof(int) * (size_t)npes);
    CHECK(src && dst && flag && ack && all, "allocation failed");
    for (int pe = 0; pe < npes; pe++)
        all[pe] = pe;
    shmem_barrier_all();

    static const struct {
        size_t len;
        int iters;
    } cases[] = {{8, 300}, {100, 200}, {4096, 100}, {65536 + 3, 40}, {(size_t)1 << 20, 12},
                 {MAXB, 6}};
    long seq = 0;
    for (int order = 0; order < NORDER; order++) {
#if !FUNC_SPEC_15
        if (order == ORDER_PE_QUIET || order == ORDER_PE_QUIET_ALL)
            continue;
#endif
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            const size_t len = cases[c].len;
            for (int it = 0; it < cases[c].iters; it++) {
                seq++;
                const unsigned round = (unsigned)seq;
                /* Only the first and last 4 KiB change per round for the large
                 * sizes, which keeps the run short but still catches a flag
                 * that overtakes the tail of the data. */
                if (it == 0 || len <= 65536) {
                    for (size_t i = 0; i < len; i++)
                        src[i] = func_byte(me, i, round);
                } else {
                    for (size_t i = 0; i < 4096; i++)
                        src[i] = func_byte(me, i, round);
                    for (size_t i = len - 4096; i < len; i++)
                        src[i] = func_byte(me, i, round);
                }
                if (it & 1)
                    shmem_putmem_nbi(dst, src, len, right);
                else
                    shmem_putmem(dst, src, len, right);
                switch (order) {
                case ORDER_FENCE: shmem_fence(); break;
                case ORDER_QUIET: shmem_quiet(); break;
#if FUNC_SPEC_15
                case ORDER_PE_QUIET: shmem_pe_quiet(&right, 1); break;
                case ORDER_PE_QUIET_ALL: shmem_pe_quiet(all, (size_t)npes); break;
#endif
                }
                shmem_long_p(flag, seq, right);

                /* receive from the left neighbour */
                shmem_long_wait_until(flag, SHMEM_CMP_EQ, seq);
                const unsigned first_round = (unsigned)(seq - it);
                for (size_t i = 0; i < len; i++) {
                    unsigned r = round;
                    if (len > 65536 && it > 0 && i >= 4096 && i < len - 4096)
                        r = first_round; /* the middle was written in the first round */
                    if (dst[i] != func_byte(left, i, r))
                        CHECK(0,
                              "%s, %zu B, iteration %d: byte %zu = %u, expected %u after the flag",
                              order_name[order], len, it, i, dst[i], func_byte(left, i, r));
                }
                /* let the left neighbour reuse my dst; wait until the right one is done
                 * with its (my data) before I overwrite src and its dst. */
                shmem_quiet(); /* my _nbi put has left src */
                shmem_long_p(ack, seq, left);
                shmem_long_wait_until(ack, SHMEM_CMP_EQ, seq);
            }
        }
    }

    shmem_barrier_all();
    free(all);
    shmem_free(ack);
    shmem_free(flag);
    shmem_free(dst);
    shmem_free(src);
    func_pass("fence_order");
    shmem_finalize();
    return 0;
}
