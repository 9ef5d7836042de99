/* The collectives' exchanges of messages (shmem/coll_exchange.h): small ones through
 * the members' slots or a fabric's mailboxes, larger ones pushed through a
 * fabric with a word behind the bytes, and the end of a large reduction. */
#include "shmem/coll_exchange.h"

#include "sdma/copy.h"

#include <stdlib.h>

/* ----------------------------------------- small collectives: one exchange */

/* Reductions, fcollects and alltoalls of a few bytes per member are one
 * exchange of messages, without barriers: every member writes what each
 * other member needs into that member's slot for it (ll in the control
 * block: the bytes, then a sequence number, release) and waits for every
 * member's message to it (acquire); then it combines locally. A member's
 * source is copied into the messages before it returns, and no other member
 * writes its dest, so nothing needs a barrier around the exchange. The slots
 * of an area must not be used by two collectives at once: the WORLD team
 * (collectives on one team never run concurrently), and active sets of every
 * PE when the program did not ask for SHMEM_THREAD_MULTIPLE. */
static uint64_t *ll_sent[SHMEMI_LL_AREAS], *ll_recvd[SHMEMI_LL_AREAS]; /* per world PE */
/* Per world PE: its message ll_recvd + 1 came or comes, unread (a broadcast's
 * root does not wait for the others' word that they are in): read before our
 * next message to that PE, which takes the slot of our last one but one.
 * Where it is: LL_OWED_SLOT, LL_OWED_MAIL (the mail row), or 0 (none). */
static uint64_t *ll_owed[SHMEMI_LL_AREAS];
enum { LL_OWED_SLOT = 1, LL_OWED_MAIL };
/* The WORLD barrier (shmemi.barrier_epoch) at the area's last exchange: one
 * since then means every member read every message of the area's past
 * exchanges, but those a hub deferred (ll_owed). Whether a hub may have
 * deferred some since the area's last exchange of all pairs (which reads
 * them all): every PE keeps the same account. */
static uint64_t ll_epoch[SHMEMI_LL_AREAS];
static int ll_deferred[SHMEMI_LL_AREAS];

/* Where a fabric is in the job, messages of more than SHMEMI_LL_BYTES go
 * into the members' mailboxes (struct shmemi_path_ops: mail), up to the
 * row's mail_bytes a message and LL_MAIL_TOTAL in all from one PE: one
 * message to each member beats two barriers and the transfers, the barriers
 * being two fabric latencies each. Larger ones take the barrier path, whose
 * gets and puts move every byte once, in fewer and larger transfers (over
 * tcp, two PEs, a 256 KiB reduction took 399 us by mail and 164 by the
 * barrier path). */
#define LL_MAIL_TOTAL ((size_t)512 << 10)

/* A message of up to SHMEMI_LL_BYTES fits a slot. Past LL_SLOT_ANY bytes it
 * takes the slots only while one PE sends at most LL_SLOT_TOTAL bytes in the
 * exchange: every message is stores into lines the receiver owns, which cost
 * more than the barrier path's loads once there are many (16 PEs on one
 * node, 256 bytes a member: fcollect 2.7 us by slots against 1.9 by the
 * barrier path; 8 PEs, 128 bytes: 1.0 against 1.3; two PEs, 256 bytes: 0.35-0.47
 * against 0.56-0.60). */
#define LL_SLOT_ANY 112
#define LL_SLOT_TOTAL 2048

/* The area of a collective of `bytes` per message, or -1 (the barrier path).
 * Every member decides alike: the sizes, the team, the job's rows. */
