/* The fabric's doorbell (shmem/fabric.h): how a PE that waits for a peer's
 * progress wakes that peer's progress thread, and only then.
 *
 * Over sockets and shared memory (net, tcp;ofi_rxm, shm) the target of a
 * transfer moves it inside libfabric calls: a PE that computes outside the
 * library serves a peer's get, its atomics carried out by messages, or the
 * acknowledgement a peer's quiet waits for, only through its progress
 * thread. A thread asleep in the main endpoint's wait object wakes for every
 * transfer that reaches the PE, though nearly all are for a waiter of this
 * PE's own to take (a halo that lands while the PE computes, the
 * acknowledgements of its own puts): each wake took the computing thread's
 * core, some 500 times a second in a stencil's halo exchange over net, where
 * a library without the thread had 20-40. A polling thread (rxm and shm,
 * whose queues' wait objects do not wake for arrivals) woke 1000 times a
 * second, idle or not.
 *
 * So the thread sleeps on a bell: a datagram socket of its own on the
 * address of the PE's endpoint (the loopback interface for shm, whose PEs
 * share a node), that receives nothing but rings. A PE that has waited
 * BELL_AFTER_NS for transfers to a peer rings that peer's bell, and again
 * while it still waits (a ring lost on the way is rung again). A ring says
 * when the waiter rings next, and the rung thread serves the main endpoint
 * until a little past that (fabric_progress.c), then sleeps again. A peer that waits in
 * the library meanwhile runs its own progress and is never rung for; a get
 * from a PE that computes is served a ring later. Anything else that reaches
 * the port only wakes the thread for a while. */
#define _GNU_SOURCE
#include "shmem/fabric.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* When and how often a waiter rings (from the start of its wait). A round
 * trip over tcp between two hosts' sockets takes 15-50 us: a wait past
 * BELL_AFTER_NS has most likely met a peer outside the library. */
#define BELL_AFTER_NS 50000ull
/* A wait that goes on rings again every BELL_EVERY_NS, or BELL_RING_NS for
 * every PE one round rings if that is longer (the rings stay a small part of
 * the wait). A ring carries the time to the waiter's next one, in units of
 * BELL_UNIT_NS, and the rung thread serves a quarter longer than that: a
 * long wait keeps the peer's thread serving without a gap (the pieces of a
 * large get from a PE that computes, over tcp;ofi_rxm), and the thread
 * sleeps again soon after the last waiter is done. Every look of a serving
 * thread may take a computing thread's core: with a 2 ms serve after each
 * ring and a ring every 1 ms, a halo exchange whose fence waits for the
 * peer's progress (a put, a fence, an atomic increment, over tcp;ofi_rxm)
 * cost the later of two PEs 12.0 preemptions a 5 ms step, 5.9 now; gets of
 * 8 bytes to 4 MiB from a computing PE take as long as they did. */
#define BELL_EVERY_NS 200000ull
#define BELL_RING_NS 20000ull
#define BELL_UNIT_NS 100000ull
/* A wait for several PEs rings every PE its endpoint wrote to since the last
 * quiet that saw nothing more posted (shmemi_fab_toward, shmemi_fab_quiet);
 * past BELL_ALL_NS such a wait rings every PE, and again every BELL_ALL_NS, a
 * net under whatever those bits might miss (not every BELL_EVERY_NS: a long
 * wait of one PE of a thousand would send a million datagrams a second, and
 * wake every PE's thread a thousand times). */
#define BELL_ALL_NS 100000000ull

static struct {
    int fd;   /* the datagram socket, or -1 */
    int stop; /* the thread's sleep ends (atomic) */
    struct sockaddr_storage *peers;
    socklen_t len; /* of every address: one family for the job */
} bell = {.fd = -1};

/* The address of the bell: the IP address of the main endpoint (port 0: the
 * system picks one), or the loopback's for shm. 0, or -1 where the endpoint's
 * address is not an IP one. */
static int bell_addr(struct sockaddr_storage *a, socklen_t *len) {
    char name[256];
    size_t n = sizeof(name);
    memset(a, 0, sizeof(*a));
    if (!strcmp(shmemi_fab.prov, "shm")) {
        struct sockaddr_in *in = (struct sockaddr_in *)(void *)a;
        in->sin_family = AF_INET;
        in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        *len = sizeof(*in);
        return 0;
    }
    if (fi_getname(&shmemi_fab.main.ep->fid, name, &n) || n > sizeof(*a))
        return -1;
    memcpy(a, name, n);
    /* Not the wildcard address either: the peers could not reach it. */
    if (a->ss_family == AF_INET && n >= sizeof(struct sockaddr_in)) {
        struct sockaddr_in *in = (struct sockaddr_in *)(void *)a;
        in->sin_port = 0;
        *len = sizeof(*in);
        return in->sin_addr.s_addr == htonl(INADDR_ANY) ? -1 : 0;
    }
    if (a->ss_family == AF_INET6 && n >= sizeof(struct sockaddr_in6)) {
        struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)(void *)a;
        in6->sin6_port = 0;
        *len = sizeof(*in6);
        return IN6_IS_ADDR_UNSPECIFIED(&in6->sin6_addr) ? -1 : 0;
    }
    return -1;
}

