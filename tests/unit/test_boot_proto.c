/* Unit tests of the launcher framing (bootstrap/launch_proto.c) and of the
 * local and self bootstraps against a fake launcher, in one process. */
#include "bootstrap/boot.h"
#include "bootstrap/launch_proto.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static void make_pair(int sv[2]) { ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0); }

static long elapsed_ms(const struct timespec *t0) {
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (t1.tv_sec - t0->tv_sec) * 1000 + (t1.tv_nsec - t0->tv_nsec) / 1000000;
}

/* ---- header ------------------------------------------------------------ */

START_TEST(hdr_roundtrip) {
    unsigned char buf[BOOT_PROTO_HDR_SIZE];
    struct boot_msg_hdr in = {.type = BOOT_MSG_ABORT, .arg = 0xdeadbeef, .len = 1234}, out;

    boot_proto_hdr_encode(buf, &in);
    /* Little-endian on the wire, whatever the host. */
    ck_assert_uint_eq(buf[0], 0x31);
    ck_assert_uint_eq(buf[8], 0xef);
    ck_assert_uint_eq(buf[12], 1234 & 0xff);
    ck_assert_int_eq(boot_proto_hdr_decode(buf, &out, BOOT_PROTO_MAX_LEN), BOOT_PROTO_OK);
    ck_assert_uint_eq(out.type, in.type);
    ck_assert_uint_eq(out.arg, in.arg);
    ck_assert_uint_eq(out.len, in.len);
}
END_TEST

START_TEST(hdr_rejects_bad) {
    unsigned char buf[BOOT_PROTO_HDR_SIZE], bad[BOOT_PROTO_HDR_SIZE];
    struct boot_msg_hdr h = {.type = BOOT_MSG_ALLGATHER, .arg = 0, .len = 100}, out = {0};

    boot_proto_hdr_encode(buf, &h);
    memcpy(bad, buf, sizeof bad);
    bad[0] ^= 1; /* magic */
    ck_assert_int_eq(boot_proto_hdr_decode(bad, &out, 1000), BOOT_PROTO_ERR_BADHDR);
    memcpy(bad, buf, sizeof bad);
    bad[6] = 1; /* reserved */
    ck_assert_int_eq(boot_proto_hdr_decode(bad, &out, 1000), BOOT_PROTO_ERR_BADHDR);
    memcpy(bad, buf, sizeof bad);
    bad[4] = 0; /* type 0 */
    ck_assert_int_eq(boot_proto_hdr_decode(bad, &out, 1000), BOOT_PROTO_ERR_BADHDR);
    bad[4] = BOOT_MSG_FINALIZE + 1;
    ck_assert_int_eq(boot_proto_hdr_decode(bad, &out, 1000), BOOT_PROTO_ERR_BADHDR);
    /* Oversize lengths: just above the limit fails, the limit itself passes. */
    ck_assert_int_eq(boot_proto_hdr_decode(buf, &out, 99), BOOT_PROTO_ERR_TOOBIG);
    ck_assert_int_eq(boot_proto_hdr_decode(buf, &out, 100), BOOT_PROTO_OK);
    h.len = 0xffffffffu;
    boot_proto_hdr_encode(buf, &h);
    ck_assert_int_eq(boot_proto_hdr_decode(buf, &out, BOOT_PROTO_MAX_LEN), BOOT_PROTO_ERR_TOOBIG);
    /* Outputs are untouched on failure. */
    ck_assert_uint_eq(out.len, 100);
}
END_TEST

/* ---- whole messages, short transfers, EINTR ----------------------------- */

struct writer {
    int fd;
    const unsigned char *buf;
    size_t len;
    size_t chunk;    /* bytes per write, 0: all at once */
    int delay_us;    /* between chunks */
    int close_after; /* close fd when done */
};

static void *writer_main(void *arg) {
    struct writer *w = arg;
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL); /* signals go to the reader */
    for (size_t off = 0; off < w->len;) {
        size_t n = w->chunk ? w->chunk : w->len;
        if (n > w->len - off)
            n = w->len - off;
        ck_assert_int_eq(boot_proto_write_all(w->fd, w->buf + off, n, 10000), 0);
        off += n;
        if (w->delay_us)
            usleep((useconds_t)w->delay_us);
    }
    if (w->close_after)
        close(w->fd);
    return NULL;
}

