/* C11 type-generic bindings (shmem_put(dest, src, n, pe) and friends).
 *
 * _Generic may not name one type twice, so these lists hold only the base C
 * types (the fixed-width, size and ptrdiff types are aliases of them). The
 * context-taking generic forms are not provided: use the typed
 * shmem_ctx_<T>_<op> names. */
#ifndef SHMEM_GENERIC_H
#define SHMEM_GENERIC_H

#if !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && \
    !defined(SHMEMI_NO_GENERIC)

#define SHMEMI_GEN_RMA_TYPES(X)                                                \
    X(float, float) X(double, double) X(long double, longdouble) X(char, char) \
    X(signed char, schar) X(short, short) X(int, int) X(long, long)            \
    X(long long, longlong) X(unsigned char, uchar) X(unsigned short, ushort)   \
    X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong)
#define SHMEMI_GEN_AMO_STD_TYPES(X)                                            \
    X(int, int) X(long, long) X(long long, longlong) X(unsigned int, uint)     \
    X(unsigned long, ulong) X(unsigned long long, ulonglong)
#define SHMEMI_GEN_AMO_EXT_TYPES(X)                                            \
    X(float, float) X(double, double) SHMEMI_GEN_AMO_STD_TYPES(X)
#define SHMEMI_GEN_AMO_BIT_TYPES(X)                                            \
    X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong)
#define SHMEMI_GEN_P2P_TYPES(X)                                                \
    X(short, short) X(int, int) X(long, long) X(long long, longlong)           \
    X(unsigned short, ushort) SHMEMI_GEN_AMO_BIT_TYPES(X)

/* One association per type: `T *: shmem_<N>_<op>,`; the list ends with a
 * sentinel so that an unsupported type is a compile error, not a default. */
struct shmemi_generic_no_such_type;
#define SHMEMI_GEN_END struct shmemi_generic_no_such_type * : 0

