/*
 * fabric_floor - the libfabric provider's own round trip on this host, with
 * no OpenSHMEM in it: the floor under the fabric path's latencies.
 *
 *   fabric_floor [-p PROVIDER] [-d DOMAIN] [-n ITERS] [-w WARMUP] [--csv]
 *
 * Two processes (this one and a child), each on a CPU of its own where the
 * process may use two, open an RDM endpoint of PROVIDER (default: what
 * FI_PROVIDER allows, libfabric's first choice) on DOMAIN (default "lo": the
 * loopback interface for the socket providers) and exchange their addresses
 * through a socket pair. Both poll their completion queue without sleeping,
 * as a PE that waits in the library does. Then:
 *
 *   fabric_floor_msg   one message of 64 bytes (the size of the fabric
 *                      path's AMO request) there, one back: fi_inject, a
 *                      receive buffer posted again at once -- the round
 *                      trip of an AMO carried out by the target's messages;
 *   fabric_floor_read  fi_read of 8 bytes from the peer's registered buffer,
 *                      the peer polling its queue (the provider's progress
 *                      serves the read) -- the round trip of a get.
 *
 * Then both again with a second thread in each process, asleep throughout
 * (fabric_floor_msg_2t, fabric_floor_read_2t): a process with a helper
 * thread, such as a PE with the fabric's progress thread, shares its file
 * table between threads, and the kernel then takes a reference on the file
 * in every system call on a descriptor (epoll_wait, recvfrom, sendto), which
 * it skips for a process of one thread.
 *
 * Reported: the median over iterations of one round trip, microseconds (the
 * statistic of amo_lat and get_lat). bench/compare.sh --fabric prints it beside
 * the AMO and get rows: what the library adds to the provider, and what the
 * provider costs beside the peer's transport.
 *
 * Not an OpenSHMEM program: it links libfabric only.
 */
#define _GNU_SOURCE
#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MSG_BYTES 64
#define READ_BYTES 8
#define RECVS 8

static const char *prog = "fabric_floor";

static void die(const char *what, long rc) {
    fprintf(stderr, "%s: %s: %s\n", prog, what, rc < 0 ? fi_strerror((int)-rc) : "failed");
    exit(1);
}

#define CHECK(call)                                                                                \
    do {                                                                                           \
        long rc_ = (long)(call);                                                                   \
        if (rc_)                                                                                   \
            die(#call, rc_);                                                                       \
    } while (0)

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

struct side {
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct fid_cq *cq;
    struct fid_ep *ep;
    struct fid_mr *mr;
    fi_addr_t peer;
    uint64_t peer_addr, peer_key; /* the peer's registered buffer */
    char *buf;                    /* RECVS receive buffers, then the read target */
    char msg[MSG_BYTES];
};

/* The which-th CPU (from 0) this process may use; -1 if there is none. Rank 0
 * takes the first, the child the second. */
static int cpu_of(int which) {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set))
        return -1;
    for (int c = 0, k = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &set) && k++ == which)
            return c;
    return -1;
}

static void pin(int which) {
    int c = cpu_of(which);
    if (c < 0 || cpu_of(1) < 0)
        return; /* one CPU: both share it */
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(c, &one);
    sched_setaffinity(0, sizeof(one), &one);
}

static void open_side(struct side *s, const char *prov, const char *dom) {
    struct fi_info *h = fi_allocinfo();
    if (!h)
        die("fi_allocinfo", 0);
    h->ep_attr->type = FI_EP_RDM;
    h->caps = FI_MSG | FI_RMA;
    h->mode = FI_CONTEXT;
    h->domain_attr->threading = FI_THREAD_SAFE; /* as the library asks */
    h->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
    if (prov)
        h->fabric_attr->prov_name = strdup(prov);
    struct fi_info *list, *p;
    CHECK(fi_getinfo(FI_VERSION(1, 10), NULL, NULL, 0, h, &list));
    fi_freeinfo(h);
    /* The first of DOMAIN (the socket providers list every interface). */
    for (p = list; p && dom && strcmp(p->domain_attr->name, dom); p = p->next)
        ;
    if (!p) {
        fprintf(stderr, "%s: %s has no domain %s\n", prog, list->fabric_attr->prov_name, dom);
        exit(1);
    }
    if (!(s->info = fi_dupinfo(p)))
        die("fi_dupinfo", 0);
    fi_freeinfo(list);
    CHECK(fi_fabric(s->info->fabric_attr, &s->fabric, NULL));
    CHECK(fi_domain(s->fabric, s->info, &s->domain, NULL));
    struct fi_cq_attr ca = {.format = FI_CQ_FORMAT_CONTEXT, .wait_obj = FI_WAIT_NONE, .size = 64};
    CHECK(fi_cq_open(s->domain, &ca, &s->cq, NULL));
    struct fi_av_attr aa = {.type = FI_AV_TABLE};
    CHECK(fi_av_open(s->domain, &aa, &s->av, NULL));
    CHECK(fi_endpoint(s->domain, s->info, &s->ep, NULL));
    CHECK(fi_ep_bind(s->ep, &s->av->fid, 0));
    CHECK(fi_ep_bind(s->ep, &s->cq->fid, FI_TRANSMIT | FI_RECV));
    CHECK(fi_enable(s->ep));
    size_t bytes = (size_t)RECVS * MSG_BYTES + READ_BYTES;
    if (posix_memalign((void **)&s->buf, 4096, bytes))
        die("posix_memalign", 0);
    memset(s->buf, 1, bytes);
    CHECK(fi_mr_reg(s->domain, s->buf, bytes, FI_RECV | FI_READ | FI_REMOTE_READ, 0, 0, 0, &s->mr,
                    NULL));
    if (s->info->domain_attr->mr_mode & FI_MR_ENDPOINT) {
        CHECK(fi_mr_bind(s->mr, &s->ep->fid, 0));
        CHECK(fi_mr_enable(s->mr));
    }
}

