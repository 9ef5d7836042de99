/* Distributed locks: a ticket lock in PE 0's copy of the symmetric lock word.
 *
 * The upper 32 bits of the word hand out tickets, the lower 32 bits name the
 * ticket being served; the lock is free when the two are equal, so a zeroed
 * word is a free lock. PEs enter in the order they took their tickets
 * (fair, FIFO). Waiters only read the word, spinning and then yielding, so
 * oversubscribed PEs still progress. */
#include "shmem/shmemi.h"

#define SHMEMI_FILE lock
#include "shmem/api.h"

#define LOCK_TICKET ((uint64_t)1 << 32)
#define LOCK_SERVING 0xffffffffULL

/* PE 0's copy of the lock (long and uint64_t are variants of one type here). */
static uint64_t *lock_word(long *lock, const char *fn) {
    return shmemi_remote(lock, sizeof(*lock), 0, fn);
}

void shmem_set_lock(long *lock) {
    uint64_t *w = lock_word(lock, __func__);
    /* Take a ticket. The carry out of bit 63 is dropped, so the ticket
     * counter wraps within its 32 bits. */
    uint64_t v = __atomic_fetch_add(w, LOCK_TICKET, __ATOMIC_RELAXED);
    uint32_t ticket = (uint32_t)(v >> 32);
    /* The word is PE 0's: a waiter that sleeps sleeps on PE 0's wake word. */
    struct shmemi_spin s = SHMEMI_SPIN_ON(0);
    shmemi_spin_watch(&s, w, sizeof(*w));
    /* Acquire: pairs with the release in shmem_clear_lock of the previous
     * holder, so its critical section happens before ours. */
    while ((uint32_t)(__atomic_load_n(w, __ATOMIC_ACQUIRE) & LOCK_SERVING) != ticket)
        shmemi_spin(&s);
    shmemi_spin_end(&s);
}

int shmem_test_lock(long *lock) {
    uint64_t *w = lock_word(lock, __func__);
    uint64_t v = __atomic_load_n(w, __ATOMIC_RELAXED);
    if ((uint32_t)(v >> 32) != (uint32_t)(v & LOCK_SERVING))
        return 1; /* held, or others are queued */
    /* Free: take the ticket being served, if nobody took one meanwhile.
     * Acquire on success, as in shmem_set_lock. */
    if (__atomic_compare_exchange_n(w, &v, v + LOCK_TICKET, 0, __ATOMIC_ACQUIRE,
                                    __ATOMIC_RELAXED))
        return 0;
    return 1;
}

void shmem_clear_lock(long *lock) {
    uint64_t *w = lock_word(lock, __func__);
    /* The critical section's puts and AMOs are complete (quiet on the default
     * context, a full fence) before the lock is handed on. */
    shmemi_quiet(shmemi_ctx_default_handle, "shmem_clear_lock");
    /* Serve the next ticket: only the holder changes the lower half, while
     * newcomers may add tickets to the upper half concurrently, so a CAS
     * keeps the carry out of the lower half. Release: pairs with the acquire
     * of the next holder. */
    uint64_t v = __atomic_load_n(w, __ATOMIC_RELAXED), nv;
    do {
        nv = (v & ~LOCK_SERVING) | (uint64_t)(uint32_t)((uint32_t)v + 1u);
    } while (!__atomic_compare_exchange_n(w, &v, nv, 0, __ATOMIC_RELEASE, __ATOMIC_RELAXED));
    shmemi_wake_at(0, w, sizeof(*w));
}