#define SHMEMI_A_put(T, N) T *: shmem_##N##_put,
#define SHMEMI_A_get(T, N) T *: shmem_##N##_get,
#define SHMEMI_A_put_nbi(T, N) T *: shmem_##N##_put_nbi,
#define SHMEMI_A_get_nbi(T, N) T *: shmem_##N##_get_nbi,
#define SHMEMI_A_p(T, N) T *: shmem_##N##_p,
#define SHMEMI_A_g(T, N) const T *: shmem_##N##_g, T *: shmem_##N##_g,
#define SHMEMI_A_iput(T, N) T *: shmem_##N##_iput,
#define SHMEMI_A_iget(T, N) T *: shmem_##N##_iget,
#define SHMEMI_A_put_signal(T, N) T *: shmem_##N##_put_signal,
#define SHMEMI_A_put_signal_nbi(T, N) T *: shmem_##N##_put_signal_nbi,
#define SHMEMI_A_fetch(T, N) const T *: shmem_##N##_atomic_fetch, T *: shmem_##N##_atomic_fetch,
#define SHMEMI_A_set(T, N) T *: shmem_##N##_atomic_set,
#define SHMEMI_A_swap(T, N) T *: shmem_##N##_atomic_swap,
#define SHMEMI_A_fetch_nbi(T, N) T *: shmem_##N##_atomic_fetch_nbi,
#define SHMEMI_A_swap_nbi(T, N) T *: shmem_##N##_atomic_swap_nbi,
#define SHMEMI_A_compare_swap(T, N) T *: shmem_##N##_atomic_compare_swap,
#define SHMEMI_A_fetch_inc(T, N) T *: shmem_##N##_atomic_fetch_inc,
#define SHMEMI_A_inc(T, N) T *: shmem_##N##_atomic_inc,
#define SHMEMI_A_fetch_add(T, N) T *: shmem_##N##_atomic_fetch_add,
#define SHMEMI_A_add(T, N) T *: shmem_##N##_atomic_add,
#define SHMEMI_A_compare_swap_nbi(T, N) T *: shmem_##N##_atomic_compare_swap_nbi,
#define SHMEMI_A_fetch_inc_nbi(T, N) T *: shmem_##N##_atomic_fetch_inc_nbi,
#define SHMEMI_A_fetch_add_nbi(T, N) T *: shmem_##N##_atomic_fetch_add_nbi,
#define SHMEMI_A_fetch_and(T, N) T *: shmem_##N##_atomic_fetch_and,
#define SHMEMI_A_and(T, N) T *: shmem_##N##_atomic_and,
#define SHMEMI_A_fetch_or(T, N) T *: shmem_##N##_atomic_fetch_or,
#define SHMEMI_A_or(T, N) T *: shmem_##N##_atomic_or,
#define SHMEMI_A_fetch_xor(T, N) T *: shmem_##N##_atomic_fetch_xor,
#define SHMEMI_A_xor(T, N) T *: shmem_##N##_atomic_xor,
#define SHMEMI_A_fetch_and_nbi(T, N) T *: shmem_##N##_atomic_fetch_and_nbi,
#define SHMEMI_A_fetch_or_nbi(T, N) T *: shmem_##N##_atomic_fetch_or_nbi,
#define SHMEMI_A_fetch_xor_nbi(T, N) T *: shmem_##N##_atomic_fetch_xor_nbi,
#define SHMEMI_A_wait_until(T, N) T *: shmem_##N##_wait_until,
#define SHMEMI_A_wait_until_all(T, N) T *: shmem_##N##_wait_until_all,
#define SHMEMI_A_wait_until_any(T, N) T *: shmem_##N##_wait_until_any,
#define SHMEMI_A_wait_until_some(T, N) T *: shmem_##N##_wait_until_some,
#define SHMEMI_A_wait_until_all_vector(T, N) T *: shmem_##N##_wait_until_all_vector,
#define SHMEMI_A_wait_until_any_vector(T, N) T *: shmem_##N##_wait_until_any_vector,
#define SHMEMI_A_wait_until_some_vector(T, N) T *: shmem_##N##_wait_until_some_vector,
#define SHMEMI_A_test(T, N) T *: shmem_##N##_test,
#define SHMEMI_A_test_all(T, N) T *: shmem_##N##_test_all,
#define SHMEMI_A_test_any(T, N) T *: shmem_##N##_test_any,
#define SHMEMI_A_test_some(T, N) T *: shmem_##N##_test_some,
#define SHMEMI_A_test_all_vector(T, N) T *: shmem_##N##_test_all_vector,
#define SHMEMI_A_test_any_vector(T, N) T *: shmem_##N##_test_any_vector,
#define SHMEMI_A_test_some_vector(T, N) T *: shmem_##N##_test_some_vector,

#define SHMEMI_GENERIC(LIST, OP, sel) _Generic((sel), LIST(SHMEMI_A_##OP) SHMEMI_GEN_END)

#define shmem_put(dest, ...) SHMEMI_GENERIC(SHMEMI_GEN_RMA_TYPES, put, dest)(dest, __VA_ARGS__)
#define shmem_get(dest, ...) SHMEMI_GENERIC(SHMEMI_GEN_RMA_TYPES, get, dest)(dest, __VA_ARGS__)
#define shmem_put_nbi(dest, ...) SHMEMI_GENERIC(SHMEMI_GEN_RMA_TYPES, put_nbi, dest)(dest, __VA_ARGS__)
#define shmem_get_nbi(dest, ...) SHMEMI_GENERIC(SHMEMI_GEN_RMA_TYPES, get_nbi, dest)(dest, __VA_ARGS__)
#define shmem_p(dest, ...) SHMEMI_GENERIC(SHMEMI_GEN_RMA_TYPES, p, dest)(dest, __VA_ARGS__)
#define shmem_g(src, ...) SHMEMI_GENERIC(SHMEMI_GEN_RMA_TYPES, g, src)(src, __VA_ARGS__)
#define shmem_iput(dest, ...) SHMEMI_GENERIC(SHMEMI_GEN_RMA_TYPES, iput, dest)(dest, __VA_ARGS__)
#define shmem_iget(dest, ...) SHMEMI_GENERIC(SHMEMI_GEN_RMA_TYPES, iget, dest)(dest, __VA_ARGS__)
#define shmem_put_signal(dest, ...)                                                             \
    SHMEMI_GENERIC(SHMEMI_GEN_RMA_TYPES, put_signal, dest)(dest, __VA_ARGS__)