/* Each side's address, buffer and key to the other, through the socket pair. */
static void exchange(struct side *s, int sock) {
    struct {
        char name[256];
        size_t len;
        uint64_t addr, key;
    } mine = {.len = 256}, theirs;
    CHECK(fi_getname(&s->ep->fid, mine.name, &mine.len));
    mine.addr = (s->info->domain_attr->mr_mode & FI_MR_VIRT_ADDR) ? (uint64_t)(uintptr_t)s->buf : 0;
    mine.addr += (uint64_t)RECVS * MSG_BYTES;
    mine.key = fi_mr_key(s->mr);
    if (write(sock, &mine, sizeof(mine)) != (ssize_t)sizeof(mine) ||
        read(sock, &theirs, sizeof(theirs)) != (ssize_t)sizeof(theirs))
        die("the address exchange", 0);
    if (fi_av_insert(s->av, theirs.name, 1, &s->peer, 0, NULL) != 1)
        die("fi_av_insert", 0);
    s->peer_addr = theirs.addr;
    s->peer_key = theirs.key;
}

static struct fi_context recv_ctx[RECVS], read_ctx;

static void post_recv(struct side *s, int k) {
    ssize_t rc;
    while ((rc = fi_recv(s->ep, s->buf + (size_t)k * MSG_BYTES, MSG_BYTES, fi_mr_desc(s->mr),
                         FI_ADDR_UNSPEC, &recv_ctx[k])) == -FI_EAGAIN)
        fi_cq_read(s->cq, NULL, 0);
    if (rc)
        die("fi_recv", rc);
}

/* Poll until a completion of ctx (a receive when ctx is NULL); receives that
 * complete are posted again. */
static void poll_for(struct side *s, void *ctx) {
    struct fi_cq_entry e[8];
    for (;;) {
        ssize_t n = fi_cq_read(s->cq, e, 8);
        if (n == -FI_EAGAIN)
            continue;
        if (n < 0) {
            struct fi_cq_err_entry err = {0};
            fi_cq_readerr(s->cq, &err, 0);
            fprintf(stderr, "%s: a completion failed: %s\n", prog, fi_strerror(err.err));
            exit(1);
        }
        int hit = 0;
        for (ssize_t i = 0; i < n; i++) {
            struct fi_context *c = e[i].op_context;
            if (c >= recv_ctx && c < recv_ctx + RECVS) {
                post_recv(s, (int)(c - recv_ctx));
                hit |= !ctx;
            } else if (c == ctx) {
                hit = 1;
            }
        }
        if (hit)
            return;
    }
}

static void send_msg(struct side *s) {
    ssize_t rc;
    while ((rc = fi_inject(s->ep, s->msg, MSG_BYTES, s->peer)) == -FI_EAGAIN)
        fi_cq_read(s->cq, NULL, 0);
    if (rc)
        die("fi_inject", rc);
}

/* Round trips of kind "msg" or "read"; the median in microseconds (rank 0),
 * or 0 (rank 1, which answers and serves). */
