/* The fabric's provider (shmem/fabric.h): which one a job takes -- the first
 * libfabric offers for an RDM endpoint with RMA, atomics and messages whose
 * transfers can complete on delivery, or the one SHMEM_OFI_PROVIDER names
 * (SHMEM_OFI_DOMAIN: its domain) -- and what it offers that the library
 * cares about: progress of its own, how large a message goes without a
 * handshake, atomics. */
#define _GNU_SOURCE
#include "shmem/fabric.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------- choice */

/* Provider names as users write them, as the names to try in order. tcp: the
 * provider that carries RDM endpoints over TCP itself where libfabric has one
 * (net in 1.17, the fork of tcp that later releases made tcp's own RDM
 * endpoint: one connection a peer and no rxm layer, half the time a message
 * takes), then the tcp provider under ofi_rxm. verbs and udp need their
 * utility provider. */
static const char *const *prov_names(const char *want) {
    static const char *const tcp[] = {"net", "tcp", NULL};
    static const char *const verbs[] = {"verbs;ofi_rxm", NULL};
    static const char *const udp[] = {"udp;ofi_rxd", NULL};
    static const char *one[2];
    if (!strcmp(want, "tcp"))
        return tcp;
    if (!strcmp(want, "verbs"))
        return verbs;
    if (!strcmp(want, "udp"))
        return udp;
    one[0] = want[0] ? want : NULL;
    return one;
}

static struct fi_info *hints_make(int hmem, const char *prov) {
    struct fi_info *h = fi_allocinfo();
    if (!h)
        return NULL;
    h->caps = FI_RMA | FI_ATOMIC | FI_MSG | FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE |
              FI_SEND | FI_RECV;
    if (hmem)
        h->caps |= FI_HMEM;
    h->mode = 0;
    h->ep_attr->type = FI_EP_RDM;
    h->domain_attr->threading = FI_THREAD_SAFE;
    h->domain_attr->av_type = FI_AV_TABLE;
    h->domain_attr->resource_mgmt = FI_RM_ENABLED;
    h->domain_attr->mr_mode =
        FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_ENDPOINT;
    if (hmem)
        h->domain_attr->mr_mode |= FI_MR_HMEM;
    /* Complete means visible at the target: quiet is a counter. */
    h->tx_attr->op_flags = FI_DELIVERY_COMPLETE;
    if (prov)
        h->fabric_attr->prov_name = strdup(prov);
    return h;
}

/* The first entry of the list (or the first of the domain asked for: utility
 * providers such as ofi_rxm list every domain whatever the hint), copied. */
static struct fi_info *pick(struct fi_info *h, const char *domain, int *rc) {
    struct fi_info *list = NULL, *p, *out = NULL;
    *rc = fi_getinfo(FI_VERSION(1, 10), NULL, NULL, 0, h, &list);
    if (*rc)
        return NULL;
    for (p = list; domain[0] && p && strcmp(p->domain_attr->name, domain); p = p->next)
        ;
    if (!p)
        *rc = -FI_ENODATA;
    else if (!(out = fi_dupinfo(p)))
        *rc = -FI_ENOMEM;
    fi_freeinfo(list);
    return out;
}

/* Provider prov (NULL: libfabric's first) in domain (empty: any) with or
 * without FI_HMEM; from that provider, writes and atomics placed in order
 * (FI_ORDER_WAW: a signal needs no wait for its data) where it offers them. */
static struct fi_info *try_prov(int hmem, const char *prov, const char *domain, int *rc) {
    struct fi_info *h = hints_make(hmem, prov);
    if (!h) {
        *rc = -FI_ENOMEM;
        return NULL;
    }
    struct fi_info *got = pick(h, domain, rc);
    if (got) {
        free(h->fabric_attr->prov_name);
        h->fabric_attr->prov_name = strdup(got->fabric_attr->prov_name);
        h->tx_attr->msg_order = h->rx_attr->msg_order = FI_ORDER_WAW;
        int rc2;
        struct fi_info *ordered = pick(h, got->domain_attr->name, &rc2);
        if (ordered) {
            fi_freeinfo(got);
            got = ordered;
        }
    }
    fi_freeinfo(h);
    return got;
}

