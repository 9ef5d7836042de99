/* Internal core of the library: PE state, address translation, errors.
 *
 * Every public routine checks its arguments, then makes one call into the
 * functions declared here. Only the core chooses how a (pe, address) is
 * reached: shmemi_route() (shmem/path.h) picks the row of the path table
 * that reaches it: the direct mapping of the PEs of this node, the device
 * heap in GPU builds, the fabric for PEs of other nodes. */
#ifndef SHMEMI_H
#define SHMEMI_H

#define SHMEMI_NO_GENERIC 1             /* the library defines the names the generics dispatch to */
#define SHMEM_NO_DEPRECATION_WARNINGS 1 /* it defines the deprecated ones too */

#include <stdarg.h>
#include <stdbool.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

/* Public declarations get default visibility; everything else is hidden. */
#pragma GCC visibility push(default)
#include <shmem.h>
#include <shmemx.h>
#pragma GCC visibility pop

#include "bootstrap/boot.h"
#include "device/state.h"
#include "sdma/atomic.h"
#include "shmem/env.h"

#define SHMEMI_LIKELY(x) __builtin_expect(!!(x), 1)
#define SHMEMI_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define SHMEMI_CACHELINE 64

/* ------------------------------------------------------------------ errors */
/* Print "[PE n] shmem: <message>" and end the whole job through the
 * bootstrap. The one fatal path of the library. */
__attribute__((noreturn, format(printf, 1, 2))) void shmemi_fatal(const char *fmt, ...);
/* Debug message under SHMEM_DEBUG=1. */
__attribute__((format(printf, 1, 2))) void shmemi_debug(const char *fmt, ...);
/* Warning on stderr, with the PE. */
__attribute__((format(printf, 1, 2))) void shmemi_warn(const char *fmt, ...);

/* ---------------------------------------------------- per-PE control block */
/* The last SHMEMI_CTL_SIZE bytes of every PE's host heap belong to the library:
 * words that peers write during barriers and other internal protocols. Each
 * word that a peer writes sits on its own cache line. */
#define SHMEMI_MAX_ROUNDS 32
struct shmemi_line {
    _Alignas(SHMEMI_CACHELINE) uint64_t v;
};
/* A dissemination round's word, one per parity of the epoch: a sync stores
 * epoch e into v[e & 1] (shmemi_round_word). A PE may store epoch e + 1 while
 * its store of e is still on its way (through a fabric, in no promised order
 * with it); it stores e + 2 only after the receiver has passed sync e + 1 and
 * so has seen e. So no two stores are ever in flight to one word. */
struct shmemi_round {
    _Alignas(SHMEMI_CACHELINE) uint64_t v[2];
};
#define shmemi_round_word(r, epoch) (&(r)->v[(epoch)&1])
/* Teams: a pool of slots, one per live team on this PE (slots 0 and 1 are
 * WORLD's and SHARED's). A split team takes the lowest slot free on every PE
 * of its parent; disjoint teams may hold the same slot. */
#define SHMEMI_TEAM_SLOTS 64
#define SHMEMI_TEAM_ROUNDS 8 /* a split team has at most 2^8 PEs */
struct shmemi_team_ctl {
    /* Dissemination barrier over team indices: round k of member i is
     * signalled by member i - 2^k, which stores the team's sync epoch here. */
    struct shmemi_round sync[SHMEMI_TEAM_ROUNDS];
    /* A value this PE publishes to the team's other members during a
     * collective (its element count in collect, its free-slot mask during a
     * split); written only by this PE, read by peers between two syncs. */
    struct shmemi_line post;
};
/* What a PE tells its peers about its progress, so that a job that can no
 * longer progress ends instead of hanging (shmem/liveness.c). Written only by
 * the PE itself; peers read it. */