static unsigned char *frame(uint16_t type, uint32_t arg, size_t len, size_t *total) {
    unsigned char *f = malloc(BOOT_PROTO_HDR_SIZE + len);
    struct boot_msg_hdr h = {.type = type, .arg = arg, .len = (uint32_t)len};
    boot_proto_hdr_encode(f, &h);
    for (size_t i = 0; i < len; i++)
        f[BOOT_PROTO_HDR_SIZE + i] = (unsigned char)(i * 13 + 5);
    *total = BOOT_PROTO_HDR_SIZE + len;
    return f;
}

START_TEST(large_message_short_transfers) {
    int sv[2], small = 4096;
    size_t len = 3u << 20, total;
    unsigned char *f = frame(BOOT_MSG_ALLGATHER, 0, len, &total);
    struct boot_msg_hdr h;
    void *payload;
    pthread_t t;

    make_pair(sv);
    /* Small buffers force partial writes and reads. */
    setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof small);
    setsockopt(sv[1], SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
    struct writer w = {.fd = sv[0], .buf = f, .len = total};
    pthread_create(&t, NULL, writer_main, &w);
    ck_assert_int_eq(boot_proto_recv(sv[1], &h, &payload, BOOT_PROTO_MAX_LEN, 10000), 0);
    pthread_join(t, NULL);
    ck_assert_uint_eq(h.type, BOOT_MSG_ALLGATHER);
    ck_assert_uint_eq(h.len, len);
    ck_assert_mem_eq(payload, f + BOOT_PROTO_HDR_SIZE, len);
    free(payload);
    free(f);
    close(sv[0]);
    close(sv[1]);
}
END_TEST

static volatile sig_atomic_t alarms;
static void on_alarm(int sig) {
    (void)sig;
    alarms++;
}

START_TEST(read_survives_eintr) {
    int sv[2];
    size_t total;
    unsigned char *f = frame(BOOT_MSG_BARRIER, 3, 2000, &total);
    struct sigaction sa = {.sa_handler = on_alarm}; /* no SA_RESTART: reads see EINTR */
    struct itimerval it = {{0, 2000}, {0, 2000}};
    struct boot_msg_hdr h;
    void *payload;
    pthread_t t;

    make_pair(sv);
    sigaction(SIGALRM, &sa, NULL);
    struct writer w = {.fd = sv[0], .buf = f, .len = total, .chunk = 100, .delay_us = 5000};
    pthread_create(&t, NULL, writer_main, &w);
    setitimer(ITIMER_REAL, &it, NULL);
    int rc = boot_proto_recv(sv[1], &h, &payload, BOOT_PROTO_MAX_LEN, -1);
    memset(&it, 0, sizeof it);
    setitimer(ITIMER_REAL, &it, NULL);
    pthread_join(t, NULL);
    ck_assert_int_eq(rc, 0);
    ck_assert_int_gt(alarms, 0);
    ck_assert_uint_eq(h.arg, 3);
    ck_assert_mem_eq(payload, f + BOOT_PROTO_HDR_SIZE, 2000);
    free(payload);
    free(f);
}
END_TEST

