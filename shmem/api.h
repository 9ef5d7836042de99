/* The host side of the op table (include/shmem_ops.h), for one source file of
 * the public API. Such a file starts with
 *
 *     #define SHMEMI_FILE rma            (its FILE name in the op table)
 *     #include "shmem/api.h"
 *
 * which makes each routine of the file weak under its shmem_ name and gives
 * it a strong pshmem_ twin (p<name> for the bare deprecated names): the
 * profiling interface, where a tool's own shmem_X takes the place of the
 * library's and calls pshmem_X. This must come before the file's definitions
 * (a weak declaration after the definition is ignored by some compilers).
 *
 * Where the file's generated definitions go (after the SHMEMI_B_* body macros
 * its rows name), it includes "shmem/api_define.h": each SHMEMI_OP row of the
 * file becomes its definitions, the body written once in the row:
 *
 *   ctx    RET shmem_ctx_NAME(shmem_ctx_t ctx, PARAMS) { BODY }
 *          RET shmem_NAME(PARAMS) { ctx = the default context; BODY }
 *   def    RET shmem_NAME(PARAMS) { ctx = the default context; BODY }
 *   plain  RET shmem_NAME(PARAMS) { BODY }
 *
 * and __func__ in BODY names the routine the user called. */
#ifndef SHMEMI_API_H
#define SHMEMI_API_H

#include "shmem/shmemi.h"

#include <shmem_ops.h>

/* SHMEMI_SAME_FILE(a, b): 1 when the file names a and b are the same. */
#define SHMEMI_SAME_FILE(a, b)                                                                     \
    SHMEMI_PROBE(SHMEMI_CAT(SHMEMI_CAT(SHMEMI_FILE_IS_, a), SHMEMI_CAT(_, b)))
#define SHMEMI_FILE_IS_init_init ~, 1
#define SHMEMI_FILE_IS_heap_heap ~, 1
#define SHMEMI_FILE_IS_team_team ~, 1
#define SHMEMI_FILE_IS_rma_rma ~, 1
#define SHMEMI_FILE_IS_amo_amo ~, 1
#define SHMEMI_FILE_IS_sync_sync ~, 1
#define SHMEMI_FILE_IS_coll_coll ~, 1
#define SHMEMI_FILE_IS_lock_lock ~, 1
#define SHMEMI_FILE_IS_profile_profile ~, 1

/* The rows of this file, in the mode of the expansion under way (alias or
 * define). */
#define SHMEMI_OP(SEC, FILE, VER, FORMS, DEV, T, N, RET, NAME, P, A, GEN, BODY)                    \
    SHMEMI_CAT(SHMEMI_API_OP_, SHMEMI_API_MODE)(FILE, FORMS, RET, NAME, P, BODY)
#define SHMEMI_FN(SEC, FILE, VER, FORMS, DEV, RET, NAME, P) SHMEMI_API_alias(FILE, FORMS, NAME)

#define SHMEMI_API_OP_alias(FILE, FORMS, RET, NAME, P, BODY) SHMEMI_API_alias(FILE, FORMS, NAME)
#define SHMEMI_API_alias(FILE, FORMS, NAME)                                                        \
    SHMEMI_CAT(SHMEMI_API_ALIAS_, SHMEMI_API_MODE)(FILE, FORMS, NAME)
#define SHMEMI_API_ALIAS_alias(FILE, FORMS, NAME)                                                  \
    SHMEMI_WHEN(SHMEMI_SAME_FILE(FILE, SHMEMI_FILE), SHMEMI_PROFILED_##FORMS, (NAME))
#define SHMEMI_API_ALIAS_define(FILE, FORMS, NAME)
#define SHMEMI_API_OP_define(FILE, FORMS, RET, NAME, P, BODY)                                      \
    SHMEMI_WHEN(SHMEMI_SAME_FILE(FILE, SHMEMI_FILE), SHMEMI_DEFINE_##FORMS, (RET, NAME, P, BODY))

/* The shmem_ name weak, the pshmem_ twin a strong alias of the same code. */
#define SHMEMI_PROFILED(NAME, PNAME)                                                               \
    _Pragma(SHMEMI_STR(weak NAME)) extern __typeof__(NAME) PNAME                                   \
        __attribute__((alias(#NAME), visibility("default")));
#define SHMEMI_PROFILED_ctx(NAME)                                                                  \
    SHMEMI_PROFILED(shmem_##NAME, pshmem_##NAME)                                                   \
    SHMEMI_PROFILED(shmem_ctx_##NAME, pshmem_ctx_##NAME)
#define SHMEMI_PROFILED_def(NAME) SHMEMI_PROFILED(shmem_##NAME, pshmem_##NAME)
#define SHMEMI_PROFILED_plain(NAME) SHMEMI_PROFILED(shmem_##NAME, pshmem_##NAME)
#define SHMEMI_PROFILED_bare(NAME) SHMEMI_PROFILED(NAME, p##NAME)

#define SHMEMI_DEFINE_ctx(RET, NAME, P, BODY)                                                      \
    RET shmem_ctx_##NAME(shmem_ctx_t ctx, SHMEMI_UNPAREN P){                                       \
        SHMEMI_UNPAREN BODY} SHMEMI_DEFINE_def(RET, NAME, P, BODY)
#define SHMEMI_DEFINE_def(RET, NAME, P, BODY)                                                      \
    RET shmem_##NAME P {                                                                           \
        shmem_ctx_t const ctx = shmemi_ctx_default_handle;                                         \
        SHMEMI_UNPAREN BODY                                                                        \
    }
#define SHMEMI_DEFINE_plain(RET, NAME, P, BODY)                                                    \
    RET shmem_##NAME P { SHMEMI_UNPAREN BODY }

#endif

/* Every file that includes this header gets its weak names and twins here. */
#ifndef SHMEMI_FILE
#error "define SHMEMI_FILE (the file's name in the op table) before including shmem/api.h"
#endif
#define SHMEMI_API_MODE alias
SHMEMI_OPS_ALL()
#undef SHMEMI_API_MODE
