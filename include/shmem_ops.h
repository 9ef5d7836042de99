/* The op table of the OpenSHMEM API: every routine of shmem.h, once.
 *
 * Typed routine families are rows expanded once per type of their type list
 * (shmem_typelists.h): one row here is shmem_<T>_put for the 24 standard RMA
 * types, with and without a context. Untyped routines are rows of their own.
 * Everything below is expanded from these rows, never written by hand:
 *   - the installed shmem.h (flat: one prototype per routine, generated when
 *     the build is configured, by include/gen/gen_api.c), its C11 generic
 *     selections and C++ overloads, and pshmem.h (the profiling names);
 *   - the host definitions (shmem/api.h: the body below, once, becomes the
 *     context form and the default-context form), the weak shmem_ names and
 *     their pshmem_ twins;
 *   - the standard names of the device API (shmem_device.h);
 *   - the list of exported names the export test checks.
 *
 * A consumer defines the two row macros and expands SHMEMI_OPS_ALL():
 *
 *   SHMEMI_OP(SEC, FILE, VER, FORMS, DEV, T, N, RET, NAME, PARAMS, ARGS, GEN, BODY)
 *       a routine with a generated definition;
 *   SHMEMI_FN(SEC, FILE, VER, FORMS, DEV, RET, NAME, PARAMS)
 *       a routine whose definition is written by hand in FILE.
 *
 *   SEC     section of shmem.h the prototype goes to (setup, mem, team, ctx,
 *           rma, amo, signal, coll, p2p, order, lock, cache, prof)
 *   FILE    the source file of shmem/ that defines it (init, heap, team, rma,
 *           amo, sync, coll, lock, profile)
 *   VER     v15 (OpenSHMEM 1.5), dep (deprecated by 1.5 or earlier and still
 *           supported by 1.6), v16 (new in 1.6), rem (removed by 1.5; kept so
 *           that old programs link), ext (a shmem_ name outside the
 *           specification that other implementations ship)
 *   FORMS   ctx: shmem_NAME on the default context and shmem_ctx_NAME(ctx, ...);
 *           def: shmem_NAME only, on the default context; plain: shmem_NAME only;
 *           bare: NAME itself, without the shmem_ prefix (start_pes...)
 *   DEV     dev: also a device routine whose standard-name wrapper shmem_device.h
 *           generates from this row (forwarding to shmemi_dev_NAME); hd: a
 *           device routine whose wrapper shmem_device.h writes by hand; host
 *   T, N    the element type and its name in routine names (void for untyped)
 *   RET     return type;  NAME the routine name after shmem_ (or shmem_ctx_)
 *   PARAMS  the parameters (without the context); ARGS their names
 *   GEN     the C11 generic name (shmem_GEN) this row is an association of, or none
 *   BODY    the definition's statements (in parentheses); they see the
 *           parameters, `ctx` (ctx and def forms) and __func__, and call the
 *           core through the SHMEMI_B_* macros of the file that defines them.
 *
 * Adding a routine family is one row; adding a type is one list entry. */
#ifndef SHMEM_OPS_H
#define SHMEM_OPS_H

#include "shmem_typelists.h"

/* The rows' parameter lists are stringified into the generated headers: the
 * formatter would read `T *dest` in them as a product and space it. */
/* clang-format off */