START_TEST(truncated_and_closed) {
    int sv[2];
    size_t total;
    unsigned char *f = frame(BOOT_MSG_ALLGATHER, 0, 100, &total);
    struct boot_msg_hdr h;
    void *payload = (void *)&h;

    /* Closed before a message: CLOSED. */
    make_pair(sv);
    close(sv[0]);
    ck_assert_int_eq(boot_proto_recv(sv[1], &h, &payload, 1000, 1000), BOOT_PROTO_ERR_CLOSED);
    close(sv[1]);
    /* Closed inside the header: TRUNCATED. */
    make_pair(sv);
    ck_assert_int_eq(boot_proto_write_all(sv[0], f, 7, 1000), 0);
    close(sv[0]);
    ck_assert_int_eq(boot_proto_recv(sv[1], &h, &payload, 1000, 1000), BOOT_PROTO_ERR_TRUNCATED);
    close(sv[1]);
    /* Closed inside the payload: TRUNCATED, nothing returned. */
    make_pair(sv);
    ck_assert_int_eq(boot_proto_write_all(sv[0], f, BOOT_PROTO_HDR_SIZE + 50, 1000), 0);
    close(sv[0]);
    ck_assert_int_eq(boot_proto_recv(sv[1], &h, &payload, 1000, 1000), BOOT_PROTO_ERR_TRUNCATED);
    ck_assert_ptr_eq(payload, (void *)&h);
    close(sv[1]);
    /* Oversize: refused from the header alone. */
    make_pair(sv);
    ck_assert_int_eq(boot_proto_write_all(sv[0], f, total, 1000), 0);
    ck_assert_int_eq(boot_proto_recv(sv[1], &h, &payload, 99, 1000), BOOT_PROTO_ERR_TOOBIG);
    close(sv[0]);
    close(sv[1]);
    /* Writing to a closed peer fails without SIGPIPE. */
    make_pair(sv);
    close(sv[1]);
    ck_assert_int_eq(boot_proto_send(sv[0], BOOT_MSG_BARRIER, 0, NULL, 0, 1000),
                     BOOT_PROTO_ERR_SYS);
    ck_assert_int_eq(errno, EPIPE);
    close(sv[0]);
    free(f);
}
END_TEST

START_TEST(read_timeout) {
    int sv[2];
    char c;
    struct timespec t0;

    make_pair(sv);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    ck_assert_int_eq(boot_proto_read_all(sv[1], &c, 1, 50), BOOT_PROTO_ERR_TIMEOUT);
    ck_assert_int_ge(elapsed_ms(&t0), 45);
    ck_assert_int_lt(elapsed_ms(&t0), 2000);
    close(sv[0]);
    close(sv[1]);
}
END_TEST

/* ---- the launcher's incremental receiver ------------------------------- */

START_TEST(rx_byte_by_byte) {
    int sv[2];
    size_t t1, t2;
    unsigned char *f1 = frame(BOOT_MSG_ALLGATHER, 1, 300, &t1);
    unsigned char *f2 = frame(BOOT_MSG_FINALIZE, 0, 0, &t2);
    struct boot_proto_rx rx;

    make_pair(sv);
    fcntl(sv[1], F_SETFL, O_NONBLOCK);
    boot_proto_rx_init(&rx);
    ck_assert_int_eq(boot_proto_rx_step(&rx, sv[1], 1000), 0);
    for (size_t i = 0; i < t1; i++) {
        ck_assert_int_eq(write(sv[0], f1 + i, 1), 1);
        int rc = boot_proto_rx_step(&rx, sv[1], 1000);
        ck_assert_int_eq(rc, i + 1 == t1 ? 1 : 0);
    }
    ck_assert_uint_eq(rx.hdr.len, 300);
    ck_assert_mem_eq(rx.payload, f1 + BOOT_PROTO_HDR_SIZE, 300);
    /* Two messages in one write come out one by one. */
    ck_assert_int_eq(boot_proto_write_all(sv[0], f2, t2, 1000), 0);
    ck_assert_int_eq(boot_proto_write_all(sv[0], f1, t1, 1000), 0);
    ck_assert_int_eq(boot_proto_rx_step(&rx, sv[1], 1000), 1);
    ck_assert_uint_eq(rx.hdr.type, BOOT_MSG_FINALIZE);
    ck_assert_ptr_null(rx.payload);
    ck_assert_int_eq(boot_proto_rx_step(&rx, sv[1], 1000), 1);
    ck_assert_uint_eq(rx.hdr.type, BOOT_MSG_ALLGATHER);
    ck_assert_int_eq(boot_proto_rx_step(&rx, sv[1], 1000), 0);
    /* Half a message, then the end: TRUNCATED. */
    ck_assert_int_eq(boot_proto_write_all(sv[0], f1, 20, 1000), 0);
    ck_assert_int_eq(boot_proto_rx_step(&rx, sv[1], 1000), 0);
    close(sv[0]);
    ck_assert_int_eq(boot_proto_rx_step(&rx, sv[1], 1000), BOOT_PROTO_ERR_TRUNCATED);
    boot_proto_rx_fini(&rx);
    close(sv[1]);

    /* Oversize and garbage. */
    make_pair(sv);
    fcntl(sv[1], F_SETFL, O_NONBLOCK);
    boot_proto_rx_init(&rx);
    ck_assert_int_eq(boot_proto_write_all(sv[0], f1, t1, 1000), 0);
    ck_assert_int_eq(boot_proto_rx_step(&rx, sv[1], 299), BOOT_PROTO_ERR_TOOBIG);
    boot_proto_rx_fini(&rx);
    close(sv[0]);
    close(sv[1]);
    make_pair(sv);
    fcntl(sv[1], F_SETFL, O_NONBLOCK);
    boot_proto_rx_init(&rx);
    ck_assert_int_eq(boot_proto_write_all(sv[0], "GET / HTTP/1.0\r\n\r\n", 18, 1000), 0);
    ck_assert_int_eq(boot_proto_rx_step(&rx, sv[1], 1000), BOOT_PROTO_ERR_BADHDR);
    boot_proto_rx_fini(&rx);
    close(sv[0]);
    close(sv[1]);
    free(f1);
    free(f2);
}
END_TEST

