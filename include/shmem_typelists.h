/* The type lists of the OpenSHMEM 1.6 typed API.
 *
 * Every typed routine of this library -- host declarations, host definitions,
 * device bodies, C11 generic selections and the compile test that calls every
 * generated name -- is expanded from these lists, never written by hand.
 *
 * Each list takes a macro X(TYPE, TYPENAME): TYPE is the C type, TYPENAME the
 * spelling inside the routine name (shmem_<TYPENAME>_put).
 */
#ifndef SHMEM_TYPELISTS_H
#define SHMEM_TYPELISTS_H

/* Standard RMA types (spec table "Standard RMA Types and Names"). */
#define SHMEMI_RMA_TYPES(X)                                                                        \
    X(float, float)                                                                                \
    X(double, double)                                                                              \
    X(long double, longdouble)                                                                     \
    X(char, char)                                                                                  \
    X(signed char, schar)                                                                          \
    X(short, short)                                                                                \
    X(int, int)                                                                                    \
    X(long, long)                                                                                  \
    X(long long, longlong)                                                                         \
    X(unsigned char, uchar)                                                                        \
    X(unsigned short, ushort)                                                                      \
    X(unsigned int, uint)                                                                          \
    X(unsigned long, ulong)                                                                        \
    X(unsigned long long, ulonglong)                                                               \
    X(int8_t, int8)                                                                                \
    X(int16_t, int16)                                                                              \
    X(int32_t, int32)                                                                              \
    X(int64_t, int64)                                                                              \
    X(uint8_t, uint8)                                                                              \
    X(uint16_t, uint16)                                                                            \
    X(uint32_t, uint32)                                                                            \
    X(uint64_t, uint64)                                                                            \
    X(size_t, size)                                                                                \
    X(ptrdiff_t, ptrdiff)

/* Sized RMA: X(BITS) for shmem_put<BITS>, shmem_get<BITS>, ... */
#define SHMEMI_RMA_SIZES(X) X(8) X(16) X(32) X(64) X(128)

/* Standard AMO types: fetch_inc, inc, fetch_add, add, compare_swap. */
#define SHMEMI_AMO_STD_TYPES(X)                                                                    \
    X(int, int)                                                                                    \
    X(long, long)                                                                                  \
    X(long long, longlong)                                                                         \
    X(unsigned int, uint)                                                                          \
    X(unsigned long, ulong)                                                                        \
    X(unsigned long long, ulonglong)                                                               \
    X(int32_t, int32)                                                                              \
    X(int64_t, int64)                                                                              \
    X(uint32_t, uint32)                                                                            \
    X(uint64_t, uint64)                                                                            \
    X(size_t, size)                                                                                \
    X(ptrdiff_t, ptrdiff)

/* Extended AMO types: fetch, set, swap: the floating types and the
 * standard AMO types. */
#define SHMEMI_AMO_FLOAT_TYPES(X)                                                                  \
    X(float, float)                                                                                \
    X(double, double)
#define SHMEMI_AMO_EXT_TYPES(X)                                                                    \
    SHMEMI_AMO_FLOAT_TYPES(X)                                                                      \
    SHMEMI_AMO_STD_TYPES(X)

/* Bitwise AMO types: fetch_and, and, fetch_or, or, fetch_xor, xor. */
#define SHMEMI_AMO_BIT_TYPES(X)                                                                    \
    X(unsigned int, uint)                                                                          \
    X(unsigned long, ulong)                                                                        \
    X(unsigned long long, ulonglong)                                                               \
    X(int32_t, int32)                                                                              \
    X(int64_t, int64)                                                                              \
    X(uint32_t, uint32)                                                                            \
    X(uint64_t, uint64)
/* Bitwise AMOs on signed int, long and long long, outside the spec's table
 * (which has int32_t and int64_t), as Open MPI's OSHMEM has them and its
 * verifier tests them. */
#define SHMEMI_AMO_BIT_EXT_TYPES(X)                                                                \
    X(int, int)                                                                                    \
    X(long, long)                                                                                  \
    X(long long, longlong)

/* Point-to-point synchronization types: wait_until and test families, on the
 * standard AMO types (1.5); short and unsigned short are deprecated for
 * wait_until and test (and kept for the other families, as other
 * implementations ship them). */
#define SHMEMI_P2P_TYPES(X)                                                                        \
    X(int, int)                                                                                    \
    X(long, long)                                                                                  \
    X(long long, longlong)                                                                         \
    X(unsigned int, uint)                                                                          \
    X(unsigned long, ulong)                                                                        \
    X(unsigned long long, ulonglong)                                                               \
    X(int32_t, int32)                                                                              \
    X(int64_t, int64)                                                                              \
    X(uint32_t, uint32)                                                                            \
    X(uint64_t, uint64)                                                                            \
    X(size_t, size)                                                                                \
    X(ptrdiff_t, ptrdiff)