/* ----------------------------------------------------------------- untyped */
#define SHMEMI_OPS_UNTYPED()                                                                      \
    SHMEMI_FN(setup, init, v15, plain, host, void, init, (void))                                  \
    SHMEMI_FN(setup, init, v15, plain, host, int, init_thread, (int requested, int *provided))    \
    SHMEMI_FN(setup, init, v15, plain, host, void, query_thread, (int *provided))                 \
    SHMEMI_FN(setup, init, v16, plain, host, void, query_initialized, (int *initialized))         \
    SHMEMI_FN(setup, init, ext, plain, host, void, query_finalized, (int *finalized))             \
    SHMEMI_FN(setup, init, v15, plain, host, void, finalize, (void))                              \
    SHMEMI_FN(setup, init, v15, plain, host, void, global_exit, (int status))                     \
    SHMEMI_FN(setup, init, v15, plain, hd, int, my_pe, (void))                                    \
    SHMEMI_FN(setup, init, v15, plain, hd, int, n_pes, (void))                                    \
    SHMEMI_FN(setup, init, v15, plain, host, int, pe_accessible, (int pe))                        \
    SHMEMI_FN(setup, init, v15, plain, host, int, addr_accessible, (const void *addr, int pe))    \
    SHMEMI_FN(setup, init, v15, plain, hd, void *, ptr, (const void *dest, int pe))               \
    SHMEMI_FN(setup, team, v16, plain, host, void *, team_ptr,                                    \
              (shmem_team_t team, const void *dest, int pe))                                      \
    SHMEMI_FN(setup, init, v15, plain, host, void, info_get_version, (int *major, int *minor))    \
    SHMEMI_FN(setup, init, v15, plain, host, void, info_get_name, (char *name))                   \
    SHMEMI_FN(setup, init, dep, bare, host, void, start_pes, (int npes))                          \
    SHMEMI_FN(setup, init, dep, bare, host, int, _my_pe, (void))                                  \
    SHMEMI_FN(setup, init, dep, bare, host, int, _num_pes, (void))                                \
                                                                                                  \
    SHMEMI_FN(mem, heap, v15, plain, host, void *, malloc, (size_t size))                         \
    SHMEMI_FN(mem, heap, v15, plain, host, void *, calloc, (size_t count, size_t size))           \
    SHMEMI_FN(mem, heap, v15, plain, host, void *, align, (size_t alignment, size_t size))        \
    SHMEMI_FN(mem, heap, v15, plain, host, void *, realloc, (void *ptr, size_t size))             \
    SHMEMI_FN(mem, heap, v15, plain, host, void, free, (void *ptr))                               \
    SHMEMI_FN(mem, heap, v15, plain, host, void *, malloc_with_hints, (size_t size, long hints))  \
    SHMEMI_FN(mem, heap, dep, bare, host, void *, shmalloc, (size_t size))                        \
    SHMEMI_FN(mem, heap, dep, bare, host, void, shfree, (void *ptr))                              \
    SHMEMI_FN(mem, heap, dep, bare, host, void *, shrealloc, (void *ptr, size_t size))            \
    SHMEMI_FN(mem, heap, dep, bare, host, void *, shmemalign, (size_t alignment, size_t size))    \
                                                                                                  \
    SHMEMI_FN(team, team, v15, plain, host, int, team_my_pe, (shmem_team_t team))                 \
    SHMEMI_FN(team, team, v15, plain, host, int, team_n_pes, (shmem_team_t team))                 \
    SHMEMI_FN(team, team, v15, plain, host, int, team_translate_pe,                               \
              (shmem_team_t src_team, int src_pe, shmem_team_t dest_team))                        \
    SHMEMI_FN(team, team, v15, plain, host, int, team_get_config,                                 \
              (shmem_team_t team, long config_mask, shmem_team_config_t *config))                 \
    SHMEMI_FN(team, team, v15, plain, host, int, team_split_strided,                              \
              (shmem_team_t parent_team, int start, int stride, int size,                         \
               const shmem_team_config_t *config, long config_mask, shmem_team_t *new_team))      \
    SHMEMI_FN(team, team, v15, plain, host, int, team_split_2d,                                   \
              (shmem_team_t parent_team, int xrange, const shmem_team_config_t *xaxis_config,     \
               long xaxis_mask, shmem_team_t *xaxis_team,                                         \
               const shmem_team_config_t *yaxis_config, long yaxis_mask,                          \
               shmem_team_t *yaxis_team))                                                         \
    SHMEMI_FN(team, team, v15, plain, host, void, team_destroy, (shmem_team_t team))              \
                                                                                                  \
    SHMEMI_FN(ctx, team, v15, plain, host, int, ctx_create, (long options, shmem_ctx_t *ctx))     \
    SHMEMI_FN(ctx, team, v15, plain, host, int, team_create_ctx,                                  \
              (shmem_team_t team, long options, shmem_ctx_t *ctx))                                \
    SHMEMI_FN(ctx, team, v15, plain, host, void, ctx_destroy, (shmem_ctx_t ctx))                  \
    SHMEMI_FN(ctx, team, v15, plain, host, int, ctx_get_team,                                     \
              (shmem_ctx_t ctx, shmem_team_t *team))                                              \
    SHMEMI_FN(ctx, team, v16, plain, host, void, ctx_session_start,                               \
              (shmem_ctx_t ctx, long options, const shmem_ctx_session_config_t *config,           \
               long config_mask))                                                                 \
    SHMEMI_FN(ctx, team, v16, plain, host, void, ctx_session_stop, (shmem_ctx_t ctx))             \
    /* The sessions' draft spelling, as the reference implementation ships it. */                 \
    SHMEMI_FN(ctx, team, ext, plain, host, void, session_start, (long options, shmem_ctx_t ctx))  \
    SHMEMI_FN(ctx, team, ext, plain, host, void, session_stop, (shmem_ctx_t ctx))                 \
                                                                                                  \
    SHMEMI_FN(signal, rma, v15, plain, hd, uint64_t, signal_fetch, (const uint64_t *sig_addr))    \
    SHMEMI_OP(signal, rma, v16, ctx, host, void, signal, void, signal_add,                        \
              (uint64_t *sig_addr, uint64_t signal, int pe), (sig_addr, signal, pe), none,        \
              (SHMEMI_B_SIGNAL(SHMEM_SIGNAL_ADD)))                                                \
    SHMEMI_OP(signal, rma, v16, ctx, host, void, signal, void, signal_set,                        \
              (uint64_t *sig_addr, uint64_t signal, int pe), (sig_addr, signal, pe), none,        \
              (SHMEMI_B_SIGNAL(SHMEM_SIGNAL_SET)))                                                \
                                                                                                  \
    SHMEMI_FN(amo, amo, dep, plain, host, long, swap, (long *dest, long value, int pe))           \
                                                                                                  \
    SHMEMI_FN(coll, sync, v15, plain, hd, void, barrier_all, (void))                              \
    SHMEMI_FN(coll, sync, v15, plain, hd, void, sync_all, (void))                                 \
    SHMEMI_FN(coll, team, v15, plain, host, int, team_sync, (shmem_team_t team))                  \
    SHMEMI_FN(coll, sync, dep, plain, host, void, barrier,                                        \
              (int PE_start, int logPE_stride, int PE_size, long *pSync))                         \
    SHMEMI_FN(coll, sync, dep, plain, host, void, sync,                                           \
              (int PE_start, int logPE_stride, int PE_size, long *pSync))                         \
                                                                                                  \
    SHMEMI_FN(p2p, sync, v15, plain, hd, uint64_t, signal_wait_until,                             \
              (uint64_t *sig_addr, int cmp, uint64_t cmp_value))                                  \
    SHMEMI_FN(p2p, sync, dep, plain, host, void, wait_until, (long *ivar, int cmp, long cmp_value)) \
    SHMEMI_FN(p2p, sync, dep, plain, host, void, wait, (long *ivar, long cmp_value))              \
                                                                                                  \
    SHMEMI_FN(order, sync, v15, ctx, hd, void, fence, (void))                                     \
    SHMEMI_FN(order, sync, v15, ctx, hd, void, quiet, (void))                                     \
    SHMEMI_FN(order, sync, v16, ctx, host, void, pe_quiet, (const int *target_pes, size_t npes))  \
                                                                                                  \
    SHMEMI_FN(lock, lock, v15, plain, host, void, set_lock, (long *lock))                         \
    SHMEMI_FN(lock, lock, v15, plain, host, void, clear_lock, (long *lock))                       \
    SHMEMI_FN(lock, lock, v15, plain, host, int, test_lock, (long *lock))                         \
                                                                                                  \
    SHMEMI_FN(cache, sync, rem, plain, host, void, clear_cache_inv, (void))                       \
    SHMEMI_FN(cache, sync, rem, plain, host, void, set_cache_inv, (void))                         \
    SHMEMI_FN(cache, sync, rem, plain, host, void, clear_cache_line_inv, (void *dest))            \
    SHMEMI_FN(cache, sync, rem, plain, host, void, set_cache_line_inv, (void *dest))              \
    SHMEMI_FN(cache, sync, rem, plain, host, void, udcflush, (void))                              \
    SHMEMI_FN(cache, sync, rem, plain, host, void, udcflush_line, (void *dest))                   \
                                                                                                  \
    SHMEMI_FN(prof, profile, v15, plain, host, void, pcontrol, (const int level, ...))

