/* Library setup, exit and query routines; the fatal-error path. */
#define _GNU_SOURCE
#include "shmem/shmemi.h"

#include "sdma/copy.h"
#include "sdma/sdma.h"
#include "shmem/engine.h"
#include "shmem/liveness.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define SHMEMI_FILE init
#include "shmem/api.h"

struct shmemi_state shmemi = {.my_pe = -1};

extern char **environ;

static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;

/* ------------------------------------------------------------------ errors */

/* Before shmem_init the PE number is not known to the library; the launcher
 * that started us knows it. */
static int guess_pe(void) {
    if (shmemi.my_pe >= 0)
        return shmemi.my_pe;
    const char *names[] = {"SHMEMI_BOOT_RANK", "PMIX_RANK", "OMPI_COMM_WORLD_RANK"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        const char *v = getenv(names[i]);
        if (v && *v)
            return atoi(v);
    }
    return 0;
}

static void vreport(const char *kind, const char *fmt, va_list ap) {
    char msg[1024];
    int n = snprintf(msg, sizeof(msg), "[PE %d] shmem: %s", guess_pe(), kind);
    if (n < 0)
        n = 0;
    if ((size_t)n < sizeof(msg))
        vsnprintf(msg + n, sizeof(msg) - (size_t)n, fmt, ap);
    fflush(stdout);
    fprintf(stderr, "%s\n", msg);
    fflush(stderr);
}

void shmemi_fatal(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vreport("", fmt, ap);
    va_end(ap);
    shmemi_paths_abandon();
    if (shmemi.boot)
        shmemi.boot->abort(shmemi.boot, 1, NULL);
    /* No bootstrap yet: our launcher sees the failed PE and ends the job. */
    _exit(1);
}

void shmemi_warn(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vreport("warning: ", fmt, ap);
    va_end(ap);
}

void shmemi_debug(const char *fmt, ...) {
    if (!shmemi.cfg.DEBUG)
        return;
    va_list ap;
    va_start(ap, fmt);
    vreport("debug: ", fmt, ap);
    va_end(ap);
}

void shmemi_entry_slow(const char *fn) {
    if (!shmemi.initialized)
        shmemi_not_initialized(fn);
    shmemi_device_fills_retry();
}

void shmemi_not_initialized(const char *fn) {
    if (shmemi.finalized)
        shmemi_fatal("%s called after shmem_finalize", fn);
    shmemi_fatal("%s called before shmem_init", fn);
}

void shmemi_bad_pe(int pe, const char *fn) {
    shmemi_fatal("%s: invalid PE %d (this job has PEs 0..%d)", fn, pe, shmemi.n_pes - 1);
}

/* An address outside the user heap and the static data segment: say how far
 * it is from the end of the one it starts in. The library's own words after
 * the user heap (barrier and team words, the device control area) are never
 * symmetric memory for the user. */
void shmemi_bad_addr(const void *addr, size_t len, int pe, const char *fn) {
    uintptr_t a = (uintptr_t)addr;
    uintptr_t u = (uintptr_t)shmemi.user_base, d = (uintptr_t)shmemi.data_base;
    if (a - u < shmemi.user_size)
        shmemi_fatal("%s: %zu bytes at %p (PE %d) run past the end of the symmetric heap "
                     "(%zu bytes left; SHMEM_SYMMETRIC_SIZE sets its size)",
                     fn, len, addr, pe, (size_t)(u + shmemi.user_size - a));
    if (a - d < shmemi.data_size)
        shmemi_fatal("%s: %zu bytes at %p (PE %d) run past the end of the symmetric data "
                     "segment",
                     fn, len, addr, pe);
    shmemi_fatal("%s: address %p (PE %d) is not in symmetric memory (neither the symmetric "
                 "heap nor a global/static variable)",
                 fn, addr, pe);
}

/* ------------------------------------------------------------------- setup */

static void report_unknown(const char *name, const char *best, void *arg) {
    (void)arg;
    if (best)
        shmemi_warn("unknown environment variable %s (did you mean SHMEM_%s?)", name, best);
    else
        shmemi_warn("unknown environment variable %s", name);
}

static void finalize(int implicit);

/* A program that leaves main (or calls exit) without shmem_finalize: with
 * status 0 it still takes part in the finalize, so its peers do not wait
 * forever (and a peer that waits for it in anything else ends the job);
 * with another status the job is over: tell the peers and leave. */
static pid_t init_pid;

/* Initialization calls not yet matched by a shmem_finalize (1.6: the library
 * is initialized by the first and finalized by the call that matches the
 * last); under init_lock. */
static int init_calls;

