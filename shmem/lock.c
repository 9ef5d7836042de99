/* Distributed locks: a ticket lock in PE 0's copy of the symmetric lock word.
 *
 * The upper 32 bits of the word hand out tickets, the lower 32 bits name the
 * ticket being served; the lock is free when the two are equal, so a zeroed
 * word is a free lock. PEs enter in the order they took their tickets
 * (fair, FIFO). Waiters only read the word (an atomic fetch: PE 0 may be on
 * another node), spinning and then yielding, so oversubscribed PEs still
 * progress. */
#include "shmem/shmemi.h"

#include <pthread.h>
#include <time.h>

#define SHMEMI_FILE lock
#include "shmem/api.h"

#define LOCK_TICKET ((uint64_t)1 << 32)
#define LOOK_NS 20000ull
#define LOOK_MAX_NS 10000000ull
#define LOCK_SERVING 0xffffffffULL

/* AMOs on PE 0's copy of the lock (long and uint64_t are variants of one
 * type here), through whatever row reaches it: sequentially consistent on a
 * mapping, the fabric's atomics otherwise. */
static uint64_t lock_amo(long *lock, enum shmemi_amo_op op, uint64_t v, uint64_t cond,
                         const char *fn) {
    return shmemi_sym_amo(lock, 0, op, v, cond, fn);
}

/* Locks this PE holds through a fabric, with the ticket each serves: the
 * holder alone moves the lower half, so its release is one addition that
 * nobody waits for, where a fetch and a compare-and-swap cost two round trips
 * (serving 0xffffffff + 1 carries into the tickets: the addition takes the
 * carry back). The table is the PE's (any of its threads may release a lock
 * another took); a lock that finds no room is released the long way. */
#define HELD_MAX 16
static struct {
    pthread_mutex_t mu;
    int n; /* entries in use (atomic): none, and a release looks no further */
    long *lock[HELD_MAX];
    uint32_t ticket[HELD_MAX];
} held = {.mu = PTHREAD_MUTEX_INITIALIZER};

static int remote(long *lock, const char *fn) {
    struct shmemi_route r;
    shmemi_route_pe(&r, lock, sizeof(*lock), 0, fn);
    return !(r.path->caps & SHMEMI_PATH_HOST_MAPPED);
}

static void held_put(long *lock, uint32_t ticket) {
    pthread_mutex_lock(&held.mu);
    for (int i = 0; i < HELD_MAX; i++)
        if (!held.lock[i]) {
            held.lock[i] = lock;
            held.ticket[i] = ticket;
            __atomic_fetch_add(&held.n, 1, __ATOMIC_RELAXED);
            break;
        }
    pthread_mutex_unlock(&held.mu);
}

/* The ticket lock serves, taken out of the table; 0 when it is not there. */
static int held_take(long *lock, uint32_t *ticket) {
    int found = 0;
    if (!__atomic_load_n(&held.n, __ATOMIC_RELAXED))
        return 0;
    pthread_mutex_lock(&held.mu);
    for (int i = 0; i < HELD_MAX && !found; i++)
        if (held.lock[i] == lock) {
            *ticket = held.ticket[i];
            held.lock[i] = NULL;
            __atomic_fetch_sub(&held.n, 1, __ATOMIC_RELAXED);
            found = 1;
        }
    pthread_mutex_unlock(&held.mu);
    return found;
}

void shmem_set_lock(long *lock) {
    shmemi_check_init(__func__);
    /* Take a ticket. The carry out of bit 63 is dropped, so the ticket
     * counter wraps within its 32 bits. */
    uint64_t v = lock_amo(lock, SHMEMI_AMO_ADD, LOCK_TICKET, 0, __func__);
    uint32_t ticket = (uint32_t)(v >> 32);
    struct shmemi_route r;
    shmemi_route_pe(&r, lock, sizeof(*lock), 0, __func__);
    if (r.path->caps & SHMEMI_PATH_HOST_MAPPED) {
        /* PE 0's word is mapped here: read it, and sleep on PE 0's wake word
         * once the spin is over. Acquire: pairs with the release in
         * shmem_clear_lock of the previous holder, so its critical section
         * happens before ours. */
        const uint64_t *w = (const uint64_t *)r.addr;
        struct shmemi_spin s = SHMEMI_SPIN_ON(0);
        shmemi_spin_watch(&s, w, sizeof(*w));
        while ((uint32_t)(__atomic_load_n(w, __ATOMIC_ACQUIRE) & LOCK_SERVING) != ticket)
            shmemi_spin(&s);
        shmemi_spin_end(&s);
        return;
    }
    /* Through a fabric every look is a round trip that PE 0 serves, the
     * holder's included: look again later the further back in line, by how
     * long each ticket has been held so far while this one waited. The next
     * in line looks every LOOK_NS (the lock is idle from the release until it
     * sees it); one further back sleeps through half the time the tickets
     * ahead should take, up to LOOK_MAX_NS. With 16 threads of each of 4 PEs
     * queued over tcp, looks every 20-320 us took PE 0's CPU from the
     * holders' transfers. */
    struct shmemi_spin s = {0};
    uint32_t serving, first = 0;
    uint64_t t0 = 0;
    while ((serving = (uint32_t)(lock_amo(lock, SHMEMI_AMO_FETCH, 0, 0, __func__) &
                                 LOCK_SERVING)) != ticket) {
        shmemi_spin(&s);
        uint64_t t = shmemi_now_ns();
        if (!t0) {
            t0 = t;
            first = serving;
        }
        uint32_t ahead = ticket - serving, served = serving - first;
        /* Per ticket: at least as long as none has been served. */
        uint64_t per = served ? (t - t0) / served : t - t0 > LOOK_NS ? t - t0 : LOOK_NS;
        uint64_t ns = ahead > 1 ? (uint64_t)ahead * per / 2 : LOOK_NS;
        ns = ns < LOOK_NS ? LOOK_NS : ns > LOOK_MAX_NS ? LOOK_MAX_NS : ns;
        struct timespec ts = {0, (long)ns};
        nanosleep(&ts, NULL);
    }
    shmemi_spin_end(&s);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    held_put(lock, ticket);
}

