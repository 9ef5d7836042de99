/* SDMA-SHMEM: OpenSHMEM 1.5 for AMD GPUs, with copy engines and triggered plans.
 *
 * The public host API. Typed routines are generated from the lists in
 * shmem_typelists.h; reading those lists tells which names exist. */
#ifndef SHMEM_H
#define SHMEM_H

#include <stddef.h>
#include <stdint.h>

#include "shmem_typelists.h"

/* Routines that also exist in GPU kernels carry SHMEM_HD (see shmem_device.h). */
#if defined(__CUDACC__) || defined(__HIPCC__)
#define SHMEM_HD __host__ __device__
#else
#define SHMEM_HD
#endif

#if defined(__GNUC__) && !defined(SHMEM_NO_DEPRECATION_WARNINGS)
#define SHMEMI_DEPRECATED __attribute__((deprecated))
#else
#define SHMEMI_DEPRECATED
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- constants */
#define SHMEM_MAJOR_VERSION 1
#define SHMEM_MINOR_VERSION 5
#define SHMEM_MAX_NAME_LEN 256
#define SHMEM_VENDOR_STRING "SDMA-SHMEM 0.1.0"
#define _SHMEM_MAJOR_VERSION SHMEM_MAJOR_VERSION
#define _SHMEM_MINOR_VERSION SHMEM_MINOR_VERSION
#define _SHMEM_MAX_NAME_LEN SHMEM_MAX_NAME_LEN
#define _SHMEM_VENDOR_STRING SHMEM_VENDOR_STRING

enum { SHMEM_THREAD_SINGLE, SHMEM_THREAD_FUNNELED, SHMEM_THREAD_SERIALIZED,
       SHMEM_THREAD_MULTIPLE };

enum { SHMEM_CMP_EQ, SHMEM_CMP_NE, SHMEM_CMP_GT, SHMEM_CMP_GE, SHMEM_CMP_LT,
       SHMEM_CMP_LE };
#define _SHMEM_CMP_EQ SHMEM_CMP_EQ
#define _SHMEM_CMP_NE SHMEM_CMP_NE
#define _SHMEM_CMP_GT SHMEM_CMP_GT
#define _SHMEM_CMP_GE SHMEM_CMP_GE
#define _SHMEM_CMP_LT SHMEM_CMP_LT
#define _SHMEM_CMP_LE SHMEM_CMP_LE

enum { SHMEM_SIGNAL_SET, SHMEM_SIGNAL_ADD };

#define SHMEM_MALLOC_ATOMICS_REMOTE 1L
#define SHMEM_MALLOC_SIGNAL_REMOTE 2L

#define SHMEM_CTX_SERIALIZED 1L
#define SHMEM_CTX_PRIVATE 2L
#define SHMEM_CTX_NOSTORE 4L

/* Work arrays of the deprecated active-set collectives. */
#define SHMEM_SYNC_VALUE 0L
#define SHMEM_SYNC_SIZE 64
#define SHMEM_BARRIER_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_BCAST_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_REDUCE_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_COLLECT_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_ALLTOALL_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_ALLTOALLS_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_REDUCE_MIN_WRKDATA_SIZE 1
#define _SHMEM_SYNC_VALUE SHMEM_SYNC_VALUE
#define _SHMEM_BARRIER_SYNC_SIZE SHMEM_BARRIER_SYNC_SIZE
#define _SHMEM_BCAST_SYNC_SIZE SHMEM_BCAST_SYNC_SIZE
#define _SHMEM_REDUCE_SYNC_SIZE SHMEM_REDUCE_SYNC_SIZE
#define _SHMEM_COLLECT_SYNC_SIZE SHMEM_COLLECT_SYNC_SIZE
#define _SHMEM_REDUCE_MIN_WRKDATA_SIZE SHMEM_REDUCE_MIN_WRKDATA_SIZE

/* -------------------------------------------------------------------- types */
typedef struct shmemi_ctx *shmem_ctx_t;
typedef struct shmemi_team *shmem_team_t;

typedef struct {
    int num_contexts;
} shmem_team_config_t;