/* The provider SHMEM_OFI_PROVIDER names (the first of its names libfabric
 * has), or the one libfabric ranks first -- where that is tcp under ofi_rxm,
 * the provider that speaks RDM over TCP itself on the same interface if there
 * is one -- in SHMEM_OFI_DOMAIN if set. GPU builds with a device heap prefer
 * it with FI_HMEM (SHMEM_OFI_HMEM=staged: never). */
/* rxm posts FI_OFI_RXM_MSG_RX_SIZE receive buffers of FI_OFI_RXM_BUFFER_SIZE
 * (16 KiB) on every connection and zeroes them: 128 by default, 2 MiB for each
 * pair of endpoints that talk, and a context with an endpoint of its own
 * connects it to every peer it reaches (16 contexts of 4 PEs over
 * tcp;ofi_rxm: 300 MiB zeroed per PE; a program making them twice took 16 s,
 * 5.6 with 32). 32 buffers (512 KiB in flight per connection; the socket
 * holds back the rest) unless the user set it; read when libfabric loads its
 * providers, so before the first fi_getinfo. */
static void rxm_defaults(void) { setenv("FI_OFI_RXM_MSG_RX_SIZE", "32", 0); }

/* libfabric's own filter, FI_PROVIDER, is a list of the providers to load
 * (or, after a '^', to leave out). Before 1.18 the RDM endpoints over TCP
 * sockets were a provider of their own, net (fi_net(7): a fork of tcp, to be
 * merged back into it), so a filter naming tcp left only tcp under ofi_rxm,
 * whose every send costs a pipe write and read and a poll beside the
 * sendmsg (a 2-PE barrier 10.0-11.7 us against 8.0-8.5 through net). Such a
 * filter admits net too there; FI_PROVIDER=^net or
 * SHMEM_OFI_PROVIDER="tcp;ofi_rxm" keeps rxm. Read when libfabric loads its
 * providers. */
static void tcp_filter_admits_net(void) {
    const char *f = getenv("FI_PROVIDER");
    if (!f || f[0] == '^' || shmemi_fi.version >= FI_VERSION(1, 18))
        return;
    int tcp = 0, net = 0;
    for (const char *p = f; *p;) {
        size_t n = strcspn(p, ",");
        tcp |= n == 3 && !strncmp(p, "tcp", 3);
        net |= n == 3 && !strncmp(p, "net", 3);
        p += n + (p[n] == ',');
    }
    char *wider;
    if (!tcp || net || asprintf(&wider, "%s,net", f) < 0)
        return;
    setenv("FI_PROVIDER", wider, 1);
    shmemi_debug("fabric: FI_PROVIDER=%s (libfabric %u.%u names tcp's RDM endpoints net)", wider,
                 FI_MAJOR(shmemi_fi.version), FI_MINOR(shmemi_fi.version));
    free(wider);
}

int shmemi_fab_choose(void) {
    rxm_defaults();
    tcp_filter_admits_net();
    int rc = -FI_ENODATA;
    int want_hmem = shmemi.dev_size && strcmp(shmemi.cfg.OFI_HMEM, "staged") != 0;
    const char *const *names = prov_names(shmemi.cfg.OFI_PROVIDER);
    struct fi_info *got = NULL;
    for (int hmem = want_hmem; hmem >= 0 && !got; hmem--)
        for (int i = 0; (i == 0 || names[i]) && !got; i++)
            if ((got = try_prov(hmem, names[i], shmemi.cfg.OFI_DOMAIN, &rc)))
                shmemi_fab.dev_hmem = hmem;
    if (got && !names[0] && !strcmp(got->fabric_attr->prov_name, "tcp;ofi_rxm")) {
        int rc2;
        struct fi_info *native = try_prov(shmemi_fab.dev_hmem, "net", got->domain_attr->name, &rc2);
        if (native) {
            fi_freeinfo(got);
            got = native;
        }
    }
    shmemi_fab.info = got;
    return got ? 0 : rc;
}

