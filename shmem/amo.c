/* Atomic memory operations.
 *
 * Every PE of the job is on this node, so an AMO is a hardware atomic on the
 * peer's mapping of the word (lock-free for every AMO type: all are 4 or 8
 * bytes). Sequentially consistent, so AMOs also order the caller's earlier
 * stores to that PE (what users of flags expect). The _nbi fetching forms
 * complete at once: the value is in *fetch when they return. On the device
 * heap (GPU builds) an AMO is a system-scope atomic run by a one-thread
 * kernel of the library on the word's IPC mapping (shmem/gpu_amo.cu). */
#include "shmem/shmemi.h"

#define SHMEMI_FILE amo
#include "shmem/api.h"

#define SC __ATOMIC_SEQ_CST

/* The host atomic on the direct path, on the bits of a 4- or 8-byte word
 * (every AMO type is one of the two: float and double only fetch, set and
 * swap, which move bits; signed and unsigned adds are the same bits in two's
 * complement). Returns the old value. */
#define DIRECT_AMO(W)                                                                         \
    static W direct_amo_##W(W *r, enum shmemi_amo_op op, W v, W c) {                          \
        switch (op) {                                                                         \
        case SHMEMI_AMO_FETCH: return __atomic_load_n(r, SC);                                 \
        case SHMEMI_AMO_SET: __atomic_store_n(r, v, SC); return 0;                            \
        case SHMEMI_AMO_SWAP: return __atomic_exchange_n(r, v, SC);                           \
        case SHMEMI_AMO_CSWAP: __atomic_compare_exchange_n(r, &c, v, 0, SC, SC); return c;   \
        case SHMEMI_AMO_ADD: return __atomic_fetch_add(r, v, SC);                             \
        case SHMEMI_AMO_AND: return __atomic_fetch_and(r, v, SC);                             \
        case SHMEMI_AMO_OR: return __atomic_fetch_or(r, v, SC);                               \
        case SHMEMI_AMO_XOR: return __atomic_fetch_xor(r, v, SC);                             \
        }                                                                                     \
        __builtin_unreachable();                                                              \
    }
DIRECT_AMO(uint32_t)
DIRECT_AMO(uint64_t)

void shmemi_amo(shmem_ctx_t ctx, enum shmemi_amo_op op, void *dest, size_t size,
                const void *value, const void *cond, void *fetch, int pe, const char *fn) {
    shmemi_ctx_check(ctx, fn);
    void *r;
    if (SHMEMI_UNLIKELY(shmemi_route(dest, size, pe, fn, &r) == SHMEMI_PATH_DEVICE)) {
        /* The device path: non-fetching operations complete at quiet. */
        uint64_t v = 0, c = 0, o = 0;
        memcpy(&v, value, size);
        memcpy(&c, cond, size);
        shmemi.dev->amo(r, op, size, v, c, fetch ? &o : NULL, !fetch, fn);
        if (fetch)
            memcpy(fetch, &o, size);
        return;
    }
    if (size == 4) {
        uint32_t v, c = 0, o;
        memcpy(&v, value, 4);
        if (cond)
            memcpy(&c, cond, 4);
        o = direct_amo_uint32_t(r, op, v, c);
        if (fetch)
            memcpy(fetch, &o, 4);
    } else {
        uint64_t v, c = 0, o;
        memcpy(&v, value, 8);
        if (cond)
            memcpy(&c, cond, 8);
        o = direct_amo_uint64_t(r, op, v, c);
        if (fetch)
            memcpy(fetch, &o, 8);
    }
}

/* ------------------------------------------------------------ public names */
/* One AMO of type T through the core; yields the old value (0 when not
 * fetched). */
#define AMO(T, OP, dest, value, cond, fetched)                                                    \
    ({                                                                                            \
        T v_ = (value), c_ = (cond), old_ = 0;                                                    \
        shmemi_amo(ctx, SHMEMI_AMO_##OP, (void *)(dest), sizeof(T), &v_, &c_,                     \
                   (fetched) ? &old_ : NULL, pe, __func__);                                       \
        old_;                                                                                     \
    })

/* The bodies of this file's rows of the op table (include/shmem_ops.h):
 * fetching, not fetching, and the fetching _nbi forms (which complete at
 * once: the value is in *fetch when they return). */
#define SHMEMI_B_AMO_FETCH(T, OP, dest, value, cond) return AMO(T, OP, dest, value, cond, 1);
#define SHMEMI_B_AMO(T, OP, dest, value, cond) (void)AMO(T, OP, dest, value, cond, 0);
#define SHMEMI_B_AMO_NBI(T, OP, dest, value, cond) *fetch = AMO(T, OP, dest, value, cond, 1);
#include "shmem/api_define.h"

/* Every AMO type is 4 or 8 bytes: the core's two word sizes. */
#define SHMEMI_AMO_SIZE_OK(T, N) _Static_assert(sizeof(T) == 4 || sizeof(T) == 8, "AMO type size");
SHMEMI_AMO_EXT_TYPES(SHMEMI_AMO_SIZE_OK)

long shmem_swap(long *dest, long value, int pe) { return shmem_long_atomic_swap(dest, value, pe); }
