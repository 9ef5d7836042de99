/* Liveness: a job that can no longer progress ends instead of hanging.
 *
 * Every PE publishes, in its control block (struct shmemi_live), where it is
 * in its life (running, in shmem_finalize, done, exited with a non-zero
 * status) and, while a thread of it is blocked in a wait, which wait: a
 * number, a beat that advances while the wait lasts, the routine, and
 * whether only a peer could end it. From these words alone, with whatever
 * launcher started the job:
 *
 *  - a PE waiting in a barrier of all PEs ends the job when a peer is in
 *    shmem_finalize without having entered that barrier (it never will);
 *  - a PE in shmem_finalize ends the job when every PE that has not reached
 *    shmem_finalize has stayed blocked in one and the same wait, which only a
 *    peer could end, for LIVE_STUCK_MS: nobody is left to end those waits;
 *  - a PE that exits with a non-zero status says so; its launcher ends the
 *    job, and if it does not within LIVE_EXIT_GRACE_MS, the waiting PEs do;
 *  - a PE of this node that ends without a word (killed by a signal, or
 *    _exit before shmem_finalize) is seen by the others through a handle on
 *    its process (pidfd): the same, its launcher's turn first (one that does
 *    not watch exit statuses, or a PE's process that a wrapper outlives);
 *  - a PE whose launcher is gone (it was reparented) ends in its next wait.
 *
 * Programs that leave main without shmem_finalize, at whatever times, keep
 * working: the finalize run at exit waits as long as some PE still runs.
 *
 * Ordering: the owner stores every other field of its record before the
 * field that announces it (phase, wait_seq, wait_beat) with a release store;
 * readers load that field with acquire first. A message may show a torn
 * routine name when a wait is replaced while it is read; no verdict depends
 * on the name.
 *
 * A PE reached through the fabric (another node) has no mapping here: its
 * record is read into a copy with gets of the fabric, the announcing field
 * first and the fields it announces after that get completed (so they are at
 * least as new); a torn copy of the wait fields only delays a verdict (they
 * change between looks). Waits look at such PEs every LIVE_REMOTE_MS.
 */
#define _GNU_SOURCE
#include "shmem/liveness.h"

#include "shmem/engine.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define LIVE_TICK_MS 10        /* how often a blocked thread beats and looks at its peers */
#define LIVE_STUCK_MS 300      /* every other PE blocked this long in the same waits */
#define LIVE_EXIT_GRACE_MS 300 /* a peer exited non-zero: its launcher's turn first */
#define LIVE_REMOTE_MS 100     /* how often a wait looks at PEs of other nodes */

__thread const char *shmemi_routine __attribute__((tls_model("initial-exec")));

static int threads_before_init = -1;
static int lib_threads = -1;   /* threads the library started; -1: unknown */
static uint64_t waits;         /* waits this PE has published */
static int64_t peer_exited_at; /* when a peer was first seen EXITED (0: never) */

static int64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The processes of this node's PEs: a pidfd each (readable once the
 * process ended), fd -1 where the kernel has none (its pid is asked instead)
 * or once the PE is known to have ended. */
static struct pollfd *procs;
static int32_t *proc_pid;
static int64_t peer_died_at; /* when a peer was first seen ended without a word */
static pthread_mutex_t looking = PTHREAD_MUTEX_INITIALIZER; /* at procs */

/* Copies of the records of PEs reached through the fabric. */
static struct shmemi_live *copies;
static __thread int in_live; /* a get of a record waits: no liveness inside it */

static struct shmemi_live *mine(void) { return &shmemi_ctl_of(shmemi.my_pe)->live; }

static int mapped(int pe) { return pe == shmemi.my_pe || shmemi.peers[pe].heap; }

static struct shmemi_live *live_of(int pe) {
    return mapped(pe) ? &shmemi_ctl_of(pe)->live : &copies[pe];
}

/* Bytes [off, off + len) of PE pe's record into its copy. */
static void fetch(int pe, size_t off, size_t len) {
    struct shmemi_route r;
    shmemi_route_word(&r, pe, (const char *)mine() + off);
    in_live++;
    r.path->get(&shmemi_ctx_default, (char *)&copies[pe] + off, &r, len, 0,
                shmemi_routine ? shmemi_routine : "shmem_finalize");
    in_live--;
}