extern shmem_ctx_t const SHMEM_CTX_DEFAULT;
#define SHMEM_CTX_INVALID ((shmem_ctx_t)0)
extern shmem_team_t const SHMEM_TEAM_WORLD;
extern shmem_team_t const SHMEM_TEAM_SHARED;
#define SHMEM_TEAM_INVALID ((shmem_team_t)0)

/* ---------------------------------------------------- setup, exit and query */
void shmem_init(void);
int shmem_init_thread(int requested, int *provided);
void shmem_query_thread(int *provided);
void shmem_finalize(void);
void shmem_global_exit(int status);
void shmem_query_initialized(int *initialized);
void shmem_query_finalized(int *finalized);
SHMEM_HD int shmem_my_pe(void);
SHMEM_HD int shmem_n_pes(void);
int shmem_pe_accessible(int pe);
int shmem_addr_accessible(const void *addr, int pe);
SHMEM_HD void *shmem_ptr(const void *dest, int pe);
void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe);
void shmem_info_get_version(int *major, int *minor);
void shmem_info_get_name(char *name);

/* -------------------------------------------------------- memory management */
void *shmem_malloc(size_t size);
void *shmem_calloc(size_t count, size_t size);
void *shmem_align(size_t alignment, size_t size);
void *shmem_realloc(void *ptr, size_t size);
void shmem_free(void *ptr);
void *shmem_malloc_with_hints(size_t size, long hints);

/* ------------------------------------------------------------ teams (WORLD) */
int shmem_team_my_pe(shmem_team_t team);
int shmem_team_n_pes(shmem_team_t team);
int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team);
int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config);
int shmem_team_sync(shmem_team_t team);

/* ----------------------------------------------------------------- contexts */
int shmem_ctx_create(long options, shmem_ctx_t *ctx);
void shmem_ctx_destroy(shmem_ctx_t ctx);
int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team);
int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx);

/* ---------------------------------------------------------------------- RMA */
#define SHMEMI_DECL_RMA(T, N)                                                                 \
    SHMEM_HD void shmem_ctx_##N##_put(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe); \
    SHMEM_HD void shmem_##N##_put(T *dest, const T *source, size_t nelems, int pe);           \
    SHMEM_HD void shmem_ctx_##N##_get(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe); \
    SHMEM_HD void shmem_##N##_get(T *dest, const T *source, size_t nelems, int pe);           \
    SHMEM_HD void shmem_ctx_##N##_put_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe); \
    SHMEM_HD void shmem_##N##_put_nbi(T *dest, const T *source, size_t nelems, int pe);       \
    SHMEM_HD void shmem_ctx_##N##_get_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe); \
    SHMEM_HD void shmem_##N##_get_nbi(T *dest, const T *source, size_t nelems, int pe);       \
    SHMEM_HD void shmem_ctx_##N##_p(shmem_ctx_t ctx, T *dest, T value, int pe);               \
    SHMEM_HD void shmem_##N##_p(T *dest, T value, int pe);                                    \
    SHMEM_HD T shmem_ctx_##N##_g(shmem_ctx_t ctx, const T *source, int pe);                   \
    SHMEM_HD T shmem_##N##_g(const T *source, int pe);                                        \
    SHMEM_HD void shmem_ctx_##N##_iput(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst, \
                                       ptrdiff_t sst, size_t nelems, int pe);                 \
    SHMEM_HD void shmem_##N##_iput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,    \
                                   size_t nelems, int pe);                                    \
    SHMEM_HD void shmem_ctx_##N##_iget(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst, \
                                       ptrdiff_t sst, size_t nelems, int pe);                 \
    SHMEM_HD void shmem_##N##_iget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,    \
                                   size_t nelems, int pe);                                    \
    SHMEM_HD void shmem_ctx_##N##_put_signal(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, \
                                             uint64_t *sig_addr, uint64_t signal, int sig_op, int pe); \
    SHMEM_HD void shmem_##N##_put_signal(T *dest, const T *source, size_t nelems,             \
                                         uint64_t *sig_addr, uint64_t signal, int sig_op, int pe); \
    SHMEM_HD void shmem_ctx_##N##_put_signal_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, \
                                                 uint64_t *sig_addr, uint64_t signal, int sig_op, int pe); \
    SHMEM_HD void shmem_##N##_put_signal_nbi(T *dest, const T *source, size_t nelems,         \
                                             uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