/* A thread that tests a lock again at once after finding it held (a loop on
 * shmem_test_lock: under TEST_GAP_NS from the last call's return) pauses
 * before it looks again, where a fabric is in the job: the pause starts at
 * TEST_PAUSE_NS and doubles up to TEST_PAUSE_MAX_NS while the lock stays
 * held, so a release is seen within about the time already waited. Such loops
 * otherwise keep every CPU busy: on PE 0 they are loads of the word in a
 * loop, and everywhere round trips that PE 0 serves, while the holder's
 * transfers, its release and the fabric's progress wait for a CPU. SOS's
 * mt_locking (16 threads of each of 4 PEs, half of them looping on
 * shmem_test_lock) over tcp on 2 CPUs: 29-31 s without the pause, 3.1-3.9 s
 * with it; 2 PEs: 3.0-3.6 s against 0.5-0.6. A caller that does other work
 * between its tests is never paced, and the look that answers is made during
 * the call. Within a node the holder's release is a store, and nothing waits
 * on a CPU for it. */
#define TEST_GAP_NS 2000ull
#define TEST_PAUSE_NS 10000ull
#define TEST_PAUSE_MAX_NS 1000000ull
static __thread struct {
    const long *lock; /* the lock this thread found held in its last test */
    uint64_t at_ns;   /* when that test returned */
    uint64_t pause_ns;
} tested;

static void test_pace(const long *lock) {
    if (tested.lock != lock || shmemi_now_ns() - tested.at_ns > TEST_GAP_NS) {
        tested.pause_ns = 0;
        return;
    }
    tested.pause_ns = tested.pause_ns ? 2 * tested.pause_ns : TEST_PAUSE_NS;
    if (tested.pause_ns > TEST_PAUSE_MAX_NS)
        tested.pause_ns = TEST_PAUSE_MAX_NS;
    struct timespec ts = {0, (long)tested.pause_ns};
    nanosleep(&ts, NULL);
}

int shmem_test_lock(long *lock) {
    shmemi_check_init(__func__);
    int paced = shmemi.amo_row != NULL;
    if (paced)
        test_pace(lock);
    /* Held, or others are queued; or free, and taken by another first.
     * Otherwise the ticket being served is ours (acquire on success, as in
     * shmem_set_lock). */
    uint64_t v = lock_amo(lock, SHMEMI_AMO_FETCH, 0, 0, __func__);
    if ((uint32_t)(v >> 32) != (uint32_t)(v & LOCK_SERVING) ||
        lock_amo(lock, SHMEMI_AMO_CSWAP, v + LOCK_TICKET, v, __func__) != v) {
        if (paced) {
            tested.lock = lock;
            tested.at_ns = shmemi_now_ns();
        }
        return 1;
    }
    tested.lock = NULL;
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if (remote(lock, __func__))
        held_put(lock, (uint32_t)v);
    return 0;
}

void shmem_clear_lock(long *lock) {
    shmemi_check_init(__func__);
    /* The critical section's puts and AMOs are complete (quiet on the default
     * context, a full fence) before the lock is handed on. */
    shmemi_quiet(shmemi_ctx_default_handle, "shmem_clear_lock");
    uint32_t t;
    if (held_take(lock, &t)) {
        shmemi_sym_add(lock, 0, t == LOCK_SERVING ? 1 - LOCK_TICKET : 1, __func__);
        return;
    }
    /* Serve the next ticket: only the holder changes the lower half, while
     * newcomers may add tickets to the upper half concurrently, so a CAS
     * keeps the carry out of the lower half. The quiet and the AMO's own
     * order release the critical section to the next holder; the AMO wakes a
     * waiter that sleeps on a mapped word. */
    uint64_t v = lock_amo(lock, SHMEMI_AMO_FETCH, 0, 0, __func__), seen;
    for (;;) {
        uint64_t nv = (v & ~LOCK_SERVING) | (uint64_t)(uint32_t)((uint32_t)v + 1u);
        seen = lock_amo(lock, SHMEMI_AMO_CSWAP, nv, v, __func__);
        if (seen == v)
            break;
        v = seen;
    }
}
