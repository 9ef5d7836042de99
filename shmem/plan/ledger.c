/* The queue ledger of triggered plans (shmem/plan/ledger.h). */
#include "shmem/plan/ledger.h"

#include <stdlib.h>
#include <string.h>

void shmemi_ledger_init(struct shmemi_ledger *l, size_t capacity) {
    memset(l, 0, sizeof(*l));
    l->capacity = capacity;
}

void shmemi_ledger_fini(struct shmemi_ledger *l) {
    free(l->e);
    memset(l, 0, sizeof(*l));
}

int shmemi_ledger_hold(struct shmemi_ledger *l, size_t bytes) {
    if (bytes > l->capacity || l->held > l->capacity - bytes)
        return -1;
    l->held += bytes;
    return 0;
}

void shmemi_ledger_unhold(struct shmemi_ledger *l, size_t bytes) {
    l->held = bytes > l->held ? 0 : l->held - bytes;
}

int shmemi_ledger_push(struct shmemi_ledger *l, const void *plan, uint32_t round, size_t bytes) {
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        struct shmemi_ledger_entry *e = realloc(l->e, cap * sizeof(*e));
        if (!e)
            return -1;
        l->e = e;
        l->cap = cap;
    }
    l->e[l->n++] = (struct shmemi_ledger_entry){plan, round, bytes, 0};
    return 0;
}

int shmemi_ledger_check_start(const struct shmemi_ledger *l, const void *plan, uint32_t round,
                              const struct shmemi_ledger_entry **blocker) {
    for (size_t i = 0; i < l->n; i++) {
        const struct shmemi_ledger_entry *e = &l->e[i];
        if (e->plan == plan && e->round == round)
            return 0;
        if (!e->open) {
            if (blocker)
                *blocker = e;
            return -1;
        }
    }
    return 0; /* not armed on this queue (the plan sends nothing to it) */
}

void shmemi_ledger_open(struct shmemi_ledger *l, const void *plan, uint32_t round) {
    for (size_t i = 0; i < l->n; i++)
        if (l->e[i].plan == plan && (round == 0 || l->e[i].round == round))
            l->e[i].open = 1;
}

void shmemi_ledger_release(struct shmemi_ledger *l, const void *plan, uint32_t round) {
    size_t k = 0;
    for (size_t i = 0; i < l->n; i++) {
        if (l->e[i].plan == plan && l->e[i].round <= round)
            continue;
        l->e[k++] = l->e[i];
    }
    l->n = k;
}

const struct shmemi_ledger_entry *shmemi_ledger_blocker(const struct shmemi_ledger *l,
                                                        const void *plan) {
    const struct shmemi_ledger_entry *first_closed = NULL;
    for (size_t i = 0; i < l->n; i++) {
        if (l->e[i].plan == plan)
            return first_closed;
        if (!l->e[i].open && !first_closed)
            first_closed = &l->e[i];
    }
    return NULL; /* nothing of plan's on this queue: nothing waits */
}

size_t shmemi_ledger_armed(const struct shmemi_ledger *l) {
    size_t b = 0;
    for (size_t i = 0; i < l->n; i++)
        b += l->e[i].bytes;
    return b;
}