int shmemi_ll_area(const struct grp *g, size_t bytes, struct ll *x) {
    /* The messages are stores into the members' control blocks: through the
     * mapping, or a row's ordered stores (a fabric's messages); larger ones
     * the fabric's mail to every member, those of this node included. */
    const struct shmemi_path_ops *row = shmemi.amo_row;
    x->mail = NULL;
    if (shmemi.n_pes > SHMEMI_LL_PES || g->size < 2)
        return -1;
    if (bytes > SHMEMI_LL_BYTES ||
        (bytes > LL_SLOT_ANY && bytes * (size_t)(g->size - 1) > LL_SLOT_TOTAL)) {
        if (!row || !row->mail || bytes > row->mail_bytes() ||
            bytes * (size_t)(g->size - 1) > LL_MAIL_TOTAL)
            return -1;
        x->mail = row;
    } else if (row && !row->ordered_store) {
        return -1;
    }
    if (g->team == &shmemi_team_world)
        return x->area = 0;
    if (!g->team && g->start == 0 && g->stride == 1 && g->size == shmemi.n_pes &&
        __atomic_load_n(&shmemi.thread_asked, __ATOMIC_RELAXED) < SHMEM_THREAD_MULTIPLE)
        return x->area = 1;
    return -1;
}

/* Whether members a and b exchange messages: all pairs (hub < 0), or only
 * those with the hub (a broadcast's root). */
static int ll_pair(int hub, int a, int b) { return hub < 0 || a == hub || b == hub; }

/* Wait for PE pe's message seq in area, by mail (the row) or in its slot. */
static const unsigned char *ll_wait(const struct shmemi_path_ops *mail, int area, int pe,
                                    uint64_t seq, struct shmemi_spin *sp) {
    const unsigned char *got;
    if (mail) {
        while (!(got = mail->mail_in(pe, area * 2 + (int)(seq & 1), seq)))
            shmemi_spin(sp);
        return got;
    }
    struct shmemi_ll_slot *sl = &shmemi_ctl_of(shmemi.my_pe)->ll[area][seq & 1][pe];
    /* Acquire: pairs with the sender's release of seq. */
    while (__atomic_load_n(&sl->seq, __ATOMIC_ACQUIRE) != seq)
        shmemi_spin(sp);
    return sl->data;
}

/* Before an exchange's messages: the area's message counts (allocated at
 * its first use), and a wait that watches our slots of the area. Whether a
 * WORLD barrier came between the area's last exchange and this one, which
 * every member answers alike: the barrier epochs and the exchanges of an area
 * come in one order on every PE, unless another thread may run a barrier
 * meanwhile (SHMEM_THREAD_MULTIPLE: then never). */
static int ll_begin(const struct ll *x, struct shmemi_spin *sp, const char *fn) {
    int area = x->area;
    struct shmemi_ctl *mine = shmemi_ctl_of(shmemi.my_pe);
    int barrier = ll_epoch[area] != shmemi.barrier_epoch &&
                  __atomic_load_n(&shmemi.thread_asked, __ATOMIC_RELAXED) < SHMEM_THREAD_MULTIPLE;
    ll_epoch[area] = shmemi.barrier_epoch;
    if (!ll_sent[area]) {
        ll_sent[area] = calloc(3 * (size_t)shmemi.n_pes, sizeof(uint64_t));
        if (!ll_sent[area])
            shmemi_fatal("%s: out of memory", fn);
        ll_recvd[area] = ll_sent[area] + shmemi.n_pes;
        ll_owed[area] = ll_sent[area] + 2 * shmemi.n_pes;
    }
    *sp = (struct shmemi_spin){0};
    shmemi_spin_watch(sp, mine->ll[area], sizeof(mine->ll[area]));
    return barrier;
}

/* PE pe's next message in area (by mail, or in its slot), waited for and
 * counted as read. */
static void ll_next(const struct shmemi_path_ops *mail, int area, int pe, struct shmemi_spin *sp) {
    ll_wait(mail, area, pe, ll_recvd[area][pe] + 1, sp);
    ll_recvd[area][pe]++;
}

/* PE pe's message from when we were a hub: read before our next message to
 * it, which takes the slot it could take only after reading our last but one. */