/* ------------------------------------------------------------ RMA, typed */
/* Standard RMA types: put, get, their _nbi forms, p, g, iput, iget,
 * put-with-signal, and the team collectives that move elements. */
#define SHMEMI_OPS_RMA(T, N)                                                                      \
    SHMEMI_OP(rma, rma, v15, ctx, dev, T, N, void, N##_put,                                       \
              (T *dest, const T *source, size_t nelems, int pe), (dest, source, nelems, pe),      \
              put, (SHMEMI_B_PUT(sizeof(T), 0)))                                                  \
    SHMEMI_OP(rma, rma, v15, ctx, dev, T, N, void, N##_get,                                       \
              (T *dest, const T *source, size_t nelems, int pe), (dest, source, nelems, pe),      \
              get, (SHMEMI_B_GET(sizeof(T), 0)))                                                  \
    SHMEMI_OP(rma, rma, v15, ctx, dev, T, N, void, N##_put_nbi,                                   \
              (T *dest, const T *source, size_t nelems, int pe), (dest, source, nelems, pe),      \
              put_nbi, (SHMEMI_B_PUT(sizeof(T), 1)))                                              \
    SHMEMI_OP(rma, rma, v15, ctx, dev, T, N, void, N##_get_nbi,                                   \
              (T *dest, const T *source, size_t nelems, int pe), (dest, source, nelems, pe),      \
              get_nbi, (SHMEMI_B_GET(sizeof(T), 1)))                                              \
    SHMEMI_OP(rma, rma, v15, ctx, dev, T, N, void, N##_p, (T *dest, T value, int pe),             \
              (dest, value, pe), p, (SHMEMI_B_P()))                                               \
    SHMEMI_OP(rma, rma, v15, ctx, dev, T, N, T, N##_g, (const T *source, int pe), (source, pe),   \
              g, (SHMEMI_B_G(T)))                                                                 \
    SHMEMI_OP(rma, rma, v15, ctx, dev, T, N, void, N##_iput,                                      \
              (T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe),    \
              (dest, source, dst, sst, nelems, pe), iput, (SHMEMI_B_IPUT(sizeof(T))))             \
    SHMEMI_OP(rma, rma, v15, ctx, dev, T, N, void, N##_iget,                                      \
              (T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe),    \
              (dest, source, dst, sst, nelems, pe), iget, (SHMEMI_B_IGET(sizeof(T))))             \
    SHMEMI_OP(rma, rma, v16, ctx, host, T, N, void, N##_ibput,                                    \
              (T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize,              \
               size_t nblocks, int pe),                                                           \
              (dest, source, dst, sst, bsize, nblocks, pe), ibput, (SHMEMI_B_IBPUT(sizeof(T))))   \
    SHMEMI_OP(rma, rma, v16, ctx, host, T, N, void, N##_ibget,                                    \
              (T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize,              \
               size_t nblocks, int pe),                                                           \
              (dest, source, dst, sst, bsize, nblocks, pe), ibget, (SHMEMI_B_IBGET(sizeof(T))))   \
    SHMEMI_OP(signal, rma, v15, ctx, dev, T, N, void, N##_put_signal,                             \
              (T *dest, const T *source, size_t nelems, uint64_t *sig_addr, uint64_t signal,      \
               int sig_op, int pe),                                                               \
              (dest, source, nelems, sig_addr, signal, sig_op, pe), put_signal,                   \
              (SHMEMI_B_PUT_SIGNAL(sizeof(T), 0)))                                                \
    SHMEMI_OP(signal, rma, v15, ctx, dev, T, N, void, N##_put_signal_nbi,                         \
              (T *dest, const T *source, size_t nelems, uint64_t *sig_addr, uint64_t signal,      \
               int sig_op, int pe),                                                               \
              (dest, source, nelems, sig_addr, signal, sig_op, pe), put_signal_nbi,               \
              (SHMEMI_B_PUT_SIGNAL(sizeof(T), 1)))                                                \
    SHMEMI_OP(coll, coll, v15, plain, host, T, N, int, N##_broadcast,                             \
              (shmem_team_t team, T *dest, const T *source, size_t nelems, int PE_root),          \
              (team, dest, source, nelems, PE_root), broadcast, (SHMEMI_B_BROADCAST(sizeof(T))))  \
    SHMEMI_OP(coll, coll, v15, plain, host, T, N, int, N##_collect,                               \
              (shmem_team_t team, T *dest, const T *source, size_t nelems),                       \
              (team, dest, source, nelems), collect, (SHMEMI_B_COLLECT(sizeof(T))))               \
    SHMEMI_OP(coll, coll, v15, plain, host, T, N, int, N##_fcollect,                              \
              (shmem_team_t team, T *dest, const T *source, size_t nelems),                       \
              (team, dest, source, nelems), fcollect, (SHMEMI_B_FCOLLECT(sizeof(T))))             \
    SHMEMI_OP(coll, coll, v15, plain, host, T, N, int, N##_alltoall,                              \
              (shmem_team_t team, T *dest, const T *source, size_t nelems),                       \
              (team, dest, source, nelems), alltoall, (SHMEMI_B_ALLTOALL(sizeof(T))))             \
    SHMEMI_OP(coll, coll, v15, plain, host, T, N, int, N##_alltoalls,                             \
              (shmem_team_t team, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,         \
               size_t nelems),                                                                    \
              (team, dest, source, dst, sst, nelems), alltoalls, (SHMEMI_B_ALLTOALLS(sizeof(T))))