/* ---------------------------------------------------------------- atomics */

static const enum fi_op amo_fi_op[FAB_AMO_OPS] = {
    [SHMEMI_AMO_FETCH] = FI_ATOMIC_READ,
    [SHMEMI_AMO_SET] = FI_ATOMIC_WRITE,
    [SHMEMI_AMO_SWAP] = FI_ATOMIC_WRITE,
    [SHMEMI_AMO_CSWAP] = FI_CSWAP,
    [SHMEMI_AMO_ADD] = FI_SUM,
    [SHMEMI_AMO_AND] = FI_BAND,
    [SHMEMI_AMO_OR] = FI_BOR,
    [SHMEMI_AMO_XOR] = FI_BXOR,
};

enum fi_op shmemi_fab_amo_op(enum shmemi_amo_op op) { return amo_fi_op[op]; }

/* Whether the provider name (layers joined by ';') has this layer. */
static int has_layer(const char *prov, const char *layer) {
    size_t n = strlen(layer);
    for (const char *p = prov; p; p = strchr(p, ';') ? strchr(p, ';') + 1 : NULL)
        if (!strncmp(p, layer, n) && (p[n] == ';' || !p[n]))
            return 1;
    return 0;
}

/* Whether the provider's atomics are carried out by the target's CPU, with
 * the CPU's atomic instructions (libfabric's software atomics): rxm and rxd
 * over any provider, the providers over sockets (net, tcp, sockets, udp) and
 * shm. There the target's own message handler (fabric_am.c) may carry out
 * AMOs too: the two are atomic with each other. Not where a NIC carries
 * them out (verbs without rxm, cxi, efa, psm3, opx, ...). */
static int cpu_atomics(void) {
    static const char *const soft[] = {"net", "tcp", "sockets", "udp", "shm"};
    const char *p = shmemi_fab.info->fabric_attr->prov_name;
    if (has_layer(p, "ofi_rxm") || has_layer(p, "ofi_rxd"))
        return 1;
    for (size_t i = 0; i < sizeof(soft) / sizeof(soft[0]); i++)
        if (!strcmp(p, soft[i]))
            return 1;
    return 0;
}

/* Per operation and size: the provider's atomic where fi_query_atomic offers
 * it in the form needed (fetching: FETCH, SWAP and the fetching forms of the
 * others; CSWAP: compare), a compare-and-swap loop where only that is
 * offered, messages otherwise (or when asked for). And the non-fetching ones
 * as messages the target carries out without a reply (shmemi_fab.post_amos),
 * where every AMO is a message anyway or the provider's atomics are the
 * target CPU's too: over tcp;ofi_rxm a provider's atomic is one message and
 * its reply, and 50,000 increments from one PE to another took 9.5-9.7 us
 * each, 5.1-5.9 as messages (OSHMEM over UCX's tcp: 7.3). */
void shmemi_fab_amo_table(void) {
    const char *mode = shmemi.cfg.OFI_ATOMICS;
    for (int s = 0; s < 2; s++) {
        enum fi_datatype dt = s ? FI_UINT64 : FI_UINT32;
        struct fi_atomic_attr attr;
        int cas = !fi_query_atomic(shmemi_fab.domain, dt, FI_CSWAP, &attr, FI_COMPARE_ATOMIC);
        for (int op = 0; op < FAB_AMO_OPS; op++) {
            uint64_t flags = op == SHMEMI_AMO_CSWAP ? FI_COMPARE_ATOMIC
                             : op == SHMEMI_AMO_SET ? 0
                                                    : FI_FETCH_ATOMIC;
            int native = !fi_query_atomic(shmemi_fab.domain, dt, amo_fi_op[op], &attr, flags);
            /* Non-fetching forms of the arithmetic ones are used too. */
            if (native && op >= SHMEMI_AMO_ADD)
                native = !fi_query_atomic(shmemi_fab.domain, dt, amo_fi_op[op], &attr, 0);
            uint8_t how = native ? FAB_AMO_NATIVE : cas ? FAB_AMO_CAS : FAB_AMO_AM;
            if (!strcmp(mode, "am"))
                how = FAB_AMO_AM;
            else if (!strcmp(mode, "cas") && cas && op != SHMEMI_AMO_FETCH &&
                     op != SHMEMI_AMO_CSWAP)
                how = FAB_AMO_CAS;
            shmemi_fab.amo_how[op][s] = how;
        }
    }
    /* Every PE of the job runs the same provider and mode (fabric.c ends the
     * job otherwise): so every AMO that reaches a PE through the fabric is the
     * target CPU's atomic, whoever sent it. */
    shmemi_fab.cpu_amos = !strcmp(mode, "am") || cpu_atomics();
    shmemi_fab.post_amos = shmemi_fab.cpu_amos && (!strcmp(mode, "am") || !strcmp(mode, "auto"));
}

