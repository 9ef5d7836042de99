/* Collectives: broadcast, collect, fcollect, alltoall, alltoalls, the
 * reductions and the scans, on teams (OpenSHMEM 1.5) and on active sets with a pSync (the
 * deprecated forms).
 *
 * A collective is a sync, copies between the members' memory, and a sync;
 * a copy is a memcpy between mappings for the PEs of this node and a
 * transfer of the fabric for the others (shmemi_sym_get/put):
 *   broadcast  every member copies the root's source into its dest (pull;
 *              large ones through a fabric: the root pushes);
 *   collect    members publish their sizes, then each pulls every source
 *              (through a fabric: each member's message carries its size and
 *              block, or the sizes alone and then each pushes its own);
 *   fcollect   each member pulls every source (large ones through a fabric:
 *              each member pushes its own);
 *   alltoall   each member writes its blocks into the peers' dests (push);
 *   reduce     member i reduces slice i of the array over every member's
 *              source and writes the result into every member's dest slice
 *              (reduce-scatter and allgather in one step: each element is
 *              read n times and written n times in all, and every member gets
 *              the same bits, combined in member order).
 * The first sync makes the sources ready and the dests free; the last one
 * finishes every copy before any member returns (and reuses its source).
 * Both are full barriers with epochs that only grow (or the pSync protocol,
 * which restores its words), so back-to-back collectives cannot race. Where
 * they can, the collectives take an exchange of messages instead, without
 * the barriers (shmem/coll_exchange.c). */
#include "shmem/coll_exchange.h"

#define SHMEMI_FILE coll
#include "shmem/api.h"

#include <stdlib.h>

/* Barrier among the members. The copies of a collective are memcpy calls,
 * which for large sizes use non-temporal stores (memcpy's, or
 * sdma_copy_bytes') that a release store does not order: the full fence
 * makes every copy of this PE visible before the sync's release stores,
 * which the peers acquire. */
static void grp_sync(const struct grp *g) {
    shmemi_sym_quiet(g->fn); /* this PE's fabric puts of the collective are visible */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (g->team)
        shmemi_team_sync(g->team, g->fn);
    else
        shmemi_sync_active_set(g->start, g->log_stride, g->size, g->psync, g->fn);
}

/* Publish a word for the members: released by the next grp_sync. Only this
 * PE writes it; peers read it between that sync and the one after. */
static void grp_post(const struct grp *g, uint64_t v) {
    __atomic_store_n(g->post, v, __ATOMIC_RELAXED);
}
/* Member i's published word (ordered after the sync's acquire): a team's is
 * in the member's control block, an active set's in its pSync. */
static uint64_t grp_read(const struct grp *g, int i) {
    if (g->team)
        return shmemi_word_load(grp_pe(g, i), g->post, g->fn);
    uint64_t v;
    shmemi_sym_get(&v, g->post, sizeof(v), grp_pe(g, i), g->fn);
    return v;
}
/* After the last sync: an active set's pSync word back to SHMEM_SYNC_VALUE. */
static void grp_unpost(const struct grp *g) {
    if (!g->team)
        __atomic_store_n(g->post, (uint64_t)SHMEM_SYNC_VALUE, __ATOMIC_RELAXED);
}

static int grp_team(struct grp *g, shmem_team_t team, const char *fn) {
    const struct shmemi_team *t = shmemi_team_get(team, fn);
    if (!t) {
        shmemi_debug("%s: not a valid team", fn);
        return -1;
    }
    *g = (struct grp){.start = t->start,
                      .stride = t->stride,
                      .size = t->size,
                      .me = t->my_pe,
                      .team = t,
                      .post = &shmemi_ctl_of(shmemi.my_pe)->team[t->slot].post.v,
                      .fn = fn};
    return 0;
}

/* pSync[0] and pSync[1] belong to the active-set barrier; pSync[2] is the
 * published word. */
_Static_assert(SHMEM_BCAST_SYNC_SIZE >= 3 && SHMEM_REDUCE_SYNC_SIZE >= 3 &&
                   SHMEM_COLLECT_SYNC_SIZE >= 3 && SHMEM_ALLTOALL_SYNC_SIZE >= 3 &&
                   SHMEM_ALLTOALLS_SYNC_SIZE >= 3,
               "an active-set collective uses three pSync words");