enum {
    SHMEMI_LIVE_RUNNING = 0, /* (zeroed memory) */
    SHMEMI_LIVE_FINALIZING,  /* in shmem_finalize, waiting for the others */
    SHMEMI_LIVE_DONE,        /* every PE reached shmem_finalize */
    SHMEMI_LIVE_EXITED,      /* left with a non-zero status, without shmem_finalize */
};
struct shmemi_live {
    _Alignas(SHMEMI_CACHELINE) uint32_t phase; /* SHMEMI_LIVE_*, stored last (release) */
    uint32_t implicit; /* the finalize runs at exit: the program did not call it */
    int32_t status;    /* EXITED: the exit status */
    uint32_t global;   /* EXITED: by shmem_global_exit (the job's status is the PE's) */
    uint64_t epoch;    /* barriers of all PEs done when the phase changed */
    /* The wait a thread of this PE is blocked in, published by the slow
     * path of shmemi_spin: its number (0: none yet), a beat that advances
     * while it lasts, whether at the last beat only a peer could end it (one
     * application thread, an idle copy engine, no GPU), and how many beats
     * so far found something else that could (never decreases). */
    _Alignas(SHMEMI_CACHELINE) uint64_t wait_seq;
    uint64_t wait_beat;
    uint64_t wait_busy;
    uint32_t wait_sole;
    char wait_what[36]; /* the routine, NUL-terminated */
};
/* Blocking waits (shmem/wait.c): the threads of this PE (and its copy
 * engine's thread) that sleep until something stores into this PE's memory
 * sleep on `seq`, a futex word in shared memory, and count themselves in by
 * what they wait for: a range of one region (a watch[] slot they claim, and
 * `watched_ctl` when the range lies in the control block, `watched`
 * otherwise) or any store (`any`). A writer that sees a count non-zero (one
 * 64-bit load), and a watch its store overlaps or `any` non-zero, bumps `seq`
 * and wakes them: a put into a PE that sleeps in a barrier costs no system
 * call, and a put outside the control block, while only waits on its words
 * (barriers, syncs, small collectives) sleep, not even a look at the watches. */
#define SHMEMI_WATCHES 6
struct shmemi_watch {
    uint32_t used;   /* claimed by a sleeper */
    uint32_t region; /* enum shmemi_region */
    uint64_t lo, hi; /* offsets [lo, hi) in the region */
};
struct shmemi_wake {
    _Alignas(SHMEMI_CACHELINE) uint32_t seq;
    uint32_t raw; /* some PE may store here through shmem_ptr: such stores wake no one */
    union {
        uint64_t sleepers; /* every count, for writers' one load */
        struct {
            uint16_t watched_ctl; /* sleepers watching words of the control block */
            uint16_t watched;     /* sleepers watching other words */
            uint32_t any;         /* sleepers that want every store */
        };
    };
    struct shmemi_watch watch[SHMEMI_WATCHES];
};
/* In `sleepers`: every count but watched_ctl (its low 16 bits). */
#define SHMEMI_SLEEPERS_NOT_CTL (~(uint64_t)0xffff)
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ &&
                   offsetof(struct shmemi_wake, watched_ctl) ==
                       offsetof(struct shmemi_wake, sleepers),
               "watched_ctl is the low 16 bits of sleepers");
/* Small collectives without barriers (shmem/coll.c): PE p's message to this
 * PE in one exchange lands in ll[area][seq & 1][p], written only by p: its
 * bytes, then seq (release), which counts p's messages to this PE in that
 * area. Two slots per sender suffice: every exchange sends to and waits for
 * every member, so a sender's message k + 2 follows our message k + 1, which
 * we send only after reading its message k. Jobs of up to SHMEMI_LL_PES. */
#define SHMEMI_LL_PES 128
#define SHMEMI_LL_BYTES 496
#define SHMEMI_LL_AREAS 2 /* the WORLD team; active sets over every PE */
/* A fabric's mailboxes for the mid-size ones: one per area and parity. */
#define SHMEMI_MAIL_BOXES (2 * SHMEMI_LL_AREAS)
struct shmemi_ll_slot {
    _Alignas(SHMEMI_CACHELINE) uint64_t seq;
    uint64_t pad; /* the bytes start 16-byte aligned */
    unsigned char data[SHMEMI_LL_BYTES];
};
struct shmemi_ctl {
    /* Dissemination barrier: round k of PE i is signalled by PE i - 2^k,
     * which stores the barrier epoch here (one writer per word). */
    struct shmemi_round barrier[SHMEMI_MAX_ROUNDS];
    struct shmemi_team_ctl team[SHMEMI_TEAM_SLOTS];
    struct shmemi_live live;
    struct shmemi_wake wake;
    struct shmemi_ll_slot ll[SHMEMI_LL_AREAS][2][SHMEMI_LL_PES];
};
#define SHMEMI_CTL_SIZE ((size_t)512 * 1024)
/* With a device heap, the host heap starts with this many bytes of symmetric
 * words the host, kernels and copy engines all reach (triggered plans' gates,
 * counters and views): shmemi_words_malloc. */