SHMEMI_RMA_TYPES(SHMEMI_DECL_RMA)
#undef SHMEMI_DECL_RMA

#define SHMEMI_DECL_SIZED(B)                                                                  \
    SHMEM_HD void shmem_ctx_put##B(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe); \
    SHMEM_HD void shmem_put##B(void *dest, const void *source, size_t nelems, int pe);        \
    SHMEM_HD void shmem_ctx_get##B(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe); \
    SHMEM_HD void shmem_get##B(void *dest, const void *source, size_t nelems, int pe);        \
    SHMEM_HD void shmem_ctx_put##B##_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe); \
    SHMEM_HD void shmem_put##B##_nbi(void *dest, const void *source, size_t nelems, int pe);  \
    SHMEM_HD void shmem_ctx_get##B##_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe); \
    SHMEM_HD void shmem_get##B##_nbi(void *dest, const void *source, size_t nelems, int pe);  \
    SHMEM_HD void shmem_ctx_iput##B(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, \
                                    ptrdiff_t sst, size_t nelems, int pe);                    \
    SHMEM_HD void shmem_iput##B(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, \
                                size_t nelems, int pe);                                       \
    SHMEM_HD void shmem_ctx_iget##B(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, \
                                    ptrdiff_t sst, size_t nelems, int pe);                    \
    SHMEM_HD void shmem_iget##B(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, \
                                size_t nelems, int pe);                                       \
    SHMEM_HD void shmem_ctx_put##B##_signal(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, \
                                            uint64_t *sig_addr, uint64_t signal, int sig_op, int pe); \
    SHMEM_HD void shmem_put##B##_signal(void *dest, const void *source, size_t nelems,        \
                                        uint64_t *sig_addr, uint64_t signal, int sig_op, int pe); \
    SHMEM_HD void shmem_ctx_put##B##_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, \
                                                uint64_t *sig_addr, uint64_t signal, int sig_op, int pe); \
    SHMEM_HD void shmem_put##B##_signal_nbi(void *dest, const void *source, size_t nelems,    \
                                            uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
SHMEMI_RMA_SIZES(SHMEMI_DECL_SIZED)
#undef SHMEMI_DECL_SIZED

SHMEM_HD void shmem_ctx_putmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
SHMEM_HD void shmem_putmem(void *dest, const void *source, size_t nelems, int pe);
SHMEM_HD void shmem_ctx_getmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
SHMEM_HD void shmem_getmem(void *dest, const void *source, size_t nelems, int pe);
SHMEM_HD void shmem_ctx_putmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
SHMEM_HD void shmem_putmem_nbi(void *dest, const void *source, size_t nelems, int pe);
SHMEM_HD void shmem_ctx_getmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
SHMEM_HD void shmem_getmem_nbi(void *dest, const void *source, size_t nelems, int pe);
SHMEM_HD void shmem_ctx_putmem_signal(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                                      uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
SHMEM_HD void shmem_putmem_signal(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,
                                  uint64_t signal, int sig_op, int pe);
SHMEM_HD void shmem_ctx_putmem_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                                          uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
SHMEM_HD void shmem_putmem_signal_nbi(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,
                                      uint64_t signal, int sig_op, int pe);
SHMEM_HD uint64_t shmem_signal_fetch(const uint64_t *sig_addr);
SHMEM_HD uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value);

/* --------------------------------------------------------------------- AMOs */
#define SHMEMI_DECL_AMO_EXT(T, N)                                                             \
    SHMEM_HD T shmem_ctx_##N##_atomic_fetch(shmem_ctx_t ctx, const T *source, int pe);        \
    SHMEM_HD T shmem_##N##_atomic_fetch(const T *source, int pe);                             \
    SHMEM_HD void shmem_ctx_##N##_atomic_set(shmem_ctx_t ctx, T *dest, T value, int pe);      \
    SHMEM_HD void shmem_##N##_atomic_set(T *dest, T value, int pe);                           \
    SHMEM_HD T shmem_ctx_##N##_atomic_swap(shmem_ctx_t ctx, T *dest, T value, int pe);        \
    SHMEM_HD T shmem_##N##_atomic_swap(T *dest, T value, int pe);                             \
    SHMEM_HD void shmem_ctx_##N##_atomic_fetch_nbi(shmem_ctx_t ctx, T *fetch, const T *source, int pe); \
    SHMEM_HD void shmem_##N##_atomic_fetch_nbi(T *fetch, const T *source, int pe);            \
    SHMEM_HD void shmem_ctx_##N##_atomic_swap_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value, int pe); \
    SHMEM_HD void shmem_##N##_atomic_swap_nbi(T *fetch, T *dest, T value, int pe);