#define shmem_put_signal_nbi(dest, ...)                                                         \
    SHMEMI_GENERIC(SHMEMI_GEN_RMA_TYPES, put_signal_nbi, dest)(dest, __VA_ARGS__)

#define shmem_atomic_fetch(src, ...) SHMEMI_GENERIC(SHMEMI_GEN_AMO_EXT_TYPES, fetch, src)(src, __VA_ARGS__)
#define shmem_atomic_set(dest, ...) SHMEMI_GENERIC(SHMEMI_GEN_AMO_EXT_TYPES, set, dest)(dest, __VA_ARGS__)
#define shmem_atomic_swap(dest, ...) SHMEMI_GENERIC(SHMEMI_GEN_AMO_EXT_TYPES, swap, dest)(dest, __VA_ARGS__)
#define shmem_atomic_fetch_nbi(fetch, ...)                                                      \
    SHMEMI_GENERIC(SHMEMI_GEN_AMO_EXT_TYPES, fetch_nbi, fetch)(fetch, __VA_ARGS__)
#define shmem_atomic_swap_nbi(fetch, ...)                                                       \
    SHMEMI_GENERIC(SHMEMI_GEN_AMO_EXT_TYPES, swap_nbi, fetch)(fetch, __VA_ARGS__)
#define shmem_atomic_compare_swap(dest, ...)                                                    \
    SHMEMI_GENERIC(SHMEMI_GEN_AMO_STD_TYPES, compare_swap, dest)(dest, __VA_ARGS__)
#define shmem_atomic_fetch_inc(dest, ...)                                                       \
    SHMEMI_GENERIC(SHMEMI_GEN_AMO_STD_TYPES, fetch_inc, dest)(dest, __VA_ARGS__)
#define shmem_atomic_inc(dest, ...) SHMEMI_GENERIC(SHMEMI_GEN_AMO_STD_TYPES, inc, dest)(dest, __VA_ARGS__)
#define shmem_atomic_fetch_add(dest, ...)                                                       \
    SHMEMI_GENERIC(SHMEMI_GEN_AMO_STD_TYPES, fetch_add, dest)(dest, __VA_ARGS__)
#define shmem_atomic_add(dest, ...) SHMEMI_GENERIC(SHMEMI_GEN_AMO_STD_TYPES, add, dest)(dest, __VA_ARGS__)
#define shmem_atomic_compare_swap_nbi(fetch, ...)                                               \
    SHMEMI_GENERIC(SHMEMI_GEN_AMO_STD_TYPES, compare_swap_nbi, fetch)(fetch, __VA_ARGS__)
#define shmem_atomic_fetch_inc_nbi(fetch, ...)                                                  \
    SHMEMI_GENERIC(SHMEMI_GEN_AMO_STD_TYPES, fetch_inc_nbi, fetch)(fetch, __VA_ARGS__)
#define shmem_atomic_fetch_add_nbi(fetch, ...)                                                  \
    SHMEMI_GENERIC(SHMEMI_GEN_AMO_STD_TYPES, fetch_add_nbi, fetch)(fetch, __VA_ARGS__)
#define shmem_atomic_fetch_and(dest, ...)                                                       \
    SHMEMI_GENERIC(SHMEMI_GEN_AMO_BIT_TYPES, fetch_and, dest)(dest, __VA_ARGS__)
#define shmem_atomic_and(dest, ...) SHMEMI_GENERIC(SHMEMI_GEN_AMO_BIT_TYPES, and, dest)(dest, __VA_ARGS__)
#define shmem_atomic_fetch_or(dest, ...)                                                        \
    SHMEMI_GENERIC(SHMEMI_GEN_AMO_BIT_TYPES, fetch_or, dest)(dest, __VA_ARGS__)
#define shmem_atomic_or(dest, ...) SHMEMI_GENERIC(SHMEMI_GEN_AMO_BIT_TYPES, or, dest)(dest, __VA_ARGS__)
#define shmem_atomic_fetch_xor(dest, ...)                                                       \
    SHMEMI_GENERIC(SHMEMI_GEN_AMO_BIT_TYPES, fetch_xor, dest)(dest, __VA_ARGS__)
