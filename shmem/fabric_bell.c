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
 * the port only wakes the thread for a while.
 *
 * A ring that finds a thread of the PE's own serving the peers (a wait in
 * the library that lost its core for a moment: fabric_progress.c) is
 * answered by a hush: for BELL_HUSH_NS the ringer rings that PE only once a
 * wait has lasted BELL_HUSHED_NS -- or until the PE's waits that served it
 * ended, which the PE then says (an unhush). Rings go out from a second
 * socket of the ringer's, which only collects hushes and which nobody sleeps
 * on: neither wakes a thread. */
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
/* How long a hush holds, and the wait after which a hushed PE is rung
 * anyway: its threads may have left the library to compute since. Every
 * ring wakes the rung thread, which takes a core on a node whose cores all
 * run PEs, and the waits it delays ring in turn: fetching AMOs over net
 * from a PE in a barrier, on 2 CPUs, woke that PE's thread 120-180 times a
 * second without hushes. */
#define BELL_HUSH_NS 50000000ull
#define BELL_HUSHED_NS 1000000ull
/* Ringers answered at once at most. */
#define BELL_FROM 8

static struct {
    int fd;   /* the datagram socket, or -1 */
    int out;  /* rings go from it, hushes come to it; or -1 */
    int stop; /* the thread's sleep ends (atomic) */
    struct sockaddr_storage *peers;
    socklen_t len;    /* of every address: one family for the job */
    uint64_t *hushed; /* [n_pes]: until when each PE's rings wait (ns, atomic) */
    /* Where the rings the thread read last came from (the thread's only). */
    struct sockaddr_storage from[BELL_FROM];
    int nfrom;
    /* The ringers hushed since the waits that serve them last ended (under
     * hush_mu), and whether there are any (atomic). */
    pthread_mutex_t hush_mu;
    struct sockaddr_storage hushed_to[BELL_FROM];
    int nhushed, hushing;
} bell = {.fd = -1, .out = -1, .hush_mu = PTHREAD_MUTEX_INITIALIZER};

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
    int out = socket(a.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    socklen_t got = sizeof(a);
    int rc = 0;
    if (out < 0 || bind(out, (struct sockaddr *)&a, alen) ||
        bind(fd, (struct sockaddr *)&a, alen) || getsockname(fd, (struct sockaddr *)&a, &got))
        rc = -errno;
    else if (got != alen || *len < alen)
        rc = -FI_EADDRNOTAVAIL;
    else if (!(bell.peers = calloc((size_t)shmemi.n_pes, sizeof(a))) ||
             !(bell.hushed = calloc((size_t)shmemi.n_pes, sizeof(*bell.hushed))))
        rc = -FI_ENOMEM;
    if (rc) {
        close(fd);
        if (out >= 0)
            close(out);
        free(bell.peers);
        bell.peers = NULL;
        return rc;
    }
    memcpy(name, &a, alen);
    *len = alen;
    bell.fd = fd;
    bell.out = out;
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
    if (bell.out >= 0)
        close(bell.out);
    free(bell.peers);
    free(bell.hushed);
    bell.fd = bell.out = -1;
    bell.peers = NULL;
    bell.hushed = NULL;
    bell.nhushed = bell.hushing = 0;
    shmemi_fab.bell = 0;
}

/* Ring pe's bell: one byte, the nanoseconds to our next ring in units of
 * BELL_UNIT_NS; dropped where the socket's buffer is full (the waiter rings
 * again). */
static void ring(int pe, uint64_t next_ns) {
    uint64_t units = (next_ns + BELL_UNIT_NS - 1) / BELL_UNIT_NS;
    const unsigned char b = (unsigned char)(units < 1 ? 1 : units > 255 ? 255 : units);
    (void)sendto(bell.out, &b, 1, MSG_DONTWAIT | MSG_NOSIGNAL, (struct sockaddr *)&bell.peers[pe],
                 bell.len);
}

