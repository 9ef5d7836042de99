/* Waits that give their core back: spin, then sleep until a writer wakes us.
 *
 * Every wait of the library (barriers, team and active-set syncs, wait_until
 * and the other point-to-point waits, locks, triggered plans' host waits)
 * waits for a store into one PE's memory. Its loop spins first: on a quiet
 * node a barrier or a plan round completes in microseconds, and a sleep and
 * wake-up would cost more than the wait. It spins with pause instructions,
 * never sched_yield: another job's thread on the core would get it for a
 * whole time slice and the awaited store would go unseen meanwhile (a
 * sleeping waiter is woken instead) -- except where the job has more PEs than
 * CPUs, where the thread that wants the core is most likely the PE we wait
 * for (shmemi_spin_yields). After SHMEM_WAIT_SPIN_US (SHMEM_WAIT_SPIN_BUSY_US
 * once the thread has lost its core in a wait within the last second, or the
 * job is crowded: more PEs on the node than CPUs for them all), it
 * sleeps on the wake word of the PE that owns the memory (struct shmemi_wake
 * in the control block, a futex word in shared memory: any process that maps
 * it wakes it, without FUTEX_PRIVATE_FLAG):
 *
 *   waiter                                writer (any PE, any thread)
 *   sleepers += 1                         store the word (put, AMO, barrier)
 *   asymmetric fence (membarrier)         compiler barrier
 *   seq0 = seq (acquire)                  if (sleepers) { seq += 1; FUTEX_WAKE }
 *   re-check the condition (the loop)
 *   FUTEX_WAIT(seq, seq0, timeout)
 *   sleepers -= 1
 *
 * Either the writer sees the sleeper and bumps seq (then the wait returns at
 * once, or the re-check saw the store), or its store was visible before the
 * waiter's fence, and the re-check sees it. membarrier(GLOBAL_EXPEDITED) makes
 * the writers' side free of fences: it runs a full barrier on every CPU that
 * runs a thread of a process of the job (each registered at init). Without it
 * the writers fence (shmemi.wake_fence).
 *
 * A sleep ends after a timeout that doubles up to SHMEM_WAIT_SLEEP_MAX_US, so
 * the loop's slow path (and whatever checks it makes) runs at least that
 * often. Words that may change without a wake -- a hardware copy engine's
 * writes, a GPU kernel's, stores through a pointer from shmem_ptr -- are
 * re-read every 20 to 100 us instead. */
#define _GNU_SOURCE
#include "shmem/shmemi.h"

#include "shmem/liveness.h"

#include "sdma/sdma.h"
#include "shmem/engine.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define UNRELIABLE_FIRST_US 20
#define UNRELIABLE_MAX_US 100
#define RELIABLE_FIRST_US 1000
/* A thread that lost its core stays "busy" this long: its waits sleep early. */
#define BUSY_MEMORY_NS 1000000000ull
/* 128 turns of pause (a few us) before the first look at the slow path;
 * every turn once a row's progress needs the waiters: what we wait for then
 * moves only when a thread of ours runs that progress (an exchange of two
 * PEs over tcp: 14-20 us with 3 turns of pause between looks instead of 127,
 * 16-22; none at all, alternated with 3 every 17 ms within one run, took
 * 0.06-0.1 us off a fetch-add's median 10.3 us). */
unsigned shmemi_spin_turns = 128;
#define PROGRESS_SPIN_TURNS 1

static int membarrier_ok;
/* How sleeps ended (SHMEM_DEBUG prints them at finalize): woken by a writer,
 * the word had moved before we slept, timed out. */
static uint64_t slept_woken, slept_moved, slept_timeout;
static int crowded;                  /* more PEs of the job on this node than CPUs they may use */
static int node_pes = 1, node_cpus;  /* the job's PEs on this kernel, and the CPUs they may use */
static __thread uint64_t busy_at_ns; /* when this thread last lost its core in a wait */
/* The spin budget of this thread's waits is multiplied by this (1 to
 * SPIN_SCALE_MAX): doubled when a sleep was woken within the budget (spinning
 * a little longer would have saved the sleep and the writer's wake-up, and
 * two PEs that wake each other in turn would go on sleeping each time),
 * halved when a sleep ran out (the waits are long). */
