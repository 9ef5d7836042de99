/* Atomic memory operations.
 *
 * Every PE of the job is on this node, so an AMO is a hardware atomic on the
 * peer's mapping of the word (lock-free for every AMO type: all are 4 or 8
 * bytes). Sequentially consistent, so AMOs also order the caller's earlier
 * stores to that PE (what users of flags expect). The _nbi fetching forms
 * complete at once: the value is in *fetch when they return. */
#include "shmem/shmemi.h"

#define SC __ATOMIC_SEQ_CST

/* One body per operation; the typed names below only wrap them. */
#define AMO_REMOTE(T, dest, pe) ((T *)shmemi_remote((dest), sizeof(T), (pe), __func__))

#define SHMEMI_DEF_AMO_EXT(T, N)                                                              \
    T shmem_ctx_##N##_atomic_fetch(shmem_ctx_t ctx, const T *source, int pe) {                \
        shmemi_ctx_check(ctx, __func__);                                                      \
        T v;                                                                                  \
        __atomic_load(AMO_REMOTE(T, source, pe), &v, SC);                                     \
        return v;                                                                             \
    }                                                                                         \
    T shmem_##N##_atomic_fetch(const T *source, int pe) {                                     \
        T v;                                                                                  \
        __atomic_load(AMO_REMOTE(T, source, pe), &v, SC);                                     \
        return v;                                                                             \
    }                                                                                         \
    void shmem_ctx_##N##_atomic_set(shmem_ctx_t ctx, T *dest, T value, int pe) {              \
        shmemi_ctx_check(ctx, __func__);                                                      \
        __atomic_store(AMO_REMOTE(T, dest, pe), &value, SC);                                  \
    }                                                                                         \
    void shmem_##N##_atomic_set(T *dest, T value, int pe) {                                   \
        __atomic_store(AMO_REMOTE(T, dest, pe), &value, SC);                                  \
    }                                                                                         \
    T shmem_ctx_##N##_atomic_swap(shmem_ctx_t ctx, T *dest, T value, int pe) {                \
        shmemi_ctx_check(ctx, __func__);                                                      \
        T old;                                                                                \
        __atomic_exchange(AMO_REMOTE(T, dest, pe), &value, &old, SC);                         \
        return old;                                                                           \
    }                                                                                         \
    T shmem_##N##_atomic_swap(T *dest, T value, int pe) {                                     \
        T old;                                                                                \
        __atomic_exchange(AMO_REMOTE(T, dest, pe), &value, &old, SC);                         \
        return old;                                                                           \
    }                                                                                         \
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

static inline int cas_bytes(void *p, void *expected, void *desired, size_t n) {
    if (n == 4)
        return __atomic_compare_exchange((uint32_t *)p, (uint32_t *)expected,
                                         (uint32_t *)desired, 0, SC, SC);
    return __atomic_compare_exchange((uint64_t *)p, (uint64_t *)expected,
                                     (uint64_t *)desired, 0, SC, SC);
}

