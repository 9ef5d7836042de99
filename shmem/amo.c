/* Atomic memory operations.
 *
 * shmemi_amo is the one core entry of every AMO: it routes the word (context
 * -> team -> world PE -> row of the path table, shmem/path.h) and the row runs
 * the operation: a hardware atomic on the peer's mapping on the direct row
 * (lock-free: every AMO type is 4 or 8 bytes; sequentially consistent, so
 * AMOs also order the caller's earlier stores to that PE), a system-scope
 * atomic of a one-thread kernel on the device heap's row. The _nbi fetching
 * forms complete at once: the value is in *fetch when they return. */
#include "shmem/shmemi.h"

#include "shmem/path_direct.h"

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

void shmemi_amo(shmem_ctx_t ctx, enum shmemi_amo_op op, void *dest, size_t size,
                const void *value, const void *cond, void *fetch, int pe, const char *fn) {
    struct shmemi_route r;
    shmemi_route(&r, ctx, dest, size, pe, fn);
    uint64_t v = amo_bits(value, size), c = cond ? amo_bits(cond, size) : 0, o;
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

/* One AMO of type T through the core; yields the old value (0 when not
 * fetched). */
#define AMO(T, ctx, OP, dest, value, cond, fetched, pe)                                       \
    ({                                                                                        \
        T v_ = (value), c_ = (cond), old_ = 0;                                                \
        shmemi_amo((ctx), SHMEMI_AMO_##OP, (void *)(dest), sizeof(T), &v_, &c_,               \
                   (fetched) ? &old_ : NULL, (pe), __func__);                                 \
        old_;                                                                                 \
    })
#define CTX_DEF shmemi_ctx_default_handle

/* Each routine has a context form and a default-context form with the same
 * body; the _nbi fetching forms complete at once. */
#define DEF_AMO(RT, NAME, PARAMS, RET, ...)                                                   \
    RT shmem_ctx_##NAME(shmem_ctx_t ctx, PARAMS) { RET AMO(__VA_ARGS__); }                   \
    RT shmem_##NAME(PARAMS) {                                                                 \
        shmem_ctx_t ctx = CTX_DEF;                                                            \
        RET AMO(__VA_ARGS__);                                                                 \
    }
#define DEF_AMO_NBI(NAME, PARAMS, ...)                                                        \
    void shmem_ctx_##NAME##_nbi(shmem_ctx_t ctx, PARAMS) { *fetch = AMO(__VA_ARGS__); }      \
    void shmem_##NAME##_nbi(PARAMS) {                                                         \
        shmem_ctx_t ctx = CTX_DEF;                                                            \
        *fetch = AMO(__VA_ARGS__);                                                            \
    }
#define P_(...) __VA_ARGS__

#define SHMEMI_DEF_AMO_EXT(T, N)                                                              \
    DEF_AMO(T, N##_atomic_fetch, P_(const T *source, int pe), return,                        \
            T, ctx, FETCH, source, 0, 0, 1, pe)                                               \
    DEF_AMO(void, N##_atomic_set, P_(T *dest, T value, int pe), (void),                       \
            T, ctx, SET, dest, value, 0, 0, pe)                                               \
    DEF_AMO(T, N##_atomic_swap, P_(T *dest, T value, int pe), return,                         \
            T, ctx, SWAP, dest, value, 0, 1, pe)                                              \
    DEF_AMO_NBI(N##_atomic_fetch, P_(T *fetch, const T *source, int pe),                      \
                T, ctx, FETCH, source, 0, 0, 1, pe)                                           \
    DEF_AMO_NBI(N##_atomic_swap, P_(T *fetch, T *dest, T value, int pe),                      \
                T, ctx, SWAP, dest, value, 0, 1, pe)
SHMEMI_AMO_EXT_TYPES(SHMEMI_DEF_AMO_EXT)

