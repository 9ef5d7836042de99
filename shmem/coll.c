/* Collectives: broadcast, collect, fcollect, alltoall, alltoalls, the
 * reductions and the scans, on teams (OpenSHMEM 1.5) and on active sets with a pSync (the
 * deprecated forms).
 *
 * A collective is a sync, copies between the members' memory, and a sync;
 * a copy is a memcpy between mappings for the PEs of this node and a
 * transfer of the fabric for the others (shmemi_sym_get/put):
 *   broadcast  every member copies the root's source into its dest (pull;
 *              large ones through a fabric: the root pushes, push_broadcast);
 *   collect    members publish their sizes, then each pulls every source;
 *   fcollect   each member pulls every source;
 *   alltoall   each member writes its blocks into the peers' dests (push);
 *   reduce     member i reduces slice i of the array over every member's
 *              source and writes the result into every member's dest slice
 *              (reduce-scatter and allgather in one step: each element is
 *              read n times and written n times in all, and every member gets
 *              the same bits, combined in member order).
 * The first sync makes the sources ready and the dests free; the last one
 * finishes every copy before any member returns (and reuses its source).
 * Both are full barriers with epochs that only grow (or the pSync protocol,
 * which restores its words), so back-to-back collectives cannot race. */
#include "shmem/shmemi.h"

#include "sdma/copy.h"

#define SHMEMI_FILE coll
#include "shmem/api.h"

#include <stdlib.h>

/* The members of a collective: world PE start + i * stride for i < size. */
struct grp {
    int start, stride, size, me;
    const struct shmemi_team *team; /* NULL for an active set */
    long *psync;                    /* active set: its pSync */
    int log_stride;                 /* active set: its logPE_stride */
    uint64_t *post;                 /* my published word (symmetric address) */
    const char *fn;
};

static inline int grp_pe(const struct grp *g, int i) { return g->start + i * g->stride; }

/* Barrier among the members. The copies of a collective are memcpy calls,
 * which for large sizes use non-temporal stores (memcpy's, or
 * sdma_copy_bytes') that a release store does not order: the full fence makes every copy of this PE visible before the
 * sync's release stores, which the peers acquire. */
static void grp_sync(const struct grp *g) {
    shmemi_sym_quiet(g->fn); /* this PE's fabric puts of the collective are visible */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (g->team)
        shmemi_team_sync(g->team, g->fn);
    else
        shmemi_sync_active_set(g->start, g->log_stride, g->size, g->psync, g->fn);
}

/* Publish a word for the members: released by the next grp_sync. Only this
 * PE writes it; peers read it between that sync and the one after. */
static void grp_post(const struct grp *g, uint64_t v) {
    __atomic_store_n(g->post, v, __ATOMIC_RELAXED);
}
/* Member i's published word (ordered after the sync's acquire): a team's is
 * in the member's control block, an active set's in its pSync. */
static uint64_t grp_read(const struct grp *g, int i) {
    if (g->team)
        return shmemi_word_load(grp_pe(g, i), g->post, g->fn);
    uint64_t v;
    shmemi_sym_get(&v, g->post, sizeof(v), grp_pe(g, i), g->fn);
    return v;
}
/* After the last sync: an active set's pSync word back to SHMEM_SYNC_VALUE. */
static void grp_unpost(const struct grp *g) {
    if (!g->team)
        __atomic_store_n(g->post, (uint64_t)SHMEM_SYNC_VALUE, __ATOMIC_RELAXED);
}

static int grp_team(struct grp *g, shmem_team_t team, const char *fn) {
    const struct shmemi_team *t = shmemi_team_get(team, fn);
    if (!t) {
        shmemi_debug("%s: not a valid team", fn);
        return -1;
    }
    *g = (struct grp){.start = t->start,
                      .stride = t->stride,
                      .size = t->size,
                      .me = t->my_pe,
                      .team = t,
                      .post = &shmemi_ctl_of(shmemi.my_pe)->team[t->slot].post.v,
                      .fn = fn};
    return 0;
}

/* pSync[0] and pSync[1] belong to the active-set barrier; pSync[2] is the
 * published word. */