static void grp_active_set(struct grp *g, int start, int log_stride, int size, long *psync,
                           const char *fn) {
    shmemi_check_init(fn);
    if (size < 1 || start < 0 || log_stride < 0 || log_stride > 30)
        shmemi_fatal("%s: invalid active set (PE_start %d, logPE_stride %d, PE_size %d)", fn, start,
                     log_stride, size);
    long stride = 1L << log_stride;
    long last = start + (long)(size - 1) * stride;
    long rel = shmemi.my_pe - start;
    if (last >= shmemi.n_pes || rel < 0 || rel % stride || rel / stride >= size)
        shmemi_fatal("%s: PE %d is not in the active set (PE_start %d, logPE_stride %d, PE_size "
                     "%d) of a %d-PE job",
                     fn, shmemi.my_pe, start, log_stride, size, shmemi.n_pes);
    shmemi_remote(psync, 3 * sizeof(long), shmemi.my_pe, fn);
    *g = (struct grp){.start = start,
                      .stride = (int)stride,
                      .size = size,
                      .me = (int)(rel / stride),
                      .psync = psync,
                      .log_stride = log_stride,
                      /* long and uint64_t are variants of one type here */
                      .post = (uint64_t *)&psync[2],
                      .fn = fn};
}

/* ---------------------------------------------------------------- the cores */

/* A collective of zero elements does nothing: every member passes the same
 * count (collect excepted: each member passes its own). */
static int do_broadcast(const struct grp *g, void *dest, const void *src, size_t bytes, int root,
                        int root_too) {
    if (!bytes)
        return 0;
    if (root < 0 || root >= g->size) {
        if (!g->team)
            shmemi_fatal("%s: PE_root %d is not in the active set of %d PEs", g->fn, root, g->size);
        shmemi_debug("%s: PE_root %d is not in the team of %d PEs", g->fn, root, g->size);
        return -1;
    }
    check_sym(dest, bytes, g->fn);
    check_sym(src, bytes, g->fn);
    if (shmemi_ll_broadcast(g, dest, src, bytes, root, root_too) ||
        shmemi_push_broadcast(g, dest, src, bytes, root, root_too))
        return 0;
    grp_sync(g); /* the root's source is ready, every dest is free */
    if (g->me != root)
        shmemi_sym_get(dest, src, bytes, grp_pe(g, root), g->fn);
    else if (root_too && dest != src)
        memmove(dest, src, bytes);
    grp_sync(g); /* every copy done: the root may change its source */
    return 0;
}

static int do_collect(const struct grp *g, void *dest, const void *src, size_t bytes) {
    check_sym(src, bytes, g->fn);
    if (shmemi_ll_collect(g, dest, src, bytes))
        return 0;
    grp_post(g, bytes);
    grp_sync(g); /* sizes published, sources ready, dests free */
    size_t total = 0, off = 0;
    for (int i = 0; i < g->size; i++)
        total += grp_read(g, i);
    check_sym(dest, total, g->fn);
    for (int i = 0; i < g->size; i++) {
        size_t n = grp_read(g, i);
        shmemi_sym_get((char *)dest + off, src, n, grp_pe(g, i), g->fn);
        off += n;
    }
    grp_sync(g); /* every pull done; sizes may be published again */
    grp_unpost(g);
    return 0;
}

static int do_fcollect(const struct grp *g, void *dest, const void *src, size_t bytes) {
    if (!bytes)
        return 0;
    size_t total = shmemi_bytes((size_t)g->size, bytes, g->fn);
    check_sym(dest, total, g->fn);
    check_sym(src, bytes, g->fn);
    if (shmemi_ll_gather(g, dest, src, bytes, 0) || shmemi_push_gather(g, dest, src, bytes, 0))
        return 0;
    grp_sync(g);
    /* Start with the next member so that the members do not all read the
     * same source at once. */
    for (int k = 0; k < g->size; k++) {
        int i = (g->me + k) % g->size;
        shmemi_sym_get((char *)dest + (size_t)i * bytes, src, bytes, grp_pe(g, i), g->fn);
    }
    grp_sync(g);
    return 0;
}

