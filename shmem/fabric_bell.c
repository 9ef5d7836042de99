/* The fabric's doorbell (shmem/fabric.h): how a PE that waits for a peer's
 * progress wakes that peer's progress thread, and only then.
 *
 * Over sockets (net, tcp) the target of a transfer moves it inside libfabric
 * calls: a PE that computes outside the library serves a peer's get, its
 * atomics carried out by messages, or the acknowledgement a peer's quiet
 * waits for, only through its progress thread. A thread asleep in the main
 * endpoint's wait object wakes for every transfer that reaches the PE, though
 * nearly all are for a waiter of this PE's own to take (a halo that lands
 * while the PE computes, the acknowledgements of its own puts): each wake
 * took the computing thread's core, some 500 times a second in a stencil's
 * halo exchange over net, where a library without the thread had 20-40.
 *
 * So the thread sleeps on an endpoint of its own, in a domain of its own
 * (whose sockets nothing else uses), that receives only bells: a PE that has
 * waited BELL_AFTER_NS for transfers to a peer rings that peer's bell, and
 * again every BELL_EVERY_NS while it still waits. A rung thread serves the
 * main endpoint for BELL_SERVE_NS past the last ring, then sleeps again. A
 * peer that waits in the library meanwhile runs its own progress and is
 * never rung for; a get from a PE that computes is served a ring later. */
#define _GNU_SOURCE
#include "shmem/fabric.h"

#include <stdlib.h>
#include <string.h>

/* When and how often a waiter rings (from the start of its wait). A round
 * trip over tcp between two hosts' sockets takes 15-50 us: a wait past
 * BELL_AFTER_NS has most likely met a peer outside the library. */
#define BELL_AFTER_NS 50000ull
#define BELL_EVERY_NS 1000000ull
/* A wait for several PEs rings every PE its endpoint wrote to since the last
 * quiet that saw nothing more posted; a quiet that raced with another
 * thread's posts may have cleared a PE it then waits for, so past
 * BELL_ALL_NS such a wait rings every PE. */
#define BELL_ALL_NS 100000000ull
#define BELL_BUFS 16

static struct {
    struct fid_domain *domain;
    struct fid_av *av;
    struct fid_ep *ep;
    struct fid_cq *cq;
    fi_addr_t *peers;
    struct fi_context2 ctx[BELL_BUFS];
    char buf[BELL_BUFS][8];
} bell;

static int post_recv(int i) {
    ssize_t rc;
    while ((rc = fi_recv(bell.ep, bell.buf[i], sizeof(bell.buf[i]), NULL, FI_ADDR_UNSPEC,
                         &bell.ctx[i])) == -FI_EAGAIN)
        (void)fi_cq_read(bell.cq, NULL, 0);
    return (int)rc;
}

int shmemi_fab_bell_open(void) {
    struct fi_info *info = NULL;
    struct fi_cq_attr qa = {
        .format = FI_CQ_FORMAT_CONTEXT, .size = BELL_BUFS * 4, .wait_obj = FI_WAIT_UNSPEC};
    struct fi_av_attr aa = {.type = FI_AV_TABLE, .count = (size_t)shmemi.n_pes};
    int rc;
    /* Receive buffers without descriptors: not where local buffers need
     * registering. */
    if (shmemi_fab.mr_local)
        return -FI_ENOSYS;
    if (!(bell.peers = calloc((size_t)shmemi.n_pes, sizeof(*bell.peers))) ||
        !(info = shmemi_fab_fresh_info("_b")))
        return -FI_ENOMEM;
    if ((rc = fi_domain(shmemi_fab.fabric, info, &bell.domain, NULL)) ||
        (rc = fi_av_open(bell.domain, &aa, &bell.av, NULL)) ||
        (rc = fi_cq_open(bell.domain, &qa, &bell.cq, NULL)) ||
        (rc = fi_endpoint(bell.domain, info, &bell.ep, NULL)) ||
        (rc = fi_ep_bind(bell.ep, &bell.av->fid, 0)) ||
        (rc =
             fi_ep_bind(bell.ep, &bell.cq->fid, FI_TRANSMIT | FI_RECV | FI_SELECTIVE_COMPLETION)) ||
        (rc = fi_enable(bell.ep))) {
        fi_freeinfo(info);
        return rc;
    }
    fi_freeinfo(info);
    for (int i = 0; i < BELL_BUFS; i++)
        if ((rc = post_recv(i)))
            return rc;
    shmemi_fab.bell = 1;
    return 0;
}

