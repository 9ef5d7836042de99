/* The members of a collective and the exchanges of messages between them
 * (shmem/coll_exchange.c) that the collectives of shmem/coll.c take where
 * they can: each returns 1 when it did the collective, 0 (or -1 for
 * shmemi_ll_area) when the collective takes another way. */
#ifndef SHMEM_COLL_EXCHANGE_H
#define SHMEM_COLL_EXCHANGE_H

#include "shmem/shmemi.h"

/* The members of a collective: world PE start + i * stride for i < size. */
struct grp {
    int start, stride, size, me;
    const struct shmemi_team *team; /* NULL for an active set */
    long *psync;                    /* active set: its pSync */
    int log_stride;                 /* active set: its logPE_stride */
    uint64_t *post;                 /* my published word (symmetric address) */
    const char *fn;
};

static inline int grp_pe(const struct grp *g, int i) { return g->start + i * g->stride; }

/* Check that [addr, addr + len) is symmetric memory the collectives reach
 * (ends the job otherwise; nothing to check for an empty range). */
static inline void check_sym(const void *addr, size_t len, const char *fn) {
    if (len)
        shmemi_remote(addr, len, shmemi.my_pe, fn);
}

/* An exchange: its area, and whether its messages go by mail. */
struct ll {
    int area;
    const struct shmemi_path_ops *mail;
};

int shmemi_ll_area(const struct grp *g, size_t bytes, struct ll *x);
int shmemi_ll_combine(const struct grp *g, void *dest, const void *src, size_t nelems, size_t es,
                      void (*op)(void *, const void *, size_t), int upto);
int shmemi_ll_gather(const struct grp *g, void *dest, const void *src, size_t bytes, int blocks);
int shmemi_ll_broadcast(const struct grp *g, void *dest, const void *src, size_t bytes, int root,
                        int root_too);
int shmemi_push_broadcast(const struct grp *g, void *dest, const void *src, size_t bytes, int root,
                          int root_too);
int shmemi_ll_collect(const struct grp *g, void *dest, const void *src, size_t bytes);
int shmemi_push_gather(const struct grp *g, void *dest, const void *src, size_t bytes, int blocks);
void shmemi_slices_out(const struct grp *g, const struct ll *x, void *mine, size_t bytes);

#endif