SHMEMI_AMO_EXT_TYPES(SHMEMI_DECL_AMO_EXT)
#undef SHMEMI_DECL_AMO_EXT

#define SHMEMI_DECL_AMO_STD(T, N)                                                             \
    SHMEM_HD T shmem_ctx_##N##_atomic_compare_swap(shmem_ctx_t ctx, T *dest, T cond, T value, int pe); \
    SHMEM_HD T shmem_##N##_atomic_compare_swap(T *dest, T cond, T value, int pe);             \
    SHMEM_HD T shmem_ctx_##N##_atomic_fetch_inc(shmem_ctx_t ctx, T *dest, int pe);            \
    SHMEM_HD T shmem_##N##_atomic_fetch_inc(T *dest, int pe);                                 \
    SHMEM_HD void shmem_ctx_##N##_atomic_inc(shmem_ctx_t ctx, T *dest, int pe);               \
    SHMEM_HD void shmem_##N##_atomic_inc(T *dest, int pe);                                    \
    SHMEM_HD T shmem_ctx_##N##_atomic_fetch_add(shmem_ctx_t ctx, T *dest, T value, int pe);   \
    SHMEM_HD T shmem_##N##_atomic_fetch_add(T *dest, T value, int pe);                        \
    SHMEM_HD void shmem_ctx_##N##_atomic_add(shmem_ctx_t ctx, T *dest, T value, int pe);      \
    SHMEM_HD void shmem_##N##_atomic_add(T *dest, T value, int pe);                           \
    SHMEM_HD void shmem_ctx_##N##_atomic_compare_swap_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T cond, \
                                                          T value, int pe);                   \
    SHMEM_HD void shmem_##N##_atomic_compare_swap_nbi(T *fetch, T *dest, T cond, T value, int pe); \
    SHMEM_HD void shmem_ctx_##N##_atomic_fetch_inc_nbi(shmem_ctx_t ctx, T *fetch, T *dest, int pe); \
    SHMEM_HD void shmem_##N##_atomic_fetch_inc_nbi(T *fetch, T *dest, int pe);                \
    SHMEM_HD void shmem_ctx_##N##_atomic_fetch_add_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value, int pe); \
    SHMEM_HD void shmem_##N##_atomic_fetch_add_nbi(T *fetch, T *dest, T value, int pe);
SHMEMI_AMO_STD_TYPES(SHMEMI_DECL_AMO_STD)
#undef SHMEMI_DECL_AMO_STD

#define SHMEMI_DECL_AMO_BIT_OP(T, N, OP)                                                      \
    SHMEM_HD T shmem_ctx_##N##_atomic_fetch_##OP(shmem_ctx_t ctx, T *dest, T value, int pe);  \
    SHMEM_HD T shmem_##N##_atomic_fetch_##OP(T *dest, T value, int pe);                       \
    SHMEM_HD void shmem_ctx_##N##_atomic_##OP(shmem_ctx_t ctx, T *dest, T value, int pe);     \
    SHMEM_HD void shmem_##N##_atomic_##OP(T *dest, T value, int pe);                          \
    SHMEM_HD void shmem_ctx_##N##_atomic_fetch_##OP##_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value, int pe); \
    SHMEM_HD void shmem_##N##_atomic_fetch_##OP##_nbi(T *fetch, T *dest, T value, int pe);
#define SHMEMI_DECL_AMO_BIT(T, N)                                                             \
    SHMEMI_DECL_AMO_BIT_OP(T, N, and) SHMEMI_DECL_AMO_BIT_OP(T, N, or) SHMEMI_DECL_AMO_BIT_OP(T, N, xor)
SHMEMI_AMO_BIT_TYPES(SHMEMI_DECL_AMO_BIT)
#undef SHMEMI_DECL_AMO_BIT
#undef SHMEMI_DECL_AMO_BIT_OP