#define SHMEMI_DEF_AMO_STD(T, N)                                                              \
    _Static_assert(sizeof(T) == 4 || sizeof(T) == 8, "AMO type size");                       \
    T shmem_ctx_##N##_atomic_compare_swap(shmem_ctx_t ctx, T *dest, T cond, T value, int pe) { \
        shmemi_ctx_check(ctx, __func__);                                                      \
        cas_bytes(AMO_REMOTE(T, dest, pe), &cond, &value, sizeof(T));                         \
        return cond; /* the old value, whether or not it matched */                          \
    }                                                                                         \
    T shmem_##N##_atomic_compare_swap(T *dest, T cond, T value, int pe) {                     \
        cas_bytes(AMO_REMOTE(T, dest, pe), &cond, &value, sizeof(T));                         \
        return cond;                                                                          \
    }                                                                                         \
    T shmem_ctx_##N##_atomic_fetch_add(shmem_ctx_t ctx, T *dest, T value, int pe) {           \
        shmemi_ctx_check(ctx, __func__);                                                      \
        return __atomic_fetch_add(AMO_REMOTE(T, dest, pe), value, SC);                        \
    }                                                                                         \
    T shmem_##N##_atomic_fetch_add(T *dest, T value, int pe) {                                \
        return __atomic_fetch_add(AMO_REMOTE(T, dest, pe), value, SC);                        \
    }                                                                                         \
    void shmem_ctx_##N##_atomic_add(shmem_ctx_t ctx, T *dest, T value, int pe) {              \
        shmemi_ctx_check(ctx, __func__);                                                      \
        __atomic_fetch_add(AMO_REMOTE(T, dest, pe), value, SC);                               \
    }                                                                                         \
    void shmem_##N##_atomic_add(T *dest, T value, int pe) {                                   \
        __atomic_fetch_add(AMO_REMOTE(T, dest, pe), value, SC);                               \
    }                                                                                         \
    T shmem_ctx_##N##_atomic_fetch_inc(shmem_ctx_t ctx, T *dest, int pe) {                    \
        return shmem_ctx_##N##_atomic_fetch_add(ctx, dest, 1, pe);                            \
    }                                                                                         \
    T shmem_##N##_atomic_fetch_inc(T *dest, int pe) {                                         \
        return __atomic_fetch_add(AMO_REMOTE(T, dest, pe), 1, SC);                            \
    }                                                                                         \
    void shmem_ctx_##N##_atomic_inc(shmem_ctx_t ctx, T *dest, int pe) {                       \
        shmem_ctx_##N##_atomic_add(ctx, dest, 1, pe);                                         \
    }                                                                                         \
    void shmem_##N##_atomic_inc(T *dest, int pe) {                                            \
        __atomic_fetch_add(AMO_REMOTE(T, dest, pe), 1, SC);                                   \
    }                                                                                         \
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

#define SHMEMI_DEF_AMO_BIT_OP(T, N, OP)                                                       \
    T shmem_ctx_##N##_atomic_fetch_##OP(shmem_ctx_t ctx, T *dest, T value, int pe) {          \
        shmemi_ctx_check(ctx, __func__);                                                      \
        return __atomic_fetch_##OP(AMO_REMOTE(T, dest, pe), value, SC);                       \
    }                                                                                         \
    T shmem_##N##_atomic_fetch_##OP(T *dest, T value, int pe) {                               \
        return __atomic_fetch_##OP(AMO_REMOTE(T, dest, pe), value, SC);                       \
    }                                                                                         \
    void shmem_ctx_##N##_atomic_##OP(shmem_ctx_t ctx, T *dest, T value, int pe) {             \
        shmemi_ctx_check(ctx, __func__);                                                      \
        __atomic_fetch_##OP(AMO_REMOTE(T, dest, pe), value, SC);                              \
    }                                                                                         \
    void shmem_##N##_atomic_##OP(T *dest, T value, int pe) {                                  \
        __atomic_fetch_##OP(AMO_REMOTE(T, dest, pe), value, SC);                              \
    }                                                                                         \
    void shmem_ctx_##N##_atomic_fetch_##OP##_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value, int pe) { \
        *fetch = shmem_ctx_##N##_atomic_fetch_##OP(ctx, dest, value, pe);                     \
    }                                                                                         \
    void shmem_##N##_atomic_fetch_##OP##_nbi(T *fetch, T *dest, T value, int pe) {            \
        *fetch = shmem_##N##_atomic_fetch_##OP(dest, value, pe);                              \
    }
#define SHMEMI_DEF_AMO_BIT(T, N)                                                              \
    SHMEMI_DEF_AMO_BIT_OP(T, N, and) SHMEMI_DEF_AMO_BIT_OP(T, N, or) SHMEMI_DEF_AMO_BIT_OP(T, N, xor)
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