/* ------------------------------------------------- RMA, sized and untyped */
/* shmem_put<B> ... on elements of B bits (T is void, N the size). */
#define SHMEMI_OPS_SIZED(B)                                                                       \
    SHMEMI_OP(rma, rma, v15, ctx, hd, void, B, void, put##B,                                      \
              (void *dest, const void *source, size_t nelems, int pe),                            \
              (dest, source, nelems, pe), none, (SHMEMI_B_PUT((B) / 8, 0)))                       \
    SHMEMI_OP(rma, rma, v15, ctx, hd, void, B, void, get##B,                                      \
              (void *dest, const void *source, size_t nelems, int pe),                            \
              (dest, source, nelems, pe), none, (SHMEMI_B_GET((B) / 8, 0)))                       \
    SHMEMI_OP(rma, rma, v15, ctx, hd, void, B, void, put##B##_nbi,                                \
              (void *dest, const void *source, size_t nelems, int pe),                            \
              (dest, source, nelems, pe), none, (SHMEMI_B_PUT((B) / 8, 1)))                       \
    SHMEMI_OP(rma, rma, v15, ctx, hd, void, B, void, get##B##_nbi,                                \
              (void *dest, const void *source, size_t nelems, int pe),                            \
              (dest, source, nelems, pe), none, (SHMEMI_B_GET((B) / 8, 1)))                       \
    SHMEMI_OP(rma, rma, v15, ctx, hd, void, B, void, iput##B,                                     \
              (void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,       \
               int pe),                                                                           \
              (dest, source, dst, sst, nelems, pe), none, (SHMEMI_B_IPUT((B) / 8)))               \
    SHMEMI_OP(rma, rma, v15, ctx, hd, void, B, void, iget##B,                                     \
              (void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,       \
               int pe),                                                                           \
              (dest, source, dst, sst, nelems, pe), none, (SHMEMI_B_IGET((B) / 8)))               \
    SHMEMI_OP(rma, rma, v16, ctx, host, void, B, void, ibput##B,                                  \
              (void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize,        \
               size_t nblocks, int pe),                                                           \
              (dest, source, dst, sst, bsize, nblocks, pe), none, (SHMEMI_B_IBPUT((B) / 8)))      \
    SHMEMI_OP(rma, rma, v16, ctx, host, void, B, void, ibget##B,                                  \
              (void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize,        \
               size_t nblocks, int pe),                                                           \
              (dest, source, dst, sst, bsize, nblocks, pe), none, (SHMEMI_B_IBGET((B) / 8)))      \
    SHMEMI_OP(signal, rma, v15, ctx, hd, void, B, void, put##B##_signal,                          \
              (void *dest, const void *source, size_t nelems, uint64_t *sig_addr,                 \
               uint64_t signal, int sig_op, int pe),                                              \
              (dest, source, nelems, sig_addr, signal, sig_op, pe), none,                         \
              (SHMEMI_B_PUT_SIGNAL((B) / 8, 0)))                                                  \
    SHMEMI_OP(signal, rma, v15, ctx, hd, void, B, void, put##B##_signal_nbi,                      \
              (void *dest, const void *source, size_t nelems, uint64_t *sig_addr,                 \
               uint64_t signal, int sig_op, int pe),                                              \
              (dest, source, nelems, sig_addr, signal, sig_op, pe), none,                         \
              (SHMEMI_B_PUT_SIGNAL((B) / 8, 1)))

/* The byte ("mem") forms of RMA, put-with-signal and the team collectives. */
#define SHMEMI_OPS_MEM()                                                                          \
    SHMEMI_OP(rma, rma, v15, ctx, dev, void, mem, void, putmem,                                   \
              (void *dest, const void *source, size_t nelems, int pe),                            \
              (dest, source, nelems, pe), none, (SHMEMI_B_PUT(1, 0)))                             \
    SHMEMI_OP(rma, rma, v15, ctx, dev, void, mem, void, getmem,                                   \
              (void *dest, const void *source, size_t nelems, int pe),                            \
              (dest, source, nelems, pe), none, (SHMEMI_B_GET(1, 0)))                             \
    SHMEMI_OP(rma, rma, v15, ctx, dev, void, mem, void, putmem_nbi,                               \
              (void *dest, const void *source, size_t nelems, int pe),                            \
              (dest, source, nelems, pe), none, (SHMEMI_B_PUT(1, 1)))                             \
    SHMEMI_OP(rma, rma, v15, ctx, dev, void, mem, void, getmem_nbi,                               \
              (void *dest, const void *source, size_t nelems, int pe),                            \
              (dest, source, nelems, pe), none, (SHMEMI_B_GET(1, 1)))                             \
    SHMEMI_OP(signal, rma, v15, ctx, dev, void, mem, void, putmem_signal,                         \
              (void *dest, const void *source, size_t nelems, uint64_t *sig_addr,                 \
               uint64_t signal, int sig_op, int pe),                                              \
              (dest, source, nelems, sig_addr, signal, sig_op, pe), none,                         \
              (SHMEMI_B_PUT_SIGNAL(1, 0)))                                                        \
    SHMEMI_OP(signal, rma, v15, ctx, dev, void, mem, void, putmem_signal_nbi,                     \
              (void *dest, const void *source, size_t nelems, uint64_t *sig_addr,                 \
               uint64_t signal, int sig_op, int pe),                                              \
              (dest, source, nelems, sig_addr, signal, sig_op, pe), none,                         \
              (SHMEMI_B_PUT_SIGNAL(1, 1)))                                                        \
    SHMEMI_OP(coll, coll, v15, plain, host, void, mem, int, broadcastmem,                         \
              (shmem_team_t team, void *dest, const void *source, size_t nelems, int PE_root),    \
              (team, dest, source, nelems, PE_root), none, (SHMEMI_B_BROADCAST(1)))               \
    SHMEMI_OP(coll, coll, v15, plain, host, void, mem, int, collectmem,                           \
              (shmem_team_t team, void *dest, const void *source, size_t nelems),                 \
              (team, dest, source, nelems), none, (SHMEMI_B_COLLECT(1)))                          \
    SHMEMI_OP(coll, coll, v15, plain, host, void, mem, int, fcollectmem,                          \
              (shmem_team_t team, void *dest, const void *source, size_t nelems),                 \
              (team, dest, source, nelems), none, (SHMEMI_B_FCOLLECT(1)))                         \
    SHMEMI_OP(coll, coll, v15, plain, host, void, mem, int, alltoallmem,                          \
              (shmem_team_t team, void *dest, const void *source, size_t nelems),                 \
              (team, dest, source, nelems), none, (SHMEMI_B_ALLTOALL(1)))                         \
    SHMEMI_OP(coll, coll, v15, plain, host, void, mem, int, alltoallsmem,                         \
              (shmem_team_t team, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,   \
               size_t nelems),                                                                    \
              (team, dest, source, dst, sst, nelems), none, (SHMEMI_B_ALLTOALLS(1)))