#define SPIN_SCALE_MAX 8
static __thread unsigned spin_scale = 1;

static long switches(void) {
    struct rusage r;
    if (getrusage(RUSAGE_THREAD, &r))
        return 0;
    return r.ru_nivcsw;
}

/* Crowded: more PEs on this kernel than CPUs for them all (PEs in other
 * network or PID namespaces included: they share the CPUs). Not what one PE
 * may use: a launcher that pins each PE to a core of its own (mpirun) leaves
 * each one CPU, and its waits then yielded at every look. */
void shmemi_wait_node_cpus(int pes, int cpus) {
    node_pes = pes > 0 ? pes : 1;
    node_cpus = cpus;
    crowded = cpus > 0 && pes > cpus;
    shmemi_debug("%d PEs on this kernel, %d CPUs for them%s", pes, cpus,
                 crowded ? ": waits yield" : "");
}

int shmemi_waits_serving;

/* Whether a wait that runs a row's progress yields its core between looks:
 * where the thread that wants it is most likely one the wait depends on -- a
 * PE of the job (more of them on this kernel than CPUs), or another thread of
 * this PE's that waits in the library (more such threads than the PE's share
 * of the CPUs, every PE taken to have as many). Not because the thread lost
 * its core lately: a thread of another program that took it computes on, and
 * a yield hands it a time slice each time. Two PEs over tcp on 2 CPUs beside
 * one busy loop: fetch-adds took 92-233 us each when the waits yielded for
 * 20 ms after a lost core, 28-33 us without (OSHMEM: 20-21). */
int shmemi_spin_yields(void) {
    if (crowded)
        return 1;
    int waiting = __atomic_load_n(&shmemi_waits_serving, __ATOMIC_RELAXED);
    return waiting > 1 && node_cpus > 0 && waiting * node_pes > node_cpus;
}

void shmemi_spin_served(struct shmemi_spin *s) {
    s->serves = 0;
    /* Sequentially consistent with the rows' look at the count after they
     * told peers that this PE serves them (fabric_bell.c's hush). */
    if (!__atomic_sub_fetch(&shmemi_waits_serving, 1, __ATOMIC_SEQ_CST))
        shmemi_paths_served();
}

static long futex(uint32_t *w, int op, uint32_t v, const struct timespec *ts) {
    return syscall(SYS_futex, w, op, v, ts, NULL, 0);
}

int shmemi_wait_init(void) {
    long cmds = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
    membarrier_ok = cmds > 0 && (cmds & MEMBARRIER_CMD_GLOBAL_EXPEDITED) &&
                    syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED, 0, 0) == 0;
    shmemi.wake_fence = !membarrier_ok;
    if (!membarrier_ok)
        shmemi_debug("no membarrier(GLOBAL_EXPEDITED): writers fence before they look for "
                     "sleepers");
    if (shmemi.cfg.WAIT_SPIN_US < 0 || shmemi.cfg.WAIT_SPIN_BUSY_US < 0 ||
        shmemi.cfg.WAIT_SLEEP_MAX_US < 1)
        shmemi_fatal("SHMEM_WAIT_SPIN_US=%ld, SHMEM_WAIT_SPIN_BUSY_US=%ld and "
                     "SHMEM_WAIT_SLEEP_MAX_US=%ld: the first two must be at least 0, the last "
                     "at least 1",
                     shmemi.cfg.WAIT_SPIN_US, shmemi.cfg.WAIT_SPIN_BUSY_US,
                     shmemi.cfg.WAIT_SLEEP_MAX_US);
    return 0;
}

/* The other side of the writers' compiler barrier: a full barrier on every
 * CPU that runs a thread of the job, so a store made before it is visible to
 * our next load, or the writer's load after it sees our sleeper count. */
void shmemi_wake_fence(void) {
    if (!membarrier_ok || syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL_EXPEDITED, 0, 0))
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

static struct shmemi_wake *wake_of(const struct shmemi_spin *s) {
    return &shmemi_ctl_of(s->owner ? s->owner - 1 : shmemi.my_pe)->wake;
}

/* Whether every writer of the words a wait watches wakes it: not when some PE
 * stores into the owner's memory through shmem_ptr (it told the owner's wake
 * block, or this PE did), nor on the device heap (GPUs write it), nor with a
 * hardware engine, which cannot wake. */
