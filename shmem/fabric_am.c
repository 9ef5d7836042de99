/* Messages the target PE carries out (shmem/fabric.h): AMOs where the
 * provider has no atomic for them (or SHMEM_OFI_ATOMICS=am), non-fetching
 * ones where its atomics are the target CPU's too (path_fabric.c), the device
 * heap of a GPU build where the provider cannot register GPU memory (no
 * FI_HMEM, or SHMEM_OFI_HMEM=staged): the bytes travel in messages between
 * registered host buffers and the target copies them to or from its GPU.
 *
 * Each PE's main endpoint keeps receive buffers posted (below). A request
 * (AMO, PUT with its payload, GET) goes from the initiator's main endpoint to
 * the target's; whichever thread of the target reads it from the completion
 * queue (its progress thread, or a thread waiting in the library) carries it
 * out (a CPU atomic on host memory, the GPU runtime for the device heap) and
 * sends the reply (the old value, or the data of a GET) from one of AM_SLOTS
 * reply buffers, at once where nothing waits before it (an AMO's round trip:
 * no queue, no allocation), else from a queue of pending requests, with the
 * queue's lock held, once out of the queue-reading loop. A request waits in
 * that queue until a reply buffer is free and the send is accepted, and it
 * is carried out exactly once.
 * Requests of one initiator run in the order sent: the providers keep
 * messages in order (FI_ORDER_SAS), an initiator numbers its requests to a
 * PE as it posts them, and the target carries them out by number (two of its
 * threads that read the queue at once may queue them the other way round).
 *
 * The initiator waits for its reply (and for its own send to complete):
 * every message operation is blocking -- but a STORE, which has no reply:
 * bytes, then a 64-bit word the target stores after them with release (a
 * small collective's slot and its sequence number), complete for the
 * initiator once sent. PUT and GET move AM_PAYLOAD bytes per
 * message, two messages in flight (one is copied while the other travels).
 * A POST (a non-fetching AMO) has no reply either; a SYNC's empty reply
 * says that the target carried out everything the initiator sent it before.
 * A MAIL has no reply either: its bytes go into a mailbox of the target, a
 * buffer of its own per (box, sender) that grows to the largest message, and
 * the sender's sequence number after them with release (mid-size
 * collectives: the target may not have entered the collective yet, so its
 * symmetric memory is no place for them). */
#include "shmem/fabric.h"

#include "shmem/path_direct.h"

#include <stdio.h>
#include <stdlib.h>

#if defined(SHMEM_GPU_CUDA) || defined(SHMEM_GPU_HIP)
#include "device/gpu.h"
#endif

#define AM_BYTES ((size_t)64 << 10)
#define AM_SLOTS 8
/* Receive buffers. Where the provider places messages one after another in
 * one posted buffer (FI_MULTI_RECV: net, rxm, shm), AM_MULTI buffers of
 * AM_MULTI_BYTES, each given back by the provider once less than AM_BYTES is
 * left in it and posted again once every message in it was carried out: a
 * stream of small messages (POSTs) does not outrun them. With one message a
 * buffer and 16 of them, three PEs' increments into a fourth over net found
 * none posted at nearly every message; the provider then turned the
 * connection's reading off and on again, two system calls a message, a
 * third of the target's time (the stream took 1.5 s against 1.0 with more
 * buffers than messages in flight). Otherwise AM_RECVS of one message. */
#define AM_MULTI 4
#define AM_MULTI_BYTES ((size_t)512 << 10)
#define AM_RECVS 16
/* Every message's length is a multiple of this: messages that follow each
 * other in a buffer stay aligned for their headers. */
#define AM_ALIGN ((size_t) _Alignof(struct am_msg))
#define AM_LEN(n) (((n) + AM_ALIGN - 1) & ~(AM_ALIGN - 1))

enum { AM_AMO = 1, AM_PUT, AM_GET, AM_REPLY, AM_STORE, AM_MAIL, AM_POST, AM_SYNC };

struct am_msg {
    uint32_t type;
    int32_t src;  /* the sending PE */
    uint64_t req; /* the initiator's request, echoed by the reply */
    uint32_t region, op;
    uint64_t off;         /* in the region; a reply to a GET: where its bytes go in the request */
    uint64_t len;         /* PUT, STORE: payload bytes; GET: bytes asked; AMO: the word's size */
    uint64_t value, cond; /* STORE: the word's value and its offset in the region */
    uint32_t seq;         /* a request's number among those src sent this PE */
    uint32_t unused;
};
/* A MAIL: region is the box, off the chunk's place in the message, value the
 * sequence number, cond the message's length (op 1 on its last chunk). */
#define AM_PAYLOAD (AM_BYTES - sizeof(struct am_msg))
/* A STORE this small (with its header, at most the provider's inject size)
 * goes by fi_inject. */
#define AM_STORE_INJECT_MAX 256
/* A MAIL travels in chunks that the provider sends eagerly (shmemi_fab.eager,
 * less this much for its header and the provider's own), where a larger
 * message would wait for a handshake (rxm: a 16 KiB broadcast of two PEs took
 * 53 us as one message, 25 in two); a receive buffer's worth where any size
 * goes at once. */
