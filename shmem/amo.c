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

/* The device path's AMO on the bits of a 4- or 8-byte value (little-endian:
 * the low bytes of the 64-bit word). Non-fetching operations complete at
 * quiet; fetching ones return with the old value. */
static void dev_amo(void *r, enum shmemi_amo_op op, const void *value, const void *cond, void *old,
                    size_t size, const char *fn) {
    uint64_t v = 0, c = 0, o = 0;
    memcpy(&v, value, size);
    memcpy(&c, cond, size);
    shmemi.dev->amo(r, op, size, v, c, old ? &o : NULL, !old, fn);
    if (old)
        memcpy(old, &o, size);
}

/* One body per operation: route (dest, pe); on the device path run OP
 * there, on the direct path run the host atomic (the trailing statement,
 * on `r`, storing any old value in `old_`). Yields the old value. */
#define AMO_DO(T, dest, pe, OP, value, cond, fetch, ...)                                      \
    ({                                                                                        \
        void *r_;                                                                             \
        T old_ = 0;                                                                           \
        if (SHMEMI_UNLIKELY(shmemi_route((dest), sizeof(T), (pe), __func__, &r_) ==           \
                            SHMEMI_PATH_DEVICE)) {                                            \
            T v_ = (value), c_ = (cond);                                                      \
            dev_amo(r_, (OP), &v_, &c_, (fetch) ? &old_ : NULL, sizeof(T), __func__);        \
        } else {                                                                              \
            T *r = r_;                                                                        \
            __VA_ARGS__;                                                                      \
        }                                                                                     \
        old_;                                                                                 \
    })

#define AMO_FETCH(T, src, pe) AMO_DO(T, src, pe, SHMEMI_AMO_FETCH, 0, 0, 1, __atomic_load(r, &old_, SC))
#define AMO_SET(T, dest, value, pe)                                                           \
    AMO_DO(T, dest, pe, SHMEMI_AMO_SET, value, 0, 0, T v_ = (value); __atomic_store(r, &v_, SC))
#define AMO_SWAP(T, dest, value, pe)                                                          \
    AMO_DO(T, dest, pe, SHMEMI_AMO_SWAP, value, 0, 1, T v_ = (value);                         \
           __atomic_exchange(r, &v_, &old_, SC))
#define AMO_CSWAP(T, dest, cond, value, pe)                                                   \
    AMO_DO(T, dest, pe, SHMEMI_AMO_CSWAP, value, cond, 1, T v_ = (value); old_ = (cond);      \
           cas_bytes(r, &old_, &v_, sizeof(T)))
#define AMO_RMW(T, dest, value, pe, OPNAME, op, fetch)                                        \
    AMO_DO(T, dest, pe, SHMEMI_AMO_##OPNAME, value, 0, fetch, old_ = __atomic_fetch_##op(r, (value), SC))

static inline int cas_bytes(void *p, void *expected, void *desired, size_t n) {
    if (n == 4)
        return __atomic_compare_exchange((uint32_t *)p, (uint32_t *)expected,
                                         (uint32_t *)desired, 0, SC, SC);
    return __atomic_compare_exchange((uint64_t *)p, (uint64_t *)expected,
                                     (uint64_t *)desired, 0, SC, SC);
}

#define SHMEMI_DEF_AMO_EXT(T, N)                                                              \
    T shmem_ctx_##N##_atomic_fetch(shmem_ctx_t ctx, const T *source, int pe) {                \
        shmemi_ctx_check(ctx, __func__);                                                      \
        return AMO_FETCH(T, source, pe);                                                      \
    }                                                                                         \
    T shmem_##N##_atomic_fetch(const T *source, int pe) { return AMO_FETCH(T, source, pe); }  \
    void shmem_ctx_##N##_atomic_set(shmem_ctx_t ctx, T *dest, T value, int pe) {              \
        shmemi_ctx_check(ctx, __func__);                                                      \
        AMO_SET(T, dest, value, pe);                                                          \
    }                                                                                         \
    void shmem_##N##_atomic_set(T *dest, T value, int pe) { AMO_SET(T, dest, value, pe); }    \
    T shmem_ctx_##N##_atomic_swap(shmem_ctx_t ctx, T *dest, T value, int pe) {                \
        shmemi_ctx_check(ctx, __func__);                                                      \
        return AMO_SWAP(T, dest, value, pe);                                                  \
    }                                                                                         \
    T shmem_##N##_atomic_swap(T *dest, T value, int pe) { return AMO_SWAP(T, dest, value, pe); } \
    void shmem_ctx_##N##_atomic_fetch_nbi(shmem_ctx_t ctx, T *fetch, const T *source, int pe) { \
        *fetch = shmem_ctx_##N##_atomic_fetch(ctx, source, pe);                               \
    }                                                                                         \
    void shmem_##N##_atomic_fetch_nbi(T *fetch, const T *source, int pe) {                    \
        *fetch = shmem_##N##_atomic_fetch(source, pe);                                        \
    }                                                                                         \
    void shmem_ctx_##N##_atomic_swap_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value, int pe) { \
        *fetch = shmem_ctx_##N##_atomic_swap(ctx, dest, value, pe);                           \
    }                                                                                         \
    void shmem_##N##_atomic_swap_nbi(T *fetch, T *dest, T value, int pe) {                    \
        *fetch = shmem_##N##_atomic_swap(dest, value, pe);                                    \
    }
SHMEMI_AMO_EXT_TYPES(SHMEMI_DEF_AMO_EXT)