static int do_alltoall(const struct grp *g, void *dest, const void *src, size_t bytes) {
    if (!bytes)
        return 0;
    size_t total = shmemi_bytes((size_t)g->size, bytes, g->fn);
    check_sym(dest, total, g->fn);
    check_sym(src, total, g->fn);
    if (shmemi_ll_gather(g, dest, src, bytes, 1) || shmemi_push_gather(g, dest, src, bytes, 1))
        return 0;
    grp_sync(g);
    for (int k = 0; k < g->size; k++) {
        int j = (g->me + k) % g->size;
        shmemi_sym_put((char *)dest + (size_t)g->me * bytes, (const char *)src + (size_t)j * bytes,
                       bytes, grp_pe(g, j), g->fn);
    }
    grp_sync(g);
    return 0;
}

/* Block j of the source (nelems elements, sst apart, from element
 * j * nelems * sst) goes to block me of member j's dest (dst apart, from
 * element me * nelems * dst). */
static int do_alltoalls(const struct grp *g, void *dest, const void *src, ptrdiff_t dst,
                        ptrdiff_t sst, size_t nelems, size_t es) {
    if (!nelems)
        return 0;
    if (dst < 1 || sst < 1) {
        if (!g->team)
            shmemi_fatal("%s: strides %td and %td must be positive", g->fn, dst, sst);
        shmemi_debug("%s: strides %td and %td must be positive", g->fn, dst, sst);
        return -1;
    }
    /* Extent of all n blocks with stride s: (n * nelems - 1) * s + 1 elements. */
    size_t n = (size_t)g->size * nelems;
    size_t dlen = shmemi_bytes(shmemi_bytes(n - 1, (size_t)dst, g->fn) + 1, es, g->fn);
    size_t slen = shmemi_bytes(shmemi_bytes(n - 1, (size_t)sst, g->fn) + 1, es, g->fn);
    check_sym(dest, dlen, g->fn);
    check_sym(src, slen, g->fn);
    size_t dstep = (size_t)dst * es, sstep = (size_t)sst * es;
    grp_sync(g);
    for (int k = 0; k < g->size; k++) {
        int j = (g->me + k) % g->size;
        char *to = (char *)dest + (size_t)g->me * nelems * dstep;
        const char *from = (const char *)src + (size_t)j * nelems * sstep;
        for (size_t e = 0; e < nelems; e++, to += dstep, from += sstep)
            shmemi_sym_put(to, from, es, grp_pe(g, j), g->fn);
    }
    grp_sync(g);
    return 0;
}

/* The byte length of the dest and source arrays of an element-wise
 * collective (reductions, scans): both symmetric, and the same array or
 * disjoint (ends the job otherwise). */
static size_t elementwise_bytes(const struct grp *g, const void *dest, const void *src,
                                size_t nelems, size_t es) {
    size_t bytes = shmemi_bytes(nelems, es, g->fn);
    check_sym(dest, bytes, g->fn);
    check_sym(src, bytes, g->fn);
    uintptr_t d = (uintptr_t)dest, s = (uintptr_t)src;
    if (d != s && d < s + bytes && s < d + bytes)
        shmemi_fatal("%s: dest and source overlap without being the same array", g->fn);
    return bytes;
}

/* acc[i] = acc[i] OP x[i] for i < n. */
typedef void (*combine_fn)(void *acc, const void *x, size_t n);

#define REDUCE_CHUNK 8192 /* bytes reduced at a time: the sources stay in cache */
/* Where a fabric is in the job, a remote member's chunk is a get, a round
 * trip each: chunks this large, fetched into a buffer of their size (a 1 MiB
 * reduction of two PEs over tcp: 2835 us in 8 KiB chunks). Each chunk's get
 * waits for a peer that may still be combining its own last chunk, and
 * serves nobody meanwhile: two PEs over tcp, sizes alternated within one
 * run, float sum_to_all of 1 MiB 223 us in 1 MiB chunks against 295 in 256
 * KiB ones, 4 MiB 1.7-2.0 ms against 2.6 (and 2.5 in 4 MiB ones, whose
 * buffer no longer stays in the cache). */
#define REDUCE_CHUNK_FABRIC ((size_t)1 << 20)

/* The chunks of a reduction or a scan, and the scratch a remote member's is
 * fetched into. */
struct chunks {
    size_t bytes;
    char *scratch;
    _Alignas(max_align_t) char small[REDUCE_CHUNK + 16];
};
static void chunks_open(struct chunks *k, const char *fn) {
    k->bytes = shmemi.amo_row ? REDUCE_CHUNK_FABRIC : REDUCE_CHUNK;
    k->scratch = k->bytes > REDUCE_CHUNK ? malloc(k->bytes + 16) : k->small;
    if (!k->scratch)
        shmemi_fatal("%s: out of memory for %zu bytes of scratch", fn, k->bytes);
}
static void chunks_close(struct chunks *k) {
    if (k->scratch != k->small)
        free(k->scratch);
}