/* Deprecated active-set collectives on elements of B bits. */
#define SHMEMI_OPS_COLL_DEPR(B)                                                                   \
    SHMEMI_OP(coll, coll, dep, plain, host, void, B, void, broadcast##B,                          \
              (void *dest, const void *source, size_t nelems, int PE_root, int PE_start,          \
               int logPE_stride, int PE_size, long *pSync),                                       \
              (dest, source, nelems, PE_root, PE_start, logPE_stride, PE_size, pSync), none,      \
              (SHMEMI_B_BROADCAST_SET((B) / 8)))                                                  \
    SHMEMI_OP(coll, coll, dep, plain, host, void, B, void, collect##B,                            \
              (void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride,     \
               int PE_size, long *pSync),                                                         \
              (dest, source, nelems, PE_start, logPE_stride, PE_size, pSync), none,               \
              (SHMEMI_B_COLLECT_SET((B) / 8)))                                                    \
    SHMEMI_OP(coll, coll, dep, plain, host, void, B, void, fcollect##B,                           \
              (void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride,     \
               int PE_size, long *pSync),                                                         \
              (dest, source, nelems, PE_start, logPE_stride, PE_size, pSync), none,               \
              (SHMEMI_B_FCOLLECT_SET((B) / 8)))                                                   \
    SHMEMI_OP(coll, coll, dep, plain, host, void, B, void, alltoall##B,                           \
              (void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride,     \
               int PE_size, long *pSync),                                                         \
              (dest, source, nelems, PE_start, logPE_stride, PE_size, pSync), none,               \
              (SHMEMI_B_ALLTOALL_SET((B) / 8)))                                                   \
    SHMEMI_OP(coll, coll, dep, plain, host, void, B, void, alltoalls##B,                          \
              (void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,       \
               int PE_start, int logPE_stride, int PE_size, long *pSync),                         \
              (dest, source, dst, sst, nelems, PE_start, logPE_stride, PE_size, pSync), none,     \
              (SHMEMI_B_ALLTOALLS_SET((B) / 8)))

/* -------------------------------------------------------------------- AMOs */
/* Extended AMO types: fetch, set, swap (and the fetching _nbi forms). */
#define SHMEMI_OPS_AMO_EXT(T, N)                                                                  \
    SHMEMI_OP(amo, amo, v15, ctx, dev, T, N, T, N##_atomic_fetch, (const T *source, int pe),      \
              (source, pe), atomic_fetch, (SHMEMI_B_AMO_FETCH(T, FETCH, source, 0, 0)))           \
    SHMEMI_OP(amo, amo, v15, ctx, dev, T, N, void, N##_atomic_set, (T *dest, T value, int pe),    \
              (dest, value, pe), atomic_set, (SHMEMI_B_AMO(T, SET, dest, value, 0)))              \
    SHMEMI_OP(amo, amo, v15, ctx, dev, T, N, T, N##_atomic_swap, (T *dest, T value, int pe),      \
              (dest, value, pe), atomic_swap, (SHMEMI_B_AMO_FETCH(T, SWAP, dest, value, 0)))      \
    SHMEMI_OP(amo, amo, v15, ctx, dev, T, N, void, N##_atomic_fetch_nbi,                          \
              (T *fetch, const T *source, int pe), (fetch, source, pe), atomic_fetch_nbi,         \
              (SHMEMI_B_AMO_NBI(T, FETCH, source, 0, 0)))                                         \
    SHMEMI_OP(amo, amo, v15, ctx, dev, T, N, void, N##_atomic_swap_nbi,                           \
              (T *fetch, T *dest, T value, int pe), (fetch, dest, value, pe), atomic_swap_nbi,    \
              (SHMEMI_B_AMO_NBI(T, SWAP, dest, value, 0)))

/* Standard AMO types: compare_swap, fetch_inc, inc, fetch_add, add. */
#define SHMEMI_OPS_AMO_STD(T, N)                                                                  \
    SHMEMI_OP(amo, amo, v15, ctx, dev, T, N, T, N##_atomic_compare_swap,                          \
              (T *dest, T cond, T value, int pe), (dest, cond, value, pe), atomic_compare_swap,   \
              (SHMEMI_B_AMO_FETCH(T, CSWAP, dest, value, cond)))                                  \
    SHMEMI_OP(amo, amo, v15, ctx, dev, T, N, T, N##_atomic_fetch_inc, (T *dest, int pe),          \
              (dest, pe), atomic_fetch_inc, (SHMEMI_B_AMO_FETCH(T, ADD, dest, 1, 0)))             \
    SHMEMI_OP(amo, amo, v15, ctx, dev, T, N, void, N##_atomic_inc, (T *dest, int pe), (dest, pe), \
              atomic_inc, (SHMEMI_B_AMO(T, ADD, dest, 1, 0)))                                     \
    SHMEMI_OP(amo, amo, v15, ctx, dev, T, N, T, N##_atomic_fetch_add,                             \
              (T *dest, T value, int pe), (dest, value, pe), atomic_fetch_add,                    \
              (SHMEMI_B_AMO_FETCH(T, ADD, dest, value, 0)))                                       \
    SHMEMI_OP(amo, amo, v15, ctx, dev, T, N, void, N##_atomic_add, (T *dest, T value, int pe),    \
              (dest, value, pe), atomic_add, (SHMEMI_B_AMO(T, ADD, dest, value, 0)))              \
    SHMEMI_OP(amo, amo, v15, ctx, dev, T, N, void, N##_atomic_compare_swap_nbi,                   \
              (T *fetch, T *dest, T cond, T value, int pe), (fetch, dest, cond, value, pe),       \
              atomic_compare_swap_nbi, (SHMEMI_B_AMO_NBI(T, CSWAP, dest, value, cond)))           \
    SHMEMI_OP(amo, amo, v15, ctx, dev, T, N, void, N##_atomic_fetch_inc_nbi,                      \
              (T *fetch, T *dest, int pe), (fetch, dest, pe), atomic_fetch_inc_nbi,               \
              (SHMEMI_B_AMO_NBI(T, ADD, dest, 1, 0)))                                             \
    SHMEMI_OP(amo, amo, v15, ctx, dev, T, N, void, N##_atomic_fetch_add_nbi,                      \
              (T *fetch, T *dest, T value, int pe), (fetch, dest, value, pe),                     \
              atomic_fetch_add_nbi, (SHMEMI_B_AMO_NBI(T, ADD, dest, value, 0)))