#define AM_MAIL_HEADROOM ((size_t)512)
/* POSTs to one PE between two waits for the PE to have carried them out. */
#ifndef AM_POST_WINDOW
#define AM_POST_WINDOW 256
#endif
/* Collectives by mail up to this many bytes a message (coll.c), beyond which
 * the barrier path's fewer and larger transfers win: in chunks (rxm), two
 * PEs, a 64 KiB fcollect took 92 us by mail and 69 by the barrier path; in
 * whole messages (net) 44 against 63-66, and no better by mail at 128 KiB. */
#define AM_MAIL_BYTES_CHUNKED ((size_t)32 << 10)
#define AM_MAIL_BYTES ((size_t)64 << 10)

/* A buffer posted for several messages (FI_MULTI_RECV). */
struct am_multi {
    uint32_t kind; /* FAB_KIND_AM_MULTI */
    int refs;      /* its messages not yet carried out, + 1 while the provider holds it */
    char *data;    /* AM_MULTI_BYTES */
};

/* A receive buffer, a message received into a multi buffer, or a reply slot
 * (kind says which). */
struct am_buf {
    uint32_t kind;       /* FAB_KIND_AM_RECV or FAB_KIND_AM_SEND */
    int busy;            /* reply slot: in use */
    int done;            /* request: carried out, reply built (sent or to send) */
    struct am_buf *next; /* pending requests */
    struct am_buf *slot; /* request: its reply slot once carried out */
    size_t reply_len;
    char *data;             /* AM_BYTES; a message in a multi buffer: the message */
    struct am_multi *multi; /* the multi buffer the message is in, or NULL */
    char *copy;             /* the message copied aside (it was not aligned), or NULL */
    int own;                /* a message in a multi buffer, queued: this is allocated */
};

/* A mailbox: the last message's bytes and sequence number (release). */
struct am_box {
    uint64_t seq;
    size_t cap;
    char *data;
};

/* An initiator's request: waits for its reply and for its own sends. */
struct am_req {
    struct fab_req q; /* pending: sends not complete + replies not in */
    uint64_t value;   /* AMO: the old value */
    char *dst;        /* GET: where the data goes */
    uint64_t off0;    /* GET: the region offset of dst[0] */
    const char *fn;
};

/* A send buffer of the initiator: reused once its send completed. */
struct am_send {
    uint32_t kind; /* FAB_KIND_AM_SEND */
    int busy;
    int done;
    struct am_buf *unused;
    struct am_req *req;
    char *data;
};

static struct {
    int open;
    /* Receive buffers posted (atomic), and whether they all were taken since
     * the last progress call that carried messages out (atomic): then more
     * may wait in the provider for one. */
    int recvs, dry;
    int multi; /* receive buffers of several messages (FI_MULTI_RECV) */
    char *mem; /* every buffer: the receive buffers, then AM_SLOTS + 2 * AM_SLOTS of AM_BYTES */
    size_t mem_bytes; /* their size */
    struct fid_mr *mr;
    void *desc;
    struct am_buf recv[AM_RECVS], slot[AM_SLOTS];
    struct am_multi mrecv[AM_MULTI];
    struct am_send send[2 * AM_SLOTS];
    pthread_mutex_t lock; /* the pending queue and the reply slots */
    pthread_mutex_t send_lock;
    struct am_buf *head, *tail; /* requests to carry out or answer */
    struct am_box *box;         /* [SHMEMI_MAIL_BOXES][n_pes] */
    uint32_t *posts;            /* [n_pes] POSTs sent to each PE (atomic) */
    /* Requests sent to each PE, numbered under order_lock in the order
     * posted; and the number of the next request from each PE to carry out
     * (under lock). Two threads that read the queue at once (the progress
     * thread's and one waiting) may queue two requests of one PE in the
     * other order: they are carried out by number. */
    pthread_mutex_t order_lock;
    uint32_t *seq_out, *seq_in;
    size_t mail_chunk; /* a MAIL's bytes in one message at most */
    size_t mail_bytes; /* shmemi_fab_am_mail_bytes */
} am = {.lock = PTHREAD_MUTEX_INITIALIZER,
        .send_lock = PTHREAD_MUTEX_INITIALIZER,
        .order_lock = PTHREAD_MUTEX_INITIALIZER};

static const char *const am_fn = "the fabric's message service";

/* Post a receive buffer of `len` bytes at data (context ctx). */
static int post_recv(char *data, size_t len, void *ctx, uint64_t flags) {
    struct iovec iov = {data, len};
    struct fi_msg m = {
        .msg_iov = &iov, .desc = &am.desc, .iov_count = 1, .addr = FI_ADDR_UNSPEC, .context = ctx};
    ssize_t rc;
    while ((rc = fi_recvmsg(shmemi_fab.main.ep, &m, FI_COMPLETION | flags)) == -FI_EAGAIN)
        fi_cntr_read(shmemi_fab.main.cntr); /* progress without reading the queue */
    if (!rc)
        __atomic_fetch_add(&am.recvs, 1, __ATOMIC_RELAXED);
    return (int)rc;
}