/* Member me owns elements [lo, lo + cnt): it combines them over every
 * member's source (in member order) and writes them into every member's
 * dest. In place (dest == source), the dests are the sources others still
 * read: the slice is reduced into a private buffer first, and written only
 * after a sync says every member has read what it needs. */
static int do_reduce(const struct grp *g, void *dest, const void *src, size_t nelems, size_t es,
                     combine_fn op) {
    if (!nelems)
        return 0;
    (void)elementwise_bytes(g, dest, src, nelems, es);
    int inplace = dest == src;

    if (shmemi_ll_combine(g, dest, src, nelems, es, op, g->size))
        return 0;
    size_t n = (size_t)g->size, per = nelems / n, rem = nelems % n, me = (size_t)g->me;
    size_t lo = me * per + (me < rem ? me : rem), cnt = per + (me < rem);
    char *mine = (char *)dest + lo * es;
    const char *srcs = (const char *)src + lo * es;

    /* A member's source chunk: its mapping, or fetched into scratch. */
    struct chunks k;
    chunks_open(&k, g->fn);
    char *scratch = k.scratch;
    size_t step = k.bytes / es ? k.bytes / es : 1;
    grp_sync(g); /* every source is ready, every dest is free */
    if (!inplace) {
        /* Combine into my own dest slice (nobody else writes or reads it
         * during the collective), then copy it to the other members. */
        struct ll x;
        int words = shmemi.amo_row && shmemi_ll_area(g, 0, &x) >= 0;
        for (size_t off = 0; off < cnt; off += step) {
            size_t c = cnt - off < step ? cnt - off : step, cb = c * es;
            char *acc = mine + off * es;
            shmemi_sym_get(acc, srcs + off * es, cb, grp_pe(g, 0), g->fn);
            for (int i = 1; i < g->size; i++)
                op(acc, shmemi_sym_src(srcs + off * es, cb, grp_pe(g, i), scratch, g->fn), c);
            for (int k = 1; k < g->size && !words; k++) {
                int j = (g->me + k) % g->size;
                shmemi_sym_put(acc, acc, cb, grp_pe(g, j), g->fn);
            }
        }
        if (words)
            shmemi_slices_out(g, &x, mine, cnt * es);
        else
            grp_sync(g); /* every slice written everywhere; sources reusable */
        chunks_close(&k);
        return 0;
    }

    _Alignas(max_align_t) char stack[REDUCE_CHUNK];
    size_t cb = cnt * es;
    char *buf = cb <= sizeof(stack) ? stack : malloc(cb);
    if (!buf)
        shmemi_fatal("%s: out of memory for %zu bytes of reduction scratch", g->fn, cb);
    for (size_t off = 0; off < cnt; off += step) {
        size_t c = cnt - off < step ? cnt - off : step, b = c * es;
        shmemi_sym_get(buf + off * es, srcs + off * es, b, grp_pe(g, 0), g->fn);
        for (int i = 1; i < g->size; i++)
            op(buf + off * es, shmemi_sym_src(srcs + off * es, b, grp_pe(g, i), scratch, g->fn), c);
    }
    grp_sync(g); /* every member has read every source it needs */
    for (int k = 0; k < g->size && cb; k++) {
        int j = (g->me + k) % g->size;
        shmemi_sym_put(mine, buf, cb, grp_pe(g, j), g->fn);
    }
    grp_sync(g); /* every slice written everywhere */
    if (buf != stack)
        free(buf);
    chunks_close(&k);
    return 0;
}

/* Scans (1.6): member i's dest is the sum of the sources of members 0..i
 * (inclusive) or 0..i-1 (exclusive; member 0 gets zeros), element by element.
 * Small ones are one exchange of messages, as small reductions are. Larger
 * ones: each member reads the sources of its prefix from their mappings (or
 * fetches them through a fabric), in member order, so a prefix has the same
 * bits wherever it is summed. In place, the dests are sources others still
 * read: the prefix is summed into a private buffer and written after a sync
 * says every member has read what it needs. */