static void at_exit(int status, void *arg) {
    (void)arg;
    /* A child the program forked is not the PE. */
    if (!shmemi.initialized || getpid() != init_pid)
        return;
    if (status) {
        shmemi_live_exit(status);
    } else {
        init_calls = 1; /* the implicit finalize matches every initialization */
        finalize(1);
    }
}

/* SHMEM_STREAM_COPY_MIN: auto, or a size (0: never). */
static void set_stream_copies(void) {
    const char *v = shmemi.cfg.STREAM_COPY_MIN;
    size_t n;
    if (!strcmp(v, "auto"))
        n = sdma_copy_set_stream_min(SDMA_COPY_STREAM_AUTO);
    else if (!shmemi_parse_size(v, &n))
        sdma_copy_set_stream_min(n);
    else
        shmemi_fatal("SHMEM_STREAM_COPY_MIN=%s: expected auto or a size in bytes with an "
                     "optional k/m/g suffix (0: never)",
                     v);
    shmemi_debug("copies of at least %zu bytes use streaming stores", n);
}

/* SHMEM_HEAP: auto is the device heap in GPU builds, the host heap in CPU
 * builds. */
static void choose_heap_kind(void) {
    const char *want = shmemi.cfg.HEAP;
    const struct shmemi_dev_ops *gpu = shmemi_gpu_path();
    shmemi.heap_kind = SHMEMI_HEAP_HOST;
    if (!strcmp(want, "host"))
        return;
    if (!gpu) {
        if (!strcmp(want, "device"))
            shmemi_fatal("SHMEM_HEAP=device: this build has no GPU support (configure with "
                         "-DSHMEM_GPU=hip or -DSHMEM_GPU=cuda)");
        return;
    }
    shmemi.heap_kind = SHMEMI_HEAP_DEVICE;
    shmemi.dev = gpu;
}

static int do_init(int requested) {
    char err[512];
    shmemi_live_init_begin();
    if (shmemi_env_load(&shmemi.cfg, err, sizeof(err)))
        shmemi_fatal("%s", err);
    if (boot_open(&shmemi.boot, err, sizeof(err)) < 0)
        shmemi_fatal("cannot start: %s", err);
    struct boot *b = shmemi.boot;
    shmemi.my_pe = b->rank;
    shmemi.n_pes = b->size;
    shmemi.thread_level = requested;

    if (shmemi.my_pe == 0)
        shmemi_env_unknown(environ, report_unknown, NULL);

    set_stream_copies();
    if (shmemi_wait_init())
        shmemi_fatal("cannot set up waiting");
    choose_heap_kind();
    if (shmemi_heap_init() || shmemi_data_init())
        shmemi_fatal("cannot set up symmetric memory");
    if (shmemi_paths_init())
        shmemi_fatal("cannot set up the paths to the other PEs");
    shmemi_team_init();
    shmemi.initialized = 1;
    if (shmemi_engine_init())
        shmemi_fatal("cannot start the copy engine");
    /* After the engine: the device state carries its device-driven queues. */
    if (shmemi_device_state_init())
        shmemi_fatal("cannot build the device state");
    /* After the engine started: its thread keeps every CPU, only this one is pinned. */
    if (shmemi.cfg.BIND && b->local_size > 1)
        shmemi_pin(b->local_rank, b->local_size);

    if (shmemi.my_pe == 0 && shmemi.cfg.VERSION)
        fprintf(stderr, "SDMA-SHMEM %s (OpenSHMEM %d.%d), %d PE%s, %s bootstrap, %s engine\n",
                SHMEM_VENDOR_STRING, SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION, shmemi.n_pes,
                shmemi.n_pes == 1 ? "" : "s", b->name, shmemi_copy_engine_name());
    if (shmemi.my_pe == 0 && shmemi.cfg.INFO)
        shmemi_env_print(stderr, &shmemi.cfg, 0);
    shmemi_live_init_end();
    init_pid = getpid();
    static int registered;
    if (!registered) {
        on_exit(at_exit, NULL);
        registered = 1;
    }
    shmemi_sync_all("shmem_init");
    return 0;
}

int shmem_init_thread(int requested, int *provided) {
    pthread_mutex_lock(&init_lock);
    if (!shmemi.initialized) {
        if (shmemi.finalized)
            shmemi_fatal("shmem_init called after shmem_finalize: the library cannot restart");
        if (requested < SHMEM_THREAD_SINGLE || requested > SHMEM_THREAD_MULTIPLE)
            requested = SHMEM_THREAD_MULTIPLE;
        shmemi.thread_asked = requested;
        do_init(requested);
    }
    init_calls++;
    pthread_mutex_unlock(&init_lock);
    /* Every level is supported (the library is always thread safe): the
     * level provided is the one the first initialization requested, which
     * programs compare with what they asked for. */
    if (provided)
        *provided = shmemi.thread_level;
    return 0;
}