#define SHMEMI_P2P_DEPR_TYPES(X)                                                                   \
    X(short, short)                                                                                \
    X(unsigned short, ushort)
/* Every type the wait and test routines have, deprecated or not. */
#define SHMEMI_P2P_ALL_TYPES(X)                                                                    \
    SHMEMI_P2P_DEPR_TYPES(X)                                                                       \
    SHMEMI_P2P_TYPES(X)

/* Deprecated AMO names (shmem_int_fadd, shmem_long_finc, shmem_int_cswap...). */
#define SHMEMI_AMO_DEPR_STD_TYPES(X)                                                               \
    X(int, int)                                                                                    \
    X(long, long)                                                                                  \
    X(long long, longlong)
#define SHMEMI_AMO_DEPR_EXT_TYPES(X)                                                               \
    X(float, float)                                                                                \
    X(double, double)                                                                              \
    SHMEMI_AMO_DEPR_STD_TYPES(X)

/* Deprecated shmem_<T>_wait. */
#define SHMEMI_WAIT_DEPR_TYPES(X)                                                                  \
    X(short, short)                                                                                \
    X(int, int)                                                                                    \
    X(long, long)                                                                                  \
    X(long long, longlong)

/* Reduction types (to_all and team reductions): X(TYPE, TYPENAME). */
#define SHMEMI_REDUCE_BIT_TYPES(X)                                                                 \
    X(unsigned char, uchar)                                                                        \
    X(unsigned short, ushort)                                                                      \
    X(unsigned int, uint)                                                                          \
    X(unsigned long, ulong)                                                                        \
    X(unsigned long long, ulonglong)                                                               \
    X(int8_t, int8)                                                                                \
    X(int16_t, int16)                                                                              \
    X(int32_t, int32)                                                                              \
    X(int64_t, int64)                                                                              \
    X(uint8_t, uint8)                                                                              \
    X(uint16_t, uint16)                                                                            \
    X(uint32_t, uint32)                                                                            \
    X(uint64_t, uint64)                                                                            \
    X(size_t, size)

/* Bitwise team reductions on long long, outside the spec's table (int64_t
 * is long on LP64 targets), as other implementations accept them. */
#define SHMEMI_REDUCE_BIT_EXT_TYPES(X) X(long long, longlong)

/* Reduction types of shmem_<TYPENAME>_{max,min}_reduce: the bitwise
 * reduction types plus the signed and floating types. */
#define SHMEMI_REDUCE_MINMAX_TYPES(X)                                                              \
    X(char, char)                                                                                  \
    X(signed char, schar)                                                                          \
    X(short, short)                                                                                \
    X(int, int)                                                                                    \
    X(long, long)                                                                                  \
    X(long long, longlong)                                                                         \
    X(ptrdiff_t, ptrdiff)                                                                          \
    SHMEMI_REDUCE_BIT_TYPES(X)                                                                     \
    X(float, float)                                                                                \
    X(double, double)                                                                              \
    X(long double, longdouble)

/* Reduction types of shmem_<TYPENAME>_{sum,prod}_reduce and of the scans
 * shmem_<TYPENAME>_sum_{inscan,exscan}. */
#define SHMEMI_REDUCE_ARITH_TYPES(X)                                                               \
    SHMEMI_REDUCE_MINMAX_TYPES(X)                                                                  \
    X(double _Complex, complexd)                                                                   \
    X(float _Complex, complexf)

/* Deprecated active-set reductions shmem_<TYPENAME>_<op>_to_all. */
#define SHMEMI_TO_ALL_BIT_TYPES(X)                                                                 \
    X(short, short)                                                                                \
    X(int, int)                                                                                    \
    X(long, long)                                                                                  \
    X(long long, longlong)
#define SHMEMI_TO_ALL_MINMAX_TYPES(X)                                                              \
    SHMEMI_TO_ALL_BIT_TYPES(X)                                                                     \
    X(float, float)                                                                                \
    X(double, double)                                                                              \
    X(long double, longdouble)
#define SHMEMI_TO_ALL_ARITH_TYPES(X)                                                               \
    SHMEMI_TO_ALL_MINMAX_TYPES(X)                                                                  \
    X(float _Complex, complexf)                                                                    \
    X(double _Complex, complexd)

/* Deprecated sized active-set collectives: X(BITS) for shmem_broadcast<BITS>,
 * shmem_collect<BITS>, shmem_fcollect<BITS>, shmem_alltoall<BITS>,
 * shmem_alltoalls<BITS>. */
#define SHMEMI_COLL_DEPR_SIZES(X) X(32) X(64)

#endif