#define SHMEMI_WORDS_SIZE ((size_t)4 << 20)
/* Every PE's heap starts on this boundary, so shmem_align gives the same
 * offset on every PE for any alignment up to it. */
#define SHMEMI_HEAP_ALIGN ((size_t)1 << 30)
_Static_assert(sizeof(struct shmemi_ctl) <= SHMEMI_CTL_SIZE, "control block too large");

/* ------------------------------------------------------------------- state */
/* The regions of a PE's symmetric memory: a remote address is (world PE,
 * region, offset). */
enum shmemi_region {
    SHMEMI_REGION_HEAP = 0,   /* the host heap (the user heap of the host heap kind) */
    SHMEMI_REGION_DATA = 1,   /* the static data segment (global and static variables) */
    SHMEMI_REGION_DEVICE = 2, /* the device heap (GPU builds) */
    SHMEMI_REGIONS
};

struct shmemi_path_ops;
struct shmemi_peer {
    union {
        struct {
            char *heap; /* the peer's host heap, mapped here */
            char *data; /* the peer's static data segment, mapped here */
            char *dev;  /* the peer's device heap, IPC-mapped here (device pointer), or NULL */
        };
        char *base[SHMEMI_REGIONS]; /* the same, by region; NULL where not mapped here */
    };
    /* The row of the path table that reaches each region of the peer
     * (shmem/path.h), or NULL. */
    const struct shmemi_path_ops *path[SHMEMI_REGIONS];
};
_Static_assert(offsetof(struct shmemi_peer, data) ==
                   offsetof(struct shmemi_peer, base) + SHMEMI_REGION_DATA * sizeof(char *),
               "peer regions");
_Static_assert(offsetof(struct shmemi_peer, dev) ==
                   offsetof(struct shmemi_peer, base) + SHMEMI_REGION_DEVICE * sizeof(char *),
               "peer regions");

/* Heap kinds. HOST: the user heap is in the host heap (a shared memory
 * object every PE of the node maps), reached with loads, stores and memcpy.
 * DEVICE (GPU builds): the user heap is GPU memory, one allocation per PE
 * exported to the node's other PEs through IPC handles, and reached from the
 * host through the device path below. The host heap always exists: it holds
 * the library's control block (host barriers, team words). */
enum shmemi_heap_kind { SHMEMI_HEAP_HOST = 0, SHMEMI_HEAP_DEVICE = 1 };

/* Atomic operations, on the bits of a 4- or 8-byte word. */
enum shmemi_amo_op {
    SHMEMI_AMO_FETCH,
    SHMEMI_AMO_SET,
    SHMEMI_AMO_SWAP,
    SHMEMI_AMO_CSWAP,
    SHMEMI_AMO_ADD,
    SHMEMI_AMO_AND,
    SHMEMI_AMO_OR,
    SHMEMI_AMO_XOR,
};

/* What a check of the path table's rows is for (shmemi_paths_check). */
enum shmemi_check {
    SHMEMI_CHECK_FAULTS = 0, /* report failures a row found asynchronously (ends the job) */
    SHMEMI_CHECK_SYNC = 1,   /* a host barrier or sync: first complete the work this PE
                                queued on its devices (GPU builds: SHMEM_BARRIER_GPU_SYNC) */
    SHMEMI_CHECK_DRAIN = 2,  /* finalize: first wait for everything the rows still run */
};

/* What the host can do with device-heap memory (GPU runtime copies on a
 * library stream, atomics through a one-thread kernel): provided by
 * shmem/gpu.c in GPU builds, wrapped by the device row of the path table
 * (shmem/path_device.c). Every function ends the job through shmemi_fatal
 * on a runtime error, naming `fn`. */