static void grp_active_set(struct grp *g, int start, int log_stride, int size, long *psync,
                           const char *fn) {
    shmemi_check_init(fn);
    if (size < 1 || start < 0 || log_stride < 0 || log_stride > 30)
        shmemi_fatal("%s: invalid active set (PE_start %d, logPE_stride %d, PE_size %d)", fn, start,
                     log_stride, size);
    long stride = 1L << log_stride;
    long last = start + (long)(size - 1) * stride;
    long rel = shmemi.my_pe - start;
    if (last >= shmemi.n_pes || rel < 0 || rel % stride || rel / stride >= size)
        shmemi_fatal("%s: PE %d is not in the active set (PE_start %d, logPE_stride %d, PE_size "
                     "%d) of a %d-PE job",
                     fn, shmemi.my_pe, start, log_stride, size, shmemi.n_pes);
    shmemi_remote(psync, 3 * sizeof(long), shmemi.my_pe, fn);
    *g = (struct grp){.start = start,
                      .stride = (int)stride,
                      .size = size,
                      .me = (int)(rel / stride),
                      .psync = psync,
                      .log_stride = log_stride,
                      /* long and uint64_t are variants of one type here */
                      .post = (uint64_t *)&psync[2],
                      .fn = fn};
}

/* Check that [addr, addr + len) is symmetric memory the collectives reach
 * (ends the job otherwise; nothing to check for an empty range). */
static void check_sym(const void *addr, size_t len, const char *fn) {
    if (len)
        shmemi_remote(addr, len, shmemi.my_pe, fn);
}

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

/* Where a fabric is in the job, messages of more than SHMEMI_LL_BYTES go
 * into the members' mailboxes (struct shmemi_path_ops: mail), up to the
 * row's mail_bytes a message and LL_MAIL_TOTAL in all from one PE: one
 * message to each member beats two barriers and the transfers, the barriers
 * being two fabric latencies each. Larger ones take the barrier path, whose
 * gets and puts move every byte once, in fewer and larger transfers (over
 * tcp, two PEs, a 256 KiB reduction took 399 us by mail and 164 by the
 * barrier path). */
#define LL_MAIL_TOTAL ((size_t)512 << 10)

/* An exchange: its area, and whether its messages go by mail. */
struct ll {
    int area;
    const struct shmemi_path_ops *mail;
};

/* The area of a collective of `bytes` per message, or -1 (the barrier path).
 * Every member decides alike: the sizes, the team, the job's rows. */
