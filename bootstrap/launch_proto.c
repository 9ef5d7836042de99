/* Framing of oshrun <-> PE messages; see launch_proto.h. */
#include "launch_proto.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

const char *boot_proto_strerror(int status) {
    switch (status) {
    case BOOT_PROTO_OK: return "success";
    case BOOT_PROTO_ERR_SYS: return "system call failed";
    case BOOT_PROTO_ERR_CLOSED: return "connection closed by the peer";
    case BOOT_PROTO_ERR_TRUNCATED: return "connection closed in the middle of a message";
    case BOOT_PROTO_ERR_BADHDR: return "malformed message header";
    case BOOT_PROTO_ERR_TOOBIG: return "message longer than the limit";
    case BOOT_PROTO_ERR_TIMEOUT: return "timed out";
    case BOOT_PROTO_ERR_NOMEM: return "out of memory";
    default: return "unknown error";
    }
}

const char *boot_msg_type_name(unsigned type) {
    switch (type) {
    case BOOT_MSG_HELLO: return "hello";
    case BOOT_MSG_ALLGATHER: return "allgather";
    case BOOT_MSG_BARRIER: return "barrier";
    case BOOT_MSG_ABORT: return "abort";
    case BOOT_MSG_FINALIZE: return "finalize";
    default: return "unknown";
    }
}

static void put_u32(unsigned char *p, uint32_t v) {
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}

static uint32_t get_u32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

void boot_proto_hdr_encode(unsigned char out[BOOT_PROTO_HDR_SIZE], const struct boot_msg_hdr *h) {
    put_u32(out, BOOT_PROTO_MAGIC);
    out[4] = (unsigned char)h->type;
    out[5] = (unsigned char)(h->type >> 8);
    out[6] = 0;
    out[7] = 0;
    put_u32(out + 8, h->arg);
    put_u32(out + 12, h->len);
}

int boot_proto_hdr_decode(const unsigned char in[BOOT_PROTO_HDR_SIZE], struct boot_msg_hdr *h,
                          uint32_t max_len) {
    unsigned type = (unsigned)in[4] | (unsigned)in[5] << 8;
    uint32_t len = get_u32(in + 12);

    if (get_u32(in) != BOOT_PROTO_MAGIC || in[6] != 0 || in[7] != 0 || type < BOOT_MSG_HELLO ||
        type > BOOT_MSG_FINALIZE)
        return BOOT_PROTO_ERR_BADHDR;
    if (len > max_len)
        return BOOT_PROTO_ERR_TOOBIG;
    h->type = (uint16_t)type;
    h->arg = get_u32(in + 8);
    h->len = len;
    return BOOT_PROTO_OK;
}

static int64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait until fd is ready for `events` or the deadline (-1: none) passes. */
static int wait_fd(int fd, short events, int64_t deadline) {
    for (;;) {
        struct pollfd p = {.fd = fd, .events = events};
        int t = -1;
        if (deadline >= 0) {
            int64_t left = deadline - now_ms();
            if (left <= 0)
                return BOOT_PROTO_ERR_TIMEOUT;
            t = left > 1000000 ? 1000000 : (int)left;
        }
        int n = poll(&p, 1, t);
        if (n > 0)
            return BOOT_PROTO_OK; /* readable, writable, or an error the next call reports */
        if (n < 0 && errno != EINTR)
            return BOOT_PROTO_ERR_SYS;
    }
}

int boot_proto_write_all(int fd, const void *buf, size_t len, int timeout_ms) {
    const unsigned char *p = buf;
    int64_t deadline = timeout_ms < 0 ? -1 : now_ms() + timeout_ms;
    int use_send = 1;

    while (len > 0) {
        if (deadline >= 0) {
            int rc = wait_fd(fd, POLLOUT, deadline);
            if (rc)
                return rc;
        }
        /* With a deadline, never block inside send(): poll() does the waiting. */
        int flags = MSG_NOSIGNAL | (deadline >= 0 ? MSG_DONTWAIT : 0);
        ssize_t n = use_send ? send(fd, p, len, flags) : write(fd, p, len);
        if (n < 0) {
            if (errno == ENOTSOCK && use_send) {
                use_send = 0;
                continue;
            }
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                int rc = wait_fd(fd, POLLOUT, deadline);
                if (rc)
                    return rc;
                continue;
            }
            return BOOT_PROTO_ERR_SYS;
        }
        p += n;
        len -= (size_t)n;
    }
    return BOOT_PROTO_OK;
}