struct shmemi_dev_ops {
    const char *name;
    /* Allocate, zero and export this PE's device heap of `bytes` bytes, open
     * the peers' (shmemi.peers[].dev); sets dev_base, dev_size, heap_align. */
    int (*heap_init)(size_t bytes);
    /* Fill the device-side fields of the device state (heap, peer table). */
    int (*state)(struct shmemi_device_state *st);
    /* Open the device-driven queues (kernels' large _nbi puts through the copy
     * engine) into the state: once the program has device code. */
    void (*queues)(struct shmemi_device_state *st, const char *fn);
    /* Copy between any two of: host memory, this PE's GPU, a peer's mapped
     * heap. nbi: may complete at quiet. */
    void (*copy)(void *dst, const void *src, size_t n, int nbi, const char *fn);
    /* `rows` rows of `width` bytes, with the given pitches (strided RMA). */
    void (*copy_2d)(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                    size_t rows, const char *fn);
    void (*fill)(void *dst, int byte, size_t n, const char *fn);
    /* A system-scope atomic; *old (when not NULL) receives the old value.
     * nbi (only with old == NULL): may complete at quiet. */
    void (*amo)(void *p, enum shmemi_amo_op op, size_t size, uint64_t value, uint64_t cond,
                uint64_t *old, int nbi, const char *fn);
    /* Complete every nbi operation of the path. */
    void (*quiet)(const char *fn);
    /* A check of the device row (enum shmemi_check): SYNC waits first for
     * the work this PE queued on its GPU (SHMEM_BARRIER_GPU_SYNC); DRAIN
     * (finalize) for the stream-ordered API's waits; then a wait of that API
     * which ran past its timeout ends the job. */
    void (*check)(int how, const char *fn);
    void (*fini)(void);
};

struct shmemi_ctx_pending;
struct shmemi_ctx {
    long options;
    shmem_team_t team; /* PE numbers of calls on the context are relative to it */
    /* Its session (1.6): the SHMEM_CTX_SESSION_* options of the session under way
     * (0: none) and its total_ops hint. Set and read by the threads that use the
     * context, which a session does not make shareable. */
    long session;
    size_t session_ops;
    /* Copy-engine work queued for the context, per peer (shmem/engine.c);
     * allocated on first use. */
    struct shmemi_ctx_pending *pending;
    /* The context's own fabric endpoint (shmem/fabric.c), made on first use;
     * NULL: none yet, or the default context's. */
    void *fabric;
    /* The next context made on the same team (struct shmemi_team: ctxs). */
    struct shmemi_ctx *team_next;
    /* SHMEMI_CTX_LIVE from its creation to its destruction. A destroyed
     * context's memory is kept for the next one made, never given back, so
     * that a call on a destroyed handle finds 0 here and says so;
     * SHMEMI_CTX_TEAM_GONE: destroyed with its team, and never made again. */
    uint32_t live;
};
#define SHMEMI_CTX_LIVE 0x6c697665u
#define SHMEMI_CTX_TEAM_GONE 0x676f6e65u

struct shmemi_team {
    int start, stride, size; /* world PEs start + i * stride, i < size */
    int my_pe;               /* my index in the team, or -1 */
    int slot;                /* its slot in the control block (shmemi_ctl.team) */
    uint64_t epoch;          /* syncs done on the team; only grows */
    shmem_team_config_t config;
    long config_mask;
    struct shmemi_ctx *ctxs; /* the live contexts made on it (team.c) */
};

struct shmemi_state {
    int initialized; /* 1 after shmem_init, 0 again after shmem_finalize */
    /* Initialized, and no device code waits for the device state: the one
     * word shmemi_check_init looks at (shmem/device.c keeps it). */
    int entry_ok;
    int finalized;
    int my_pe, n_pes;
    int thread_level;
    int thread_asked; /* the level the program asked for (shmem_init: SINGLE) */
    struct boot *boot;

    char *heap_base; /* my host heap: [user heap, device control area] (host heap
                        kind only), then the control block */
    size_t heap_size;
    char *data_base; /* my static data segment (page aligned), may be empty */
    size_t data_size;
    struct shmemi_peer *peers;

