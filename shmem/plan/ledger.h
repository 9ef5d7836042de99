/* The queue ledger of triggered plans: one per plan queue (one queue per
 * peer, shared by every plan). It keeps armed chains within the ring space
 * the plans hold, and remembers in which order rounds were armed, so that a
 * round is never started behind another plan's round that no producer will
 * open. Not thread-safe: plan calls of one PE are serialized by the caller. */
#ifndef SHMEMI_PLAN_LEDGER_H
#define SHMEMI_PLAN_LEDGER_H

#include <stddef.h>
#include <stdint.h>

struct shmemi_ledger_entry {
    const void *plan;
    uint32_t round;
    size_t bytes;
    int open; /* its gates may open: started, or closed as it stands */
};

struct shmemi_ledger {
    size_t capacity;               /* bytes the chains of all plans may hold: half the ring */
    size_t held;                   /* sum of the plans' holds */
    struct shmemi_ledger_entry *e; /* armed rounds, oldest first */
    size_t n, cap;
};

void shmemi_ledger_init(struct shmemi_ledger *l, size_t capacity);
void shmemi_ledger_fini(struct shmemi_ledger *l);
/* Reserve ring space for a plan (per-round bytes x rounds it may arm ahead):
 * 0, or -1 when it does not fit beside the other plans' holds. */
int shmemi_ledger_hold(struct shmemi_ledger *l, size_t bytes);
void shmemi_ledger_unhold(struct shmemi_ledger *l, size_t bytes);
/* A round's chains were armed on the queue: 0, or -1 (out of memory). */
int shmemi_ledger_push(struct shmemi_ledger *l, const void *plan, uint32_t round, size_t bytes);
/* May (plan, round) start? 0 when every earlier entry may open; else -1 and
 * the first entry that blocks it. */
int shmemi_ledger_check_start(const struct shmemi_ledger *l, const void *plan, uint32_t round,
                              const struct shmemi_ledger_entry **blocker);
/* Mark (plan, round) open, or every entry of plan when round is 0. */
void shmemi_ledger_open(struct shmemi_ledger *l, const void *plan, uint32_t round);
/* Forget entries of plan up to and including round (delivered), or all of
 * them when round is UINT32_MAX. */
void shmemi_ledger_release(struct shmemi_ledger *l, const void *plan, uint32_t round);
/* The first entry of another plan, ahead of plan's first entry, that is not
 * open (plan's copies wait behind it), or NULL. */
const struct shmemi_ledger_entry *shmemi_ledger_blocker(const struct shmemi_ledger *l,
                                                        const void *plan);
/* Bytes of armed chains on the queue. */
size_t shmemi_ledger_armed(const struct shmemi_ledger *l);

#endif