static void ll_settle(int area, int pe, struct shmemi_spin *sp) {
    if (!ll_owed[area][pe])
        return;
    ll_next(ll_owed[area][pe] == LL_OWED_MAIL ? shmemi.amo_row : NULL, area, pe, sp);
    ll_owed[area][pe] = 0;
}

/* Our next message to PE pe in the exchange's area: len bytes of src (its
 * slot's last read: ll_settle). */
static void ll_send(const struct ll *x, int pe, const void *src, size_t len, const char *fn) {
    int area = x->area, me = shmemi.my_pe;
    uint64_t seq = ++ll_sent[area][pe];
    if (x->mail) {
        x->mail->mail(pe, area * 2 + (int)(seq & 1), seq, src, len, fn);
        return;
    }
    /* pe's slot for us: where ours for ourselves is in our block. */
    struct shmemi_route r;
    shmemi_route_word(&r, pe, &shmemi_ctl_of(me)->ll[area][seq & 1][me]);
    if (!(r.path->caps & SHMEMI_PATH_HOST_MAPPED)) {
        struct shmemi_route w = r;
        r.off += offsetof(struct shmemi_ll_slot, data);
        w.off += offsetof(struct shmemi_ll_slot, seq);
        r.path->ordered_store(&r, src, len, &w, seq, fn);
        return;
    }
    struct shmemi_ll_slot *sl = (struct shmemi_ll_slot *)r.addr;
    memcpy(sl->data, src, len);
    /* Release: the bytes are visible to whoever sees the sequence. */
    __atomic_store_n(&sl->seq, seq, __ATOMIC_RELEASE);
    shmemi_wake_at(pe, sl, sizeof(*sl));
}

/* n bytes of the local src into PE pe's copy of sym, then our next message
 * to pe in its slot, without bytes, which the row places after them (an
 * exchange by slots: x->mail is NULL). */
static void ll_send_behind(const struct ll *x, int pe, void *sym, const void *src, size_t n,
                           const char *fn) {
    int area = x->area, me = shmemi.my_pe;
    if (!n) {
        ll_send(x, pe, src, 0, fn);
        return;
    }
    uint64_t seq = ++ll_sent[area][pe];
    shmemi_sym_put_word(sym, src, n, pe, &shmemi_ctl_of(me)->ll[area][seq & 1][me].seq, seq, fn);
}

/* Send msg(j) (len bytes) to every other member j we exchange with, then wait
 * for each such member's message to us; got[m] points at member m's bytes
 * (NULL for me and the others) until ll_done. With a hub, the others' messages
 * to it only say they are in (by mail, without bytes), and the hub reads them
 * later (ll_owed): it returns as soon as its own are sent. After a WORLD
 * barrier, with no reads deferred, they send none: the hub's message takes
 * the slot of its last but one, which every member read before it entered
 * the barrier, and its next one the slot of this one, which the member read
 * before it sends anything again or enters another barrier. A broadcast after
 * a barrier is then a send fewer for each member and a receive fewer for the
 * root, which leaves the barrier sooner too (over tcp, two PEs, 8 bytes: the
 * member's call took 5.4-8.5 us against 7.0-10.7; counted from the root's
 * leaving the barrier, the member returned 7.1-9.2 us later against 6.4-8.5). */
static void ll_exchange(const struct grp *g, const struct ll *x, int hub, size_t len,
                        const void *(*msg)(const void *arg, int j), const void *arg,
                        const unsigned char **got) {
    int area = x->area;
    struct shmemi_spin sp;
    int quiet = ll_begin(x, &sp, g->fn) && hub >= 0 && !ll_deferred[area];
    ll_deferred[area] = hub >= 0 && !quiet;
    for (int k = 1; k < g->size; k++) {
        int j = (g->me + k) % g->size, pe = grp_pe(g, j);
        if (!ll_pair(hub, g->me, j))
            continue;
        ll_settle(area, pe, &sp);
        if (!quiet || g->me == hub)
            ll_send(x, pe, msg(arg, j), hub >= 0 && g->me != hub ? 0 : len, g->fn);
    }
    for (int m = 0; m < g->size; m++) {
        got[m] = NULL;
        if (m == g->me || !ll_pair(hub, g->me, m))
            continue;
        int pe = grp_pe(g, m);
        if (g->me != hub)
            got[m] = ll_wait(x->mail, area, pe, ll_recvd[area][pe] + 1, &sp);
        else if (!quiet)
            ll_owed[area][pe] = x->mail ? LL_OWED_MAIL : LL_OWED_SLOT;
    }
    shmemi_spin_end(&sp);
}