    enum shmemi_heap_kind heap_kind;
    char *user_base; /* the user heap (shmem_malloc), in the host or device heap */
    size_t user_size;
    int user_region;   /* SHMEMI_REGION_HEAP or _DEVICE: where the user heap is */
    size_t heap_align; /* the largest alignment shmem_align can honour */
    char *dev_base;    /* my device heap (device pointer): user heap, then the
                          device control area; dev_size 0 without one */
    size_t dev_size;
    const struct shmemi_dev_ops *dev; /* the device path, or NULL */
    /* Set when any PE is reached through the fabric: the row of every AMO on
     * symmetric memory (shmemi_route_atomic), but those on words this PE maps
     * where amo_mapped is set (the row's atomics are the target CPU's). */
    const struct shmemi_path_ops *amo_row;
    int amo_mapped;
    int words_gpu; /* the host heaps are registered: kernels use their host addresses */

    uint64_t barrier_epoch;
    int wake_fence; /* writers fence before shmemi_wake's load (no membarrier here) */
    int raw_stores; /* shmem_ptr handed out a pointer: words may change without a wake */
                    /* (the PE it points into learns it through its wake block's raw) */
    struct shmemi_config cfg;
};

extern struct shmemi_state shmemi;

/* Nanoseconds of CLOCK_MONOTONIC (a vDSO call: no system call). */
static inline uint64_t shmemi_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline struct shmemi_ctl *shmemi_ctl_of(int pe) {
    /* The host control block: at the end of the host heap in both kinds. */
    return (struct shmemi_ctl *)(shmemi.peers[pe].heap + shmemi.heap_size - SHMEMI_CTL_SIZE);
}

/* ------------------------------------------------------ checks and routing */
/* The public routine this thread last entered (set by shmemi_check_init):
 * what a blocked PE says it waits in. */
extern __thread const char *shmemi_routine __attribute__((tls_model("initial-exec")));

void shmemi_not_initialized(const char *fn) __attribute__((noreturn));
void shmemi_bad_pe(int pe, const char *fn) __attribute__((noreturn));
void shmemi_bad_addr(const void *addr, size_t len, int pe, const char *fn)
    __attribute__((noreturn));
/* A transfer of n (> 0) bytes whose local buffer (`what`) is NULL. */
void shmemi_null_buffer(const char *what, size_t n, const char *fn) __attribute__((noreturn));

/* Not initialized (ends the job), or device code waits for its state. */
void shmemi_entry_slow(const char *fn);
static inline void shmemi_check_init(const char *fn) {
    shmemi_routine = fn;
    if (SHMEMI_UNLIKELY(!__atomic_load_n(&shmemi.entry_ok, __ATOMIC_RELAXED)))
        shmemi_entry_slow(fn);
}

/* Whether a local address lies in this PE's device heap (never in CPU
 * builds: dev_size is 0). */
static inline int shmemi_on_device(const void *addr) {
    return (uintptr_t)addr - (uintptr_t)shmemi.dev_base < shmemi.dev_size;
}

/* The route of a (PE, address) -- shmemi_route() and friends -- is in
 * shmem/path.h, included at the end of this file. */

/* Copy between local buffers, either of which may be on the device heap. */
/* pin.c: the calling thread on a CPU of its own where the node has one for
 * every PE (SHMEM_BIND); threads made after it get the process's CPUs back. */
void shmemi_pin(int local_rank, int local_size);
void shmemi_unpinned_attr(pthread_attr_t *a);

void shmemi_local_copy(void *dst, const void *src, size_t n, const char *fn);
/* The same for `rows` rows of `width` bytes, with the given pitches. */
void shmemi_local_copy_2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                          size_t rows, const char *fn);

/* Byte count of nelems elements, ending the job on overflow. */
static inline size_t shmemi_bytes(size_t nelems, size_t esize, const char *fn) {
    size_t n;
    if (SHMEMI_UNLIKELY(__builtin_mul_overflow(nelems, esize, &n)))
        shmemi_fatal("%s: %zu elements of %zu bytes overflow size_t", fn, nelems, esize);
    return n;
}