int boot_proto_read_all(int fd, void *buf, size_t len, int timeout_ms) {
    unsigned char *p = buf;
    size_t got = 0;
    int64_t deadline = timeout_ms < 0 ? -1 : now_ms() + timeout_ms;

    while (got < len) {
        if (deadline >= 0) {
            int rc = wait_fd(fd, POLLIN, deadline);
            if (rc)
                return rc;
        }
        ssize_t n = read(fd, p + got, len - got);
        if (n == 0)
            return got == 0 ? BOOT_PROTO_ERR_CLOSED : BOOT_PROTO_ERR_TRUNCATED;
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                int rc = wait_fd(fd, POLLIN, deadline);
                if (rc)
                    return rc;
                continue;
            }
            return BOOT_PROTO_ERR_SYS;
        }
        got += (size_t)n;
    }
    return BOOT_PROTO_OK;
}

int boot_proto_send(int fd, uint16_t type, uint32_t arg, const void *payload, uint32_t len,
                    int timeout_ms) {
    unsigned char hdr[BOOT_PROTO_HDR_SIZE];
    struct boot_msg_hdr h = {.type = type, .arg = arg, .len = len};
    int64_t start = now_ms();

    boot_proto_hdr_encode(hdr, &h);
    int rc = boot_proto_write_all(fd, hdr, sizeof hdr, timeout_ms);
    if (rc || len == 0)
        return rc;
    if (timeout_ms >= 0) {
        int64_t left = timeout_ms - (now_ms() - start);
        timeout_ms = left > 0 ? (int)left : 0;
    }
    return boot_proto_write_all(fd, payload, len, timeout_ms);
}

int boot_proto_recv(int fd, struct boot_msg_hdr *h, void **payload, uint32_t max_len,
                    int timeout_ms) {
    unsigned char hdr[BOOT_PROTO_HDR_SIZE];
    struct boot_msg_hdr m;
    int64_t start = now_ms();

    int rc = boot_proto_read_all(fd, hdr, sizeof hdr, timeout_ms);
    if (rc)
        return rc;
    rc = boot_proto_hdr_decode(hdr, &m, max_len);
    if (rc)
        return rc;
    void *buf = NULL;
    if (m.len > 0) {
        buf = malloc(m.len);
        if (!buf)
            return BOOT_PROTO_ERR_NOMEM;
        if (timeout_ms >= 0) {
            int64_t left = timeout_ms - (now_ms() - start);
            timeout_ms = left > 0 ? (int)left : 0;
        }
        rc = boot_proto_read_all(fd, buf, m.len, timeout_ms);
        if (rc) {
            free(buf);
            /* The header arrived, so any end now is in the middle of a message. */
            return rc == BOOT_PROTO_ERR_CLOSED ? BOOT_PROTO_ERR_TRUNCATED : rc;
        }
    }
    *h = m;
    *payload = buf;
    return BOOT_PROTO_OK;
}

void boot_proto_rx_init(struct boot_proto_rx *rx) { memset(rx, 0, sizeof *rx); }

void boot_proto_rx_fini(struct boot_proto_rx *rx) {
    free(rx->payload);
    rx->payload = NULL;
    rx->got = 0;
}

int boot_proto_rx_step(struct boot_proto_rx *rx, int fd, uint32_t max_len) {
    for (;;) {
        unsigned char *dst;
        size_t want;

        if (rx->got < BOOT_PROTO_HDR_SIZE) {
            if (rx->got == 0) {
                /* A new message begins: drop the previous payload if the
                 * caller left it. */
                free(rx->payload);
                rx->payload = NULL;
            }
            dst = rx->hdr_buf + rx->got;
            want = BOOT_PROTO_HDR_SIZE - rx->got;
        } else {
            size_t off = rx->got - BOOT_PROTO_HDR_SIZE;
            dst = rx->payload + off;
            want = rx->hdr.len - off;
        }

        ssize_t n = read(fd, dst, want);
        if (n == 0)
            return rx->got == 0 ? BOOT_PROTO_ERR_CLOSED : BOOT_PROTO_ERR_TRUNCATED;
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                return 0;
            return BOOT_PROTO_ERR_SYS;
        }
        rx->got += (size_t)n;

        if (rx->got == BOOT_PROTO_HDR_SIZE) {
            int rc = boot_proto_hdr_decode(rx->hdr_buf, &rx->hdr, max_len);
            if (rc)
                return rc;
            if (rx->hdr.len > 0) {
                rx->payload = malloc(rx->hdr.len);
                if (!rx->payload)
                    return BOOT_PROTO_ERR_NOMEM;
            }
        }
        if (rx->got >= BOOT_PROTO_HDR_SIZE && rx->got == BOOT_PROTO_HDR_SIZE + rx->hdr.len) {
            rx->got = 0;
            return 1;
        }
    }
}