/* The messages are read: the slots may take the senders' next ones (a hub's
 * are read later). */
static void ll_done(const struct grp *g, const struct ll *x, int hub) {
    if (g->me == hub)
        return;
    for (int m = 0; m < g->size; m++)
        if (m != g->me && ll_pair(hub, g->me, m))
            ll_recvd[x->area][grp_pe(g, m)]++;
}

static const void *ll_same(const void *arg, int j) {
    (void)j;
    return arg;
}

struct ll_blocks {
    const char *src;
    size_t bytes;
};
static const void *ll_block(const void *arg, int j) {
    const struct ll_blocks *b = arg;
    return b->src + (size_t)j * b->bytes;
}

/* dest = the sources of members 0..upto-1 combined in member order (the
 * same bits on every member, as the barrier path gives): every member's for
 * a reduction, a prefix for a scan (upto 0: zeros, all bits clear). Every
 * member sends its source to every other one, whether or not that one's
 * prefix needs it: a slot's next message waits for a sign that the last but
 * one was read, and the exchange both ways is that sign. 1 when done this
 * way. */
int shmemi_ll_combine(const struct grp *g, void *dest, const void *src, size_t nelems, size_t es,
                      void (*op)(void *, const void *, size_t), int upto) {
    size_t bytes = nelems * es;
    struct ll x;
    if (shmemi_ll_area(g, bytes, &x) < 0)
        return 0;
    const unsigned char *got[SHMEMI_LL_PES];
    _Alignas(16) unsigned char small[SHMEMI_LL_BYTES];
    /* The sum builds up in dest unless dest is the source (which every
     * member's term still reads): then in a buffer. */
    void *acc = bytes <= sizeof small ? (void *)small : dest != src ? dest : malloc(bytes);
    if (!acc)
        shmemi_fatal("%s: out of memory", g->fn);
    ll_exchange(g, &x, -1, bytes, ll_same, src, got);
    if (upto)
        memcpy(acc, got[0] ? got[0] : src, bytes);
    else
        memset(acc, 0, bytes);
    for (int m = 1; m < upto; m++)
        op(acc, got[m] ? (const void *)got[m] : src, nelems);
    ll_done(g, &x, -1);
    if (acc != dest)
        memcpy(dest, acc, bytes);
    if (acc != small && acc != dest)
        free(acc);
    return 1;
}

/* fcollect (blocks = 0: every member gets my source) and alltoall (blocks:
 * member j gets my block j) of `bytes` per member. 1 when done this way. */
int shmemi_ll_gather(const struct grp *g, void *dest, const void *src, size_t bytes, int blocks) {
    struct ll x;
    if (shmemi_ll_area(g, bytes, &x) < 0)
        return 0;
    const unsigned char *got[SHMEMI_LL_PES];
    struct ll_blocks b = {src, bytes};
    if (blocks)
        ll_exchange(g, &x, -1, bytes, ll_block, &b, got);
    else
        ll_exchange(g, &x, -1, bytes, ll_same, src, got);
    /* dest and source never overlap (the routines' rule): no order needed. */
    for (int m = 0; m < g->size; m++)
        memcpy((char *)dest + (size_t)m * bytes,
               got[m]   ? (const void *)got[m]
               : blocks ? ll_block(&b, g->me)
                        : src,
               bytes);
    ll_done(g, &x, -1);
    return 1;
}