/* The wait fields of a record (its second line): a fresh copy for a PE of
 * another node. */
static void refresh_wait(int pe) {
    if (!mapped(pe))
        fetch(pe, offsetof(struct shmemi_live, wait_seq),
              sizeof(struct shmemi_live) - offsetof(struct shmemi_live, wait_seq));
}

static uint32_t phase_of(int pe) {
    if (!mapped(pe)) {
        /* The phase, then what it announces. */
        fetch(pe, 0, 2 * sizeof(uint32_t));
        if (copies[pe].phase != SHMEMI_LIVE_RUNNING)
            fetch(pe, offsetof(struct shmemi_live, status),
                  offsetof(struct shmemi_live, wait_seq) - offsetof(struct shmemi_live, status));
    }
    /* Acquire: pairs with the release store of the phase; the status and the
     * epoch stored before it are visible. */
    return __atomic_load_n(&live_of(pe)->phase, __ATOMIC_ACQUIRE);
}

static int in_finalize(uint32_t phase) {
    return phase == SHMEMI_LIVE_FINALIZING || phase == SHMEMI_LIVE_DONE;
}

/* Threads of this process (field 20 of /proc/self/stat), or -1. No malloc:
 * it runs inside waits and in the exit handler. */
static int count_threads(void) {
    char buf[1024];
    int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    /* The command (field 2) may hold spaces: count from its closing ')'. The
     * space before field f is the (f - 2)th after it. */
    char *p = strrchr(buf, ')');
    for (int f = 2; f < 20 && p; f++)
        p = strchr(p + 1, ' ');
    return p ? atoi(p + 1) : -1;
}

/* The process that started this PE: oshrun, mpirun, its daemon (orted,
 * prted), slurmstepd. One that dies without ending its PEs (killed with
 * SIGKILL, say: mpirun then leaves them running) leaves this PE to another
 * parent, and a wait that only a peer could end, which nobody will, would
 * spin until someone kills it: waits look at the parent at every beat. 0:
 * none to watch (this PE had no parent of its own at init). */
static pid_t launcher;

void shmemi_live_init_begin(void) {
    shmemi_routine = "shmem_init";
    threads_before_init = count_threads();
    launcher = getppid();
    if (launcher == 1)
        launcher = 0;
}

void shmemi_live_init_end(void) {
    for (int pe = 0; pe < shmemi.n_pes && !copies; pe++)
        if (!mapped(pe) &&
            !(copies = aligned_alloc(SHMEMI_CACHELINE,
                                     (size_t)shmemi.n_pes * sizeof(struct shmemi_live))))
            shmemi_fatal("shmem_init: out of memory");
    if (copies)
        memset(copies, 0, (size_t)shmemi.n_pes * sizeof(struct shmemi_live));
    int n = count_threads();
    lib_threads =
        n < 0 || threads_before_init < 0 || n < threads_before_init ? -1 : n - threads_before_init;
}

/* Whether, right now, only a peer could end a wait of this PE: no other
 * application thread, nothing left in the copy engine's RMA queues, and no
 * GPU kernel that may store into symmetric memory (a GPU build's program
 * with a host heap and no device code runs as a CPU one). */
static int only_peers_can_end(void) {
    if (lib_threads < 0 || shmemi_gpu_may_store())
        return 0;
    int n = count_threads();
    return n >= 0 && n - lib_threads <= 1 && shmemi_engine_idle();
}

/* "PE 3 left the program ...": why a PE will not take part any more. */
static void describe_gone(int pe, uint32_t phase, char *buf, size_t len) {
    const struct shmemi_live *l = live_of(pe);
    if (phase == SHMEMI_LIVE_EXITED && __atomic_load_n(&l->global, __ATOMIC_RELAXED))
        snprintf(buf, len, "PE %d called shmem_global_exit(%d)", pe,
                 (int)__atomic_load_n(&l->status, __ATOMIC_RELAXED));
    else if (phase == SHMEMI_LIVE_EXITED)
        snprintf(buf, len, "PE %d exited with status %d without calling shmem_finalize", pe,
                 (int)__atomic_load_n(&l->status, __ATOMIC_RELAXED));
    else if (__atomic_load_n(&l->implicit, __ATOMIC_RELAXED))
        snprintf(buf, len,
                 "PE %d left the program without calling shmem_finalize (it waits in the "
                 "finalize run at exit)",
                 pe);
    else
        snprintf(buf, len, "PE %d called shmem_finalize", pe);
}