static int wakes_reliable(const struct shmemi_spin *s) {
    return !shmemi.raw_stores && !__atomic_load_n(&wake_of(s)->raw, __ATOMIC_RELAXED) &&
           shmemi.heap_kind == SHMEMI_HEAP_HOST && shmemi_engine_wakes();
}

/* The region and offsets of [addr, addr + len) of PE pe's memory as mapped
 * here; -1 when it is elsewhere (or addr is NULL). */
static int locate(int pe, const void *addr, size_t len, uint64_t *lo, uint64_t *hi) {
    const struct shmemi_peer *p = &shmemi.peers[pe];
    uintptr_t a = (uintptr_t)addr;
    if (!addr)
        return -1;
    if (p->heap && a - (uintptr_t)p->heap < shmemi.heap_size) {
        *lo = a - (uintptr_t)p->heap;
        *hi = *lo + len;
        return SHMEMI_REGION_HEAP;
    }
    if (p->data && a - (uintptr_t)p->data < shmemi.data_size) {
        *lo = a - (uintptr_t)p->data;
        *hi = *lo + len;
        return SHMEMI_REGION_DATA;
    }
    return -1;
}

void shmemi_wake_slow(int pe, const void *addr, size_t len) {
    struct shmemi_wake *w = &shmemi_ctl_of(pe)->wake;
    uint64_t lo = 0, hi = 0;
    int region = locate(pe, addr, len, &lo, &hi);
    /* Someone sleeps here: wake them if one wants any store, or watches
     * words this store overlaps (a store we cannot place wakes everyone). */
    int wake = region < 0 || __atomic_load_n(&w->any, __ATOMIC_ACQUIRE);
    for (int i = 0; i < SHMEMI_WATCHES && !wake; i++) {
        const struct shmemi_watch *x = &w->watch[i];
        if (!__atomic_load_n(&x->used, __ATOMIC_ACQUIRE))
            continue;
        wake = __atomic_load_n(&x->region, __ATOMIC_RELAXED) == (uint32_t)region &&
               lo < __atomic_load_n(&x->hi, __ATOMIC_RELAXED) &&
               __atomic_load_n(&x->lo, __ATOMIC_RELAXED) < hi;
    }
    if (!wake)
        return;
    /* Release: the store that the caller made is visible to a waiter that
     * reads the new sequence (it re-checks after reading it). */
    __atomic_fetch_add(&w->seq, 1, __ATOMIC_SEQ_CST);
    futex(&w->seq, FUTEX_WAKE, INT_MAX, NULL);
}

void shmemi_spin_disarm(struct shmemi_spin *s) {
    struct shmemi_wake *w = wake_of(s);
    if (s->slot >= 0) {
        __atomic_fetch_sub(s->in_ctl ? &w->watched_ctl : &w->watched, 1, __ATOMIC_RELAXED);
        __atomic_store_n(&w->watch[s->slot].used, 0, __ATOMIC_RELEASE);
    } else {
        __atomic_fetch_sub(&w->any, 1, __ATOMIC_RELAXED);
    }
    s->armed = 0;
}

/* Count ourselves in, saying what we wait for; the caller re-checks its
 * condition before we sleep. The watch is written before the count, which
 * writers read first. */
static void arm(struct shmemi_spin *s) {
    struct shmemi_wake *w = wake_of(s);
    int owner = s->owner ? s->owner - 1 : shmemi.my_pe;
    uint64_t lo = 0, hi = 0;
    int region = locate(owner, s->watch, s->watch_len, &lo, &hi);
    s->slot = -1;
    for (int i = 0; i < SHMEMI_WATCHES && region >= 0; i++) {
        uint32_t free_slot = 0;
        struct shmemi_watch *x = &w->watch[i];
        if (__atomic_load_n(&x->used, __ATOMIC_RELAXED) ||
            !__atomic_compare_exchange_n(&x->used, &free_slot, 1, 0, __ATOMIC_ACQUIRE,
                                         __ATOMIC_RELAXED))
            continue;
        __atomic_store_n(&x->region, (uint32_t)region, __ATOMIC_RELAXED);
        __atomic_store_n(&x->lo, lo, __ATOMIC_RELAXED);
        __atomic_store_n(&x->hi, hi, __ATOMIC_RELAXED);
        s->slot = i;
        break;
    }
    /* No watch (or no slot left): any store wakes us. A watch within the
     * control block: stores elsewhere need not look at the watches. */
    const char *ctl = (const char *)shmemi_ctl_of(owner), *at = s->watch;
    s->in_ctl = s->slot >= 0 && at >= ctl && at + s->watch_len <= ctl + SHMEMI_CTL_SIZE;
    if (s->slot < 0)
        __atomic_fetch_add(&w->any, 1, __ATOMIC_SEQ_CST);
    else
        __atomic_fetch_add(s->in_ctl ? &w->watched_ctl : &w->watched, 1, __ATOMIC_SEQ_CST);
    shmemi_wake_fence();
    s->seq = __atomic_load_n(&w->seq, __ATOMIC_ACQUIRE);
    s->armed = 1;
}

