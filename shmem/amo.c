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