static const char *my_routine(void) {
    return shmemi_routine ? shmemi_routine : "a wait of the library";
}

/* End the job with `status`, saying why: "<gone> while PE n waits in <routine>". */
static void end_job(const char *gone, int status) __attribute__((noreturn));
static void end_job(const char *gone, int status) {
    fflush(stdout);
    fprintf(stderr, "[PE %d] shmem: %s while PE %d waits in %s: ending the job\n", shmemi.my_pe,
            gone, shmemi.my_pe, my_routine());
    fflush(stderr);
    shmemi_paths_abandon();
    shmemi.boot->abort(shmemi.boot, status, NULL);
    _exit(status);
}

/* A peer exited non-zero: its launcher ends the job. Should it not (a
 * launcher that does not watch exit statuses), end it here, with that
 * status. */
static void peer_exited(int pe, int64_t now) {
    if (!peer_exited_at) {
        peer_exited_at = now;
        return;
    }
    if (now - peer_exited_at < LIVE_EXIT_GRACE_MS)
        return;
    char gone[256];
    describe_gone(pe, SHMEMI_LIVE_EXITED, gone, sizeof(gone));
    int status = (int)__atomic_load_n(&live_of(pe)->status, __ATOMIC_RELAXED);
    /* shmem_global_exit's status is the job's, 0 included. */
    if (!__atomic_load_n(&live_of(pe)->global, __ATOMIC_RELAXED))
        status = status & 0xff ? status & 0xff : 1;
    end_job(gone, status);
}

/* ---------------------------------------------------- processes of this node */

void shmemi_live_watch(int pe, int pid) {
    if (!procs) {
        procs = malloc((size_t)shmemi.n_pes * sizeof(*procs));
        proc_pid = calloc((size_t)shmemi.n_pes, sizeof(*proc_pid));
        if (!procs || !proc_pid)
            shmemi_fatal("shmem_init: out of memory");
        for (int i = 0; i < shmemi.n_pes; i++)
            procs[i] = (struct pollfd){.fd = -1, .events = POLLIN};
    }
#ifdef SYS_pidfd_open
    procs[pe].fd = (int)syscall(SYS_pidfd_open, (pid_t)pid, 0);
    if (procs[pe].fd >= 0)
        fcntl(procs[pe].fd, F_SETFD, FD_CLOEXEC);
#endif
    proc_pid[pe] = pid;
}

static void unwatch(int pe) {
    if (procs[pe].fd >= 0)
        close(procs[pe].fd);
    procs[pe].fd = -1;
    proc_pid[pe] = 0;
}

/* A peer of this node ended without shmem_finalize and without an exit
 * status (the exit handler did not run): its launcher ends the job; should
 * it not within LIVE_EXIT_GRACE_MS, end it here. */
static void peer_died(int pe, uint32_t phase, int64_t now) {
    if (!peer_died_at)
        peer_died_at = now;
    if (now - peer_died_at < LIVE_EXIT_GRACE_MS)
        return;
    char gone[256];
    snprintf(gone, sizeof(gone),
             "PE %d (pid %d) ended %s without an exit status (killed by a "
             "signal?)",
             pe, (int)proc_pid[pe],
             phase == SHMEMI_LIVE_RUNNING ? "before shmem_finalize" : "inside shmem_finalize");
    end_job(gone, 1);
}

/* The processes of this node's PEs that ended: fine after shmem_finalize or
 * with an exit status (peer_exited's business); else the job ends. One system
 * call for them all. */
static void look_at_processes(int64_t now) {
    /* One thread at a time (the others' waits look at the next beat). */
    if (!procs || pthread_mutex_trylock(&looking))
        return;
    int ended = poll(procs, (nfds_t)shmemi.n_pes, 0) > 0;
    for (int pe = 0; pe < shmemi.n_pes; pe++) {
        int gone = procs[pe].fd >= 0 ? ended && procs[pe].revents
                   : proc_pid[pe]    ? kill(proc_pid[pe], 0) && errno == ESRCH
                                     : 0;
        if (!gone)
            continue;
        uint32_t ph = phase_of(pe);
        if (ph == SHMEMI_LIVE_DONE || ph == SHMEMI_LIVE_EXITED)
            unwatch(pe);
        else
            peer_died(pe, ph, now);
    }
    pthread_mutex_unlock(&looking);
}