#define SHMEMI_DEF_AMO_STD(T, N)                                                              \
    _Static_assert(sizeof(T) == 4 || sizeof(T) == 8, "AMO type size");                       \
    /* compare_swap returns the old value, whether or not it matched */                      \
    DEF_AMO(T, N##_atomic_compare_swap, P_(T *dest, T cond, T value, int pe), return,         \
            T, ctx, CSWAP, dest, value, cond, 1, pe)                                          \
    DEF_AMO(T, N##_atomic_fetch_add, P_(T *dest, T value, int pe), return,                    \
            T, ctx, ADD, dest, value, 0, 1, pe)                                               \
    DEF_AMO(void, N##_atomic_add, P_(T *dest, T value, int pe), (void),                       \
            T, ctx, ADD, dest, value, 0, 0, pe)                                               \
    DEF_AMO(T, N##_atomic_fetch_inc, P_(T *dest, int pe), return,                             \
            T, ctx, ADD, dest, 1, 0, 1, pe)                                                   \
    DEF_AMO(void, N##_atomic_inc, P_(T *dest, int pe), (void),                                \
            T, ctx, ADD, dest, 1, 0, 0, pe)                                                   \
    DEF_AMO_NBI(N##_atomic_compare_swap, P_(T *fetch, T *dest, T cond, T value, int pe),      \
                T, ctx, CSWAP, dest, value, cond, 1, pe)                                      \
    DEF_AMO_NBI(N##_atomic_fetch_inc, P_(T *fetch, T *dest, int pe),                          \
                T, ctx, ADD, dest, 1, 0, 1, pe)                                               \
    DEF_AMO_NBI(N##_atomic_fetch_add, P_(T *fetch, T *dest, T value, int pe),                 \
                T, ctx, ADD, dest, value, 0, 1, pe)
SHMEMI_AMO_STD_TYPES(SHMEMI_DEF_AMO_STD)

#define SHMEMI_DEF_AMO_BIT_OP(T, N, OP, OPNAME)                                               \
    DEF_AMO(T, N##_atomic_fetch_##OP, P_(T *dest, T value, int pe), return,                   \
            T, ctx, OPNAME, dest, value, 0, 1, pe)                                            \
    DEF_AMO(void, N##_atomic_##OP, P_(T *dest, T value, int pe), (void),                      \
            T, ctx, OPNAME, dest, value, 0, 0, pe)                                            \
    DEF_AMO_NBI(N##_atomic_fetch_##OP, P_(T *fetch, T *dest, T value, int pe),                \
                T, ctx, OPNAME, dest, value, 0, 1, pe)
#define SHMEMI_DEF_AMO_BIT(T, N)                                                              \
    SHMEMI_DEF_AMO_BIT_OP(T, N, and, AND)                                                     \
    SHMEMI_DEF_AMO_BIT_OP(T, N, or, OR) SHMEMI_DEF_AMO_BIT_OP(T, N, xor, XOR)
SHMEMI_AMO_BIT_TYPES(SHMEMI_DEF_AMO_BIT)

/* Deprecated names: the same operations under their 1.3 spelling. */
#define SHMEMI_DEF_AMO_DEPR_STD(T, N)                                                         \
    T shmem_##N##_cswap(T *dest, T cond, T value, int pe) {                                   \
        return shmem_##N##_atomic_compare_swap(dest, cond, value, pe);                        \
    }                                                                                         \
    T shmem_##N##_finc(T *dest, int pe) { return shmem_##N##_atomic_fetch_inc(dest, pe); }    \
    void shmem_##N##_inc(T *dest, int pe) { shmem_##N##_atomic_inc(dest, pe); }               \
    T shmem_##N##_fadd(T *dest, T value, int pe) {                                            \
        return shmem_##N##_atomic_fetch_add(dest, value, pe);                                 \
    }                                                                                         \
    void shmem_##N##_add(T *dest, T value, int pe) { shmem_##N##_atomic_add(dest, value, pe); }
SHMEMI_AMO_DEPR_STD_TYPES(SHMEMI_DEF_AMO_DEPR_STD)

#define SHMEMI_DEF_AMO_DEPR_EXT(T, N)                                                         \
    T shmem_##N##_fetch(const T *source, int pe) { return shmem_##N##_atomic_fetch(source, pe); } \
    void shmem_##N##_set(T *dest, T value, int pe) { shmem_##N##_atomic_set(dest, value, pe); } \
    T shmem_##N##_swap(T *dest, T value, int pe) { return shmem_##N##_atomic_swap(dest, value, pe); }
SHMEMI_AMO_DEPR_EXT_TYPES(SHMEMI_DEF_AMO_DEPR_EXT)

long shmem_swap(long *dest, long value, int pe) { return shmem_long_atomic_swap(dest, value, pe); }