static int repost(struct am_buf *b) { return post_recv(b->data, AM_BYTES, b, 0); }

/* A multi buffer back to the provider, held by it again. */
static int multi_post(struct am_multi *u) {
    __atomic_store_n(&u->refs, 1, __ATOMIC_RELAXED);
    return post_recv(u->data, AM_MULTI_BYTES, u, FI_MULTI_RECV);
}

/* One hold on u less (a message carried out, or the provider done with it):
 * posted again once none is left. */
static int multi_drop(struct am_multi *u) {
    return __atomic_sub_fetch(&u->refs, 1, __ATOMIC_ACQ_REL) ? 0 : multi_post(u);
}

/* A received message is carried out: its buffer takes the next ones. */
static void release(struct am_buf *b) {
    struct am_multi *u = b->multi;
    int rc;
    if (u) {
        free(b->copy);
        if (b->own)
            free(b);
        rc = multi_drop(u);
    } else {
        rc = repost(b);
    }
    if (rc)
        shmemi_fab_fail(rc, "posting a receive", -1, am_fn);
}

/* Whether the endpoint takes buffers of several messages, each given back
 * with room for the largest one left. */
static int multi_ok(void) {
    size_t min = AM_BYTES;
    return (shmemi_fab.info->caps & FI_MULTI_RECV) &&
           !fi_setopt(&shmemi_fab.main.ep->fid, FI_OPT_ENDPOINT, FI_OPT_MIN_MULTI_RECV, &min,
                      sizeof min);
}

int shmemi_fab_am_open(void) {
    am.multi = multi_ok();
    shmemi_debug("fabric: messages received %s",
                 am.multi ? "several to a buffer (FI_MULTI_RECV)" : "one to a buffer");
    size_t recv_bytes = am.multi ? AM_MULTI * AM_MULTI_BYTES : AM_RECVS * AM_BYTES;
    size_t n = AM_SLOTS + 2 * AM_SLOTS;
    am.mem_bytes = recv_bytes + n * AM_BYTES;
    if (posix_memalign((void **)&am.mem, 4096, am.mem_bytes) ||
        !(am.box = calloc(SHMEMI_MAIL_BOXES * (size_t)shmemi.n_pes, sizeof(*am.box))) ||
        !(am.posts = calloc((size_t)shmemi.n_pes, sizeof(*am.posts))) ||
        !(am.seq_out = calloc((size_t)shmemi.n_pes, sizeof(*am.seq_out))) ||
        !(am.seq_in = calloc((size_t)shmemi.n_pes, sizeof(*am.seq_in))))
        return -FI_ENOMEM;
    memset(am.mem, 0, am.mem_bytes);
#if defined(SHMEM_GPU_CUDA) || defined(SHMEM_GPU_HIP)
    /* Pinned for the GPU: the device heap's bytes are copied through these. */
    if (shmemi.dev_size &&
        hipHostRegister(am.mem, am.mem_bytes, hipHostRegisterPortable) != hipSuccess) {
        (void)hipGetLastError();
        shmemi_debug("fabric: message buffers not pinned for the GPU (slower staged copies)");
    }
#endif
    int rc = fi_mr_reg(shmemi_fab.domain, am.mem, am.mem_bytes, FI_SEND | FI_RECV, 0, 8, 0, &am.mr,
                       NULL);
    if (rc)
        return rc;
    if (shmemi_fab.mr_endpoint &&
        ((rc = fi_mr_bind(am.mr, &shmemi_fab.main.ep->fid, 0)) || (rc = fi_mr_enable(am.mr))))
        return rc;
    am.desc = fi_mr_desc(am.mr);
    size_t eager = shmemi_fab.eager;
    am.mail_chunk = eager > AM_MAIL_HEADROOM && eager - AM_MAIL_HEADROOM < AM_PAYLOAD
                        ? eager - AM_MAIL_HEADROOM
                        : AM_PAYLOAD;
    am.mail_bytes = am.mail_chunk < AM_PAYLOAD ? AM_MAIL_BYTES_CHUNKED : AM_MAIL_BYTES;
    char *p = am.mem;
    for (int i = 0; am.multi && i < AM_MULTI; i++, p += AM_MULTI_BYTES) {
        am.mrecv[i] = (struct am_multi){.kind = FAB_KIND_AM_MULTI, .data = p};
        if ((rc = multi_post(&am.mrecv[i])))
            return rc;
    }
    for (int i = 0; !am.multi && i < AM_RECVS; i++, p += AM_BYTES) {
        am.recv[i] = (struct am_buf){.kind = FAB_KIND_AM_RECV, .data = p};
        if ((rc = repost(&am.recv[i])))
            return rc;
    }
    for (int i = 0; i < AM_SLOTS; i++, p += AM_BYTES)
        am.slot[i] = (struct am_buf){.kind = FAB_KIND_AM_SEND, .data = p};
    for (int i = 0; i < 2 * AM_SLOTS; i++, p += AM_BYTES)
        am.send[i] = (struct am_send){.kind = FAB_KIND_AM_SEND, .data = p};
    am.open = 1;
    return 0;
}

