/* Ordering: data, then shmem_fence (or shmem_quiet, or shmem_pe_quiet, or a
 * context's fence), then a flag. The receiver waits for the flag and must see
 * all of the data, for many iterations and sizes up to 2 MiB (so an
 * asynchronous copy path, if any, is exercised), with blocking and _nbi data
 * puts; and, before the fence too, an atomic add and a put-with-signal (data
 * and signal), whose results the receiver checks beside the data. The flag is
 * a put or an atomic set in turn (on one node they may take different routes
 * to a PE). Partners: this PE (atomics may take the fabric where puts do
 * not), then PEs one apart, then (4 PEs or more) two apart: with PEs placed
 * on two hosts in turn, the PEs of two hosts, then of one. */
#include "check.h"

#include <string.h>

#define MAXB ((size_t)2 << 20)

enum { ORDER_FENCE, ORDER_QUIET, ORDER_CTX_FENCE, ORDER_PE_QUIET, ORDER_PE_QUIET_ALL, NORDER };
static const char *order_name[] = {"fence", "quiet", "a context's fence", "pe_quiet",
                                   "pe_quiet(all)"};

static int me, npes, right, left;
static int *all;
static unsigned char *src, *dst;
static long *flag, *ack;
/* Beside the data: an atomic count of the rounds, and a put-with-signal's 16
 * bytes and signal. */
static long *count, *sdata;
static uint64_t *sig;

/* Round seq: iteration `it` of `len` bytes to the right, ordered by `order`
 * on cx; then the left neighbour's, checked. */
static void round_trip(shmem_ctx_t cx, int order, size_t len, int it, long seq) {
    const unsigned round = (unsigned)seq;
    /* Only the first and last 4 KiB change per round for the large sizes,
     * which keeps the run short but still catches a flag that overtakes the
     * tail of the data. */
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
        shmem_ctx_putmem_nbi(cx, dst, src, len, right);
    else
        shmem_ctx_putmem(cx, dst, src, len, right);
    shmem_ctx_long_atomic_add(cx, count, 1, right);
#if FUNC_SPEC_15
    const long pair[2] = {seq, -seq};
    shmem_ctx_putmem_signal_nbi(cx, sdata, pair, sizeof pair, sig, (uint64_t)seq, SHMEM_SIGNAL_SET,
                                right);
#endif
    switch (order) {
    case ORDER_FENCE: shmem_fence(); break;
    case ORDER_QUIET: shmem_quiet(); break;
    case ORDER_CTX_FENCE: shmem_ctx_fence(cx); break;
#if FUNC_SPEC_15
    case ORDER_PE_QUIET: shmem_pe_quiet(&right, 1); break;
    case ORDER_PE_QUIET_ALL: shmem_pe_quiet(all, (size_t)npes); break;
#endif
    }
    if (it & 1)
        shmem_ctx_long_atomic_set(cx, flag, seq, right);
    else
        shmem_ctx_long_p(cx, flag, seq, right);

    /* receive from the left neighbour */
    shmem_long_wait_until(flag, SHMEM_CMP_EQ, seq);
    const unsigned first_round = (unsigned)(seq - it);
    for (size_t i = 0; i < len; i++) {
        unsigned r = round;
        if (len > 65536 && it > 0 && i >= 4096 && i < len - 4096)
            r = first_round; /* the middle was written in the first round */
        if (dst[i] != func_byte(left, i, r))
            CHECK(0,
                  "%s, %zu B from PE %d, iteration %d: byte %zu = %u, expected %u after the flag",
                  order_name[order], len, left, it, i, dst[i], func_byte(left, i, r));
    }
    if (*count != seq)
        CHECK(0,
              "%s, %zu B from PE %d, iteration %d: %ld atomic adds landed before the flag, "
              "expected %ld",
              order_name[order], len, left, it, *count, seq);
#if FUNC_SPEC_15
    if (*sig != (uint64_t)seq || sdata[0] != seq || sdata[1] != -seq)
        CHECK(0,
              "%s, %zu B from PE %d, iteration %d: signal %llu, data {%ld, %ld} before the flag, "
              "expected "
              "%ld, {%ld, %ld}",
              order_name[order], len, left, it, (unsigned long long)*sig, sdata[0], sdata[1], seq,
              seq, -seq);
#endif
    /* let the left neighbour reuse my dst; wait until the right one is done
     * with its (my data) before I overwrite src and its dst. */
    shmem_ctx_quiet(cx); /* my _nbi put has left src */
    shmem_long_p(ack, seq, left);
    shmem_long_wait_until(ack, SHMEM_CMP_EQ, seq);
}

int main(void) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();

    src = shmem_malloc(MAXB);
    dst = shmem_malloc(MAXB);
    flag = shmem_calloc(1, sizeof(long));
    ack = shmem_calloc(1, sizeof(long));
    count = shmem_calloc(1, sizeof(long));
    sdata = shmem_calloc(2, sizeof(long));
    sig = shmem_calloc(1, sizeof(uint64_t));
    all = malloc(sizeof(int) * (size_t)npes);
    CHECK(src && dst && flag && ack && count && sdata && sig && all, "allocation failed");
    shmem_ctx_t own = SHMEM_CTX_INVALID;
    if (shmem_ctx_create(SHMEM_CTX_PRIVATE, &own))
        own = SHMEM_CTX_INVALID;
    for (int pe = 0; pe < npes; pe++)
        all[pe] = pe;
    shmem_barrier_all();

    static const struct {
        size_t len;
        int iters;
    } cases[] = {{8, 300}, {100, 200}, {4096, 100}, {65536 + 3, 40}, {(size_t)1 << 20, 12},
                 {MAXB, 6}};
    long seq = 0;
    for (int step = 0; step <= (npes >= 4 ? 2 : 1); step++) {
        shmem_barrier_all(); /* the last step's partners are done */
        right = (me + step) % npes;
        left = (me + npes - step) % npes;
        for (int order = 0; order < NORDER; order++) {
            shmem_ctx_t cx = order == ORDER_CTX_FENCE ? own : SHMEM_CTX_DEFAULT;
            if (cx == SHMEM_CTX_INVALID ||
                (!FUNC_SPEC_15 && (order == ORDER_PE_QUIET || order == ORDER_PE_QUIET_ALL)))
                continue;
            for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
                for (int it = 0; it < cases[c].iters; it++)
                    round_trip(cx, order, cases[c].len, it, ++seq);
        }
    }

    shmem_barrier_all();
    if (own != SHMEM_CTX_INVALID)
        shmem_ctx_destroy(own);
    free(all);
    shmem_free(sig);
    shmem_free(sdata);
    shmem_free(count);
    shmem_free(ack);
    shmem_free(flag);
    shmem_free(dst);
    shmem_free(src);
    func_pass("fence_order");
    shmem_finalize();
    return 0;
}