static void sleep_armed(struct shmemi_spin *s) {
    int reliable = wakes_reliable(s);
    uint32_t cap = reliable ? (uint32_t)shmemi.cfg.WAIT_SLEEP_MAX_US : UNRELIABLE_MAX_US;
    if (!s->sleep_us)
        s->sleep_us = reliable ? RELIABLE_FIRST_US : UNRELIABLE_FIRST_US;
    if (s->sleep_us > cap)
        s->sleep_us = cap;
    struct timespec ts = {(time_t)(s->sleep_us / 1000000), (long)(s->sleep_us % 1000000) * 1000};
    uint64_t t0 = shmemi_now_ns();
    long rc = futex(&wake_of(s)->seq, FUTEX_WAIT, s->seq, &ts);
    int e = rc ? errno : 0;
    __atomic_fetch_add(rc == 0          ? &slept_woken
                       : e == ETIMEDOUT ? &slept_timeout
                                        : &slept_moved,
                       1, __ATOMIC_RELAXED);
    shmemi_spin_disarm(s);
    if (rc == 0 && shmemi_now_ns() - t0 < (uint64_t)s->budget_us * 1000u &&
        spin_scale < SPIN_SCALE_MAX)
        spin_scale *= 2;
    else if (rc && e == ETIMEDOUT && spin_scale > 1)
        spin_scale /= 2;
    if (rc == 0 || e != ETIMEDOUT) {
        /* Woken: the words changed, maybe not yet to what we wait for (a
         * counter on its way). Spin again before the next sleep, so that the
         * writer's next stores cost it no system call. */
        s->blocking = 0;
        s->since_ns = 0;
    } else if (s->sleep_us < cap) {
        s->sleep_us *= 2;
    }
}

/* A wait that runs a fabric's progress cannot sleep until a writer wakes it,
 * and where the job is crowded it yields between looks: the thread that
 * wants the core is most likely a PE of the job, and a yield hands it over
 * at once. But a thread that never yields (another program's computation)
 * keeps the core for a whole time slice at every look, and every exchange of
 * the job then waits for slices: 4 PEs over tcp;ofi_rxm on 2 CPUs beside one
 * busy loop took 36-44 s for fence_order, 4-5 s without the loop. A yield
 * that comes back YIELD_LATE_NS or more later says such a thread is there:
 * the waits of this thread then nap between looks for a spell (a nap gives
 * up the core, and its end gets it back), and yield again after it; a spell
 * that ends in a late yield again is followed by one twice as long, up to
 * NAP_SPELL_MAX_NS. There: 9-14 s. Where the yields come back late because
 * a PE of the job computes or copies on the core, the first yield after a
 * spell is prompt and the spells stay short: a nap wakes a computing PE's
 * core, and naps of every look cost fence_order alone twice its time. */
#define YIELD_LATE_NS 1000000ull
#define NAP_NS 20000l
#define NAP_SPELL_MIN_NS 1000000ull
#define NAP_SPELL_MAX_NS 16000000ull
static uint64_t nap_spells; /* SHMEM_DEBUG prints them at finalize */
static void give_way(void) {
    static __thread uint64_t nap_until, spell_ns = NAP_SPELL_MIN_NS;
    uint64_t t = shmemi_now_ns();
    if (t < nap_until) {
        struct timespec ts = {0, NAP_NS};
        nanosleep(&ts, NULL);
        return;
    }
    int after_spell = nap_until != 0;
    nap_until = 0;
    sched_yield();
    uint64_t back = shmemi_now_ns();
    if (back - t < YIELD_LATE_NS) {
        spell_ns = NAP_SPELL_MIN_NS;
        return;
    }
    if (after_spell && spell_ns < NAP_SPELL_MAX_NS)
        spell_ns *= 2;
    nap_until = back + spell_ns;
    __atomic_fetch_add(&nap_spells, 1, __ATOMIC_RELAXED);
}

