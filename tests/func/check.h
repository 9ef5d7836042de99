/* Small helpers shared by the functional test programs.
 *
 * CHECK(cond, fmt, ...) prints "[PE n] FAIL file:line: fmt" on stderr and
 * ends the whole job through shmem_global_exit(1), so a failure on any PE
 * fails the run. Only <shmem.h> is used, so each program also builds
 * against another OpenSHMEM implementation.
 */
#ifndef FUNC_CHECK_H
#define FUNC_CHECK_H

#include <shmem.h>
#include <shmemx.h>

#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* 1 when the header implements OpenSHMEM 1.5 or later; parts of the
 * programs that need 1.5 routines are compiled only then (the rest still
 * runs against a 1.4 library). */
#if defined(SHMEM_MAJOR_VERSION) && defined(SHMEM_MINOR_VERSION) &&                                \
    (SHMEM_MAJOR_VERSION > 1 || (SHMEM_MAJOR_VERSION == 1 && SHMEM_MINOR_VERSION >= 5))
#define FUNC_SPEC_15 1
#else
#define FUNC_SPEC_15 0
#endif
/* The same for OpenSHMEM 1.6. */
#if defined(SHMEM_MAJOR_VERSION) && defined(SHMEM_MINOR_VERSION) &&                                \
    (SHMEM_MAJOR_VERSION > 1 || (SHMEM_MAJOR_VERSION == 1 && SHMEM_MINOR_VERSION >= 6))
#define FUNC_SPEC_16 1
#else
#define FUNC_SPEC_16 0
#endif

/* This PE, the job's size and the ring neighbours (right: me + 1). */
static inline void func_ring(int *me, int *npes, int *right, int *left) {
    *me = shmem_my_pe();
    *npes = shmem_n_pes();
    *right = (*me + 1) % *npes;
    *left = (*me + *npes - 1) % *npes;
}

__attribute__((format(printf, 4, 5))) static inline void
func_fail(const char *file, int line, const char *cond, const char *fmt, ...) {
    char msg[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fflush(stdout);
    fprintf(stderr, "[PE %d] FAIL %s:%d: %s (%s)\n", shmem_my_pe(), file, line, msg, cond);
    fflush(stderr);
    shmem_global_exit(1);
    _Exit(1); /* shmem_global_exit does not return */
}

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond))                                                                               \
            func_fail(__FILE__, __LINE__, #cond, __VA_ARGS__);                                     \
    } while (0)

/* Printed by PE 0 once every check of the program has passed. */
static inline void func_pass(const char *name) {
    if (shmem_my_pe() == 0) {
        printf("%s: PASS (%d PEs)\n", name, shmem_n_pes());
        fflush(stdout);
    }
}

/* Whether the library's threads of an idle PE sleep (NULL) or why not. Through
 * a fabric the progress thread sleeps when idle on the providers that carry
 * RDM over TCP themselves (net, tcp: SHMEM_OFI_PROVIDER=tcp's and libfabric's
 * first choice), unless told to poll; it polls through others (FI_PROVIDER=tcp
 * leaves libfabric 1.17 only tcp;ofi_rxm). */
static inline const char *func_idle_unreliable(void) {
    if (!strcmp(shmemx_copy_engine_name(), "hsakmt"))
        return "not with a hardware copy engine";
    const char *progress = getenv("SHMEM_OFI_PROGRESS");
    if (shmem_team_n_pes(SHMEM_TEAM_SHARED) < shmem_n_pes() && progress &&
        strcmp(progress, "auto") && strcmp(progress, "caller"))
        return "not with PEs reached through a fabric whose progress thread polls or wakes for "
               "every transfer";
    return NULL;
}

/* For the tests that measure how waits sleep and wake: why every store into a
 * PE's memory cannot wake its sleeping waits here, or NULL when it can. A
 * hardware copy engine (hsakmt) cannot wake a thread (waits on what it writes
 * poll every 20-100 us), nor can peers reached through a fabric (another
 * node, or SHMEM_FORCE_FABRIC=1), whose provider may also need the waits to
 * run its progress. */
static inline const char *func_wakes_unreliable(void) {
    const char *why = func_idle_unreliable();
    if (why)
        return why;
    if (shmem_team_n_pes(SHMEM_TEAM_SHARED) < shmem_n_pes())
        return "not with PEs reached through a fabric";
    return NULL;
}

/* Seconds on the monotonic clock. */
static inline double func_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Deterministic byte pattern: differs per writer, per offset and per round. */
static inline unsigned char func_byte(int writer, size_t i, unsigned round) {
    return (unsigned char)((unsigned)writer * 37u + (unsigned)(i * 11u) + (unsigned)(i >> 8) +
                           round * 101u + 1u);
}

#endif /* FUNC_CHECK_H */