/* The hushes that came: each one a PE's number (an unhush: -1 - the number). */
static void hushes_in(uint64_t t) {
    int32_t pe;
    while (recv(bell.out, &pe, sizeof(pe), MSG_DONTWAIT) >= 0) {
        int unhush = pe < 0;
        pe = unhush ? -1 - pe : pe;
        if (pe < shmemi.n_pes)
            __atomic_store_n(&bell.hushed[pe], unhush ? 0 : t + BELL_HUSH_NS, __ATOMIC_RELAXED);
    }
}

/* Whether a wait of `waited` ns rings pe now. */
static int rings(int pe, uint64_t t, uint64_t waited) {
    return waited >= BELL_HUSHED_NS || t >= __atomic_load_n(&bell.hushed[pe], __ATOMIC_RELAXED);
}

static void tell(const struct sockaddr_storage *to, int32_t what) {
    (void)sendto(bell.fd, &what, sizeof(what), MSG_DONTWAIT | MSG_NOSIGNAL,
                 (const struct sockaddr *)to, bell.len);
}

/* Under hush_mu. */
static void unhush(void) {
    for (int i = 0; i < bell.nhushed; i++)
        tell(&bell.hushed_to[i], -1 - shmemi.my_pe);
    bell.nhushed = 0;
    __atomic_store_n(&bell.hushing, 0, __ATOMIC_SEQ_CST);
}

void shmemi_fab_bell_hush(void) {
    /* Moot for a thread that only just ran the progress outside a wait: no
     * wait would ever take the hush back. */
    if (!__atomic_load_n(&shmemi_waits_serving, __ATOMIC_RELAXED)) {
        bell.nfrom = 0;
        return;
    }
    pthread_mutex_lock(&bell.hush_mu);
    for (int i = 0; i < bell.nfrom; i++) {
        int k = 0;
        while (k < bell.nhushed && memcmp(&bell.hushed_to[k], &bell.from[i], bell.len))
            k++;
        if (k == BELL_FROM)
            continue; /* no room to take it back: not hushed */
        if (k == bell.nhushed)
            bell.hushed_to[bell.nhushed++] = bell.from[i];
        tell(&bell.from[i], shmemi.my_pe);
    }
    bell.nfrom = 0;
    __atomic_store_n(&bell.hushing, 1, __ATOMIC_SEQ_CST);
    /* Those waits may have ended before the flag was up: then unhush now
     * (shmemi_spin_served lowers the count, then looks at the flag). */
    if (!__atomic_load_n(&shmemi_waits_serving, __ATOMIC_SEQ_CST))
        unhush();
    pthread_mutex_unlock(&bell.hush_mu);
}

void shmemi_fab_bell_unhush(void) {
    if (!__atomic_load_n(&bell.hushing, __ATOMIC_SEQ_CST))
        return;
    pthread_mutex_lock(&bell.hush_mu);
    unhush();
    pthread_mutex_unlock(&bell.hush_mu);
}

uint64_t shmemi_fab_bell_rung(void) {
    unsigned char buf[64];
    uint64_t serve = 0;
    ssize_t n;
    bell.nfrom = 0;
    for (;;) {
        struct sockaddr_storage more;
        struct sockaddr_storage *from = bell.nfrom < BELL_FROM ? &bell.from[bell.nfrom] : &more;
        socklen_t flen = sizeof(*from);
        if ((n = recvfrom(bell.fd, buf, sizeof(buf), MSG_DONTWAIT, (struct sockaddr *)from,
                          &flen)) < 0)
            break;
        if (flen == bell.len && bell.nfrom < BELL_FROM)
            bell.nfrom++;
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
    hushes_in(t);
    if (pe >= 0) {
        s->next = t + BELL_EVERY_NS;
        if (pe != shmemi.my_pe && rings(pe, t, t - s->start))
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
            if (p < shmemi.n_pes && p != shmemi.my_pe && rings(p, t, t - s->start))
                ring(p, every);
        }
    }
}
