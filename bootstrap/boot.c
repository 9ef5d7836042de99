/* Bootstrap selection and the one-PE "self" bootstrap. */
#include "bootstrap/boot_internal.h"
#include "bootstrap/launch_proto.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int boot_fail(char *buf, size_t len, int status, const char *fmt, ...) {
    if (buf && len > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(buf, len, fmt, ap);
        va_end(ap);
    }
    return status;
}

int boot_parse_int(const char *s, int lo, int hi, int *out) {
    char *end;
    long v;

    if (!s || !*s)
        return -1;
    errno = 0;
    v = strtol(s, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return -1;
    *out = (int)v;
    return 0;
}

void boot_exit_after_grace(int fd, int status, int grace_ms) {
    fflush(NULL);
    if (fd >= 0) {
        /* Wait for the launcher to close our connection (it kills the job). */
        struct pollfd p = {.fd = fd, .events = POLLIN};
        char c;
        while (poll(&p, 1, grace_ms) < 0 && errno == EINTR)
            ;
        (void)!read(fd, &c, 1);
    } else if (grace_ms > 0) {
        usleep((useconds_t)grace_ms * 1000);
    }
    _exit(boot_exit_code(status));
}

/* ---- self: one PE, no launcher ---------------------------------------- */

static int self_allgather(struct boot *b, const void *in, void *out, size_t len) {
    (void)b;
    if (len)
        memmove(out, in, len);
    return BOOT_OK;
}

static int self_barrier(struct boot *b) {
    (void)b;
    return BOOT_OK;
}

static void self_abort(struct boot *b, int status, const char *msg) {
    (void)b;
    (void)msg;
    boot_exit_after_grace(-1, status, 0);
}

static int self_finalize(struct boot *b) {
    free(b);
    return BOOT_OK;
}

int boot_self_open(struct boot **out, char *err, size_t errlen) {
    struct boot *b = calloc(1, sizeof *b);
    if (!b)
        return boot_fail(err, errlen, BOOT_ERR_NOMEM, "bootstrap: out of memory");
    b->name = "self";
    b->rank = 0;
    b->size = 1;
    b->local_rank = 0;
    b->local_size = 1;
    b->allgather = self_allgather;
    b->barrier = self_barrier;
    b->abort = self_abort;
    b->finalize = self_finalize;
    *out = b;
    return BOOT_OK;
}

/* ---- selection --------------------------------------------------------- */

int boot_open(struct boot **out, char *err, size_t errlen) {
    const char *v;

    if (getenv(BOOT_ENV_FD))
        return boot_local_open(out, err, errlen);
    if (getenv("PMIX_RANK") && getenv("PMIX_NAMESPACE"))
        return boot_pmix_open(out, err, errlen);
    /* Started by a launcher we cannot talk to: refuse rather than run N
     * unrelated one-PE jobs. */
    v = getenv("PMI_SIZE");
    if (v && strcmp(v, "1") != 0)
        return boot_fail(
            err, errlen, BOOT_ERR_UNSUPPORTED,
            "bootstrap: started by a PMI-1/PMI-2 launcher (PMI_SIZE=%s); "
            "use oshrun or a PMIx launcher (Open MPI's mpirun, prterun, srun --mpi=pmix)",
            v);
    return boot_self_open(out, err, errlen);
}