static void look_at_launcher(void) {
    if (launcher && getppid() != launcher)
        shmemi_fatal("the process that launched PE %d (pid %d) is gone while PE %d waits in %s: "
                     "the job ends",
                     shmemi.my_pe, (int)launcher, shmemi.my_pe, my_routine());
}

/* ------------------------------------------------------------- waiting */

static void publish(struct shmemi_spin *s) {
    struct shmemi_live *l = mine();
    if (!s->live_seq)
        s->live_seq = __atomic_add_fetch(&waits, 1, __ATOMIC_RELAXED);
    __atomic_store_n(&l->wait_sole, 0, __ATOMIC_RELAXED);
    snprintf(l->wait_what, sizeof(l->wait_what), "%s", my_routine());
    /* Release: the name is visible to whoever acquires the number. */
    __atomic_store_n(&l->wait_seq, s->live_seq, __ATOMIC_RELEASE);
}

/* This thread is still in its wait: say so, and whether only a peer could
 * end it now. Another thread's wait may have taken the record: take it back
 * (with several application threads, nothing is ever judged stuck). */
static void beat(struct shmemi_spin *s) {
    struct shmemi_live *l = mine();
    if (__atomic_load_n(&l->wait_seq, __ATOMIC_RELAXED) != s->live_seq)
        publish(s);
    int sole = only_peers_can_end();
    if (!sole)
        __atomic_fetch_add(&l->wait_busy, 1, __ATOMIC_RELAXED);
    __atomic_store_n(&l->wait_sole, (uint32_t)sole, __ATOMIC_RELAXED);
    /* Release: busy, sole and the wait's number are visible to whoever
     * acquires the beat. */
    __atomic_fetch_add(&l->wait_beat, 1, __ATOMIC_RELEASE);
}

void shmemi_live_wait(struct shmemi_spin *s) {
    if (shmemi.n_pes < 2 || !shmemi.peers || in_live)
        return;
    int64_t now = now_ms();
    if (!s->live_seq) {
        publish(s);
        s->next_ms = now + LIVE_TICK_MS;
        return;
    }
    if (now < s->next_ms)
        return;
    s->next_ms = now + LIVE_TICK_MS;
    beat(s);
    look_at_launcher();
    look_at_processes(now);
    /* PEs of other nodes cost a get each: looked at less often. */
    static int64_t remote_next;
    int remote = copies && now >= __atomic_load_n(&remote_next, __ATOMIC_RELAXED);
    if (remote)
        __atomic_store_n(&remote_next, now + LIVE_REMOTE_MS, __ATOMIC_RELAXED);
    for (int pe = 0; pe < shmemi.n_pes; pe++) {
        if (pe == shmemi.my_pe || (!remote && !mapped(pe)))
            continue;
        uint32_t ph = phase_of(pe);
        if (ph == SHMEMI_LIVE_EXITED)
            peer_exited(pe, now);
        /* A barrier of all PEs that a PE in shmem_finalize never entered
         * cannot complete (the epoch counts the barriers it did). */
        if (in_finalize(ph) && s->world_epoch &&
            __atomic_load_n(&live_of(pe)->epoch, __ATOMIC_RELAXED) < s->world_epoch) {
            char gone[256];
            describe_gone(pe, ph, gone, sizeof(gone));
            shmemi_fatal("%s while PE %d waits in %s, a barrier of all PEs which PE %d never "
                         "entered: the job cannot finish",
                         gone, shmemi.my_pe, my_routine(), pe);
        }
    }
}

/* ------------------------------------------------------------ finalize */

/* The waits of the PEs that have not reached shmem_finalize, as read when
 * `since` was taken, and each one's beat at the last look. */
struct stuck {
    int64_t since; /* 0: no snapshot */
    uint64_t *seq, *busy, *beat;
};

/* 1 when every PE that has not reached shmem_finalize has stayed, for
 * LIVE_STUCK_MS, in the wait it was in at the snapshot, and every beat since
 * found that only a peer could end it, and it still beats (it is still in
 * it). Then, over that time, no thread and no copy engine of any PE could
 * end any of those waits: nobody ever will. A PE that stops beating (not
 * scheduled, or out of its wait and computing) only delays the verdict; a
 * new wait, or a beat that found other help, takes a new snapshot. */
