/* Atomic memory operations.
 *
 * shmemi_amo is the one core entry of every AMO: it routes the word (context
 * -> team -> world PE -> row of the path table, shmem/path.h) and the row runs
 * the operation: a hardware atomic on the peer's mapping on the direct row
 * (lock-free: every AMO type is 4 or 8 bytes; sequentially consistent, so
 * AMOs also order the caller's earlier stores to that PE), a system-scope
 * atomic of a one-thread kernel on the device heap's row, the fabric's
 * atomics for every PE once any PE is reached through the fabric
 * (shmemi_route_amo: CPU and NIC atomics on one word are not atomic with each
 * other), but mapped words where the fabric's atomics are the target CPU's
 * too. The _nbi fetching
 * forms complete at once: the value is in *fetch when they return. */
#include "shmem/shmemi.h"

#include "shmem/path_direct.h"

#define SHMEMI_FILE amo
#include "shmem/api.h"

/* A 4- or 8-byte value as the bits of a 64-bit word, and back. */
static inline uint64_t amo_bits(const void *p, size_t size) {
    if (size == 4) {
        uint32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

void shmemi_amo(shmem_ctx_t ctx, enum shmemi_amo_op op, void *dest, size_t size, const void *value,
                const void *cond, void *fetch, int pe, const char *fn) {
    struct shmemi_route r;
    shmemi_route_amo(&r, ctx, dest, size, pe, fn);
    uint64_t v = amo_bits(value, size), c = cond ? amo_bits(cond, size) : 0, o = 0;
    shmemi_path_amo(ctx, &r, op, size, v, c, fetch ? &o : NULL, fn);
    if (!fetch)
        return;
    if (size == 4) {
        uint32_t o4 = (uint32_t)o;
        memcpy(fetch, &o4, 4);
    } else {
        memcpy(fetch, &o, 8);
    }
}

/* ------------------------------------------------------------ public names */
/* One AMO of type T through the core; yields the old value (0 when not
 * fetched). */
#define AMO(T, OP, dest, value, cond, fetched)                                                     \
    ({                                                                                             \
        T v_ = (value), c_ = (cond), old_ = 0;                                                     \
        shmemi_amo(ctx, SHMEMI_AMO_##OP, (void *)(dest), sizeof(T), &v_, &c_,                      \
                   (fetched) ? &old_ : NULL, pe, __func__);                                        \
        old_;                                                                                      \
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