/* Every level is provided; the level asked for is remembered (shmem_init asks
 * for none: SINGLE), and lets deprecated active-set collectives over every PE
 * take the barrier-free path (they may not run concurrently then). */
void shmem_init(void) {
    int first = !__atomic_load_n(&shmemi.initialized, __ATOMIC_ACQUIRE);
    shmem_init_thread(SHMEM_THREAD_MULTIPLE, NULL);
    if (first)
        __atomic_store_n(&shmemi.thread_asked, SHMEM_THREAD_SINGLE, __ATOMIC_RELAXED);
}

void shmem_query_thread(int *provided) {
    shmemi_check_init(__func__);
    if (provided)
        *provided = shmemi.thread_level;
}

void shmem_finalize(void) { finalize(0); }

static void finalize(int implicit) {
    pthread_mutex_lock(&init_lock);
    if (shmemi.initialized && --init_calls == 0) {
        shmemi_plan_fini();
        shmemi_paths_check(SHMEMI_CHECK_DRAIN, "shmem_finalize");
        /* Complete this PE's operations, then wait for every PE to get here
         * (not a barrier: it must never pair with a peer's shmem_barrier_all). */
        shmemi_quiet(shmemi_ctx_default_handle, "shmem_finalize");
        shmemi_live_finalize(implicit);
        shmemi_wait_report();
        shmemi_engine_fini();
        shmemi_device_state_fini();
        /* Every PE is in shmem_finalize: the rows' last step (a fabric waits
         * until no peer reads this PE's memory any more, then closes). */
        shmemi_paths_fini();
        shmemi.initialized = 0;
        __atomic_store_n(&shmemi.entry_ok, 0, __ATOMIC_RELAXED);
        shmemi.finalized = 1;
        shmemi.boot->finalize(shmemi.boot);
    }
    pthread_mutex_unlock(&init_lock);
}

void shmem_global_exit(int status) {
    fflush(stdout);
    fflush(stderr);
    if (shmemi.initialized && !shmemi.finalized)
        shmemi_live_global_exit(status);
    shmemi_paths_abandon();
    if (shmemi.boot)
        shmemi.boot->abort(shmemi.boot, status, NULL);
    _exit(status);
}

void shmem_query_initialized(int *initialized) {
    if (initialized)
        *initialized = shmemi.initialized;
}
void shmem_query_finalized(int *finalized) {
    if (finalized)
        *finalized = shmemi.finalized;
}

int shmem_my_pe(void) {
    shmemi_check_init(__func__);
    return shmemi.my_pe;
}

int shmem_n_pes(void) {
    shmemi_check_init(__func__);
    return shmemi.n_pes;
}

int shmem_pe_accessible(int pe) {
    shmemi_check_init(__func__);
    return pe >= 0 && pe < shmemi.n_pes;
}

/* Symmetric memory of the user: the user heap and the static data segment,
 * bounded as every routine bounds them (shmem/path.h). */
int shmem_addr_accessible(const void *addr, int pe) {
    shmemi_check_init(__func__);
    struct shmemi_route r;
    return shmemi_route_try(&r, addr, 1, pe) == 0;
}

/* The peer's copy as mapped here, where its row maps it; on the device heap
 * the peer's heap as mapped on this PE's GPU (a device pointer, for kernels
 * and GPU runtime calls, not for host loads). */
void *shmem_ptr(const void *dest, int pe) {
    shmemi_check_init(__func__);
    struct shmemi_route r;
    void *p = shmemi_route_try(&r, dest, 1, pe) ? NULL : r.addr;
    if (p) {
        /* Stores through it wake no one: waits on this PE's and on the
         * target's words re-read them more often. */
        __atomic_store_n(&shmemi.raw_stores, 1, __ATOMIC_RELAXED);
        if (r.pe != shmemi.my_pe && shmemi.heap_kind == SHMEMI_HEAP_HOST)
            __atomic_store_n(&shmemi_ctl_of(r.pe)->wake.raw, 1, __ATOMIC_RELAXED);
    }
    return p;
}

void shmem_info_get_version(int *major, int *minor) {
    if (major)
        *major = SHMEM_MAJOR_VERSION;
    if (minor)
        *minor = SHMEM_MINOR_VERSION;
}

void shmem_info_get_name(char *name) {
    if (name) {
        strncpy(name, SHMEM_VENDOR_STRING, SHMEM_MAX_NAME_LEN - 1);
        name[SHMEM_MAX_NAME_LEN - 1] = '\0';
    }
}

/* ------------------------------------------------------ deprecated names */
void start_pes(int npes) {
    (void)npes;
    shmem_init();
}
int _my_pe(void) { return shmem_my_pe(); }
int _num_pes(void) { return shmem_n_pes(); }