/* Bitwise AMO types: and, or, xor, fetching and not, and the fetching _nbi forms. */
#define SHMEMI_OPS_AMO_BIT_OP(T, N, OP, CODE, V, WHERE)                                           \
    SHMEMI_OP(amo, amo, V, ctx, WHERE, T, N, T, N##_atomic_fetch_##OP,                            \
              (T *dest, T value, int pe), (dest, value, pe), atomic_fetch_##OP,                   \
              (SHMEMI_B_AMO_FETCH(T, CODE, dest, value, 0)))                                      \
    SHMEMI_OP(amo, amo, V, ctx, WHERE, T, N, void, N##_atomic_##OP, (T *dest, T value, int pe),   \
              (dest, value, pe), atomic_##OP, (SHMEMI_B_AMO(T, CODE, dest, value, 0)))            \
    SHMEMI_OP(amo, amo, V, ctx, WHERE, T, N, void, N##_atomic_fetch_##OP##_nbi,                   \
              (T *fetch, T *dest, T value, int pe), (fetch, dest, value, pe),                     \
              atomic_fetch_##OP##_nbi, (SHMEMI_B_AMO_NBI(T, CODE, dest, value, 0)))
#define SHMEMI_OPS_AMO_BIT_V(T, N, V, WHERE)                                                      \
    SHMEMI_OPS_AMO_BIT_OP(T, N, and, AND, V, WHERE)                                               \
    SHMEMI_OPS_AMO_BIT_OP(T, N, or, OR, V, WHERE)                                                 \
    SHMEMI_OPS_AMO_BIT_OP(T, N, xor, XOR, V, WHERE)
#define SHMEMI_OPS_AMO_BIT(T, N) SHMEMI_OPS_AMO_BIT_V(T, N, v15, dev)
/* On the host only: kernels keep the spec's table. */
#define SHMEMI_OPS_AMO_BIT_EXT(T, N) SHMEMI_OPS_AMO_BIT_V(T, N, ext, host)

/* Deprecated AMO names (OpenSHMEM 1.3 spelling), on the default context. */
#define SHMEMI_OPS_AMO_DEPR_STD(T, N)                                                             \
    SHMEMI_OP(amo, amo, dep, def, host, T, N, T, N##_cswap, (T *dest, T cond, T value, int pe),   \
              (dest, cond, value, pe), cswap, (SHMEMI_B_AMO_FETCH(T, CSWAP, dest, value, cond)))  \
    SHMEMI_OP(amo, amo, dep, def, host, T, N, T, N##_finc, (T *dest, int pe), (dest, pe), finc,   \
              (SHMEMI_B_AMO_FETCH(T, ADD, dest, 1, 0)))                                           \
    SHMEMI_OP(amo, amo, dep, def, host, T, N, void, N##_inc, (T *dest, int pe), (dest, pe), inc,  \
              (SHMEMI_B_AMO(T, ADD, dest, 1, 0)))                                                 \
    SHMEMI_OP(amo, amo, dep, def, host, T, N, T, N##_fadd, (T *dest, T value, int pe),            \
              (dest, value, pe), fadd, (SHMEMI_B_AMO_FETCH(T, ADD, dest, value, 0)))              \
    SHMEMI_OP(amo, amo, dep, def, host, T, N, void, N##_add, (T *dest, T value, int pe),          \
              (dest, value, pe), add, (SHMEMI_B_AMO(T, ADD, dest, value, 0)))
#define SHMEMI_OPS_AMO_DEPR_EXT(T, N)                                                             \
    SHMEMI_OP(amo, amo, dep, def, host, T, N, T, N##_fetch, (const T *source, int pe),            \
              (source, pe), fetch, (SHMEMI_B_AMO_FETCH(T, FETCH, source, 0, 0)))                  \
    SHMEMI_OP(amo, amo, dep, def, host, T, N, void, N##_set, (T *dest, T value, int pe),          \
              (dest, value, pe), set, (SHMEMI_B_AMO(T, SET, dest, value, 0)))                     \
    SHMEMI_OP(amo, amo, dep, def, host, T, N, T, N##_swap, (T *dest, T value, int pe),            \
              (dest, value, pe), swap, (SHMEMI_B_AMO_FETCH(T, SWAP, dest, value, 0)))

/* ------------------------------------------- point-to-point synchronization */
/* The _vector forms compare element i with cmp_values[i] (const since 1.6).
 * VW is the version of wait_until and test, VA of the other families: 1.5
 * defines them on the standard AMO types and deprecates wait_until and test
 * on short and unsigned short; the other families on those two are names
 * other implementations ship (ext). */
#define SHMEMI_OPS_P2P_V(T, N, VW, VA)                                                            \
    SHMEMI_OP(p2p, sync, VW, plain, dev, T, N, void, N##_wait_until,                              \
              (T *ivar, int cmp, T cmp_value), (ivar, cmp, cmp_value), wait_until,                \
              (SHMEMI_B_WAIT_UNTIL(N)))                                                           \
    SHMEMI_OP(p2p, sync, VA, plain, dev, T, N, void, N##_wait_until_all,                          \
              (T *ivars, size_t nelems, const int *status, int cmp, T cmp_value),                 \
              (ivars, nelems, status, cmp, cmp_value), wait_until_all,                            \
              (SHMEMI_B_WAIT_ALL(N, cmp_value, NULL)))                                            \
    SHMEMI_OP(p2p, sync, VA, plain, dev, T, N, size_t, N##_wait_until_any,                        \
              (T *ivars, size_t nelems, const int *status, int cmp, T cmp_value),                 \
              (ivars, nelems, status, cmp, cmp_value), wait_until_any,                            \
              (SHMEMI_B_WAIT_ANY(N, cmp_value, NULL)))                                            \
    SHMEMI_OP(p2p, sync, VA, plain, dev, T, N, size_t, N##_wait_until_some,                       \
              (T *ivars, size_t nelems, size_t *indices, const int *status, int cmp,              \
               T cmp_value),                                                                      \
              (ivars, nelems, indices, status, cmp, cmp_value), wait_until_some,                  \
              (SHMEMI_B_WAIT_SOME(N, cmp_value, NULL)))                                           \
    SHMEMI_OP(p2p, sync, VA, plain, dev, T, N, void, N##_wait_until_all_vector,                   \
              (T *ivars, size_t nelems, const int *status, int cmp, const T *cmp_values),         \
              (ivars, nelems, status, cmp, cmp_values), wait_until_all_vector,                    \
              (SHMEMI_B_WAIT_ALL(N, 0, cmp_values)))                                              \
    SHMEMI_OP(p2p, sync, VA, plain, dev, T, N, size_t, N##_wait_until_any_vector,                 \
              (T *ivars, size_t nelems, const int *status, int cmp, const T *cmp_values),         \
              (ivars, nelems, status, cmp, cmp_values), wait_until_any_vector,                    \
              (SHMEMI_B_WAIT_ANY(N, 0, cmp_values)))                                              \
    SHMEMI_OP(p2p, sync, VA, plain, dev, T, N, size_t, N##_wait_until_some_vector,                \
              (T *ivars, size_t nelems, size_t *indices, const int *status, int cmp,              \
               const T *cmp_values),                                                              \
              (ivars, nelems, indices, status, cmp, cmp_values), wait_until_some_vector,          \
              (SHMEMI_B_WAIT_SOME(N, 0, cmp_values)))                                             \
    SHMEMI_OP(p2p, sync, VW, plain, dev, T, N, int, N##_test, (T *ivar, int cmp, T cmp_value),    \
              (ivar, cmp, cmp_value), test, (SHMEMI_B_TEST(N)))                                   \
    SHMEMI_OP(p2p, sync, VA, plain, dev, T, N, int, N##_test_all,                                 \
              (T *ivars, size_t nelems, const int *status, int cmp, T cmp_value),                 \
              (ivars, nelems, status, cmp, cmp_value), test_all,                                  \
              (SHMEMI_B_TEST_ALL(N, cmp_value, NULL)))                                            \
    SHMEMI_OP(p2p, sync, VA, plain, dev, T, N, size_t, N##_test_any,                              \
              (T *ivars, size_t nelems, const int *status, int cmp, T cmp_value),                 \
              (ivars, nelems, status, cmp, cmp_value), test_any,                                  \
              (SHMEMI_B_TEST_ANY(N, cmp_value, NULL)))                                            \
    SHMEMI_OP(p2p, sync, VA, plain, dev, T, N, size_t, N##_test_some,                             \
              (T *ivars, size_t nelems, size_t *indices, const int *status, int cmp,              \
               T cmp_value),                                                                      \
              (ivars, nelems, indices, status, cmp, cmp_value), test_some,                        \
              (SHMEMI_B_TEST_SOME(N, cmp_value, NULL)))                                           \
    SHMEMI_OP(p2p, sync, VA, plain, dev, T, N, int, N##_test_all_vector,                          \
              (T *ivars, size_t nelems, const int *status, int cmp, const T *cmp_values),         \
              (ivars, nelems, status, cmp, cmp_values), test_all_vector,                          \
              (SHMEMI_B_TEST_ALL(N, 0, cmp_values)))                                              \
    SHMEMI_OP(p2p, sync, VA, plain, dev, T, N, size_t, N##_test_any_vector,                       \
              (T *ivars, size_t nelems, const int *status, int cmp, const T *cmp_values),         \
              (ivars, nelems, status, cmp, cmp_values), test_any_vector,                          \
              (SHMEMI_B_TEST_ANY(N, 0, cmp_values)))                                              \
    SHMEMI_OP(p2p, sync, VA, plain, dev, T, N, size_t, N##_test_some_vector,                      \
              (T *ivars, size_t nelems, size_t *indices, const int *status, int cmp,              \
               const T *cmp_values),                                                              \
              (ivars, nelems, indices, status, cmp, cmp_values), test_some_vector,                \
              (SHMEMI_B_TEST_SOME(N, 0, cmp_values)))
#define SHMEMI_OPS_P2P(T, N) SHMEMI_OPS_P2P_V(T, N, v15, v15)
#define SHMEMI_OPS_P2P_SHORT(T, N) SHMEMI_OPS_P2P_V(T, N, dep, ext)

/* Deprecated shmem_<T>_wait: wait while *ivar equals cmp_value. */
#define SHMEMI_OPS_WAIT_DEPR(T, N)                                                                \
    SHMEMI_OP(p2p, sync, dep, plain, host, T, N, void, N##_wait, (T *ivar, T cmp_value),          \
              (ivar, cmp_value), wait, (SHMEMI_B_WAIT(N)))

/* ------------------------------------------------------------- reductions */
#define SHMEMI_OPS_REDUCE_V(T, N, OP, VER)                                                        \
    SHMEMI_OP(coll, coll, VER, plain, host, T, N, int, N##_##OP##_reduce,                         \
              (shmem_team_t team, T *dest, const T *source, size_t nreduce),                      \
              (team, dest, source, nreduce), OP##_reduce, (SHMEMI_B_REDUCE(N, OP)))
#define SHMEMI_OPS_REDUCE(T, N, OP) SHMEMI_OPS_REDUCE_V(T, N, OP, v15)
#define SHMEMI_OPS_REDUCE_BIT(T, N)                                                               \
    SHMEMI_OPS_REDUCE(T, N, and) SHMEMI_OPS_REDUCE(T, N, or) SHMEMI_OPS_REDUCE(T, N, xor)
#define SHMEMI_OPS_REDUCE_MINMAX(T, N) SHMEMI_OPS_REDUCE(T, N, max) SHMEMI_OPS_REDUCE(T, N, min)
#define SHMEMI_OPS_REDUCE_ARITH(T, N) SHMEMI_OPS_REDUCE(T, N, sum) SHMEMI_OPS_REDUCE(T, N, prod)
/* Bitwise reductions on types outside the spec's table that other
 * implementations accept (long long: int64_t is long here). */
#define SHMEMI_OPS_REDUCE_BIT_EXT(T, N)                                                           \
    SHMEMI_OPS_REDUCE_V(T, N, and, ext)                                                           \
    SHMEMI_OPS_REDUCE_V(T, N, or, ext) SHMEMI_OPS_REDUCE_V(T, N, xor, ext)

/* Scans (1.6): inclusive and exclusive prefix sums over a team. */
#define SHMEMI_OPS_SCAN(T, N)                                                                     \
    SHMEMI_OP(coll, coll, v16, plain, host, T, N, int, N##_sum_inscan,                            \
              (shmem_team_t team, T *dest, const T *source, size_t nelems),                       \
              (team, dest, source, nelems), sum_inscan, (SHMEMI_B_SCAN(N, 1)))                    \
    SHMEMI_OP(coll, coll, v16, plain, host, T, N, int, N##_sum_exscan,                            \
              (shmem_team_t team, T *dest, const T *source, size_t nelems),                       \
              (team, dest, source, nelems), sum_exscan, (SHMEMI_B_SCAN(N, 0)))

/* Deprecated active-set reductions (pWrk is not used). */
#define SHMEMI_OPS_TO_ALL(T, N, OP)                                                               \
    SHMEMI_OP(coll, coll, dep, plain, host, T, N, void, N##_##OP##_to_all,                        \
              (T *dest, const T *source, int nreduce, int PE_start, int logPE_stride,             \
               int PE_size, T *pWrk, long *pSync),                                                \
              (dest, source, nreduce, PE_start, logPE_stride, PE_size, pWrk, pSync), none,        \
              (SHMEMI_B_TO_ALL(N, OP)))
#define SHMEMI_OPS_TO_ALL_BIT(T, N)                                                               \
    SHMEMI_OPS_TO_ALL(T, N, and) SHMEMI_OPS_TO_ALL(T, N, or) SHMEMI_OPS_TO_ALL(T, N, xor)
#define SHMEMI_OPS_TO_ALL_MINMAX(T, N) SHMEMI_OPS_TO_ALL(T, N, max) SHMEMI_OPS_TO_ALL(T, N, min)
#define SHMEMI_OPS_TO_ALL_ARITH(T, N) SHMEMI_OPS_TO_ALL(T, N, sum) SHMEMI_OPS_TO_ALL(T, N, prod)

/* ------------------------------------------------------------ everything */
/* Every row, for every type of its list. */
#define SHMEMI_OPS_ALL()                                                                          \
    SHMEMI_OPS_UNTYPED()                                                                          \
    SHMEMI_RMA_TYPES(SHMEMI_OPS_RMA)                                                              \
    SHMEMI_RMA_SIZES(SHMEMI_OPS_SIZED)                                                            \
    SHMEMI_OPS_MEM()                                                                              \
    SHMEMI_AMO_EXT_TYPES(SHMEMI_OPS_AMO_EXT)                                                      \
    SHMEMI_AMO_STD_TYPES(SHMEMI_OPS_AMO_STD)                                                      \
    SHMEMI_AMO_BIT_TYPES(SHMEMI_OPS_AMO_BIT)                                                      \
    SHMEMI_AMO_BIT_EXT_TYPES(SHMEMI_OPS_AMO_BIT_EXT)                                              \
    SHMEMI_AMO_DEPR_STD_TYPES(SHMEMI_OPS_AMO_DEPR_STD)                                            \
    SHMEMI_AMO_DEPR_EXT_TYPES(SHMEMI_OPS_AMO_DEPR_EXT)                                            \
    SHMEMI_P2P_TYPES(SHMEMI_OPS_P2P)                                                              \
    SHMEMI_P2P_DEPR_TYPES(SHMEMI_OPS_P2P_SHORT)                                                   \
    SHMEMI_WAIT_DEPR_TYPES(SHMEMI_OPS_WAIT_DEPR)                                                  \
    SHMEMI_REDUCE_BIT_TYPES(SHMEMI_OPS_REDUCE_BIT)                                                \
    SHMEMI_REDUCE_MINMAX_TYPES(SHMEMI_OPS_REDUCE_MINMAX)                                          \
    SHMEMI_REDUCE_ARITH_TYPES(SHMEMI_OPS_REDUCE_ARITH)                                            \
    SHMEMI_REDUCE_BIT_EXT_TYPES(SHMEMI_OPS_REDUCE_BIT_EXT)                                        \
    SHMEMI_REDUCE_ARITH_TYPES(SHMEMI_OPS_SCAN)                                                    \
    SHMEMI_COLL_DEPR_SIZES(SHMEMI_OPS_COLL_DEPR)                                                  \
    SHMEMI_TO_ALL_BIT_TYPES(SHMEMI_OPS_TO_ALL_BIT)                                                \
    SHMEMI_TO_ALL_MINMAX_TYPES(SHMEMI_OPS_TO_ALL_MINMAX)                                          \
    SHMEMI_TO_ALL_ARITH_TYPES(SHMEMI_OPS_TO_ALL_ARITH)

/* Deprecated C11 generic names and their replacements: X(OLD, NEW). A
 * deprecated name takes every type of its replacement's table (1.4 defined
 * them on the same tables); where no deprecated typed routine exists it
 * selects the replacement's (shmem.h; include/gen/gen_api.c). */
#define SHMEMI_GENERIC_REPLACED(X)                                                                \
    X(cswap, atomic_compare_swap)                                                                 \
    X(finc, atomic_fetch_inc)                                                                     \
    X(inc, atomic_inc)                                                                            \
    X(fadd, atomic_fetch_add)                                                                     \
    X(add, atomic_add)                                                                            \
    X(fetch, atomic_fetch)                                                                        \
    X(set, atomic_set)                                                                            \
    X(swap, atomic_swap)

/* ------------------------------------------------------ expansion helpers */
#define SHMEMI_UNPAREN(...) __VA_ARGS__
#define SHMEMI_CAT(a, b) SHMEMI_CAT_I(a, b)
#define SHMEMI_CAT_I(a, b) a##b
#define SHMEMI_STR(...) SHMEMI_STR_I(__VA_ARGS__)
#define SHMEMI_STR_I(...) #__VA_ARGS__
/* SHMEMI_PROBE(x) is 1 when x expands to `~, 1`, else 0. */
#define SHMEMI_PROBE_SECOND(a, b, ...) b
#define SHMEMI_PROBE(...) SHMEMI_PROBE_SECOND(__VA_ARGS__, 0, ~)
/* SHMEMI_WHEN(c, F, (args)) is F args when c is 1, nothing when c is 0
 * (F args is formed only when taken). */
#define SHMEMI_WHEN(c, F, args) SHMEMI_CAT(SHMEMI_WHEN_, c)(F, args)
#define SHMEMI_WHEN_0(F, args)
#define SHMEMI_WHEN_1(F, args) F args

/* clang-format on */

#endif