void shmemi_fab_am_close(void) {
    if (!am.open)
        return;
    /* The endpoint is closed after this: its receives with it. */
    if (am.mr)
        fi_close(&am.mr->fid);
#if defined(SHMEM_GPU_CUDA) || defined(SHMEM_GPU_HIP)
    if (shmemi.dev_size)
        (void)hipHostUnregister(am.mem);
#endif
    free(am.mem);
    am.mem = NULL;
    for (size_t i = 0; i < SHMEMI_MAIL_BOXES * (size_t)shmemi.n_pes; i++)
        free(am.box[i].data);
    free(am.box);
    am.box = NULL;
    free(am.posts);
    free(am.seq_out);
    free(am.seq_in);
    am.posts = NULL;
    am.seq_out = am.seq_in = NULL;
    am.mr = NULL;
    am.head = am.tail = NULL;
    am.recvs = am.dry = 0;
    am.open = 0;
}

/* ------------------------------------------------------------ the target */

/* This PE's memory that a request names: region + off, len bytes. */
static char *local(const struct am_msg *m, size_t len) {
    int g = (int)m->region;
    if (g < 0 || g >= SHMEMI_REGIONS || !shmemi_fab.lsize[g] || m->off > shmemi_fab.lsize[g] ||
        len > shmemi_fab.lsize[g] - m->off)
        shmemi_fatal("%s: PE %d named %zu bytes at offset %llu of region %d, outside this PE's "
                     "memory",
                     am_fn, m->src, len, (unsigned long long)m->off, g);
    return shmemi_fab.lbase[g] + m->off;
}

/* An AMO of m's on this PE's memory; the old value. */
static uint64_t amo_here(const struct am_msg *m) {
    size_t size = m->len == 4 ? 4 : 8;
    char *w = local(m, size);
    uint64_t old = 0;
    if (shmemi_on_device(w)) {
        shmemi.dev->amo(w, (enum shmemi_amo_op)m->op, size, m->value, m->cond, &old, 0, am_fn);
    } else {
        struct shmemi_route x = {.addr = w, .pe = shmemi.my_pe, .region = (int)m->region};
        shmemi_direct_amo(NULL, &x, (enum shmemi_amo_op)m->op, size, m->value, m->cond, &old,
                          am_fn);
    }
    return old;
}

/* Carry out request b into reply slot s (the reply's header and data). */
static void execute(struct am_buf *b, struct am_buf *s) {
    const struct am_msg *m = (const struct am_msg *)b->data;
    struct am_msg *r = (struct am_msg *)s->data;
    *r = (struct am_msg){.type = AM_REPLY, .src = shmemi.my_pe, .req = m->req};
    s->reply_len = sizeof(*r);
    switch (m->type) {
    case AM_PUT:
        if (m->len > AM_PAYLOAD)
            shmemi_fatal("%s: PE %d sent a put of %llu bytes", am_fn, m->src,
                         (unsigned long long)m->len);
        shmemi_local_copy(local(m, m->len), m + 1, m->len, am_fn);
        break;
    case AM_GET: {
        size_t n = m->len < AM_PAYLOAD ? m->len : AM_PAYLOAD;
        shmemi_local_copy(r + 1, local(m, n), n, am_fn);
        r->off = m->off;
        r->len = n;
        s->reply_len += n;
        break;
    }
    case AM_AMO: r->value = amo_here(m); break;
    case AM_SYNC: break; /* its reply says that everything sent before it is carried out */
    default: shmemi_fatal("%s: PE %d sent a message of unknown type %u", am_fn, m->src, m->type);
    }
}

/* A STORE: the bytes, then the word (release: whoever sees it sees them). */
static void store(const struct am_msg *m) {
    if (m->len > AM_PAYLOAD)
        shmemi_fatal("%s: PE %d sent a store of %llu bytes", am_fn, m->src,
                     (unsigned long long)m->len);
    memcpy(local(m, m->len), m + 1, m->len);
    struct am_msg w = *m;
    w.off = m->cond;
    uint64_t *word = (uint64_t *)local(&w, sizeof(uint64_t));
    __atomic_store_n(word, m->value, __ATOMIC_RELEASE);
    shmemi_wake_at(shmemi.my_pe, word, sizeof(uint64_t));
}

/* A MAIL's chunk into the sender's box; its last one publishes the message. */
static void mail(const struct am_msg *m) {
    if (m->region >= SHMEMI_MAIL_BOXES || m->src < 0 || m->src >= shmemi.n_pes ||
        m->len > AM_PAYLOAD || m->off > m->cond || m->len > m->cond - m->off)
        shmemi_fatal("%s: PE %d sent a message of %llu bytes at %llu for box %u", am_fn, m->src,
                     (unsigned long long)m->len, (unsigned long long)m->off, m->region);
    struct am_box *b = &am.box[(size_t)m->region * (size_t)shmemi.n_pes + (size_t)m->src];
    if (m->cond > b->cap) {
        /* Nobody reads this box now: its last message was read before the
         * sender could send this one. */
        free(b->data);
        if (!(b->data = malloc(m->cond)))
            shmemi_fatal("%s: out of memory for a message of %llu bytes from PE %d", am_fn,
                         (unsigned long long)m->cond, m->src);
        b->cap = m->cond;
    }
    if (m->len) /* a message of no bytes has no buffer */
        memcpy(b->data + m->off, m + 1, m->len);
    if (m->op)
        __atomic_store_n(&b->seq, m->value, __ATOMIC_RELEASE);
}