static int all_stuck(struct stuck *st, int64_t now) {
    int changed = st->since == 0, all_sole = 1, beating = 1, others = 0;
    for (int pe = 0; pe < shmemi.n_pes; pe++) {
        if (pe == shmemi.my_pe)
            continue;
        uint32_t ph = phase_of(pe);
        if (ph == SHMEMI_LIVE_EXITED) {
            peer_exited(pe, now);
            st->since = 0;
            return 0;
        }
        if (in_finalize(ph))
            continue;
        others++;
        refresh_wait(pe);
        struct shmemi_live *l = live_of(pe);
        /* The beat first: a later beat of a newer wait then comes with that
         * wait's number (acquire). */
        uint64_t beat = __atomic_load_n(&l->wait_beat, __ATOMIC_ACQUIRE);
        uint64_t seq = __atomic_load_n(&l->wait_seq, __ATOMIC_ACQUIRE);
        uint64_t busy = __atomic_load_n(&l->wait_busy, __ATOMIC_RELAXED);
        if (!seq) {
            st->since = 0; /* it never waited: it runs */
            return 0;
        }
        all_sole &= __atomic_load_n(&l->wait_sole, __ATOMIC_RELAXED) != 0;
        if (seq != st->seq[pe] || busy != st->busy[pe])
            changed = 1; /* a new wait, or a beat found other help */
        if (beat == st->beat[pe])
            beating = 0;
        /* Unchanged entries only take the new beat; a change makes every
         * entry the new snapshot. */
        st->seq[pe] = seq;
        st->busy[pe] = busy;
        st->beat[pe] = beat;
    }
    if (!others)
        return 0;
    if (changed) {
        st->since = all_sole ? now : 0;
        return 0;
    }
    return beating && now - st->since >= LIVE_STUCK_MS;
}

/* "PE 1 waits in shmem_barrier_all, PE 2 waits in ..." for the PEs picked
 * (at most four named). */
static void list_waits(const char *pick, char *buf, size_t len) {
    size_t n = 0;
    int listed = 0, more = 0;
    buf[0] = '\0';
    for (int pe = 0; pe < shmemi.n_pes; pe++) {
        if (!pick[pe])
            continue;
        if (listed == 4) {
            more++;
            continue;
        }
        refresh_wait(pe);
        char what[sizeof(live_of(pe)->wait_what) + 1];
        memcpy(what, live_of(pe)->wait_what, sizeof(what) - 1);
        what[sizeof(what) - 1] = '\0';
        int w = snprintf(buf + n, len - n, "%sPE %d waits in %s", listed ? ", " : "", pe, what);
        if (w > 0 && (size_t)w < len - n)
            n += (size_t)w;
        listed++;
    }
    if (more)
        snprintf(buf + n, len - n, " and %d more PE%s wait%s", more, more == 1 ? "" : "s",
                 more == 1 ? "s" : "");
}

static void report_stuck(void) {
    char gone[256], waits_text[512];
    char *pick = calloc((size_t)shmemi.n_pes, 1);
    if (!pick)
        shmemi_fatal("shmem_finalize: out of memory");
    for (int pe = 0; pe < shmemi.n_pes; pe++)
        pick[pe] = pe != shmemi.my_pe && !in_finalize(phase_of(pe));
    describe_gone(shmemi.my_pe, SHMEMI_LIVE_FINALIZING, gone, sizeof(gone));
    list_waits(pick, waits_text, sizeof(waits_text));
    shmemi_fatal("%s while %s, which only a peer could end: the job cannot finish", gone,
                 waits_text);
}

/* Back off while waiting for the other PEs: at first spin and yield (they
 * usually arrive together), later sleep (a program's PEs may leave main
 * minutes apart: then wake once a tick, not to take a computing peer's core). */
static void nap(unsigned turn, int64_t waited_ms) {
    if (turn < 64) {
        sdma_cpu_relax();
        return;
    }
    if (turn < 4096) {
        sched_yield();
        return;
    }
    struct timespec ts = {0, waited_ms < 100 ? 20000 : LIVE_TICK_MS * 1000000L};
    nanosleep(&ts, NULL);
}