/* A broadcast as one exchange with the root: its message carries the bytes;
 * each other member's (the same length, unread) tells the root that member is
 * in, so the root never writes a slot again before it was read. 1 when done
 * this way. */
int shmemi_ll_broadcast(const struct grp *g, void *dest, const void *src, size_t bytes, int root,
                        int root_too) {
    struct ll x;
    if (shmemi_ll_area(g, bytes, &x) < 0)
        return 0;
    const unsigned char *got[SHMEMI_LL_PES];
    ll_exchange(g, &x, root, bytes, ll_same, src, got);
    if (g->me != root)
        memcpy(dest, got[root], bytes);
    else if (root_too && dest != src)
        memmove(dest, src, bytes);
    ll_done(g, &x, root);
    return 1;
}

/* A broadcast of PUSH_BCAST_BYTES or more, where a fabric is in the job. A
 * member the root reaches through the fabric tells the root it is in (so it
 * is out of whatever it used its dest for), and the root writes its dest, then
 * the sequence of its slot there, which the row places after the bytes: the
 * member waits for that word alone, and nobody for a barrier. A fabric latency
 * each way and the bytes once, where the barrier path takes two barriers, a
 * get's request and the bytes: over tcp, two PEs, 512 KiB took 94-105 us
 * against 114-180, 1 MiB 146-272 against 237-263; since the word follows the
 * bytes without waiting for their completion (put_word), 96 KiB 40-48
 * against 52-54, 128 KiB 47-53 against 57-59, and four PEs 128 KiB 121-259
 * against 294-391 (alternating runs). Smaller ones go by mail (ll_broadcast).
 * A member of the root's node (the mapping both ways) copies
 * the source itself once the root's message says it is ready, all of them at
 * once, and tells the root it is done. 1 when done this way. */
#define PUSH_BCAST_BYTES ((size_t)64 << 10)
int shmemi_push_broadcast(const struct grp *g, void *dest, const void *src, size_t bytes, int root,
                          int root_too) {
    struct ll x;
    if (!shmemi.amo_row || bytes < PUSH_BCAST_BYTES || shmemi_ll_area(g, 0, &x) < 0)
        return 0;
    int area = x.area, rpe = grp_pe(g, root);
    struct shmemi_spin sp;
    struct shmemi_route r;
    ll_begin(&x, &sp, g->fn);
    if (g->me != root) {
        /* Whether the root's source is mapped here: the root decides by the
         * same region of ours. */
        ll_settle(area, rpe, &sp);
        shmemi_route_pe(&r, src, bytes, rpe, g->fn);
        int pull = r.path->caps & SHMEMI_PATH_HOST_MAPPED;
        if (!pull)
            ll_send(&x, rpe, src, 0, g->fn); /* in */
        ll_next(NULL, area, rpe, &sp);       /* ready, or the bytes are in */
        if (pull) {
            sdma_copy_bytes(dest, r.addr, bytes);
            ll_send(&x, rpe, src, 0, g->fn); /* done: the root may reuse its source */
        }
        shmemi_spin_end(&sp);
        return 1;
    }
    /* The members of this node first, so that they copy while the others'
     * bytes go out. */
    for (int pass = 0; pass < 2; pass++)
        for (int k = 1; k < g->size; k++) {
            int pe = grp_pe(g, (root + k) % g->size);
            shmemi_route_pe(&r, src, bytes, pe, g->fn); /* as the member decides */
            if (!!(r.path->caps & SHMEMI_PATH_HOST_MAPPED) == pass)
                continue;
            ll_settle(area, pe, &sp);
            if (pass == 0) {
                ll_send(&x, pe, src, 0, g->fn); /* ready */
                continue;
            }
            ll_next(NULL, area, pe, &sp); /* in */
            ll_send_behind(&x, pe, dest, src, bytes, g->fn);
        }
    if (root_too && dest != src)
        memmove(dest, src, bytes);
    for (int k = 1; k < g->size; k++) {
        int pe = grp_pe(g, (root + k) % g->size);
        shmemi_route_pe(&r, src, bytes, pe, g->fn);
        if (r.path->caps & SHMEMI_PATH_HOST_MAPPED)
            ll_next(NULL, area, pe, &sp); /* done */
    }
    shmemi_spin_end(&sp);
    return 1;
}