/* Deprecated AMO names. */
#define SHMEMI_DECL_AMO_DEPR_STD(T, N)                                                        \
    SHMEMI_DEPRECATED T shmem_##N##_cswap(T *dest, T cond, T value, int pe);                  \
    SHMEMI_DEPRECATED T shmem_##N##_finc(T *dest, int pe);                                    \
    SHMEMI_DEPRECATED void shmem_##N##_inc(T *dest, int pe);                                  \
    SHMEMI_DEPRECATED T shmem_##N##_fadd(T *dest, T value, int pe);                           \
    SHMEMI_DEPRECATED void shmem_##N##_add(T *dest, T value, int pe);
SHMEMI_AMO_DEPR_STD_TYPES(SHMEMI_DECL_AMO_DEPR_STD)
#undef SHMEMI_DECL_AMO_DEPR_STD
#define SHMEMI_DECL_AMO_DEPR_EXT(T, N)                                                        \
    SHMEMI_DEPRECATED T shmem_##N##_fetch(const T *source, int pe);                           \
    SHMEMI_DEPRECATED void shmem_##N##_set(T *dest, T value, int pe);                         \
    SHMEMI_DEPRECATED T shmem_##N##_swap(T *dest, T value, int pe);
SHMEMI_AMO_DEPR_EXT_TYPES(SHMEMI_DECL_AMO_DEPR_EXT)
#undef SHMEMI_DECL_AMO_DEPR_EXT
SHMEMI_DEPRECATED long shmem_swap(long *dest, long value, int pe);

/* ------------------------------------------------- ordering and completion */
SHMEM_HD void shmem_fence(void);
SHMEM_HD void shmem_ctx_fence(shmem_ctx_t ctx);
SHMEM_HD void shmem_quiet(void);
SHMEM_HD void shmem_ctx_quiet(shmem_ctx_t ctx);
void shmem_pe_quiet(const int *target_pes, size_t npes);
void shmem_ctx_pe_quiet(shmem_ctx_t ctx, const int *target_pes, size_t npes);
SHMEM_HD void shmem_barrier_all(void);
SHMEM_HD void shmem_sync_all(void);
SHMEMI_DEPRECATED void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync);
void shmem_sync(int PE_start, int logPE_stride, int PE_size, long *pSync);
SHMEMI_DEPRECATED void shmem_clear_cache_inv(void);
SHMEMI_DEPRECATED void shmem_set_cache_inv(void);
SHMEMI_DEPRECATED void shmem_clear_cache_line_inv(void *dest);
SHMEMI_DEPRECATED void shmem_set_cache_line_inv(void *dest);
SHMEMI_DEPRECATED void shmem_udcflush(void);
SHMEMI_DEPRECATED void shmem_udcflush_line(void *dest);

/* ---------------------------------------------- point-to-point synchronization */
#define SHMEMI_DECL_P2P(T, N)                                                                 \
    SHMEM_HD void shmem_##N##_wait_until(T *ivar, int cmp, T cmp_value);                      \
    SHMEM_HD void shmem_##N##_wait_until_all(T *ivars, size_t nelems, const int *status, int cmp, \
                                             T cmp_value);                                    \
    SHMEM_HD size_t shmem_##N##_wait_until_any(T *ivars, size_t nelems, const int *status, int cmp, \
                                               T cmp_value);                                  \
    SHMEM_HD size_t shmem_##N##_wait_until_some(T *ivars, size_t nelems, size_t *indices,     \
                                                const int *status, int cmp, T cmp_value);     \
    SHMEM_HD void shmem_##N##_wait_until_all_vector(T *ivars, size_t nelems, const int *status, \
                                                    int cmp, T *cmp_values);                  \
    SHMEM_HD size_t shmem_##N##_wait_until_any_vector(T *ivars, size_t nelems, const int *status, \
                                                      int cmp, T *cmp_values);                \
    SHMEM_HD size_t shmem_##N##_wait_until_some_vector(T *ivars, size_t nelems, size_t *indices, \
                                                       const int *status, int cmp, T *cmp_values); \
    SHMEM_HD int shmem_##N##_test(T *ivar, int cmp, T cmp_value);                             \
    SHMEM_HD int shmem_##N##_test_all(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value); \
    SHMEM_HD size_t shmem_##N##_test_any(T *ivars, size_t nelems, const int *status, int cmp, \
                                         T cmp_value);                                        \
    SHMEM_HD size_t shmem_##N##_test_some(T *ivars, size_t nelems, size_t *indices,           \
                                          const int *status, int cmp, T cmp_value);           \
    SHMEM_HD int shmem_##N##_test_all_vector(T *ivars, size_t nelems, const int *status, int cmp, \
                                             T *cmp_values);                                  \
    SHMEM_HD size_t shmem_##N##_test_any_vector(T *ivars, size_t nelems, const int *status, int cmp, \
                                                T *cmp_values);                               \
    SHMEM_HD size_t shmem_##N##_test_some_vector(T *ivars, size_t nelems, size_t *indices,    \
                                                 const int *status, int cmp, T *cmp_values);