static int do_scan(const struct grp *g, void *dest, const void *src, size_t nelems, size_t es,
                   combine_fn add, int inclusive) {
    if (!nelems)
        return 0;
    size_t bytes = elementwise_bytes(g, dest, src, nelems, es);
    int last = inclusive ? g->me : g->me - 1; /* the prefix: members 0..last */
    if (shmemi_ll_combine(g, dest, src, nelems, es, add, last + 1))
        return 0;
    int inplace = dest == src;
    _Alignas(max_align_t) char stack[REDUCE_CHUNK];
    char *out = !inplace ? dest : bytes <= sizeof(stack) ? stack : malloc(bytes);
    if (!out)
        shmemi_fatal("%s: out of memory for %zu bytes of scan scratch", g->fn, bytes);
    /* A member's source chunk: its mapping, or fetched into scratch. */
    struct chunks k;
    chunks_open(&k, g->fn);
    char *scratch = k.scratch;
    size_t step = k.bytes / es ? k.bytes / es : 1;

    grp_sync(g); /* every source is ready */
    for (size_t off = 0; off < nelems; off += step) {
        size_t c = nelems - off < step ? nelems - off : step, cb = c * es;
        char *acc = out + off * es;
        const char *from = (const char *)src + off * es;
        if (last < 0) {
            memset(acc, 0, cb); /* all-bits-zero is 0 of every scan type */
            continue;
        }
        shmemi_sym_get(acc, from, cb, grp_pe(g, 0), g->fn);
        for (int i = 1; i <= last; i++)
            add(acc, shmemi_sym_src(from, cb, grp_pe(g, i), scratch, g->fn), c);
    }
    if (inplace) {
        grp_sync(g); /* every member has read every source it needs */
        memcpy(dest, out, bytes);
        if (out != stack)
            free(out);
    }
    grp_sync(g); /* every read of my source done: the caller may reuse it */
    chunks_close(&k);
    return 0;
}

/* ------------------------------------------------------------- reductions */

#define RED_AND(a, b) ((a) & (b))
#define RED_OR(a, b) ((a) | (b))
#define RED_XOR(a, b) ((a) ^ (b))
#define RED_MAX(a, b) ((a) > (b) ? (a) : (b))
#define RED_MIN(a, b) ((a) < (b) ? (a) : (b))
#define RED_SUM(a, b) ((a) + (b))
#define RED_PROD(a, b) ((a) * (b))

/* The combiner of (type, op); `P` keeps the team and the to_all lists apart
 * (they share types). */
#define SHMEMI_DEF_COMBINE(P, T, N, OP, EXPR)                                                      \
    static void P##_##N##_##OP(void *acc, const void *x, size_t n) {                               \
        T *a = acc;                                                                                \
        const T *b = x;                                                                            \
        for (size_t i = 0; i < n; i++)                                                             \
            a[i] = (T)EXPR(a[i], b[i]);                                                            \
    }
#define SHMEMI_DEF_COMBINE_BIT(P, T, N)                                                            \
    SHMEMI_DEF_COMBINE(P, T, N, and, RED_AND)                                                      \
    SHMEMI_DEF_COMBINE(P, T, N, or, RED_OR) SHMEMI_DEF_COMBINE(P, T, N, xor, RED_XOR)
#define SHMEMI_DEF_COMBINE_MINMAX(P, T, N)                                                         \
    SHMEMI_DEF_COMBINE(P, T, N, max, RED_MAX) SHMEMI_DEF_COMBINE(P, T, N, min, RED_MIN)
#define SHMEMI_DEF_COMBINE_ARITH(P, T, N)                                                          \
    SHMEMI_DEF_COMBINE(P, T, N, sum, RED_SUM) SHMEMI_DEF_COMBINE(P, T, N, prod, RED_PROD)