#define SHMEMI_DEF_AMO_STD(T, N)                                                              \
    _Static_assert(sizeof(T) == 4 || sizeof(T) == 8, "AMO type size");                       \
    T shmem_ctx_##N##_atomic_compare_swap(shmem_ctx_t ctx, T *dest, T cond, T value, int pe) { \
        shmemi_ctx_check(ctx, __func__);                                                      \
        /* the old value, whether or not it matched */                                       \
        return AMO_CSWAP(T, dest, cond, value, pe);                                           \
    }                                                                                         \
    T shmem_##N##_atomic_compare_swap(T *dest, T cond, T value, int pe) {                     \
        return AMO_CSWAP(T, dest, cond, value, pe);                                           \
    }                                                                                         \
    T shmem_ctx_##N##_atomic_fetch_add(shmem_ctx_t ctx, T *dest, T value, int pe) {           \
        shmemi_ctx_check(ctx, __func__);                                                      \
        return AMO_RMW(T, dest, value, pe, ADD, add, 1);                                      \
    }                                                                                         \
    T shmem_##N##_atomic_fetch_add(T *dest, T value, int pe) {                                \
        return AMO_RMW(T, dest, value, pe, ADD, add, 1);                                      \
    }                                                                                         \
    void shmem_ctx_##N##_atomic_add(shmem_ctx_t ctx, T *dest, T value, int pe) {              \
        shmemi_ctx_check(ctx, __func__);                                                      \
        AMO_RMW(T, dest, value, pe, ADD, add, 0);                                             \
    }                                                                                         \
    void shmem_##N##_atomic_add(T *dest, T value, int pe) {                                   \
        AMO_RMW(T, dest, value, pe, ADD, add, 0);                                             \
    }                                                                                         \
    T shmem_ctx_##N##_atomic_fetch_inc(shmem_ctx_t ctx, T *dest, int pe) {                    \
        return shmem_ctx_##N##_atomic_fetch_add(ctx, dest, 1, pe);                            \
    }                                                                                         \
    T shmem_##N##_atomic_fetch_inc(T *dest, int pe) {                                         \
        return AMO_RMW(T, dest, (T)1, pe, ADD, add, 1);                                       \
    }                                                                                         \
    void shmem_ctx_##N##_atomic_inc(shmem_ctx_t ctx, T *dest, int pe) {                       \
        shmem_ctx_##N##_atomic_add(ctx, dest, 1, pe);                                         \
    }                                                                                         \
    void shmem_##N##_atomic_inc(T *dest, int pe) { AMO_RMW(T, dest, (T)1, pe, ADD, add, 0); } \
    void shmem_ctx_##N##_atomic_compare_swap_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T cond,  \
                                                 T value, int pe) {                           \
        *fetch = shmem_ctx_##N##_atomic_compare_swap(ctx, dest, cond, value, pe);             \
    }                                                                                         \
    void shmem_##N##_atomic_compare_swap_nbi(T *fetch, T *dest, T cond, T value, int pe) {    \
        *fetch = shmem_##N##_atomic_compare_swap(dest, cond, value, pe);                      \
    }                                                                                         \
    void shmem_ctx_##N##_atomic_fetch_inc_nbi(shmem_ctx_t ctx, T *fetch, T *dest, int pe) {   \
        *fetch = shmem_ctx_##N##_atomic_fetch_inc(ctx, dest, pe);                             \
    }                                                                                         \
    void shmem_##N##_atomic_fetch_inc_nbi(T *fetch, T *dest, int pe) {                        \
        *fetch = shmem_##N##_atomic_fetch_inc(dest, pe);                                      \
    }                                                                                         \
    void shmem_ctx_##N##_atomic_fetch_add_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value, int pe) { \
        *fetch = shmem_ctx_##N##_atomic_fetch_add(ctx, dest, value, pe);                      \
    }                                                                                         \
    void shmem_##N##_atomic_fetch_add_nbi(T *fetch, T *dest, T value, int pe) {               \
        *fetch = shmem_##N##_atomic_fetch_add(dest, value, pe);                               \
    }
SHMEMI_AMO_STD_TYPES(SHMEMI_DEF_AMO_STD)

#define SHMEMI_DEF_AMO_BIT_OP(T, N, OP, OPNAME)                                               \
    T shmem_ctx_##N##_atomic_fetch_##OP(shmem_ctx_t ctx, T *dest, T value, int pe) {          \
        shmemi_ctx_check(ctx, __func__);                                                      \
        return AMO_RMW(T, dest, value, pe, OPNAME, OP, 1);                                    \
    }                                                                                         \
    T shmem_##N##_atomic_fetch_##OP(T *dest, T value, int pe) {                               \
        return AMO_RMW(T, dest, value, pe, OPNAME, OP, 1);                                    \
    }                                                                                         \
    void shmem_ctx_##N##_atomic_##OP(shmem_ctx_t ctx, T *dest, T value, int pe) {             \
        shmemi_ctx_check(ctx, __func__);                                                      \
        AMO_RMW(T, dest, value, pe, OPNAME, OP, 0);                                           \
    }                                                                                         \
    void shmem_##N##_atomic_##OP(T *dest, T value, int pe) {                                  \
        AMO_RMW(T, dest, value, pe, OPNAME, OP, 0);                                           \
    }                                                                                         \
    void shmem_ctx_##N##_atomic_fetch_##OP##_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value, int pe) { \
        *fetch = shmem_ctx_##N##_atomic_fetch_##OP(ctx, dest, value, pe);                     \
    }                                                                                         \
    void shmem_##N##_atomic_fetch_##OP##_nbi(T *fetch, T *dest, T value, int pe) {            \
        *fetch = shmem_##N##_atomic_fetch_##OP(dest, value, pe);                              \
    }
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