static double run(struct side *s, int rank, int sock, const char *kind, long iters, long warmup) {
    double *t = calloc((size_t)iters, sizeof(*t));
    if (!t)
        die("calloc", 0);
    char go = 1;
    int msg = !strcmp(kind, "msg");
    for (long i = -warmup; i < iters; i++) {
        double t0 = now_ns();
        if (rank == 0 && msg) {
            send_msg(s);
            poll_for(s, NULL);
        } else if (rank == 0) {
            ssize_t rc;
            while ((rc = fi_read(s->ep, s->buf + (size_t)RECVS * MSG_BYTES, READ_BYTES,
                                 fi_mr_desc(s->mr), s->peer, s->peer_addr, s->peer_key,
                                 &read_ctx)) == -FI_EAGAIN)
                fi_cq_read(s->cq, NULL, 0);
            if (rc)
                die("fi_read", rc);
            poll_for(s, &read_ctx);
        } else if (msg) {
            poll_for(s, NULL);
            send_msg(s);
        } else {
            break; /* serves the reads below */
        }
        if (i >= 0)
            t[i] = now_ns() - t0;
    }
    double med = 0;
    if (rank == 0) {
        qsort(t, (size_t)iters, sizeof(*t), cmp_double);
        med = t[iters / 2] / 1e3;
        if (write(sock, &go, 1) != 1) /* done: the peer stops serving */
            die("the end of a run", 0);
    } else {
        /* Serve until rank 0 says it is done (its byte on the socket pair). */
        struct fi_cq_entry e[8];
        for (unsigned long turn = 1;; turn++) {
            ssize_t n = fi_cq_read(s->cq, e, 8);
            for (ssize_t k = 0; k < n; k++) {
                struct fi_context *c = e[k].op_context;
                if (c >= recv_ctx && c < recv_ctx + RECVS)
                    post_recv(s, (int)(c - recv_ctx));
            }
            /* A look at the socket pair now and then: the serving loop is
             * the provider's progress alone, as a waiting PE's is. */
            if (turn % 4096 == 0 && recv(sock, &go, 1, MSG_DONTWAIT) == 1)
                break;
        }
    }
    free(t);
    return med;
}

/* The second thread: asleep in a read of a pipe until the end. */
static int sleeper_pipe[2];
static pthread_t sleeper;

static void *sleep_on_pipe(void *arg) {
    char c;
    while (read(sleeper_pipe[0], &c, 1) < 0 && errno == EINTR)
        ;
    return arg;
}

static void sleeper_start(void) {
    if (pipe(sleeper_pipe) || pthread_create(&sleeper, NULL, sleep_on_pipe, NULL))
        die("a second thread", 0);
}

static void sleeper_stop(void) {
    char c = 0;
    if (write(sleeper_pipe[1], &c, 1) != 1 || pthread_join(sleeper, NULL))
        die("the end of the second thread", 0);
    close(sleeper_pipe[0]);
    close(sleeper_pipe[1]);
}

static void usage(void) {
    fprintf(stderr, "usage: %s [-p PROVIDER] [-d DOMAIN] [-n ITERS] [-w WARMUP] [--csv]\n", prog);
    exit(2);
}

int main(int argc, char **argv) {
    const char *prov = NULL, *dom = "lo";
    long iters = 20000, warmup = 1000;
    int csv = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--csv"))
            csv = 1;
        else if (i + 1 < argc && !strcmp(argv[i], "-p"))
            prov = argv[++i];
        else if (i + 1 < argc && !strcmp(argv[i], "-d"))
            dom = *argv[++i] ? argv[i] : NULL;
        else if (i + 1 < argc && !strcmp(argv[i], "-n"))
            iters = atol(argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "-w"))
            warmup = atol(argv[++i]);
        else
            usage();
    }
    if (iters < 1 || warmup < 0)
        usage();
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
        die("socketpair", 0);
    pid_t child = fork();
    if (child < 0)
        die("fork", 0);
    int rank = child == 0;
    int sock = sv[rank];
    close(sv[1 - rank]);
    pin(rank);
    struct side s = {0};
    open_side(&s, prov, dom);
    exchange(&s, sock);
    for (int k = 0; k < RECVS; k++)
        post_recv(&s, k);
    const char *kinds[] = {"msg", "read"};
    const size_t bytes[] = {MSG_BYTES, READ_BYTES};
    for (int threads = 1; threads <= 2; threads++) {
        if (threads == 2)
            sleeper_start();
        for (int k = 0; k < 2; k++) {
            /* Both sides ready (their receives posted) before the first message. */
            char b = 0;
            if (write(sock, &b, 1) != 1 || read(sock, &b, 1) != 1)
                die("a start", 0);
            double med = run(&s, rank, sock, kinds[k], iters, warmup);
            if (rank)
                continue;
            if (csv)
                printf("fabric_floor_%s%s,%zu,lat_median,%.4f,us\n", kinds[k],
                       threads == 2 ? "_2t" : "", bytes[k], med);
            else
                printf("%-4s %-13s %6zu B  %8.3f us  (%s, %s)\n", kinds[k],
                       threads == 2 ? "2 threads" : "", bytes[k], med,
                       s.info->fabric_attr->prov_name, s.info->domain_attr->name);
            fflush(stdout);
        }
    }
    sleeper_stop();
    fi_close(&s.mr->fid);
    fi_close(&s.ep->fid);
    fi_close(&s.av->fid);
    fi_close(&s.cq->fid);
    fi_close(&s.domain->fid);
    fi_close(&s.fabric->fid);
    fi_freeinfo(s.info);
    free(s.buf);
    if (rank)
        _exit(0);
    int st = 0;
    waitpid(child, &st, 0);
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}