static struct am_buf *free_slot(void) {
    for (int i = 0; i < AM_SLOTS; i++)
        if (!am.slot[i].busy) {
            am.slot[i].busy = 1;
            return &am.slot[i];
        }
    return NULL;
}

/* Carry out request b and answer it: whether b is done with (its reply, if
 * it has one, accepted by the provider). If not, it waits for a reply slot or
 * for the provider, carried out already if b->done. Under am.lock, in its
 * sender's order. */
static int answer(struct am_buf *b) {
    const struct am_msg *m = (const struct am_msg *)b->data;
    switch (m->type) { /* no reply */
    case AM_STORE: store(m); return 1;
    case AM_POST: amo_here(m); return 1;
    case AM_MAIL: mail(m); return 1;
    default: break;
    }
    if (!b->done) {
        if (!(b->slot = free_slot()))
            return 0;
        execute(b, b->slot);
        b->done = 1;
    }
    struct iovec iov = {b->slot->data, AM_LEN(b->slot->reply_len)};
    struct fi_msg msg = {.msg_iov = &iov,
                         .desc = &am.desc,
                         .iov_count = 1,
                         .addr = shmemi_fab.peers[m->src].addr,
                         .context = b->slot};
    /* A small reply (an AMO's old value) needs no completion: its slot is
     * free once the provider took it. */
    int inject = iov.iov_len <= shmemi_fab.inject;
    ssize_t rc = inject ? fi_inject(shmemi_fab.main.ep, iov.iov_base, iov.iov_len, msg.addr)
                        : fi_sendmsg(shmemi_fab.main.ep, &msg, FI_COMPLETION);
    if (rc == -FI_EAGAIN)
        return 0; /* answered at the next progress */
    if (rc)
        shmemi_fab_fail((int)rc, "a reply", m->src, am_fn);
    if (inject)
        __atomic_store_n(&b->slot->busy, 0, __ATOMIC_RELEASE);
    b->done = 0;
    b->slot = NULL;
    return 1;
}

/* Carry out and answer the pending requests, in order, while reply slots and
 * the provider take them; how many (their buffers are posted again). Under
 * am.lock. */
static int flush(void) {
    int done = 0;
    for (struct am_buf *b; (b = am.head); done++) {
        const struct am_msg *m = (const struct am_msg *)b->data;
        /* An earlier request of the same PE is still on its way into the
         * queue (another thread read it): it comes first. */
        if (m->seq != am.seq_in[m->src] || !answer(b))
            return done;
        am.seq_in[m->src]++;
        am.head = b->next;
        if (!am.head)
            am.tail = NULL;
        release(b);
    }
    return done;
}

/* ------------------------------------------------------------ completions */

static void reply_in(struct am_buf *b) {
    const struct am_msg *m = (const struct am_msg *)b->data;
    struct am_req *q = (struct am_req *)(uintptr_t)m->req;
    q->value = m->value;
    if (q->dst && m->len)
        shmemi_local_copy(q->dst + (m->off - q->off0), m + 1, m->len, q->fn);
    /* Release: the value and the data are visible to the waiter. */
    shmemi_fab_req_done(&q->q);
    release(b);
}

/* The message a completion of multi buffer u brings, described in *b;
 * whether there is one (else the provider only gave u back). */
static int multi_in(const struct fi_cq_data_entry *e, struct am_buf *b) {
    struct am_multi *u = e->op_context;
    int got = e->len != 0;
    if (got) {
        if (e->len < sizeof(struct am_msg) || (char *)e->buf < u->data ||
            e->len > AM_MULTI_BYTES - (size_t)((char *)e->buf - u->data))
            shmemi_fatal("%s: a message of %zu bytes outside its buffer", am_fn, e->len);
        *b = (struct am_buf){.kind = FAB_KIND_AM_RECV, .data = e->buf, .multi = u};
        if ((uintptr_t)e->buf % AM_ALIGN) {
            /* Not where the sender's lengths put it: a copy to read it from. */
            if (!(b->copy = malloc(e->len)))
                shmemi_fatal("%s: out of memory for a message", am_fn);
            memcpy(b->copy, e->buf, e->len);
            b->data = b->copy;
        }
        __atomic_fetch_add(&u->refs, 1, __ATOMIC_RELAXED);
    }
    if (e->flags & FI_MULTI_RECV) {
        /* The provider is done with u: no more messages go into it. */
        if (!__atomic_sub_fetch(&am.recvs, 1, __ATOMIC_RELAXED))
            __atomic_store_n(&am.dry, 1, __ATOMIC_RELAXED);
        int rc = multi_drop(u);
        if (rc)
            shmemi_fab_fail(rc, "posting a receive", -1, am_fn);
    }
    return got;
}