/* ---- bootstraps ----------------------------------------------------------- */

static void set_local_env(int fd, int rank, int size) {
    char s[32];
    snprintf(s, sizeof s, "%d", fd);
    setenv(BOOT_ENV_FD, s, 1);
    snprintf(s, sizeof s, "%d", rank);
    setenv(BOOT_ENV_RANK, s, 1);
    snprintf(s, sizeof s, "%d", size);
    setenv(BOOT_ENV_SIZE, s, 1);
}

/* A fake launcher for a 2-PE job whose other PE contributes 0xab bytes. */
static void *fake_launcher(void *arg) {
    int fd = *(int *)arg;
    struct boot_msg_hdr h;
    void *p;

    ck_assert_int_eq(boot_proto_recv(fd, &h, &p, BOOT_PROTO_MAX_LEN, 10000), 0);
    ck_assert_uint_eq(h.type, BOOT_MSG_HELLO);
    ck_assert_uint_eq(h.arg, 1);
    ck_assert_int_eq(boot_proto_recv(fd, &h, &p, BOOT_PROTO_MAX_LEN, 10000), 0);
    ck_assert_uint_eq(h.type, BOOT_MSG_ALLGATHER);
    unsigned char *all = malloc(2 * (size_t)h.len);
    memset(all, 0xab, h.len);
    memcpy(all + h.len, p, h.len);
    ck_assert_int_eq(boot_proto_send(fd, BOOT_MSG_ALLGATHER, 0, all, 2 * h.len, 10000), 0);
    free(all);
    free(p);
    ck_assert_int_eq(boot_proto_recv(fd, &h, &p, BOOT_PROTO_MAX_LEN, 10000), 0);
    ck_assert_uint_eq(h.type, BOOT_MSG_BARRIER);
    /* The launcher dies while the PE waits in the barrier. */
    close(fd);
    return NULL;
}

START_TEST(local_bootstrap) {
    int sv[2];
    struct boot *b;
    char err[256];
    pthread_t t;
    unsigned char in[100], out[200];

    make_pair(sv);
    set_local_env(sv[1], 1, 2);
    ck_assert_int_eq(boot_open(&b, err, sizeof err), 0);
    ck_assert_str_eq(b->name, "local");
    ck_assert_int_eq(b->rank, 1);
    ck_assert_int_eq(b->size, 2);
    pthread_create(&t, NULL, fake_launcher, &sv[0]);
    memset(in, 0x11, sizeof in);
    ck_assert_int_eq(b->allgather(b, in, out, sizeof in), 0);
    ck_assert_uint_eq(out[0], 0xab);
    ck_assert_uint_eq(out[199], 0x11);
    /* A PE blocked in a bootstrap call fails once the launcher is gone. */
    ck_assert_int_eq(b->barrier(b), BOOT_ERR_LAUNCHER);
    ck_assert_msg(strstr(b->err, "lost the connection to oshrun"), "err: %s", b->err);
    pthread_join(t, NULL);
    ck_assert_int_eq(b->finalize(b), BOOT_ERR_LAUNCHER);
}
END_TEST