/* A context the program passed: ends the job naming fn on SHMEM_CTX_INVALID,
 * on a destroyed context, and on a handle no context creation returned. */
void shmemi_ctx_invalid(const char *fn) __attribute__((noreturn));
void shmemi_ctx_dead(shmem_ctx_t ctx, const char *fn) __attribute__((noreturn));
static inline struct shmemi_ctx *shmemi_ctx_check(shmem_ctx_t ctx, const char *fn) {
    if (SHMEMI_UNLIKELY(ctx == SHMEM_CTX_INVALID))
        shmemi_ctx_invalid(fn);
    /* Nothing is mapped below 64 KiB (vm.mmap_min_addr): no context lives there. */
    if (SHMEMI_UNLIKELY((uintptr_t)ctx < 65536 || ctx->live != SHMEMI_CTX_LIVE))
        shmemi_ctx_dead(ctx, fn);
    return (struct shmemi_ctx *)ctx;
}

/* ------------------------------------------------------------- core paths */
void shmemi_put(shmem_ctx_t ctx, void *dest, const void *src, size_t bytes, int pe, int nbi,
                const char *fn);
void shmemi_get(shmem_ctx_t ctx, void *dest, const void *src, size_t bytes, int pe, int nbi,
                const char *fn);
void shmemi_iput(shmem_ctx_t ctx, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst,
                 size_t nelems, size_t esize, int pe, const char *fn);
void shmemi_iget(shmem_ctx_t ctx, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst,
                 size_t nelems, size_t esize, int pe, const char *fn);
void shmemi_put_signal(shmem_ctx_t ctx, void *dest, const void *src, size_t bytes,
                       uint64_t *sig_addr, uint64_t signal, int sig_op, int pe, int nbi,
                       const char *fn);
/* The signal update alone (signal_add, signal_set) on a 64-bit word of pe. */
void shmemi_signal(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe,
                   const char *fn);
/* The one core entry of every AMO: run `op` on the `size`-byte (4 or 8) word
 * `dest` of `pe`, reached through ctx. value and cond point at size-byte
 * values (cond only for CSWAP, may be NULL otherwise); fetch (NULL for the
 * non-fetching forms) receives the old value. */
void shmemi_amo(shmem_ctx_t ctx, enum shmemi_amo_op op, void *dest, size_t size, const void *value,
                const void *cond, void *fetch, int pe, const char *fn);
/* Quiet and fence of ctx (nothing for SHMEM_CTX_INVALID); fn names the
 * routine the user called. */
void shmemi_quiet(shmem_ctx_t ctx, const char *fn);
void shmemi_fence(shmem_ctx_t ctx, const char *fn);
/* Quiet of ctx towards npes PEs, numbered in the context's team. */
void shmemi_pe_quiet(shmem_ctx_t ctx, const int *pes, size_t npes, const char *fn);
/* wait/test: check that nelems elements of esize bytes at ivars are
 * symmetric memory of this PE (ends the job otherwise), and load one of
 * them (acquire) through the path that reaches it. */
void shmemi_ivars_check(const void *ivars, size_t nelems, size_t esize, const char *fn);
void shmemi_ivar_load(const void *ivar, size_t esize, void *out, const char *fn);
void shmemi_barrier_all(const char *fn);
void shmemi_sync_all(const char *fn);
void shmemi_team_sync(const struct shmemi_team *team, const char *fn);
/* Active-set barrier on the pSync words (no quiet). */
void shmemi_sync_active_set(int start, int log_stride, int size, long *psync, const char *fn);

/* Waiting (shmem/wait.c). A wait spins while its core is its own (up to
 * SHMEM_WAIT_SPIN_US), then sleeps on the wake word of the PE whose memory
 * holds the awaited words until a writer wakes it, or until a timeout that
 * grows to SHMEM_WAIT_SLEEP_MAX_US, so that shmemi_spin_slow runs at least
 * that often. Once the thread has lost its core to another (involuntary
 * switches), waits sleep after SHMEM_WAIT_SPIN_BUSY_US. The loop:
 *     struct shmemi_spin s = {0};     (SHMEMI_SPIN_ON(pe): another PE's words)
 *     while (!cond) shmemi_spin(&s);
 *     shmemi_spin_end(&s);
 * Every writer of such a word calls shmemi_wake(pe) after its store. */