void shmemi_fab_am_completion(const struct fi_cq_data_entry *e) {
    uint32_t kind = *(const uint32_t *)e->op_context;
    if (kind == FAB_KIND_AM_SEND) {
        /* A reply slot, or an initiator's send buffer, is free again. */
        struct am_send *s = e->op_context;
        if (s >= am.send && s < am.send + 2 * AM_SLOTS) {
            struct am_req *q = s->req;
            __atomic_store_n(&s->busy, 0, __ATOMIC_RELEASE);
            if (q) /* a STORE's has none */
                shmemi_fab_req_done(&q->q);
        } else {
            __atomic_store_n(&((struct am_buf *)e->op_context)->busy, 0, __ATOMIC_RELEASE);
        }
    } else if (kind == FAB_KIND_AM_RECV || kind == FAB_KIND_AM_MULTI) {
        struct am_buf *b = e->op_context, in;
        if (kind == FAB_KIND_AM_MULTI) {
            if (!multi_in(e, &in))
                return;
            b = &in;
        } else if (!__atomic_sub_fetch(&am.recvs, 1, __ATOMIC_RELAXED)) {
            __atomic_store_n(&am.dry, 1, __ATOMIC_RELAXED);
        }
        if (((const struct am_msg *)b->data)->type == AM_REPLY) {
            reply_in(b);
            return;
        }
        const struct am_msg *m = (const struct am_msg *)b->data;
        if (m->src < 0 || m->src >= shmemi.n_pes)
            shmemi_fatal("%s: a message from PE %d, of a job of %d PEs", am_fn, m->src,
                         shmemi.n_pes);
        pthread_mutex_lock(&am.lock);
        if (!am.head && m->seq == am.seq_in[m->src] && answer(b)) {
            /* Nothing waits before it: carried out and answered at once. */
            am.seq_in[m->src]++;
            pthread_mutex_unlock(&am.lock);
            release(b);
            return;
        }
        if (b == &in) { /* queued: its description outlives this call */
            if (!(b = malloc(sizeof *b)))
                shmemi_fatal("%s: out of memory for a message", am_fn);
            *b = in;
            b->own = 1;
        }
        /* Before the first queued request of the same PE numbered after it
         * (queued meanwhile by another thread), else last. */
        struct am_buf **at = &am.head;
        for (; *at; at = &(*at)->next) {
            const struct am_msg *o = (const struct am_msg *)(*at)->data;
            if (o->src == m->src && (int32_t)(o->seq - m->seq) > 0)
                break;
        }
        b->next = *at;
        *at = b;
        if (!b->next)
            am.tail = b;
        pthread_mutex_unlock(&am.lock);
    }
}

/* Nothing queued to carry out or answer (the progress thread may sleep). */
int shmemi_fab_am_idle(void) { return !am.open || !__atomic_load_n(&am.head, __ATOMIC_RELAXED); }

/* Called by every progress call of the main endpoint, out of the loop that
 * reads its queue: carry out what waits in the queue. Whether receive
 * buffers were posted again after every one was taken: more messages may
 * wait in the provider for them. */
int shmemi_fab_am_progress(void) {
    if (!am.open)
        return 0;
    /* Unless another thread is at it. */
    if (__atomic_load_n(&am.head, __ATOMIC_RELAXED) && !pthread_mutex_trylock(&am.lock)) {
        flush();
        pthread_mutex_unlock(&am.lock);
    }
    return __atomic_load_n(&am.dry, __ATOMIC_RELAXED) &&
           __atomic_load_n(&am.recvs, __ATOMIC_RELAXED) &&
           __atomic_exchange_n(&am.dry, 0, __ATOMIC_RELAXED);
}

/* ------------------------------------------------------------ the initiator */

static struct am_send *send_buf(void) {
    for (;;) {
        pthread_mutex_lock(&am.send_lock);
        for (int i = 0; i < 2 * AM_SLOTS; i++)
            if (!am.send[i].busy) {
                am.send[i].busy = 1;
                pthread_mutex_unlock(&am.send_lock);
                return &am.send[i];
            }
        pthread_mutex_unlock(&am.send_lock);
        shmemi_fab_progress(&shmemi_fab.main);
    }
}

/* Send m (and `len` payload bytes already after it in s) to pe for q. */
/* Post the request m to pe, numbered (the lock is held from the number to
 * the post, so the provider takes a PE's requests in their numbers' order). */
#define POST_REQUEST(m, pe, fn, call)                                                              \
    do {                                                                                           \
        pthread_mutex_lock(&am.order_lock);                                                        \
        (m)->seq = am.seq_out[pe]++;                                                               \
        FAB_POST(&shmemi_fab.main, pe, "a message", fn, call);                                     \
        pthread_mutex_unlock(&am.order_lock);                                                      \
    } while (0)