static void ll_push(const struct grp *g, const struct ll *x, struct shmemi_spin *sp, char *mine,
                    size_t bytes, const void *(*from)(const void *arg, int j), const void *arg,
                    const void *own, int wait_in);

/* A collect too large for the messages, once every member's size came: each
 * member is in (it sent its size: its dest is free), so each writes its block
 * straight into every other member's dest, at the sum of the sizes before
 * its own, the sequence of its slot there behind the bytes, and waits for
 * every member's block. The barrier path took two barriers, each member's
 * size fetched twice and a get's round trip (over tcp, two PEs, 128 KiB to
 * 1 MiB a member: 0.72-0.87 of OSHMEM's in OSU's collect). */
static int push_collect(const struct grp *g, void *dest, const void *src, const uint64_t *n,
                        size_t total) {
    struct ll x;
    if (shmemi_ll_area(g, 0, &x) < 0)
        return 0;
    check_sym(dest, total, g->fn);
    size_t at = 0;
    for (int m = 0; m < g->me; m++)
        at += n[m];
    /* An empty block's source may be NULL: its messages read no bytes, but
     * want a pointer. */
    const void *from = n[g->me] ? src : (const void *)n;
    struct shmemi_spin sp;
    ll_begin(&x, &sp, g->fn);
    ll_push(g, &x, &sp, (char *)dest + at, n[g->me], ll_same, from, from, 0);
    shmemi_spin_end(&sp);
    return 1;
}

/* A collect's message: its sender's size, then its block where that fits
 * the mail. */
struct collect_head {
    uint64_t bytes;
    uint64_t carried; /* the block follows */
};

/* A collect through a fabric: one exchange of messages into the members'
 * mailboxes, each with its sender's size and, where it fits the mail, its
 * block; then every member knows every offset and, unless a block did not
 * fit, has every block (OSU's collect, two PEs over tcp, alternating runs:
 * 4 bytes to 1 KiB a member 7.4-12.7 us, against 16.7-30.7 when the sizes
 * took an exchange of their own, and OSHMEM's 18.2-23.8). Where one did not,
 * every member pushes its own (push_collect). 0 where neither can be (the
 * barrier path). One node's collects take the barrier path. */
int shmemi_ll_collect(const struct grp *g, void *dest, const void *src, size_t bytes) {
    const struct shmemi_path_ops *row = shmemi.amo_row;
    struct ll x;
    if (!row || !row->mail || shmemi_ll_area(g, sizeof(struct collect_head), &x) < 0)
        return 0;
    /* Mail whatever the sizes: a member's message is as long as its own. */
    x.mail = row;
    size_t len = sizeof(struct collect_head) + bytes;
    struct collect_head mine = {bytes, len <= row->mail_bytes() &&
                                           len * (size_t)(g->size - 1) <= LL_MAIL_TOTAL};
    _Alignas(16) unsigned char small[256];
    unsigned char *msg = small;
    if (mine.carried && len > sizeof small && !(msg = malloc(len)))
        shmemi_fatal("%s: out of memory for a message of %zu bytes", g->fn, len);
    memcpy(msg, &mine, sizeof mine);
    if (mine.carried && bytes)
        memcpy(msg + sizeof mine, src, bytes);
    const unsigned char *got[SHMEMI_LL_PES];
    ll_exchange(g, &x, -1, mine.carried ? len : sizeof mine, ll_same, msg, got);
    if (msg != small)
        free(msg);
    uint64_t n[SHMEMI_LL_PES];
    size_t total = 0;
    int carried = 1;
    for (int m = 0; m < g->size; m++) {
        struct collect_head h = mine;
        if (got[m])
            memcpy(&h, got[m], sizeof h);
        n[m] = h.bytes;
        total += h.bytes;
        carried &= h.carried != 0;
    }
    if (carried) {
        check_sym(dest, total, g->fn);
        size_t off = 0;
        for (int m = 0; m < g->size; m++) {
            if (n[m])
                memcpy((char *)dest + off,
                       got[m] ? got[m] + sizeof mine : (const unsigned char *)src, n[m]);
            off += n[m];
        }
    }
    ll_done(g, &x, -1);
    return carried ? 1 : push_collect(g, dest, src, n, total);
}