struct shmemi_spin {
    unsigned n;        /* turns */
    int owner;         /* 1 + the world PE whose memory holds the words; 0: this PE */
    const void *watch; /* the words, as mapped here (NULL: any store wakes us) */
    size_t watch_len;
    int armed;          /* counted as a sleeper: the caller re-checks, the next turn sleeps */
    int slot;           /* the watch slot claimed when armed; -1: counted in `any` */
    int in_ctl;         /* the watch lies in the owner's control block (watched_ctl) */
    int blocking;       /* the spin phase is over */
    int serves;         /* counted in shmemi_waits_serving */
    uint32_t seq;       /* the wake word when armed */
    uint32_t sleep_us;  /* the next sleep's timeout */
    uint32_t budget_us; /* the spin phase that ended in the sleep */
    long switches;      /* involuntary context switches when the slow phase began */
    uint64_t since_ns;  /* when the slow phase began */
    /* The job's liveness (shmem/liveness.c): a wait that can never end (a
     * peer left the program while this PE waits) ends the job. */
    uint64_t world_epoch; /* set by a barrier of all PEs: the epoch it waits for */
    uint64_t live_seq;    /* this wait's number once published */
    int64_t next_ms;      /* when the slow path next checks the peers */
};
#define SHMEMI_SPIN_ON(pe) ((struct shmemi_spin){.owner = (pe) + 1})
/* The words a wait watches ([addr, addr + len) of its owner's memory, as
 * mapped here): only stores into them wake it. */
static inline void shmemi_spin_watch(struct shmemi_spin *s, const void *addr, size_t len) {
    s->watch = addr;
    s->watch_len = len;
}
void shmemi_spin_slow(struct shmemi_spin *s);
/* Turns of pause between two runs of the slow path, which also runs the
 * progress of rows that need a waiter's (shmemi_paths_progress): fewer once
 * such a row is in the job (shmem/wait.c). */
extern unsigned shmemi_spin_turns;
void shmemi_spin_disarm(struct shmemi_spin *s);
/* Another thread wants this thread's core: the job has more PEs than CPUs,
 * or the thread lost its core in a wait lately (its waits yield). */
int shmemi_spin_yields(void);
/* Application threads in a wait that runs the progress of a row whose
 * transfers move only inside its calls (atomic): a peer's transfer into this
 * PE moves as soon as such a thread has its core again. */
extern int shmemi_waits_serving;
void shmemi_spin_served(struct shmemi_spin *s);
static inline void shmemi_spin(struct shmemi_spin *s) {
    if (SHMEMI_LIKELY(++s->n < __atomic_load_n(&shmemi_spin_turns, __ATOMIC_RELAXED))) {
        sdma_cpu_relax();
        return;
    }
    shmemi_spin_slow(s);
}
static inline void shmemi_spin_end(struct shmemi_spin *s) {
    if (SHMEMI_UNLIKELY(s->armed))
        shmemi_spin_disarm(s);
    if (SHMEMI_UNLIKELY(s->serves))
        shmemi_spin_served(s);
}

/* After a store into [addr, addr + len) of PE pe's memory as mapped here
 * (addr NULL: somewhere), which a thread of pe may wait on: one load, and a
 * system call only when someone sleeps there for those words. The waiter's
 * side of the store-then-load ordering is an asymmetric fence (membarrier),
 * or, where the kernel has none, the fence here. */