int shmemi_fab_bell_open(void *name, size_t *len) {
    struct sockaddr_storage a;
    socklen_t alen;
    if (bell_addr(&a, &alen))
        return -FI_EADDRNOTAVAIL;
    int fd = socket(a.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    socklen_t got = sizeof(a);
    int rc = 0;
    if (bind(fd, (struct sockaddr *)&a, alen) || getsockname(fd, (struct sockaddr *)&a, &got))
        rc = -errno;
    else if (got != alen || *len < alen)
        rc = -FI_EADDRNOTAVAIL;
    else if (!(bell.peers = calloc((size_t)shmemi.n_pes, sizeof(a))))
        rc = -FI_ENOMEM;
    if (rc) {
        close(fd);
        return rc;
    }
    memcpy(name, &a, alen);
    *len = alen;
    bell.fd = fd;
    bell.len = alen;
    bell.stop = 0;
    shmemi_fab.bell = 1;
    return 0;
}

int shmemi_fab_bell_insert(int pe, const void *name, size_t len) {
    if (len != bell.len)
        return -1;
    memcpy(&bell.peers[pe], name, len);
    return 0;
}

void shmemi_fab_bell_close(void) {
    if (bell.fd >= 0)
        close(bell.fd);
    free(bell.peers);
    bell.fd = -1;
    bell.peers = NULL;
    shmemi_fab.bell = 0;
}

/* Ring pe's bell: one byte, the nanoseconds to our next ring in units of
 * BELL_UNIT_NS; dropped where the socket's buffer is full (the waiter rings
 * again). */
static void ring(int pe, uint64_t next_ns) {
    uint64_t units = (next_ns + BELL_UNIT_NS - 1) / BELL_UNIT_NS;
    const unsigned char b = (unsigned char)(units < 1 ? 1 : units > 255 ? 255 : units);
    (void)sendto(bell.fd, &b, 1, MSG_DONTWAIT | MSG_NOSIGNAL, (struct sockaddr *)&bell.peers[pe],
                 bell.len);
}

uint64_t shmemi_fab_bell_rung(void) {
    unsigned char buf[64];
    uint64_t serve = 0;
    ssize_t n;
    while ((n = recv(bell.fd, buf, sizeof(buf), MSG_DONTWAIT)) >= 0) {
        /* Anything else that reaches the port: one unit. */
        uint64_t next = (n == 1 && buf[0] ? buf[0] : 1) * BELL_UNIT_NS;
        serve = next + next / 4 > serve ? next + next / 4 : serve;
    }
    return serve;
}

uint64_t shmemi_fab_bell_sleep(long us) {
    struct pollfd p = {.fd = bell.fd, .events = POLLIN};
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    for (;;) {
        uint64_t n = shmemi_fab_bell_rung();
        if (n || __atomic_load_n(&bell.stop, __ATOMIC_ACQUIRE))
            return n;
        int rc = ppoll(&p, 1, us < 0 ? NULL : &ts, NULL);
        if (rc < 0 && errno != EINTR)
            shmemi_fatal("the fabric's progress thread: poll on its doorbell: %s", strerror(errno));
        if (rc == 0)
            return 0;
    }
}

/* The thread's sleep ends: its own bell rung. */
void shmemi_fab_bell_wake(void) {
    if (bell.fd < 0)
        return;
    __atomic_store_n(&bell.stop, 1, __ATOMIC_RELEASE);
    ring(shmemi.my_pe, BELL_UNIT_NS);
}

uint64_t shmemi_fab_stall_due(const struct fab_stall *s) {
    if (!shmemi_fab.bell)
        return UINT64_MAX;
    if (!s->start)
        return BELL_AFTER_NS;
    uint64_t t = shmemi_now_ns();
    return s->next > t ? s->next - t : 0;
}

void shmemi_fab_stalled(struct fab_stall *s, struct fab_ep *e, int pe) {
    uint64_t t = shmemi_now_ns();
    if (!s->start) {
        s->start = t;
        s->next = t + BELL_AFTER_NS;
        s->all = t + BELL_ALL_NS;
        return;
    }
    if (t < s->next)
        return;
    if (pe >= 0) {
        s->next = t + BELL_EVERY_NS;
        if (pe != shmemi.my_pe)
            ring(pe, BELL_EVERY_NS);
        return;
    }
    int all = t >= s->all || !e->towards;
    if (t >= s->all)
        s->all = t + BELL_ALL_NS;
    /* The PEs of this round, then the time to the next one. */
    int words = (shmemi.n_pes + 63) / 64, n = 0;
    for (int w = 0; w < words && !all; w++)
        n += __builtin_popcountll(__atomic_load_n(&e->towards[w], __ATOMIC_RELAXED));
    uint64_t every = (uint64_t)(all ? shmemi.n_pes : n) * BELL_RING_NS;
    every = every > BELL_EVERY_NS ? every : BELL_EVERY_NS;
    s->next = t + every;
    for (int w = 0; w < words; w++) {
        uint64_t bits = all ? ~0ull : __atomic_load_n(&e->towards[w], __ATOMIC_RELAXED);
        for (; bits; bits &= bits - 1) {
            int p = w * 64 + __builtin_ctzll(bits);
            if (p < shmemi.n_pes && p != shmemi.my_pe)
                ring(p, every);
        }
    }
}