/* An fcollect (blocks = 0) or alltoall (blocks: member j gets my block j)
 * too large for the messages, where a fabric is in the job: each member
 * tells every other one it is in (its dest is free), then, as each member's
 * word comes, writes its block into that member's dest, the sequence of its
 * slot there behind the bytes, and waits for every member's block. A fabric
 * latency each way and the bytes once, where the barrier path takes two
 * barriers and a get's round trip (an fcollect over tcp, two PEs, alternating
 * runs: 128 KiB 61-63 us against 72-73, 512 KiB 128-132 against 143-153).
 * One node's take the barrier path. 1 when done this way. */
int shmemi_push_gather(const struct grp *g, void *dest, const void *src, size_t bytes, int blocks) {
    struct ll x;
    if (!shmemi.amo_row || shmemi_ll_area(g, 0, &x) < 0)
        return 0;
    struct ll_blocks b = {src, bytes};
    struct shmemi_spin sp;
    ll_begin(&x, &sp, g->fn);
    for (int k = 1; k < g->size; k++) {
        int pe = grp_pe(g, (g->me + k) % g->size);
        ll_settle(x.area, pe, &sp);
        ll_send(&x, pe, src, 0, g->fn); /* in */
    }
    char *mine = (char *)dest + (size_t)g->me * bytes;
    if (blocks)
        ll_push(g, &x, &sp, mine, bytes, ll_block, &b, ll_block(&b, g->me), 1);
    else
        ll_push(g, &x, &sp, mine, bytes, ll_same, src, src, 1);
    shmemi_spin_end(&sp);
    return 1;
}

/* My block into every other member's dest (bytes at mine there; member j's
 * from from(arg, j)), the sequence of my slot there behind the bytes -- once
 * j's word says it is in where wait_in, else once j read my last message but
 * one -- then own into mine (dest and source never overlap: the routines'
 * rule), and every other member's word that its block is in my dest. */
static void ll_push(const struct grp *g, const struct ll *x, struct shmemi_spin *sp, char *mine,
                    size_t bytes, const void *(*from)(const void *arg, int j), const void *arg,
                    const void *own, int wait_in) {
    for (int k = 1; k < g->size; k++) {
        int j = (g->me + k) % g->size, pe = grp_pe(g, j);
        if (wait_in)
            ll_next(NULL, x->area, pe, sp); /* j is in */
        else
            ll_settle(x->area, pe, sp);
        ll_send_behind(x, pe, mine, from(arg, j), bytes, g->fn);
    }
    if (own && bytes)
        memcpy(mine, own, bytes);
    for (int k = 1; k < g->size; k++)
        ll_next(NULL, x->area, grp_pe(g, (g->me + k) % g->size), sp); /* j's block */
}

/* The end of a reduction where a fabric is in the job: my slice (bytes at
 * mine) to every other member, then a message there that the row places after
 * it, and every other member's message to me. Its message says that member's
 * slice is in my dest and that it has read my source (its reads came before
 * its slice was reduced): what the closing barrier says, without the barrier
 * and the quiet before it. */
void shmemi_slices_out(const struct grp *g, const struct ll *x, void *mine, size_t bytes) {
    struct shmemi_spin sp;
    ll_begin(x, &sp, g->fn);
    ll_push(g, x, &sp, mine, bytes, ll_same, mine, NULL, 0);
    shmemi_spin_end(&sp);
}
