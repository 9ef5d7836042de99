/* "local" bootstrap: the PE was forked by oshrun's built-in launcher and
 * talks to it over an inherited Unix stream socket (see launch_proto.h). */
#include "bootstrap/boot_internal.h"
#include "bootstrap/launch_proto.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* How long an aborting PE waits for the launcher to end it before it exits by
 * itself, and the bound on sending one message to the launcher (it always
 * reads promptly; a full socket for this long means it is stuck). */
#define LOCAL_ABORT_GRACE_MS 1000
#define LOCAL_SEND_TIMEOUT_MS 30000

struct boot_local {
    int fd;
};

static int local_fd(struct boot *b) { return ((struct boot_local *)b->impl)->fd; }

/* Translate a launch_proto status into a bootstrap status and a reason. */
static int local_fail(struct boot *b, int rc, const char *what) {
    int err = errno;
    if (rc == BOOT_PROTO_ERR_CLOSED || rc == BOOT_PROTO_ERR_TRUNCATED ||
        (rc == BOOT_PROTO_ERR_SYS && (err == EPIPE || err == ECONNRESET)))
        return boot_fail(b->err, sizeof b->err, BOOT_ERR_LAUNCHER,
                         "bootstrap: %s: lost the connection to oshrun (the launcher ended "
                         "or ended this job)",
                         what);
    if (rc == BOOT_PROTO_ERR_SYS)
        return boot_fail(b->err, sizeof b->err, BOOT_ERR_SYS, "bootstrap: %s: %s", what,
                         strerror(err));
    if (rc == BOOT_PROTO_ERR_NOMEM)
        return boot_fail(b->err, sizeof b->err, BOOT_ERR_NOMEM, "bootstrap: %s: out of memory",
                         what);
    return boot_fail(b->err, sizeof b->err, BOOT_ERR_LAUNCHER,
                     "bootstrap: %s: bad message from oshrun: %s", what, boot_proto_strerror(rc));
}

/* Send a request and wait (without a deadline: a collective lasts as long as
 * the slowest PE takes to enter it; a dead launcher closes the socket) for
 * the answer of the same type carrying exactly want_len bytes. */
static int local_request(struct boot *b, uint16_t type, const void *in, uint32_t len, void *out,
                         size_t want_len) {
    const char *what = boot_msg_type_name(type);
    struct boot_msg_hdr h;
    void *payload = NULL;
    int fd = local_fd(b);

    int rc = boot_proto_send(fd, type, 0, in, len, LOCAL_SEND_TIMEOUT_MS);
    if (rc)
        return local_fail(b, rc, what);
    rc = boot_proto_recv(fd, &h, &payload, BOOT_PROTO_MAX_LEN, -1);
    if (rc)
        return local_fail(b, rc, what);
    if (h.type != type || h.len != want_len) {
        free(payload);
        return boot_fail(b->err, sizeof b->err, BOOT_ERR_LAUNCHER,
                         "bootstrap: %s: oshrun answered with %s of %u bytes, expected %s of "
                         "%zu bytes",
                         what, boot_msg_type_name(h.type), h.len, what, want_len);
    }
    if (want_len)
        memcpy(out, payload, want_len);
    free(payload);
    b->err[0] = '\0';
    return BOOT_OK;
}

static int local_allgather(struct boot *b, const void *in, void *out, size_t len) {
    if (len > BOOT_PROTO_MAX_LEN / (size_t)b->size)
        return boot_fail(b->err, sizeof b->err, BOOT_ERR_INVAL,
                         "bootstrap: allgather of %zu bytes from %d PEs is above the %u-byte "
                         "limit",
                         len, b->size, BOOT_PROTO_MAX_LEN);
    return local_request(b, BOOT_MSG_ALLGATHER, in, (uint32_t)len, out, len * (size_t)b->size);
}

static int local_barrier(struct boot *b) {
    return local_request(b, BOOT_MSG_BARRIER, NULL, 0, NULL, 0);
}

static void local_abort(struct boot *b, int status, const char *msg) {
    int fd = local_fd(b);
    (void)msg;
    fflush(NULL);
    /* The launcher kills every other PE and closes our socket; we then exit
     * with the status ourselves. If it does not answer, exit anyway. */
    if (boot_proto_send(fd, BOOT_MSG_ABORT, (uint32_t)status, NULL, 0, LOCAL_ABORT_GRACE_MS))
        fd = -1;
    boot_exit_after_grace(fd, status, LOCAL_ABORT_GRACE_MS);
}

static int local_finalize(struct boot *b) {
    struct boot_local *l = b->impl;
    int rc = boot_proto_send(l->fd, BOOT_MSG_FINALIZE, 0, NULL, 0, LOCAL_SEND_TIMEOUT_MS);
    if (rc)
        rc = local_fail(b, rc, "finalize");
    close(l->fd);
    free(l);
    free(b);
    return rc;
}

int boot_local_open(struct boot **out, char *err, size_t errlen) {
    const char *sfd = getenv(BOOT_ENV_FD), *srank = getenv(BOOT_ENV_RANK),
               *ssize = getenv(BOOT_ENV_SIZE);
    int fd, rank, size, rc;
    struct stat st;

    if (boot_parse_int(sfd, 0, INT_MAX, &fd))
        return boot_fail(err, errlen, BOOT_ERR_INVAL,
                         "bootstrap: %s=%s is not a file descriptor number", BOOT_ENV_FD,
                         sfd ? sfd : "(unset)");
    if (boot_parse_int(ssize, 1, INT_MAX, &size))
        return boot_fail(err, errlen, BOOT_ERR_INVAL,
                         "bootstrap: %s=%s is not a PE count (was the program started by oshrun?)",
                         BOOT_ENV_SIZE, ssize ? ssize : "(unset)");
    if (boot_parse_int(srank, 0, size - 1, &rank))
        return boot_fail(err, errlen, BOOT_ERR_INVAL, "bootstrap: %s=%s is not a rank below %s=%d",
                         BOOT_ENV_RANK, srank ? srank : "(unset)", BOOT_ENV_SIZE, size);
    if (fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode))
        return boot_fail(err, errlen, BOOT_ERR_INVAL,
                         "bootstrap: %s=%d is not an open socket (was the program started by "
                         "oshrun, and did it close inherited descriptors?)",
                         BOOT_ENV_FD, fd);
    /* Keep the connection out of programs this PE may exec. */
    (void)fcntl(fd, F_SETFD, FD_CLOEXEC);

    struct boot *b = calloc(1, sizeof *b);
    struct boot_local *l = calloc(1, sizeof *l);
    if (!b || !l) {
        rc = boot_fail(err, errlen, BOOT_ERR_NOMEM, "bootstrap: out of memory");
        goto err_free;
    }
    l->fd = fd;
    b->name = "local";
    b->rank = rank;
    b->size = size;
    /* The built-in launcher runs every PE on this host. */
    b->local_rank = rank;
    b->local_size = size;
    b->allgather = local_allgather;
    b->barrier = local_barrier;
    b->abort = local_abort;
    b->finalize = local_finalize;
    b->impl = l;

    rc = boot_proto_send(fd, BOOT_MSG_HELLO, (uint32_t)rank, NULL, 0, LOCAL_SEND_TIMEOUT_MS);
    if (rc) {
        rc = local_fail(b, rc, "connect");
        boot_fail(err, errlen, rc, "%s", b->err);
        goto err_free;
    }
    *out = b;
    return BOOT_OK;

err_free:
    free(l);
    free(b);
    return rc;
}