static int ll_area(const struct grp *g, size_t bytes, struct ll *x) {
    /* The messages are stores into the members' control blocks: through the
     * mapping, or a row's ordered stores (a fabric's messages); larger ones
     * the fabric's mail to every member, those of this node included. */
    const struct shmemi_path_ops *row = shmemi.amo_row;
    x->mail = NULL;
    if (shmemi.n_pes > SHMEMI_LL_PES || g->size < 2)
        return -1;
    if (bytes > SHMEMI_LL_BYTES) {
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
 * its first use), and a wait that watches our slots of the area. */
static void ll_begin(const struct ll *x, struct shmemi_spin *sp, const char *fn) {
    int area = x->area;
    struct shmemi_ctl *mine = shmemi_ctl_of(shmemi.my_pe);
    if (!ll_sent[area]) {
        ll_sent[area] = calloc(3 * (size_t)shmemi.n_pes, sizeof(uint64_t));
        if (!ll_sent[area])
            shmemi_fatal("%s: out of memory", fn);
        ll_recvd[area] = ll_sent[area] + shmemi.n_pes;
        ll_owed[area] = ll_sent[area] + 2 * shmemi.n_pes;
    }
    *sp = (struct shmemi_spin){0};
    shmemi_spin_watch(sp, mine->ll[area], sizeof(mine->ll[area]));
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
 * later (ll_owed): it returns as soon as its own are sent. */
static void ll_exchange(const struct grp *g, const struct ll *x, int hub, size_t len,
                        const void *(*msg)(const void *arg, int j), const void *arg,
                        const unsigned char **got) {
    int area = x->area;
    struct shmemi_spin sp;
    ll_begin(x, &sp, g->fn);
    for (int k = 1; k < g->size; k++) {
        int j = (g->me + k) % g->size, pe = grp_pe(g, j);
        if (!ll_pair(hub, g->me, j))
            continue;
        ll_settle(area, pe, &sp);
        ll_send(x, pe, msg(arg, j), hub >= 0 && g->me != hub ? 0 : len, g->fn);
    }
    for (int m = 0; m < g->size; m++) {
        got[m] = NULL;
        if (m == g->me || !ll_pair(hub, g->me, m))
            continue;
        int pe = grp_pe(g, m);
        if (g->me == hub)
            ll_owed[area][pe] = x->mail ? LL_OWED_MAIL : LL_OWED_SLOT;
        else
            got[m] = ll_wait(x->mail, area, pe, ll_recvd[area][pe] + 1, &sp);
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

/* dest = every member's source combined in member order (the same bits on
 * every member, as the barrier path gives). 1 when done this way. */
static int ll_reduce(const struct grp *g, void *dest, const void *src, size_t nelems, size_t es,
                     void (*op)(void *, const void *, size_t)) {
    size_t bytes = nelems * es;
    struct ll x;
    if (ll_area(g, bytes, &x) < 0)
        return 0;
    const unsigned char *got[SHMEMI_LL_PES];
    _Alignas(16) unsigned char small[SHMEMI_LL_BYTES];
    /* The sum builds up in dest unless dest is the source (which every
     * member's term still reads): then in a buffer. */
    void *acc = bytes <= sizeof small ? (void *)small : dest != src ? dest : malloc(bytes);
    if (!acc)
        shmemi_fatal("%s: out of memory", g->fn);
    ll_exchange(g, &x, -1, bytes, ll_same, src, got);
    memcpy(acc, got[0] ? got[0] : src, bytes);
    for (int m = 1; m < g->size; m++)
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
static int ll_gather(const struct grp *g, void *dest, const void *src, size_t bytes, int blocks) {
    struct ll x;
    if (ll_area(g, bytes, &x) < 0)
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
static int ll_broadcast(const struct grp *g, void *dest, const void *src, size_t bytes, int root,
                        int root_too) {
    struct ll x;
    if (ll_area(g, bytes, &x) < 0)
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
static int push_broadcast(const struct grp *g, void *dest, const void *src, size_t bytes, int root,
                          int root_too) {
    struct ll x;
    if (!shmemi.amo_row || bytes < PUSH_BCAST_BYTES || ll_area(g, 0, &x) < 0)
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

/* A collect through a fabric: the sizes in one exchange, then the blocks in a
 * second, when every member's fits the messages (every member knows every
 * size by then, and decides alike); else nothing (0: the barrier path, which
 * publishes the sizes again). One node's collects take the barrier path. */
static int ll_collect(const struct grp *g, void *dest, const void *src, size_t bytes) {
    struct ll x;
    if (!shmemi.amo_row || !shmemi.amo_row->mail || ll_area(g, sizeof(uint64_t), &x) < 0)
        return 0;
    const unsigned char *got[SHMEMI_LL_PES];
    uint64_t mine = bytes, n[SHMEMI_LL_PES];
    size_t total = 0, most = 0;
    ll_exchange(g, &x, -1, sizeof mine, ll_same, &mine, got);
    for (int m = 0; m < g->size; m++) {
        memcpy(&n[m], got[m] ? (const void *)got[m] : &mine, sizeof n[m]);
        total += n[m];
        most = n[m] > most ? n[m] : most;
    }
    ll_done(g, &x, -1);
    if (ll_area(g, most, &x) < 0)
        return 0;
    check_sym(dest, total, g->fn);
    /* Messages of my size: the members know it. */
    ll_exchange(g, &x, -1, bytes, ll_same, bytes ? src : (const void *)&mine, got);
    size_t off = 0;
    for (int m = 0; m < g->size; m++) {
        if (n[m])
            memcpy((char *)dest + off, got[m] ? (const void *)got[m] : src, n[m]);
        off += n[m];
    }
    ll_done(g, &x, -1);
    return 1;
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
static int push_gather(const struct grp *g, void *dest, const void *src, size_t bytes, int blocks) {
    struct ll x;
    if (!shmemi.amo_row || ll_area(g, 0, &x) < 0)
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
    for (int k = 1; k < g->size; k++) {
        int j = (g->me + k) % g->size, pe = grp_pe(g, j);
        ll_next(NULL, x.area, pe, &sp); /* j is in */
        ll_send_behind(&x, pe, mine, blocks ? ll_block(&b, j) : src, bytes, g->fn);
    }
    /* dest and source never overlap (the routines' rule). */
    memcpy(mine, blocks ? ll_block(&b, g->me) : src, bytes);
    for (int k = 1; k < g->size; k++)
        ll_next(NULL, x.area, grp_pe(g, (g->me + k) % g->size), &sp); /* j's block */
    shmemi_spin_end(&sp);
    return 1;
}

/* ---------------------------------------------------------------- the cores */

/* A collective of zero elements does nothing: every member passes the same
 * count (collect excepted: each member passes its own). */
static int do_broadcast(const struct grp *g, void *dest, const void *src, size_t bytes, int root,
                        int root_too) {
    if (!bytes)
        return 0;
    if (root < 0 || root >= g->size) {
        if (!g->team)
            shmemi_fatal("%s: PE_root %d is not in the active set of %d PEs", g->fn, root, g->size);
        shmemi_debug("%s: PE_root %d is not in the team of %d PEs", g->fn, root, g->size);
        return -1;
    }
    check_sym(dest, bytes, g->fn);
    check_sym(src, bytes, g->fn);
    if (ll_broadcast(g, dest, src, bytes, root, root_too) ||
        push_broadcast(g, dest, src, bytes, root, root_too))
        return 0;
    grp_sync(g); /* the root's source is ready, every dest is free */
    if (g->me != root)
        shmemi_sym_get(dest, src, bytes, grp_pe(g, root), g->fn);
    else if (root_too && dest != src)
        memmove(dest, src, bytes);
    grp_sync(g); /* every copy done: the root may change its source */
    return 0;
}

static int do_collect(const struct grp *g, void *dest, const void *src, size_t bytes) {
    check_sym(src, bytes, g->fn);
    if (ll_collect(g, dest, src, bytes))
        return 0;
    grp_post(g, bytes);
    grp_sync(g); /* sizes published, sources ready, dests free */
    size_t total = 0, off = 0;
    for (int i = 0; i < g->size; i++)
        total += grp_read(g, i);
    check_sym(dest, total, g->fn);
    for (int i = 0; i < g->size; i++) {
        size_t n = grp_read(g, i);
        shmemi_sym_get((char *)dest + off, src, n, grp_pe(g, i), g->fn);
        off += n;
    }
    grp_sync(g); /* every pull done; sizes may be published again */
    grp_unpost(g);
    return 0;
}

static int do_fcollect(const struct grp *g, void *dest, const void *src, size_t bytes) {
    if (!bytes)
        return 0;
    size_t total = shmemi_bytes((size_t)g->size, bytes, g->fn);
    check_sym(dest, total, g->fn);
    check_sym(src, bytes, g->fn);
    if (ll_gather(g, dest, src, bytes, 0) || push_gather(g, dest, src, bytes, 0))
        return 0;
    grp_sync(g);
    /* Start with the next member so that the members do not all read the
     * same source at once. */
    for (int k = 0; k < g->size; k++) {
        int i = (g->me + k) % g->size;
        shmemi_sym_get((char *)dest + (size_t)i * bytes, src, bytes, grp_pe(g, i), g->fn);
    }
    grp_sync(g);
    return 0;
}

static int do_alltoall(const struct grp *g, void *dest, const void *src, size_t bytes) {
    if (!bytes)
        return 0;
    size_t total = shmemi_bytes((size_t)g->size, bytes, g->fn);
    check_sym(dest, total, g->fn);
    check_sym(src, total, g->fn);
    if (ll_gather(g, dest, src, bytes, 1) || push_gather(g, dest, src, bytes, 1))
        return 0;
    grp_sync(g);
    for (int k = 0; k < g->size; k++) {
        int j = (g->me + k) % g->size;
        shmemi_sym_put((char *)dest + (size_t)g->me * bytes, (const char *)src + (size_t)j * bytes,
                       bytes, grp_pe(g, j), g->fn);
    }
    grp_sync(g);
    return 0;
}

/* Block j of the source (nelems elements, sst apart, from element
 * j * nelems * sst) goes to block me of member j's dest (dst apart, from
 * element me * nelems * dst). */
static int do_alltoalls(const struct grp *g, void *dest, const void *src, ptrdiff_t dst,
                        ptrdiff_t sst, size_t nelems, size_t es) {
    if (!nelems)
        return 0;
    if (dst < 1 || sst < 1) {
        if (!g->team)
            shmemi_fatal("%s: strides %td and %td must be positive", g->fn, dst, sst);
        shmemi_debug("%s: strides %td and %td must be positive", g->fn, dst, sst);
        return -1;
    }
    /* Extent of all n blocks with stride s: (n * nelems - 1) * s + 1 elements. */
    size_t n = (size_t)g->size * nelems;
    size_t dlen = shmemi_bytes(shmemi_bytes(n - 1, (size_t)dst, g->fn) + 1, es, g->fn);
    size_t slen = shmemi_bytes(shmemi_bytes(n - 1, (size_t)sst, g->fn) + 1, es, g->fn);
    check_sym(dest, dlen, g->fn);
    check_sym(src, slen, g->fn);
    size_t dstep = (size_t)dst * es, sstep = (size_t)sst * es;
    grp_sync(g);
    for (int k = 0; k < g->size; k++) {
        int j = (g->me + k) % g->size;
        char *to = (char *)dest + (size_t)g->me * nelems * dstep;
        const char *from = (const char *)src + (size_t)j * nelems * sstep;
        for (size_t e = 0; e < nelems; e++, to += dstep, from += sstep)
            shmemi_sym_put(to, from, es, grp_pe(g, j), g->fn);
    }
    grp_sync(g);
    return 0;
}

/* The byte length of the dest and source arrays of an element-wise
 * collective (reductions, scans): both symmetric, and the same array or
 * disjoint (ends the job otherwise). */
static size_t elementwise_bytes(const struct grp *g, const void *dest, const void *src,
                                size_t nelems, size_t es) {
    size_t bytes = shmemi_bytes(nelems, es, g->fn);
    check_sym(dest, bytes, g->fn);
    check_sym(src, bytes, g->fn);
    uintptr_t d = (uintptr_t)dest, s = (uintptr_t)src;
    if (d != s && d < s + bytes && s < d + bytes)
        shmemi_fatal("%s: dest and source overlap without being the same array", g->fn);
    return bytes;
}

/* acc[i] = acc[i] OP x[i] for i < n. */
typedef void (*combine_fn)(void *acc, const void *x, size_t n);

#define REDUCE_CHUNK 8192 /* bytes reduced at a time: the sources stay in cache */
/* Where a fabric is in the job, a remote member's chunk is a get, a round
 * trip each: chunks this large, fetched into a buffer of their size (a 1 MiB
 * reduction of two PEs over tcp: 2835 us in 8 KiB chunks). */
#define REDUCE_CHUNK_FABRIC ((size_t)256 << 10)

/* The chunks of a reduction or a scan, and the scratch a remote member's is
 * fetched into. */
struct chunks {
    size_t bytes;
    char *scratch;
    _Alignas(max_align_t) char small[REDUCE_CHUNK + 16];
};
static void chunks_open(struct chunks *k, const char *fn) {
    k->bytes = shmemi.amo_row ? REDUCE_CHUNK_FABRIC : REDUCE_CHUNK;
    k->scratch = k->bytes > REDUCE_CHUNK ? malloc(k->bytes + 16) : k->small;
    if (!k->scratch)
        shmemi_fatal("%s: out of memory for %zu bytes of scratch", fn, k->bytes);
}
static void chunks_close(struct chunks *k) {
    if (k->scratch != k->small)
        free(k->scratch);
}

/* The end of a reduction where a fabric is in the job: my slice (bytes at
 * mine) to every other member, then a message there that the row places after
 * it, and every other member's message to me. Its message says that member's
 * slice is in my dest and that it has read my source (its reads came before
 * its slice was reduced): what the closing barrier says, without the barrier
 * and the quiet before it. */
static void slices_out(const struct grp *g, const struct ll *x, void *mine, size_t bytes) {
    int area = x->area;
    struct shmemi_spin sp;
    ll_begin(x, &sp, g->fn);
    for (int k = 1; k < g->size; k++) {
        int pe = grp_pe(g, (g->me + k) % g->size);
        ll_settle(area, pe, &sp);
        ll_send_behind(x, pe, mine, mine, bytes, g->fn);
    }
    for (int k = 1; k < g->size; k++)
        ll_next(NULL, area, grp_pe(g, (g->me + k) % g->size), &sp);
    shmemi_spin_end(&sp);
}

/* Member me owns elements [lo, lo + cnt): it combines them over every
 * member's source (in member order) and writes them into every member's
 * dest. In place (dest == source), the dests are the sources others still
 * read: the slice is reduced into a private buffer first, and written only
 * after a sync says every member has read what it needs. */
static int do_reduce(const struct grp *g, void *dest, const void *src, size_t nelems, size_t es,
                     combine_fn op) {
    if (!nelems)
        return 0;
    (void)elementwise_bytes(g, dest, src, nelems, es);
    int inplace = dest == src;

    if (ll_reduce(g, dest, src, nelems, es, op))
        return 0;
    size_t n = (size_t)g->size, per = nelems / n, rem = nelems % n, me = (size_t)g->me;
    size_t lo = me * per + (me < rem ? me : rem), cnt = per + (me < rem);
    char *mine = (char *)dest + lo * es;
    const char *srcs = (const char *)src + lo * es;

    /* A member's source chunk: its mapping, or fetched into scratch. */
    struct chunks k;
    chunks_open(&k, g->fn);
    char *scratch = k.scratch;
    size_t step = k.bytes / es ? k.bytes / es : 1;
    grp_sync(g); /* every source is ready, every dest is free */
    if (!inplace) {
        /* Combine into my own dest slice (nobody else writes or reads it
         * during the collective), then copy it to the other members. */
        struct ll x;
        int words = shmemi.amo_row && ll_area(g, 0, &x) >= 0;
        for (size_t off = 0; off < cnt; off += step) {
            size_t c = cnt - off < step ? cnt - off : step, cb = c * es;
            char *acc = mine + off * es;
            shmemi_sym_get(acc, srcs + off * es, cb, grp_pe(g, 0), g->fn);
            for (int i = 1; i < g->size; i++)
                op(acc, shmemi_sym_src(srcs + off * es, cb, grp_pe(g, i), scratch, g->fn), c);
            for (int k = 1; k < g->size && !words; k++) {
                int j = (g->me + k) % g->size;
                shmemi_sym_put(acc, acc, cb, grp_pe(g, j), g->fn);
            }
        }
        if (words)
            slices_out(g, &x, mine, cnt * es);
        else
            grp_sync(g); /* every slice written everywhere; sources reusable */
        chunks_close(&k);
        return 0;
    }

    _Alignas(max_align_t) char stack[REDUCE_CHUNK];
    size_t cb = cnt * es;
    char *buf = cb <= sizeof(stack) ? stack : malloc(cb);
    if (!buf)
        shmemi_fatal("%s: out of memory for %zu bytes of reduction scratch", g->fn, cb);
    for (size_t off = 0; off < cnt; off += step) {
        size_t c = cnt - off < step ? cnt - off : step, b = c * es;
        shmemi_sym_get(buf + off * es, srcs + off * es, b, grp_pe(g, 0), g->fn);
        for (int i = 1; i < g->size; i++)
            op(buf + off * es, shmemi_sym_src(srcs + off * es, b, grp_pe(g, i), scratch, g->fn), c);
    }
    grp_sync(g); /* every member has read every source it needs */
    for (int k = 0; k < g->size && cb; k++) {
        int j = (g->me + k) % g->size;
        shmemi_sym_put(mine, buf, cb, grp_pe(g, j), g->fn);
    }
    grp_sync(g); /* every slice written everywhere */
    if (buf != stack)
        free(buf);
    chunks_close(&k);
    return 0;
}

/* Scans (1.6): member i's dest is the sum of the sources of members 0..i
 * (inclusive) or 0..i-1 (exclusive; member 0 gets zeros), element by element.
 * Each member reads the sources of its prefix from their mappings, in member
 * order, so a prefix has the same bits wherever it is summed. In place, the
 * dests are sources others still read: the prefix is summed into a private
 * buffer and written after a sync says every member has read what it needs. */
static int do_scan(const struct grp *g, void *dest, const void *src, size_t nelems, size_t es,
                   combine_fn add, int inclusive) {
    if (!nelems)
        return 0;
    size_t bytes = elementwise_bytes(g, dest, src, nelems, es);
    int inplace = dest == src;
    _Alignas(max_align_t) char stack[REDUCE_CHUNK];
    char *out = !inplace ? dest : bytes <= sizeof(stack) ? stack : malloc(bytes);
    if (!out)
        shmemi_fatal("%s: out of memory for %zu bytes of scan scratch", g->fn, bytes);
    int last = inclusive ? g->me : g->me - 1; /* the prefix: members 0..last */
    /* A member's source chunk: its mapping, or fetched into scratch. */
    struct chunks k;
    chunks_open(&k, g->fn);
    char *scratch = k.scratch;
    size_t step = k.bytes / es ? k.bytes / es : 1;

    grp_sync(g); /* every source is ready */
    for (size_t off = 0; off < nelems; off += step) {
        size_t c = nelems - off < step ? nelems - off : step, cb = c * es;
        char *acc = out + off * es;
        const char *from = (const char *)src + off * es;
        if (last < 0) {
            memset(acc, 0, cb); /* all-bits-zero is 0 of every scan type */
            continue;
        }
        shmemi_sym_get(acc, from, cb, grp_pe(g, 0), g->fn);
        for (int i = 1; i <= last; i++)
            add(acc, shmemi_sym_src(from, cb, grp_pe(g, i), scratch, g->fn), c);
    }
    if (inplace) {
        grp_sync(g); /* every member has read every source it needs */
        memcpy(dest, out, bytes);
        if (out != stack)
            free(out);
    }
    grp_sync(g); /* every read of my source done: the caller may reuse it */
    chunks_close(&k);
    return 0;
}

/* ------------------------------------------------------------- reductions */

#define RED_AND(a, b) ((a) & (b))
#define RED_OR(a, b) ((a) | (b))
#define RED_XOR(a, b) ((a) ^ (b))
#define RED_MAX(a, b) ((a) > (b) ? (a) : (b))
#define RED_MIN(a, b) ((a) < (b) ? (a) : (b))
#define RED_SUM(a, b) ((a) + (b))
#define RED_PROD(a, b) ((a) * (b))

/* The combiner of (type, op); `P` keeps the team and the to_all lists apart
 * (they share types). */
#define SHMEMI_DEF_COMBINE(P, T, N, OP, EXPR)                                                      \
    static void P##_##N##_##OP(void *acc, const void *x, size_t n) {                               \
        T *a = acc;                                                                                \
        const T *b = x;                                                                            \
        for (size_t i = 0; i < n; i++)                                                             \
            a[i] = (T)EXPR(a[i], b[i]);                                                            \
    }
#define SHMEMI_DEF_COMBINE_BIT(P, T, N)                                                            \
    SHMEMI_DEF_COMBINE(P, T, N, and, RED_AND)                                                      \
    SHMEMI_DEF_COMBINE(P, T, N, or, RED_OR) SHMEMI_DEF_COMBINE(P, T, N, xor, RED_XOR)
#define SHMEMI_DEF_COMBINE_MINMAX(P, T, N)                                                         \
    SHMEMI_DEF_COMBINE(P, T, N, max, RED_MAX) SHMEMI_DEF_COMBINE(P, T, N, min, RED_MIN)
#define SHMEMI_DEF_COMBINE_ARITH(P, T, N)                                                          \
    SHMEMI_DEF_COMBINE(P, T, N, sum, RED_SUM) SHMEMI_DEF_COMBINE(P, T, N, prod, RED_PROD)
#define SHMEMI_COMB_BIT(T, N) SHMEMI_DEF_COMBINE_BIT(comb, T, N)
#define SHMEMI_COMB_MINMAX(T, N) SHMEMI_DEF_COMBINE_MINMAX(comb, T, N)
#define SHMEMI_COMB_ARITH(T, N) SHMEMI_DEF_COMBINE_ARITH(comb, T, N)
#define SHMEMI_TOALL_BIT(T, N) SHMEMI_DEF_COMBINE_BIT(toall, T, N)
#define SHMEMI_TOALL_MINMAX(T, N) SHMEMI_DEF_COMBINE_MINMAX(toall, T, N)
#define SHMEMI_TOALL_ARITH(T, N) SHMEMI_DEF_COMBINE_ARITH(toall, T, N)
SHMEMI_REDUCE_BIT_TYPES(SHMEMI_COMB_BIT)
SHMEMI_REDUCE_MINMAX_TYPES(SHMEMI_COMB_MINMAX)
SHMEMI_REDUCE_ARITH_TYPES(SHMEMI_COMB_ARITH)
SHMEMI_REDUCE_BIT_EXT_TYPES(SHMEMI_COMB_BIT)
SHMEMI_TO_ALL_BIT_TYPES(SHMEMI_TOALL_BIT)
SHMEMI_TO_ALL_MINMAX_TYPES(SHMEMI_TOALL_MINMAX)
SHMEMI_TO_ALL_ARITH_TYPES(SHMEMI_TOALL_ARITH)

/* ------------------------------------------------------------ public names */
/* The bodies of this file's rows of the op table (include/shmem_ops.h). A
 * team routine returns -1 on an invalid team; an active-set routine ends the
 * job on a malformed set. ESZ is the element size. */
#define SHMEMI_ON_TEAM(CALL)                                                                       \
    struct grp g;                                                                                  \
    return grp_team(&g, team, __func__) ? -1 : CALL;
#define SHMEMI_ON_SET(CALL)                                                                        \
    struct grp g;                                                                                  \
    grp_active_set(&g, PE_start, logPE_stride, PE_size, pSync, __func__);                          \
    CALL;
#define SHMEMI_NBYTES(ESZ) shmemi_bytes(nelems, ESZ, __func__)
#define SHMEMI_B_BROADCAST(ESZ)                                                                    \
    SHMEMI_ON_TEAM(do_broadcast(&g, dest, source, SHMEMI_NBYTES(ESZ), PE_root, 1))
#define SHMEMI_B_COLLECT(ESZ) SHMEMI_ON_TEAM(do_collect(&g, dest, source, SHMEMI_NBYTES(ESZ)))
#define SHMEMI_B_FCOLLECT(ESZ) SHMEMI_ON_TEAM(do_fcollect(&g, dest, source, SHMEMI_NBYTES(ESZ)))
#define SHMEMI_B_ALLTOALL(ESZ) SHMEMI_ON_TEAM(do_alltoall(&g, dest, source, SHMEMI_NBYTES(ESZ)))
#define SHMEMI_B_ALLTOALLS(ESZ)                                                                    \
    SHMEMI_ON_TEAM(do_alltoalls(&g, dest, source, dst, sst, nelems, ESZ))
#define SHMEMI_B_REDUCE(N, OP)                                                                     \
    SHMEMI_ON_TEAM(do_reduce(&g, dest, source, nreduce, sizeof *dest, comb_##N##_##OP))
#define SHMEMI_B_SCAN(N, INCL)                                                                     \
    SHMEMI_ON_TEAM(do_scan(&g, dest, source, nelems, sizeof *dest, comb_##N##_sum, INCL))
/* The root's own dest is not written (the active-set definition). */
#define SHMEMI_B_BROADCAST_SET(ESZ)                                                                \
    SHMEMI_ON_SET(do_broadcast(&g, dest, source, SHMEMI_NBYTES(ESZ), PE_root, 0))
#define SHMEMI_B_COLLECT_SET(ESZ) SHMEMI_ON_SET(do_collect(&g, dest, source, SHMEMI_NBYTES(ESZ)))
#define SHMEMI_B_FCOLLECT_SET(ESZ) SHMEMI_ON_SET(do_fcollect(&g, dest, source, SHMEMI_NBYTES(ESZ)))
#define SHMEMI_B_ALLTOALL_SET(ESZ) SHMEMI_ON_SET(do_alltoall(&g, dest, source, SHMEMI_NBYTES(ESZ)))
#define SHMEMI_B_ALLTOALLS_SET(ESZ)                                                                \
    SHMEMI_ON_SET(do_alltoalls(&g, dest, source, dst, sst, nelems, ESZ))
#define SHMEMI_B_TO_ALL(N, OP)                                                                     \
    (void)pWrk;                                                                                    \
    SHMEMI_ON_SET(if (nreduce < 0) shmemi_fatal("%s: nreduce %d is negative", __func__, nreduce);  \
                  do_reduce(&g, dest, source, (size_t)nreduce, sizeof *dest, toall_##N##_##OP))
#include "shmem/api_define.h"