#define shmem_atomic_xor(dest, ...) SHMEMI_GENERIC(SHMEMI_GEN_AMO_BIT_TYPES, xor, dest)(dest, __VA_ARGS__)
#define shmem_atomic_fetch_and_nbi(fetch, ...)                                                  \
    SHMEMI_GENERIC(SHMEMI_GEN_AMO_BIT_TYPES, fetch_and_nbi, fetch)(fetch, __VA_ARGS__)
#define shmem_atomic_fetch_or_nbi(fetch, ...)                                                   \
    SHMEMI_GENERIC(SHMEMI_GEN_AMO_BIT_TYPES, fetch_or_nbi, fetch)(fetch, __VA_ARGS__)
#define shmem_atomic_fetch_xor_nbi(fetch, ...)                                                  \
    SHMEMI_GENERIC(SHMEMI_GEN_AMO_BIT_TYPES, fetch_xor_nbi, fetch)(fetch, __VA_ARGS__)

#define shmem_wait_until(ivar, ...) SHMEMI_GENERIC(SHMEMI_GEN_P2P_TYPES, wait_until, ivar)(ivar, __VA_ARGS__)
#define shmem_wait_until_all(ivars, ...)                                                        \
    SHMEMI_GENERIC(SHMEMI_GEN_P2P_TYPES, wait_until_all, ivars)(ivars, __VA_ARGS__)
#define shmem_wait_until_any(ivars, ...)                                                        \
    SHMEMI_GENERIC(SHMEMI_GEN_P2P_TYPES, wait_until_any, ivars)(ivars, __VA_ARGS__)
#define shmem_wait_until_some(ivars, ...)                                                       \
    SHMEMI_GENERIC(SHMEMI_GEN_P2P_TYPES, wait_until_some, ivars)(ivars, __VA_ARGS__)
#define shmem_wait_until_all_vector(ivars, ...)                                                 \
    SHMEMI_GENERIC(SHMEMI_GEN_P2P_TYPES, wait_until_all_vector, ivars)(ivars, __VA_ARGS__)
#define shmem_wait_until_any_vector(ivars, ...)                                                 \
    SHMEMI_GENERIC(SHMEMI_GEN_P2P_TYPES, wait_until_any_vector, ivars)(ivars, __VA_ARGS__)
#define shmem_wait_until_some_vector(ivars, ...)                                                \
    SHMEMI_GENERIC(SHMEMI_GEN_P2P_TYPES, wait_until_some_vector, ivars)(ivars, __VA_ARGS__)
#define shmem_test(ivar, ...) SHMEMI_GENERIC(SHMEMI_GEN_P2P_TYPES, test, ivar)(ivar, __VA_ARGS__)
#define shmem_test_all(ivars, ...) SHMEMI_GENERIC(SHMEMI_GEN_P2P_TYPES, test_all, ivars)(ivars, __VA_ARGS__)
#define shmem_test_any(ivars, ...) SHMEMI_GENERIC(SHMEMI_GEN_P2P_TYPES, test_any, ivars)(ivars, __VA_ARGS__)
#define shmem_test_some(ivars, ...) SHMEMI_GENERIC(SHMEMI_GEN_P2P_TYPES, test_some, ivars)(ivars, __VA_ARGS__)
#define shmem_test_all_vector(ivars, ...)                                                       \
    SHMEMI_GENERIC(SHMEMI_GEN_P2P_TYPES, test_all_vector, ivars)(ivars, __VA_ARGS__)
#define shmem_test_any_vector(ivars, ...)                                                       \
    SHMEMI_GENERIC(SHMEMI_GEN_P2P_TYPES, test_any_vector, ivars)(ivars, __VA_ARGS__)
#define shmem_test_some_vector(ivars, ...)                                                      \
    SHMEMI_GENERIC(SHMEMI_GEN_P2P_TYPES, test_some_vector, ivars)(ivars, __VA_ARGS__)

#endif
#endif