START_TEST(local_bad_env) {
    struct boot *b = NULL;
    char err[256];
    int sv[2];

    set_local_env(0, 0, 2);
    setenv(BOOT_ENV_FD, "x1", 1);
    ck_assert_int_eq(boot_open(&b, err, sizeof err), BOOT_ERR_INVAL);
    ck_assert_msg(strstr(err, "SHMEMI_BOOT_FD=x1"), "err: %s", err);
    set_local_env(0, 2, 2);
    ck_assert_int_eq(boot_open(&b, err, sizeof err), BOOT_ERR_INVAL);
    ck_assert_msg(strstr(err, "SHMEMI_BOOT_RANK=2"), "err: %s", err);
    /* A descriptor that is not a socket. */
    int pfd[2];
    ck_assert_int_eq(pipe(pfd), 0);
    set_local_env(pfd[0], 0, 2);
    ck_assert_int_eq(boot_open(&b, err, sizeof err), BOOT_ERR_INVAL);
    ck_assert_msg(strstr(err, "not an open socket"), "err: %s", err);
    /* The launcher already gone: the hello fails. */
    make_pair(sv);
    close(sv[0]);
    set_local_env(sv[1], 0, 2);
    ck_assert_int_eq(boot_open(&b, err, sizeof err), BOOT_ERR_LAUNCHER);
    ck_assert_ptr_null(b);
}
END_TEST

START_TEST(self_bootstrap) {
    struct boot *b;
    char err[256];
    int in = 42, out = 0;

    unsetenv(BOOT_ENV_FD);
    unsetenv("PMIX_RANK");
    unsetenv("PMI_SIZE");
    ck_assert_int_eq(boot_open(&b, err, sizeof err), 0);
    ck_assert_str_eq(b->name, "self");
    ck_assert_int_eq(b->size, 1);
    ck_assert_int_eq(b->allgather(b, &in, &out, sizeof in), 0);
    ck_assert_int_eq(out, 42);
    ck_assert_int_eq(b->barrier(b), 0);
    ck_assert_int_eq(b->finalize(b), 0);
    /* A PMI-1 launcher we cannot talk to is refused, not ignored. */
    setenv("PMI_SIZE", "4", 1);
    ck_assert_int_eq(boot_open(&b, err, sizeof err), BOOT_ERR_UNSUPPORTED);
    ck_assert_msg(strstr(err, "PMI_SIZE=4"), "err: %s", err);
}
END_TEST

START_TEST(self_abort_exits) {
    struct boot *b;
    char err[256];
    unsetenv(BOOT_ENV_FD);
    unsetenv("PMIX_RANK");
    ck_assert_int_eq(boot_self_open(&b, err, sizeof err), 0);
    b->abort(b, 5, NULL);
}
END_TEST

int main(void) {
    Suite *s = suite_create("boot_proto");
    TCase *tc = tcase_create("proto");
    tcase_add_test(tc, hdr_roundtrip);
    tcase_add_test(tc, hdr_rejects_bad);
    tcase_add_test(tc, large_message_short_transfers);
    tcase_add_test(tc, read_survives_eintr);
    tcase_add_test(tc, truncated_and_closed);
    tcase_add_test(tc, read_timeout);
    tcase_add_test(tc, rx_byte_by_byte);
    suite_add_tcase(s, tc);
    tc = tcase_create("boot");
    tcase_add_test(tc, local_bootstrap);
    tcase_add_test(tc, local_bad_env);
    tcase_add_test(tc, self_bootstrap);
    tcase_add_exit_test(tc, self_abort_exits, 5);
    suite_add_tcase(s, tc);

    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