/* ------------------------------------------------------------ progress */

/* Whether the provider moves data while no thread of the PE is inside
 * libfabric. The providers over TCP sockets of their own (net; tcp where it
 * has RDM endpoints) say so (FI_PROGRESS_AUTO), yet answer a peer's read only
 * inside a call: a get from a PE that waited in a barrier, asleep between
 * looks, took 200 us. */
int shmemi_fab_progresses_alone(const struct fi_info *info) {
    const char *p = info->fabric_attr->prov_name;
    return info->domain_attr->data_progress == FI_PROGRESS_AUTO && strcmp(p, "net") &&
           strcmp(p, "tcp");
}

/* Whether the progress thread may sleep in the provider's wait object when
 * idle: it wakes when a peer's transfer reaches this PE, and costs nothing
 * while the thread polls. net and tcp (RDM endpoints of their own) wait in
 * epoll on their sockets. Not rxm: with a wait object on its queue it
 * signals one for its connections' completions, and over tcp;ofi_rxm an
 * 8-byte put took 24 us instead of 16, a barrier 30 instead of 15. Nor shm:
 * its peers write a queue in memory that no wait object watches. */
int shmemi_fab_wakes_on_arrival(const struct fi_info *info) {
    const char *p = info->fabric_attr->prov_name;
    return !strcmp(p, "net") || !strcmp(p, "tcp");
}

/* The largest piece a transfer goes out in (0: the provider's limit). Over
 * sockets (tcp, net, sockets; rxm over them too), 512 KiB: a larger message
 * outgrows what the connection takes in before the target reads, and the
 * sender's sendmsg waits for it (a 1 MiB put over tcp on one host: 146-151 us
 * in two pieces against 364-406 in one; a get 159-176 against 315-340;
 * 4 MiB 624-1224 against 1168-1446). */
size_t shmemi_fab_piece_bytes(const struct fi_info *info) {
    const char *p = info->fabric_attr->prov_name;
    return has_layer(p, "tcp") || has_layer(p, "net") || has_layer(p, "sockets") ? (size_t)512 << 10
                                                                                 : 0;
}

/* The largest blocking put that returns once its bytes are copied aside
 * (path_fabric.c's bounce buffers): 8 KiB; 64 KiB on shm, whose writes above
 * its inject size are carried out by the target's progress (cross-memory
 * attach or its own bounce segments), so that a put that waited for its
 * write waited for a target that may be computing -- and rang its progress
 * thread awake (a stencil's 32 KiB halo puts over shm: 890-1180 preemptions
 * a second of the computing threads, 25-29 copied aside, OSHMEM's 27). Over
 * sockets the sender writes the bytes itself, and a copy only costs (a
 * 64 KiB put and quiet over tcp: 31.7-32.0 us copied, 27.1-28.5 not). */
size_t shmemi_fab_bounce_bytes(const struct fi_info *info) {
    return !strcmp(info->fabric_attr->prov_name, "shm") ? (size_t)64 << 10 : (size_t)8 << 10;
}

/* The largest message the provider sends at once, without a handshake with
 * the target first (0: any): rxm's eager limit, its 16 KiB bounce buffers. */
size_t shmemi_fab_eager_bytes(const struct fi_info *info) {
    return strstr(info->fabric_attr->prov_name, "ofi_rxm") ? (size_t)16 << 10 : 0;
}