static void send_req(struct am_send *s, struct am_req *q, int pe, size_t len) {
    size_t n = AM_LEN(sizeof(struct am_msg) + len);
    struct am_msg *h = (struct am_msg *)s->data;
    if (n <= shmemi_fab.inject) {
        /* Small enough to travel without a completion (an AMO, a GET): only
         * the reply is waited for, and the buffer is free at once. */
        __atomic_fetch_add(&q->q.pending, 1, __ATOMIC_RELAXED);
        POST_REQUEST(h, pe, q->fn,
                     fi_inject(shmemi_fab.main.ep, s->data, n, shmemi_fab.peers[pe].addr));
        __atomic_store_n(&s->busy, 0, __ATOMIC_RELEASE);
        return;
    }
    s->req = q;
    __atomic_fetch_add(&q->q.pending, 2, __ATOMIC_RELAXED); /* the send and the reply */
    struct iovec iov = {s->data, n};
    struct fi_msg m = {.msg_iov = &iov,
                       .desc = &am.desc,
                       .iov_count = 1,
                       .addr = shmemi_fab.peers[pe].addr,
                       .context = s};
    POST_REQUEST(h, pe, q->fn, fi_sendmsg(shmemi_fab.main.ep, &m, FI_COMPLETION));
}

static struct am_msg header(const struct shmemi_route *r, uint32_t type, struct am_req *q) {
    return (struct am_msg){.type = type,
                           .src = shmemi.my_pe,
                           .req = (uint64_t)(uintptr_t)q,
                           .region = (uint32_t)r->region,
                           .off = r->off};
}

/* A request of a header only (an AMO, a GET, a SYNC) to pe for q: where the
 * provider injects it, from h itself, without a send buffer. */
static void send_bare(struct am_msg *h, struct am_req *q, int pe) {
    if (sizeof *h > shmemi_fab.inject) {
        struct am_send *s = send_buf();
        memcpy(s->data, h, sizeof *h);
        send_req(s, q, pe, 0);
        return;
    }
    __atomic_fetch_add(&q->q.pending, 1, __ATOMIC_RELAXED);
    POST_REQUEST(h, pe, q->fn,
                 fi_inject(shmemi_fab.main.ep, h, sizeof *h, shmemi_fab.peers[pe].addr));
}

void shmemi_fab_am_amo(const struct shmemi_route *r, enum shmemi_amo_op op, size_t size,
                       uint64_t value, uint64_t cond, uint64_t *old, const char *fn) {
    struct am_req q = {{FAB_KIND_REQ, r->pe, 0}, 0, NULL, 0, fn};
    struct am_msg m = header(r, AM_AMO, &q);
    m.op = (uint32_t)op;
    m.len = size;
    m.value = value;
    m.cond = cond;
    send_bare(&m, &q, r->pe);
    shmemi_fab_wait_req(&shmemi_fab.main, &q.q, fn);
    if (old)
        *old = size == 4 ? (uint32_t)q.value : q.value;
}

void shmemi_fab_am_put(const struct shmemi_route *r, const void *src, size_t n, const char *fn) {
    struct am_req q = {{FAB_KIND_REQ, r->pe, 0}, 0, NULL, 0, fn};
    for (size_t done = 0; done < n; done += AM_PAYLOAD) {
        size_t k = n - done < AM_PAYLOAD ? n - done : AM_PAYLOAD;
        /* Two in flight: wait until at most one (its send and reply) is. */
        while (__atomic_load_n(&q.q.pending, __ATOMIC_ACQUIRE) > 2)
            shmemi_fab_progress(&shmemi_fab.main);
        struct am_send *s = send_buf();
        struct am_msg *m = (struct am_msg *)s->data;
        *m = header(r, AM_PUT, &q);
        m->off += done;
        m->len = k;
        shmemi_local_copy(m + 1, (const char *)src + done, k, fn);
        send_req(s, &q, r->pe, k);
    }
    shmemi_fab_wait_req(&shmemi_fab.main, &q.q, fn);
}

void shmemi_fab_am_get(void *dst, const struct shmemi_route *r, size_t n, const char *fn) {
    struct am_req q = {{FAB_KIND_REQ, r->pe, 0}, 0, dst, r->off, fn};
    for (size_t done = 0; done < n; done += AM_PAYLOAD) {
        size_t k = n - done < AM_PAYLOAD ? n - done : AM_PAYLOAD;
        while (__atomic_load_n(&q.q.pending, __ATOMIC_ACQUIRE) > 2)
            shmemi_fab_progress(&shmemi_fab.main);
        struct am_msg m = header(r, AM_GET, &q);
        m.off += done;
        m.len = k;
        send_bare(&m, &q, r->pe);
    }
    shmemi_fab_wait_req(&shmemi_fab.main, &q.q, fn);
}

/* A message without a reply (header h, n bytes from src) to pe: complete
 * for the caller once the bytes are copied. */