SHMEMI_P2P_TYPES(SHMEMI_DECL_P2P)
#undef SHMEMI_DECL_P2P

#define SHMEMI_DECL_WAIT_DEPR(T, N) SHMEMI_DEPRECATED void shmem_##N##_wait(T *ivar, T cmp_value);
SHMEMI_WAIT_DEPR_TYPES(SHMEMI_DECL_WAIT_DEPR)
#undef SHMEMI_DECL_WAIT_DEPR
SHMEMI_DEPRECATED void shmem_wait(long *ivar, long cmp_value);
SHMEMI_DEPRECATED void shmem_wait_until(long *ivar, int cmp, long cmp_value);

/* ------------------------------------------ teams (split), collectives, locks */
#define SHMEM_TEAM_NUM_CONTEXTS 1L

int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                             const shmem_team_config_t *config, long config_mask,
                             shmem_team_t *new_team);
int shmem_team_split_2d(shmem_team_t parent_team, int xrange,
                        const shmem_team_config_t *xaxis_config, long xaxis_mask,
                        shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
                        long yaxis_mask, shmem_team_t *yaxis_team);
void shmem_team_destroy(shmem_team_t team);

/* Collectives on teams; 0 on success. */
int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems,
                       int PE_root);
int shmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
                       ptrdiff_t sst, size_t nelems);
#define SHMEMI_DECL_COLL(T, N)                                                                \
    int shmem_##N##_broadcast(shmem_team_t team, T *dest, const T *source, size_t nelems,     \
                              int PE_root);                                                   \
    int shmem_##N##_collect(shmem_team_t team, T *dest, const T *source, size_t nelems);      \
    int shmem_##N##_fcollect(shmem_team_t team, T *dest, const T *source, size_t nelems);     \
    int shmem_##N##_alltoall(shmem_team_t team, T *dest, const T *source, size_t nelems);     \
    int shmem_##N##_alltoalls(shmem_team_t team, T *dest, const T *source, ptrdiff_t dst,     \
                              ptrdiff_t sst, size_t nelems);
SHMEMI_RMA_TYPES(SHMEMI_DECL_COLL)
#undef SHMEMI_DECL_COLL

#define SHMEMI_DECL_REDUCE(T, N, OP)                                                          \
    int shmem_##N##_##OP##_reduce(shmem_team_t team, T *dest, const T *source, size_t nreduce);
#define SHMEMI_DECL_REDUCE_BIT(T, N)                                                          \
    SHMEMI_DECL_REDUCE(T, N, and) SHMEMI_DECL_REDUCE(T, N, or) SHMEMI_DECL_REDUCE(T, N, xor)
#define SHMEMI_DECL_REDUCE_MINMAX(T, N) SHMEMI_DECL_REDUCE(T, N, max) SHMEMI_DECL_REDUCE(T, N, min)
#define SHMEMI_DECL_REDUCE_ARITH(T, N) SHMEMI_DECL_REDUCE(T, N, sum) SHMEMI_DECL_REDUCE(T, N, prod)
SHMEMI_REDUCE_BIT_TYPES(SHMEMI_DECL_REDUCE_BIT)
SHMEMI_REDUCE_MINMAX_TYPES(SHMEMI_DECL_REDUCE_MINMAX)
SHMEMI_REDUCE_ARITH_TYPES(SHMEMI_DECL_REDUCE_ARITH)
#undef SHMEMI_DECL_REDUCE_BIT
#undef SHMEMI_DECL_REDUCE_MINMAX
#undef SHMEMI_DECL_REDUCE_ARITH
#undef SHMEMI_DECL_REDUCE