void shmemi_spin_slow(struct shmemi_spin *s) {
    /* Checks that must go on while a thread waits belong here: this runs at
     * least every SHMEM_WAIT_SLEEP_MAX_US, asleep or not. Publish the wait,
     * and end the job if it can never end (shmem/liveness.c). */
    shmemi_live_wait(s);
    if (s->armed) {
        sleep_armed(s);
        return;
    }
    /* What we wait for may sit in our own copy engine's queue (a signal behind
     * a non-blocking put): run it here rather than wait for its thread. */
    if (sdma_engine_progress(shmemi_engine())) {
        s->n = 0;
        return;
    }
    /* Or behind a fabric whose provider moves transfers only when asked to
     * (what peers write into this PE's memory included): the wait runs the
     * progress and never sleeps, since a sleep would delay every peer's
     * transfer into this PE by as long. It yields where a thread it depends
     * on wants the core (shmemi_spin_yields: 4 PEs of two hosts made of
     * network namespaces on 2 CPUs spin past any time limit without it), and
     * only there: on a core of its own a yield is a system call between two
     * looks, 0.5 us (an exchange of two PEs over tcp: 18.6-22.8 us with it,
     * 16.4-18.2 without; an 8-byte get through net 15.0 against 12.3). */
    if (shmemi_paths_progress()) {
        __atomic_store_n(&shmemi_spin_turns, PROGRESS_SPIN_TURNS, __ATOMIC_RELAXED);
        if (!s->serves) {
            s->serves = 1;
            __atomic_fetch_add(&shmemi_waits_serving, 1, __ATOMIC_RELAXED);
        }
        s->blocking = 0;
        if (shmemi_spin_yields())
            give_way();
        return;
    }
    if (s->blocking) {
        arm(s);
        return;
    }
    if (!s->since_ns) {
        s->since_ns = shmemi_now_ns();
        s->switches = switches();
        return;
    }
    /* Spin on: between two looks at the clock and the switch count (a system
     * call), 63 turns of pause instructions. Not sched_yield: with another
     * job's thread on the core, a yield gives it the core for a whole time
     * slice (ms), and the store we wait for goes unseen all that time; a
     * sleep is woken. But where the job itself has more PEs than CPUs, the
     * thread that wants our core is most likely the PE we wait for: yield. */
    if ((s->n & 63) != 0) {
        if (crowded)
            sched_yield();
        else
            sdma_cpu_relax();
        return;
    }
    uint64_t t0 = busy_at_ns;
    uint64_t t = shmemi_now_ns(), spun = t - s->since_ns;
    if (s->switches != switches())
        busy_at_ns = t; /* another thread took our core meanwhile */
    else if (t0 && t - t0 > BUSY_MEMORY_NS)
        busy_at_ns = 0; /* a second without losing it */
    long limit_us = busy_at_ns || crowded ? shmemi.cfg.WAIT_SPIN_BUSY_US : shmemi.cfg.WAIT_SPIN_US;
    limit_us *= spin_scale;
    if (spun >= (uint64_t)limit_us * 1000u) {
        s->budget_us = (uint32_t)limit_us;
        s->blocking = 1;
        arm(s);
    }
}

void shmemi_wait_report(void) {
    shmemi_debug("waits slept %llu times: %llu woken by a writer, %llu found the word moved, "
                 "%llu timed out",
                 (unsigned long long)(slept_woken + slept_moved + slept_timeout),
                 (unsigned long long)slept_woken, (unsigned long long)slept_moved,
                 (unsigned long long)slept_timeout);
    if (nap_spells)
        shmemi_debug("spells of naps between the looks of waits: %llu (a thread that does "
                     "not yield took the core)",
                     (unsigned long long)nap_spells);
}