#define SHMEMI_COMB_BIT(T, N) SHMEMI_DEF_COMBINE_BIT(comb, T, N)
#define SHMEMI_COMB_MINMAX(T, N) SHMEMI_DEF_COMBINE_MINMAX(comb, T, N)
#define SHMEMI_COMB_ARITH(T, N) SHMEMI_DEF_COMBINE_ARITH(comb, T, N)
#define SHMEMI_TOALL_BIT(T, N) SHMEMI_DEF_COMBINE_BIT(toall, T, N)
#define SHMEMI_TOALL_MINMAX(T, N) SHMEMI_DEF_COMBINE_MINMAX(toall, T, N)
#define SHMEMI_TOALL_ARITH(T, N) SHMEMI_DEF_COMBINE_ARITH(toall, T, N)
SHMEMI_REDUCE_BIT_TYPES(SHMEMI_COMB_BIT)
SHMEMI_REDUCE_MINMAX_TYPES(SHMEMI_COMB_MINMAX)
SHMEMI_REDUCE_ARITH_TYPES(SHMEMI_COMB_ARITH)
SHMEMI_REDUCE_BIT_EXT_TYPES(SHMEMI_COMB_BIT)
SHMEMI_TO_ALL_BIT_TYPES(SHMEMI_TOALL_BIT)
SHMEMI_TO_ALL_MINMAX_TYPES(SHMEMI_TOALL_MINMAX)
SHMEMI_TO_ALL_ARITH_TYPES(SHMEMI_TOALL_ARITH)

/* ------------------------------------------------------------ public names */
/* The bodies of this file's rows of the op table (include/shmem_ops.h). A
 * team routine returns -1 on an invalid team; an active-set routine ends the
 * job on a malformed set. ESZ is the element size. */
#define SHMEMI_ON_TEAM(CALL)                                                                       \
    struct grp g;                                                                                  \
    return grp_team(&g, team, __func__) ? -1 : CALL;
#define SHMEMI_ON_SET(CALL)                                                                        \
    struct grp g;                                                                                  \
    grp_active_set(&g, PE_start, logPE_stride, PE_size, pSync, __func__);                          \
    CALL;
#define SHMEMI_NBYTES(ESZ) shmemi_bytes(nelems, ESZ, __func__)
#define SHMEMI_B_BROADCAST(ESZ)                                                                    \
    SHMEMI_ON_TEAM(do_broadcast(&g, dest, source, SHMEMI_NBYTES(ESZ), PE_root, 1))
#define SHMEMI_B_COLLECT(ESZ) SHMEMI_ON_TEAM(do_collect(&g, dest, source, SHMEMI_NBYTES(ESZ)))
#define SHMEMI_B_FCOLLECT(ESZ) SHMEMI_ON_TEAM(do_fcollect(&g, dest, source, SHMEMI_NBYTES(ESZ)))
#define SHMEMI_B_ALLTOALL(ESZ) SHMEMI_ON_TEAM(do_alltoall(&g, dest, source, SHMEMI_NBYTES(ESZ)))
#define SHMEMI_B_ALLTOALLS(ESZ)                                                                    \
    SHMEMI_ON_TEAM(do_alltoalls(&g, dest, source, dst, sst, nelems, ESZ))
#define SHMEMI_B_REDUCE(N, OP)                                                                     \
    SHMEMI_ON_TEAM(do_reduce(&g, dest, source, nreduce, sizeof *dest, comb_##N##_##OP))
#define SHMEMI_B_SCAN(N, INCL)                                                                     \
    SHMEMI_ON_TEAM(do_scan(&g, dest, source, nelems, sizeof *dest, comb_##N##_sum, INCL))
/* The root's own dest is not written (the active-set definition). */
#define SHMEMI_B_BROADCAST_SET(ESZ)                                                                \
    SHMEMI_ON_SET(do_broadcast(&g, dest, source, SHMEMI_NBYTES(ESZ), PE_root, 0))
#define SHMEMI_B_COLLECT_SET(ESZ) SHMEMI_ON_SET(do_collect(&g, dest, source, SHMEMI_NBYTES(ESZ)))
#define SHMEMI_B_FCOLLECT_SET(ESZ) SHMEMI_ON_SET(do_fcollect(&g, dest, source, SHMEMI_NBYTES(ESZ)))
#define SHMEMI_B_ALLTOALL_SET(ESZ) SHMEMI_ON_SET(do_alltoall(&g, dest, source, SHMEMI_NBYTES(ESZ)))
#define SHMEMI_B_ALLTOALLS_SET(ESZ)                                                                \
    SHMEMI_ON_SET(do_alltoalls(&g, dest, source, dst, sst, nelems, ESZ))
#define SHMEMI_B_TO_ALL(N, OP)                                                                     \
    (void)pWrk;                                                                                    \
    SHMEMI_ON_SET(if (nreduce < 0) shmemi_fatal("%s: nreduce %d is negative", __func__, nreduce);  \
                  do_reduce(&g, dest, source, (size_t)nreduce, sizeof *dest, toall_##N##_##OP))
#include "shmem/api_define.h"