int shmemi_fab_bell_name(void *name, size_t *len) { return fi_getname(&bell.ep->fid, name, len); }

int shmemi_fab_bell_insert(int pe, const void *name) {
    return fi_av_insert(bell.av, name, 1, &bell.peers[pe], 0, NULL) == 1 ? 0 : -1;
}

void shmemi_fab_bell_close(void) {
    if (bell.ep)
        fi_close(&bell.ep->fid);
    if (bell.cq)
        fi_close(&bell.cq->fid);
    if (bell.av)
        fi_close(&bell.av->fid);
    if (bell.domain)
        fi_close(&bell.domain->fid);
    free(bell.peers);
    memset(&bell, 0, sizeof(bell));
    shmemi_fab.bell = 0;
}

/* Ring pe's bell: a message without completion. A full send queue (a peer
 * not yet connected) drops the ring: the waiter rings again. */
static void ring(int pe) {
    if (pe == shmemi.my_pe)
        return;
    static const char b = 1;
    (void)fi_inject(bell.ep, &b, 1, bell.peers[pe]);
    /* The provider's progress of this endpoint: its connection handshakes. */
    (void)fi_cq_read(bell.cq, NULL, 0);
}

/* Read the bells that came, putting their buffers back: how many. */
static int take(void) {
    struct fi_cq_entry ent[BELL_BUFS];
    int n = 0;
    ssize_t got;
    while ((got = fi_cq_read(bell.cq, ent, BELL_BUFS)) > 0) {
        for (ssize_t i = 0; i < got; i++) {
            int b = (int)((struct fi_context2 *)ent[i].op_context - bell.ctx);
            if (b >= 0 && b < BELL_BUFS && post_recv(b))
                shmemi_fatal("the fabric's doorbell: cannot post a receive (%s)", shmemi_fab.prov);
        }
        n += (int)got;
    }
    if (got == -FI_EAVAIL) {
        struct fi_cq_err_entry err = {0};
        (void)fi_cq_readerr(bell.cq, &err, 0); /* a ring that did not arrive: rung again */
    }
    return n;
}

int shmemi_fab_bell_rung(void) { return take(); }

int shmemi_fab_bell_sleep(void) {
    struct fi_cq_entry ent;
    ssize_t got = fi_cq_sread(bell.cq, &ent, 1, NULL, -1);
    int n = take();
    if (got == 1) {
        int b = (int)((struct fi_context2 *)ent.op_context - bell.ctx);
        if (b >= 0 && b < BELL_BUFS && post_recv(b))
            shmemi_fatal("the fabric's doorbell: cannot post a receive (%s)", shmemi_fab.prov);
        n++;
    }
    return n;
}

void shmemi_fab_bell_wake(void) {
    if (bell.cq)
        fi_cq_signal(bell.cq);
}

void shmemi_fab_stalled(struct fab_stall *s, struct fab_ep *e, int pe) {
    uint64_t t = shmemi_now_ns();
    if (!s->start) {
        s->start = t;
        s->next = t + BELL_AFTER_NS;
        return;
    }
    if (t < s->next)
        return;
    s->next = t + BELL_EVERY_NS;
    if (pe >= 0) {
        ring(pe);
        return;
    }
    int all = t - s->start > BELL_ALL_NS || !e->towards;
    for (int w = 0; w < (shmemi.n_pes + 63) / 64; w++) {
        uint64_t bits = all ? ~0ull : __atomic_load_n(&e->towards[w], __ATOMIC_RELAXED);
        for (; bits; bits &= bits - 1) {
            int p = w * 64 + __builtin_ctzll(bits);
            if (p < shmemi.n_pes)
                ring(p);
        }
    }
}