static void send_noreply(const struct am_msg *h, const void *src, size_t n, int pe,
                         const char *fn) {
    fi_addr_t to = shmemi_fab.peers[pe].addr;
    size_t len = AM_LEN(sizeof *h + n);
    if (len <= shmemi_fab.inject && n <= AM_STORE_INJECT_MAX) {
        /* Small enough to travel without a buffer of ours or a completion. */
        _Alignas(struct am_msg) char buf[AM_LEN(sizeof *h + AM_STORE_INJECT_MAX)];
        memcpy(buf, h, sizeof *h);
        if (n)
            memcpy(buf + sizeof *h, src, n);
        memset(buf + sizeof *h + n, 0, len - sizeof *h - n);
        POST_REQUEST((struct am_msg *)buf, pe, fn, fi_inject(shmemi_fab.main.ep, buf, len, to));
        return;
    }
    struct am_send *s = send_buf();
    s->req = NULL;
    memcpy(s->data, h, sizeof *h);
    if (n)
        memcpy(s->data + sizeof *h, src, n);
    struct iovec iov = {s->data, len};
    struct fi_msg m = {.msg_iov = &iov, .desc = &am.desc, .iov_count = 1, .addr = to, .context = s};
    POST_REQUEST((struct am_msg *)s->data, pe, fn,
                 fi_sendmsg(shmemi_fab.main.ep, &m, FI_COMPLETION));
}

void shmemi_fab_am_store(const struct shmemi_route *r, const void *src, size_t n,
                         const struct shmemi_route *word, uint64_t v, const char *fn) {
    if (n > AM_PAYLOAD || word->region != r->region)
        shmemi_fatal("%s: a store of %zu bytes and a word of another region through the fabric", fn,
                     n);
    struct am_msg h = {.type = AM_STORE,
                       .src = shmemi.my_pe,
                       .region = (uint32_t)r->region,
                       .off = r->off,
                       .len = n,
                       .value = v,
                       .cond = word->off};
    send_noreply(&h, src, n, r->pe, fn);
}

/* A POST: a non-fetching AMO without a reply, complete for the caller once
 * sent; a SYNC to the PE (shmemi_fab_am_sync) tells when it is carried out.
 * Every AM_POST_WINDOW-th POST to a PE waits for one: the provider takes in
 * messages that find no receive posted as fast as they come, into buffers
 * it allocates (rxm), and a PE that three others sent 20,000 increments
 * each grew to 423 MB, and carried them out at a quarter of the rate. */
void shmemi_fab_am_post(const struct shmemi_route *r, enum shmemi_amo_op op, size_t size,
                        uint64_t value, const char *fn) {
    struct am_msg h = {.type = AM_POST,
                       .src = shmemi.my_pe,
                       .region = (uint32_t)r->region,
                       .op = (uint32_t)op,
                       .off = r->off,
                       .len = size,
                       .value = value};
    send_noreply(&h, NULL, 0, r->pe, fn);
    if (__atomic_add_fetch(&am.posts[r->pe], 1, __ATOMIC_RELAXED) % AM_POST_WINDOW == 0)
        shmemi_fab_am_sync(&r->pe, 1, fn);
}

/* A SYNC to each of n PEs, then the wait for their replies: a target
 * carries out one initiator's messages in the order sent, so each reply
 * comes once everything this PE sent that PE before (POSTs) is carried out. */
void shmemi_fab_am_sync(const int *pes, int n, const char *fn) {
    struct am_req q[64];
    for (int first = 0; first < n; first += 64) {
        int k = n - first < 64 ? n - first : 64;
        for (int i = 0; i < k; i++) {
            int pe = pes[first + i];
            q[i] = (struct am_req){{FAB_KIND_REQ, pe, 0}, 0, NULL, 0, fn};
            struct am_msg m = {
                .type = AM_SYNC, .src = shmemi.my_pe, .req = (uint64_t)(uintptr_t)&q[i]};
            send_bare(&m, &q[i], pe);
        }
        for (int i = 0; i < k; i++)
            shmemi_fab_wait_req(&shmemi_fab.main, &q[i].q, fn);
    }
}

size_t shmemi_fab_am_mail_bytes(void) { return am.mail_bytes; }

void shmemi_fab_am_mail(int pe, int box, uint64_t seq, const void *src, size_t n, const char *fn) {
    size_t done = 0;
    do {
        size_t k = n - done < am.mail_chunk ? n - done : am.mail_chunk;
        struct am_msg h = {.type = AM_MAIL,
                           .src = shmemi.my_pe,
                           .region = (uint32_t)box,
                           .op = done + k == n,
                           .off = done,
                           .len = k,
                           .value = seq,
                           .cond = n};
        send_noreply(&h, (const char *)src + done, k, pe, fn);
        done += k;
    } while (done < n);
}

const void *shmemi_fab_am_mail_in(int pe, int box, uint64_t seq) {
    const struct am_box *b = &am.box[(size_t)box * (size_t)shmemi.n_pes + (size_t)pe];
    /* Acquire: pairs with the release of the message's last chunk. */
    if (__atomic_load_n(&b->seq, __ATOMIC_ACQUIRE) != seq)
        return NULL;
    return b->data ? (const void *)b->data : (const void *)b;
}