/* Deprecated active-set collectives (pSync restored to SHMEM_SYNC_VALUE on
 * return; pWrk is not used). */
#define SHMEMI_DECL_COLL_DEPR(B)                                                              \
    SHMEMI_DEPRECATED void shmem_broadcast##B(void *dest, const void *source, size_t nelems,  \
                                              int PE_root, int PE_start, int logPE_stride,    \
                                              int PE_size, long *pSync);                      \
    SHMEMI_DEPRECATED void shmem_collect##B(void *dest, const void *source, size_t nelems,    \
                                            int PE_start, int logPE_stride, int PE_size,      \
                                            long *pSync);                                     \
    SHMEMI_DEPRECATED void shmem_fcollect##B(void *dest, const void *source, size_t nelems,   \
                                             int PE_start, int logPE_stride, int PE_size,     \
                                             long *pSync);                                    \
    SHMEMI_DEPRECATED void shmem_alltoall##B(void *dest, const void *source, size_t nelems,   \
                                             int PE_start, int logPE_stride, int PE_size,     \
                                             long *pSync);                                    \
    SHMEMI_DEPRECATED void shmem_alltoalls##B(void *dest, const void *source, ptrdiff_t dst,  \
                                              ptrdiff_t sst, size_t nelems, int PE_start,     \
                                              int logPE_stride, int PE_size, long *pSync);
SHMEMI_COLL_DEPR_SIZES(SHMEMI_DECL_COLL_DEPR)
#undef SHMEMI_DECL_COLL_DEPR

#define SHMEMI_DECL_TO_ALL(T, N, OP)                                                          \
    SHMEMI_DEPRECATED void shmem_##N##_##OP##_to_all(T *dest, const T *source, int nreduce,   \
                                                     int PE_start, int logPE_stride,          \
                                                     int PE_size, T *pWrk, long *pSync);
#define SHMEMI_DECL_TO_ALL_BIT(T, N)                                                          \
    SHMEMI_DECL_TO_ALL(T, N, and) SHMEMI_DECL_TO_ALL(T, N, or) SHMEMI_DECL_TO_ALL(T, N, xor)
#define SHMEMI_DECL_TO_ALL_MINMAX(T, N) SHMEMI_DECL_TO_ALL(T, N, max) SHMEMI_DECL_TO_ALL(T, N, min)
#define SHMEMI_DECL_TO_ALL_ARITH(T, N) SHMEMI_DECL_TO_ALL(T, N, sum) SHMEMI_DECL_TO_ALL(T, N, prod)
SHMEMI_TO_ALL_BIT_TYPES(SHMEMI_DECL_TO_ALL_BIT)
SHMEMI_TO_ALL_MINMAX_TYPES(SHMEMI_DECL_TO_ALL_MINMAX)
SHMEMI_TO_ALL_ARITH_TYPES(SHMEMI_DECL_TO_ALL_ARITH)
#undef SHMEMI_DECL_TO_ALL_BIT
#undef SHMEMI_DECL_TO_ALL_MINMAX
#undef SHMEMI_DECL_TO_ALL_ARITH
#undef SHMEMI_DECL_TO_ALL

/* Distributed locks on a symmetric long (zero: unlocked). */
void shmem_set_lock(long *lock);
void shmem_clear_lock(long *lock);
int shmem_test_lock(long *lock);

/* ------------------------------------------------------ deprecated setup API */
SHMEMI_DEPRECATED void start_pes(int npes);
SHMEMI_DEPRECATED int _my_pe(void);
SHMEMI_DEPRECATED int _num_pes(void);
SHMEMI_DEPRECATED void *shmalloc(size_t size);
SHMEMI_DEPRECATED void shfree(void *ptr);
SHMEMI_DEPRECATED void *shrealloc(void *ptr, size_t size);
SHMEMI_DEPRECATED void *shmemalign(size_t alignment, size_t size);

#ifdef __cplusplus
}
#endif

#include "shmem_generic.h"

#endif