void shmemi_wake_slow(int pe, const void *addr, size_t len);
static inline void shmemi_wake_at(int pe, const void *addr, size_t len) {
    if (SHMEMI_UNLIKELY(!shmemi.peers[pe].heap))
        return; /* another node's PE: it polls what the fabric writes (raw_stores) */
    __atomic_signal_fence(__ATOMIC_SEQ_CST); /* the store stays before the load */
    if (SHMEMI_UNLIKELY(shmemi.wake_fence))
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
    struct shmemi_ctl *ctl = shmemi_ctl_of(pe);
    uint64_t sleepers = __atomic_load_n(&ctl->wake.sleepers, __ATOMIC_RELAXED);
    if (SHMEMI_LIKELY(!sleepers))
        return;
    /* Only waits on control-block words sleep, and this store is elsewhere. */
    uintptr_t a = (uintptr_t)addr, c = (uintptr_t)ctl;
    if (!(sleepers & SHMEMI_SLEEPERS_NOT_CTL) && addr && (a + len <= c || a >= c + SHMEMI_CTL_SIZE))
        return;
    shmemi_wake_slow(pe, addr, len);
}
static inline void shmemi_wake(int pe) { shmemi_wake_at(pe, NULL, 0); }
/* shmem_init: the waits' settings and the asymmetric fence (before any wait). */
int shmemi_wait_init(void);
/* shmem_init, once the PEs of the node are known: how many CPUs they may run
 * on together (whether the job crowds the node). */
void shmemi_wait_node_cpus(int pes, int cpus);
/* What PEs that map each other's memory share: the kernel's boot id, the PID
 * and network namespaces (shmem/heap.c). */
void shmemi_node_key(uint64_t key[3]);
/* SHMEM_DEBUG: how the waits' sleeps ended (finalize). */
void shmemi_wait_report(void);
/* A sleeper's side of the store-then-load ordering against writers that do
 * not fence (after counting itself in, before it looks again). */
void shmemi_wake_fence(void);

/* Heap and static data. */
int shmemi_heap_init(void);
void shmemi_heap_fini(void);
int shmemi_data_init(void);
void *shmemi_heap_malloc(size_t align, size_t size, const char *fn);
void shmemi_heap_free(void *ptr, const char *fn);
/* Symmetric memory that host threads, kernels and copy engines all reach
 * (collective, 64-byte aligned, NULL when full): the user heap with a host
 * heap; the host heap's words area with a device heap. */
void *shmemi_words_malloc(size_t size, const char *fn);
void shmemi_words_free(void *ptr, const char *fn);
void *shmemi_heap_realloc(void *ptr, size_t size, const char *fn);

/* The device state (device/state.h) and the fill functions registered by
 * shmem_device.h: built after the heap, at shmem_init. */
int shmemi_device_state_init(void);
void shmemi_device_state_fini(void);
/* The device path of this build (NULL in CPU builds). */
const struct shmemi_dev_ops *shmemi_gpu_path(void);
/* Whether GPU kernels of this process may store into symmetric memory: a GPU
 * build whose heap is on the GPU, or whose program holds device code that
 * uses the device API (it registered a fill function, shmem_device.h). */
int shmemi_gpu_may_store(void);
/* Call again the fills of device code registered while its runtime did not
 * know its symbols yet (a module being loaded); keeps shmemi.entry_ok. */
void shmemi_device_fills_retry(void);

/* Copy engine (non-blocking transfers). */
int shmemi_engine_init(void);
const char *shmemi_copy_engine_name(void);
void shmemi_engine_fini(void);

/* Triggered plans: shmem_free refuses a buffer a live plan uses; finalize
 * refuses open plans and closes the plan queues. */
void shmemi_plan_check_free(const void *ptr, size_t len, const char *fn);
/* shmem_realloc of the `old`-byte object at ptr to `size` bytes ends the job,
 * naming the plan, when a live plan's buffer lies in a part the realloc gives
 * back (a shrink) or in the object at all when it moves (moves = 1). */
void shmemi_plan_check_realloc(const void *ptr, size_t old, size_t size, int moves, const char *fn);
void shmemi_plan_fini(void);

/* Teams. */
void shmemi_team_init(void);
/* The team behind a handle, or NULL for SHMEM_TEAM_INVALID and handles that
 * name no live team. */
struct shmemi_team *shmemi_team_get(shmem_team_t team, const char *fn);
extern struct shmemi_team shmemi_team_world, shmemi_team_shared;
extern struct shmemi_ctx shmemi_ctx_default;
#define shmemi_ctx_default_handle ((shmem_ctx_t)&shmemi_ctx_default)

#include "shmem/path.h"

#endif