void shmemi_live_finalize(int implicit) {
    struct shmemi_live *l = mine();
    shmemi_routine = "shmem_finalize";
    __atomic_store_n(&l->implicit, (uint32_t)implicit, __ATOMIC_RELAXED);
    __atomic_store_n(&l->epoch, shmemi.barrier_epoch, __ATOMIC_RELAXED);
    /* Release: this PE's operations (completed by the caller's quiet) and
     * the fields above are visible to whoever sees the phase. */
    __atomic_store_n(&l->phase, SHMEMI_LIVE_FINALIZING, __ATOMIC_RELEASE);
    if (shmemi.n_pes < 2)
        goto done;

    size_t n = (size_t)shmemi.n_pes;
    struct stuck st = {0, calloc(n, sizeof(uint64_t)), calloc(n, sizeof(uint64_t)),
                       calloc(n, sizeof(uint64_t))};
    if (!st.seq || !st.busy || !st.beat)
        shmemi_fatal("shmem_finalize: out of memory");
    int64_t start = now_ms(), next = start;
    for (unsigned turn = 0;; turn++) {
        int all = 1;
        for (int pe = 0; pe < shmemi.n_pes && all; pe++)
            all = in_finalize(phase_of(pe));
        if (all)
            break;
        int64_t now = now_ms();
        if (now >= next) {
            next = now + LIVE_TICK_MS;
            look_at_processes(now);
            if (all_stuck(&st, now))
                report_stuck();
        }
        nap(turn, now - start);
    }
    free(st.seq);
    free(st.busy);
    free(st.beat);
done:
    __atomic_store_n(&l->phase, SHMEMI_LIVE_DONE, __ATOMIC_RELEASE);
    pthread_mutex_lock(&looking);
    for (int pe = 0; procs && pe < shmemi.n_pes; pe++)
        unwatch(pe);
    free(procs);
    free(proc_pid);
    procs = NULL;
    proc_pid = NULL;
    pthread_mutex_unlock(&looking);
}

void shmemi_live_global_exit(int status) {
    struct shmemi_live *l = mine();
    __atomic_store_n(&l->status, status, __ATOMIC_RELAXED);
    __atomic_store_n(&l->global, 1, __ATOMIC_RELAXED);
    __atomic_store_n(&l->phase, SHMEMI_LIVE_EXITED, __ATOMIC_RELEASE);
}

void shmemi_live_exit(int status) {
    struct shmemi_live *l = mine();
    __atomic_store_n(&l->status, status, __ATOMIC_RELAXED);
    __atomic_store_n(&l->epoch, shmemi.barrier_epoch, __ATOMIC_RELAXED);
    __atomic_store_n(&l->phase, SHMEMI_LIVE_EXITED, __ATOMIC_RELEASE);
    shmemi_paths_abandon();
    if (shmemi.n_pes < 2)
        return;
    /* Say what the others wait in: the PEs whose beat advances (they are
     * blocked in a wait) over a few of their beats. */
    char waits_text[512] = "";
    size_t n = (size_t)shmemi.n_pes;
    uint64_t *beats = calloc(n, sizeof(uint64_t));
    char *pick = calloc(n, 1);
    if (beats && pick) {
        for (int pe = 0; pe < shmemi.n_pes; pe++) {
            refresh_wait(pe);
            beats[pe] = __atomic_load_n(&live_of(pe)->wait_beat, __ATOMIC_ACQUIRE);
        }
        struct timespec ts = {0, 5 * LIVE_TICK_MS * 1000000L};
        nanosleep(&ts, NULL);
        for (int pe = 0; pe < shmemi.n_pes; pe++) {
            pick[pe] = pe != shmemi.my_pe && phase_of(pe) == SHMEMI_LIVE_RUNNING;
            refresh_wait(pe);
            pick[pe] &= __atomic_load_n(&live_of(pe)->wait_beat, __ATOMIC_ACQUIRE) != beats[pe];
        }
        list_waits(pick, waits_text, sizeof(waits_text));
    }
    free(beats);
    free(pick);
    fflush(stdout);
    fprintf(stderr,
            "[PE %d] shmem: PE %d exits with status %d without calling shmem_finalize%s%s: "
            "the job ends\n",
            shmemi.my_pe, shmemi.my_pe, status, waits_text[0] ? " while " : "", waits_text);
    fflush(stderr);
}
