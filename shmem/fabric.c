/* The fabric's setup and endpoints (shmem/fabric.h): the provider, the
 * registration, the endpoints and their exchange. Completion, progress and
 * waits: fabric_progress.c.
 *
 * Provider: the one fabric_choice.c picks. Every PE must get the same one:
 * the exchange checks it.
 *
 * Registration: what the provider's FI_MR_* modes ask (shmem/fabric.h). */
#define _GNU_SOURCE
#include "shmem/fabric.h"

#if defined(SHMEM_GPU_CUDA) || defined(SHMEM_GPU_HIP)
#include "device/gpu.h"
#endif

#include <dlfcn.h>
#include <netinet/in.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

struct fab shmemi_fab;
struct shmemi_fi_lib shmemi_fi;

/* libfabric, loaded now (shmem/fabric.h). The psm providers' libraries, which
 * Debian's libfabric links, install SIGSEGV handlers when loaded that turn a
 * crash into exit(1) after a backtrace: not with these set. */
static int load(void) {
    static void *lib;
    if (lib)
        return 0;
    setenv("IPATH_NO_BACKTRACE", "1", 0);
    setenv("HFI_NO_BACKTRACE", "1", 0);
    lib = dlopen("libfabric.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        shmemi_fatal("PE %d needs the fabric (%s), and libfabric cannot be loaded: %s (install "
                     "libfabric, e.g. Debian's libfabric1)",
                     shmemi.my_pe,
                     shmemi.cfg.FORCE_FABRIC ? "SHMEM_FORCE_FABRIC=1" : "PEs on other nodes",
                     dlerror());
    void **slots[] = {(void **)&shmemi_fi.getinfo, (void **)&shmemi_fi.freeinfo,
                      (void **)&shmemi_fi.dupinfo, (void **)&shmemi_fi.fabric,
                      (void **)&shmemi_fi.strerror};
    const char *names[] = {"fi_getinfo", "fi_freeinfo", "fi_dupinfo", "fi_fabric", "fi_strerror"};
    /* The default versions of the symbols: those of the libfabric the library
     * was built against when it is the one installed (as a link would bind). */
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (!(*slots[i] = dlsym(lib, names[i])))
            shmemi_fatal("libfabric.so.1 has no %s: %s", names[i], dlerror());
    uint32_t (*version)(void) = (uint32_t(*)(void))dlsym(lib, "fi_version");
    shmemi_fi.version = version ? version() : 0;
    if (version && FI_MINOR(version()) < FI_MINOR_VERSION && shmemi.my_pe == 0)
        shmemi_warn("libfabric %u.%u is older than the %u.%u this library was built against",
                    FI_MAJOR(version()), FI_MINOR(version()), FI_MAJOR_VERSION, FI_MINOR_VERSION);
    return 0;
}

#define NAME_MAX_BYTES 256

/* What each PE tells the others. */
struct fab_card {
    char prov[48];
    uint64_t name_len;
    uint64_t raddr[SHMEMI_REGIONS];
    uint64_t key[SHMEMI_REGIONS];
    int32_t reach[SHMEMI_REGIONS];
    int32_t atomics;    /* SHMEM_OFI_ATOMICS as an index: every PE must agree */
    int32_t local_only; /* the interface reaches this node only: 1 loopback, 2 shm */
    uint64_t node[3];   /* shmemi_node_key */
    uint64_t bell_len;  /* the doorbell's address (0: none; every PE agrees) */
    char name[NAME_MAX_BYTES];
    char bell[32]; /* a struct sockaddr_in or _in6 */
};

/* Whether the provider's interface reaches no other node: 1, an address of
 * the loopback interface (SHMEM_OFI_DOMAIN=lo: the same kernel and network
 * namespace); 2, shm (processes that map each other's files and memory). */
static int local_only(const struct fi_info *info) {
    const void *a = info->src_addr;
    if (!strcmp(shmemi_fab.prov, "shm"))
        return 2;
    if (a && info->addr_format == FI_SOCKADDR_IN && info->src_addrlen >= sizeof(struct sockaddr_in))
        return (ntohl(((const struct sockaddr_in *)a)->sin_addr.s_addr) >> 24) == 127;
    if (a && info->addr_format == FI_SOCKADDR_IN6 &&
        info->src_addrlen >= sizeof(struct sockaddr_in6))
        return IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)a)->sin6_addr);
    return 0;
}

static pthread_mutex_t ep_lock = PTHREAD_MUTEX_INITIALIZER;
static char *main_file;        /* shm: the PE's endpoint's file until peers mapped it */
static long open_eps;          /* contexts' own endpoints (under ep_lock) */
static struct fab_ep *ctx_eps; /* the same, listed (under ep_lock) */

/* ---------------------------------------------------------- endpoints */

static int stage_open(struct fab_ep *e) {
    size_t bytes = 2 * FAB_STAGE_BYTES + FAB_SLOTS * FAB_SLOT_BYTES;
    e->slots_free = ~(uint64_t)0;
    if (posix_memalign((void **)&e->stage, 4096, bytes))
        return -FI_ENOMEM;
    memset(e->stage, 0, bytes);
#if defined(SHMEM_GPU_CUDA) || defined(SHMEM_GPU_HIP)
    /* Pinned for the GPU: the device heap's bytes are staged through it. */
    if (shmemi.dev_size && hipHostRegister(e->stage, bytes, hipHostRegisterPortable) != hipSuccess)
        (void)hipGetLastError(); /* pageable: slower copies, same result */
#endif
    static uint64_t next_key = 16;
    uint64_t key = __atomic_fetch_add(&next_key, 1, __ATOMIC_RELAXED);
    int rc = fi_mr_reg(shmemi_fab.domain, e->stage, bytes, FI_READ | FI_WRITE | FI_SEND | FI_RECV,
                       0, key, 0, &e->stage_mr, NULL);
    if (rc)
        return rc;
    if (shmemi_fab.mr_endpoint) {
        if ((rc = fi_mr_bind(e->stage_mr, &e->ep->fid, 0)) || (rc = fi_mr_enable(e->stage_mr)))
            return rc;
    }
    e->stage_desc = fi_mr_desc(e->stage_mr);
    return 0;
}

char *shmemi_fab_slot(struct fab_ep *e) {
    for (;;) {
        uint64_t f = __atomic_load_n(&e->slots_free, __ATOMIC_ACQUIRE);
        while (f) {
            int i = __builtin_ctzll(f);
            if (__atomic_compare_exchange_n(&e->slots_free, &f, f & ~((uint64_t)1 << i), 0,
                                            __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
                return e->stage + 2 * FAB_STAGE_BYTES + (size_t)i * FAB_SLOT_BYTES;
        }
        shmemi_fab_progress(e); /* every slot is in a transfer: one ends */
    }
}

void shmemi_fab_slot_put(struct fab_ep *e, char *slot) {
    size_t i = (size_t)(slot - (e->stage + 2 * FAB_STAGE_BYTES)) / FAB_SLOT_BYTES;
    __atomic_fetch_or(&e->slots_free, (uint64_t)1 << i, __ATOMIC_RELEASE);
}

/* A copy of info's source address, its port 0 (the system picks a free one):
 * its length, or 0 and *out NULL. */
static size_t any_port(const struct fi_info *info, char **out) {
    *out = NULL;
    if (!info->src_addr || !(*out = malloc(info->src_addrlen)))
        return 0;
    memcpy(*out, info->src_addr, info->src_addrlen);
    if (info->addr_format == FI_SOCKADDR_IN && info->src_addrlen >= sizeof(struct sockaddr_in))
        ((struct sockaddr_in *)(void *)*out)->sin_port = 0;
    else if (info->addr_format == FI_SOCKADDR_IN6 &&
             info->src_addrlen >= sizeof(struct sockaddr_in6))
        ((struct sockaddr_in6 *)(void *)*out)->sin6_port = 0;
    else {
        free(*out);
        *out = NULL;
        return 0;
    }
    return info->src_addrlen;
}

/* For providers that name endpoints by strings (shm: the name of a file in
 * /dev/shm), the main endpoint's name made unique over time: the provider's
 * own is the process id, and a file left by a killed process of the same id
 * refuses the endpoint (EBUSY). */
static int unique_name(struct fi_info *info) {
    if (info->addr_format != FI_ADDR_STR || !info->src_addr)
        return 0;
    struct timespec t;
    char *name;
    clock_gettime(CLOCK_BOOTTIME, &t);
    if (asprintf(&name, "%s-%llx", (const char *)info->src_addr,
                 (unsigned long long)t.tv_sec * 1000000000ull + (unsigned long long)t.tv_nsec) < 0)
        return -FI_ENOMEM;
    free(info->src_addr);
    info->src_addr = name;
    info->src_addrlen = strlen(name) + 1;
    return 0;
}

/* shm's endpoint is a file in /dev/shm that outlives a killed process. Every
 * peer maps it when it inserts the address (libfabric's shm maps at
 * fi_av_insert), so once every PE is past the inserts its name can go: the
 * mapping stays until the endpoint closes, and no job leaves a file behind. */
static void forget_name(void) {
    if (!main_file)
        return;
    struct boot *b = shmemi.boot;
    if (b->barrier(b))
        shmemi_fatal("bootstrap barrier failed during init (fabric addresses)");
    (void)shm_unlink(main_file);
    free(main_file);
    main_file = NULL;
}

/* The file of an shm endpoint (its name without the provider's prefix), or
 * NULL: a context endpoint's cannot go early (a peer maps it when the first
 * transfer from it arrives), so it is kept for shmemi_fab_abandon, and the
 * PE's until forget_name. */
static char *file_of(struct fid_ep *ep) {
    char name[NAME_MAX_BYTES];
    size_t len = sizeof(name) - 1;
    if (strcmp(shmemi_fab.prov, "shm") || fi_getname(&ep->fid, name, &len))
        return NULL;
    name[len < sizeof(name) ? len : sizeof(name) - 1] = 0;
    const char *file = strstr(name, "://");
    return strdup(file ? file + 3 : name);
}

/* The job ends and no endpoint will be closed: the files of shm's endpoints
 * go (the provider removes them on a SIGTERM, not at exit), the PE's own too
 * where init ended before the peers mapped it. */
void shmemi_fab_abandon(void) {
    if (main_file)
        (void)shm_unlink(main_file);
    if (pthread_mutex_trylock(&ep_lock))
        return;
    for (struct fab_ep *e = ctx_eps; e; e = e->next)
        if (e->file)
            (void)shm_unlink(e->file);
    pthread_mutex_unlock(&ep_lock);
}

/* The provider's description with a source address of its own: none (the
 * provider picks one, a free port), or for providers that name endpoints by
 * strings (shm) the main one's with a suffix and a serial number. */
struct fi_info *shmemi_fab_fresh_info(const char *suffix) {
    struct fi_info *info = fi_dupinfo(shmemi_fab.info);
    if (!info)
        return NULL;
    char *name = NULL;
    size_t len = 0;
    static unsigned serial;
    if (info->addr_format == FI_ADDR_STR && info->src_addr) {
        if (asprintf(&name, "%s%s%u", (const char *)info->src_addr, suffix,
                     __atomic_add_fetch(&serial, 1, __ATOMIC_RELAXED)) < 0)
            name = NULL;
        len = name ? strlen(name) + 1 : 0;
    } else if (info->addr_format == FI_SOCKADDR_IN || info->addr_format == FI_SOCKADDR_IN6) {
        len = any_port(info, &name); /* net: no endpoint without an address */
    }
    free(info->src_addr);
    info->src_addr = name;
    info->src_addrlen = len;
    return info;
}

/* An endpoint bound to the AV, with its own counter and queue. The main one
 * keeps the provider's source address (the one the peers get; a string one
 * made unique); the others take a fresh one. */
static int ep_open(struct fab_ep *e, int main_ep) {
    struct fi_cntr_attr ca = {.events = FI_CNTR_EVENTS_COMP, .wait_obj = FI_WAIT_NONE};
    /* A wait object only for a progress thread that sleeps in it: the
     * provider signals it (a system call) on every completion. */
    int waits = main_ep && (!strcmp(shmemi.cfg.OFI_PROGRESS, "wait") || shmemi_fab.sleeps);
    struct fi_cq_attr qa = {.format = FI_CQ_FORMAT_DATA, /* buf: where a message landed */
                            .size = 1024,
                            .wait_obj = waits ? FI_WAIT_UNSPEC : FI_WAIT_NONE};
    struct fi_info *info = shmemi_fab.info;
    int rc;
    pthread_mutex_init(&e->stage_lock, NULL);
    if ((rc = fi_cntr_open(shmemi_fab.domain, &ca, &e->cntr, NULL)))
        return rc;
    rc = fi_cq_open(shmemi_fab.domain, &qa, &e->cq, NULL);
    if (rc && waits) {
        qa.wait_obj = FI_WAIT_NONE; /* no wait object: the progress thread polls */
        rc = fi_cq_open(shmemi_fab.domain, &qa, &e->cq, NULL);
        shmemi_fab.sleeps = 0;
    }
    if (rc)
        return rc;
    if (main_ep)
        shmemi_fab.cq_waits = qa.wait_obj != FI_WAIT_NONE;
    if (main_ep && (rc = unique_name(info)))
        return rc;
    if (!main_ep && !(info = shmemi_fab_fresh_info("_c")))
        return -FI_ENOMEM;
    rc = fi_endpoint(shmemi_fab.domain, info, &e->ep, NULL);
    if (!main_ep)
        fi_freeinfo(info);
    if (rc)
        return rc;
    if ((rc = fi_ep_bind(e->ep, &shmemi_fab.av->fid, 0)) ||
        (rc = fi_ep_bind(e->ep, &e->cntr->fid, FI_WRITE | FI_READ)) ||
        (rc = fi_ep_bind(e->ep, &e->cq->fid, FI_TRANSMIT | FI_RECV | FI_SELECTIVE_COMPLETION)) ||
        (rc = fi_enable(e->ep)))
        return rc;
    size_t words = (size_t)(shmemi.n_pes + 63) / 64;
    if (!shmemi_fab.wdc && (!(e->dirty = calloc(words, sizeof(uint64_t))) ||
                            (shmemi_fab.dc && !(e->acked = calloc(words, sizeof(uint64_t))))))
        return -FI_ENOMEM;
    if (shmemi_fab.bell && !(e->towards = calloc(words, sizeof(uint64_t))))
        return -FI_ENOMEM;
    if (!(e->posted = calloc(words, sizeof(uint64_t))))
        return -FI_ENOMEM;
    if (shmemi_fab.mr_local || shmemi.dev_size)
        return stage_open(e);
    return 0;
}

static void ep_close(struct fab_ep *e) {
    if (e->ep)
        fi_close(&e->ep->fid);
    if (e->stage_mr)
        fi_close(&e->stage_mr->fid);
    if (e->cq)
        fi_close(&e->cq->fid);
    if (e->cntr)
        fi_close(&e->cntr->fid);
#if defined(SHMEM_GPU_CUDA) || defined(SHMEM_GPU_HIP)
    if (e->stage && shmemi.dev_size)
        (void)hipHostUnregister(e->stage);
#endif
    free(e->stage);
    free(e->dirty);
    free(e->acked);
    free(e->towards);
    free(e->posted);
    pthread_mutex_destroy(&e->stage_lock);
    memset(e, 0, sizeof(*e));
}

struct fab_ep *shmemi_fab_ep(struct shmemi_ctx *c, const char *fn) {
    if (c == &shmemi_ctx_default || shmemi_fab.mr_endpoint)
        return &shmemi_fab.main;
    struct fab_ep *e = __atomic_load_n((struct fab_ep **)&c->fabric, __ATOMIC_ACQUIRE);
    if (SHMEMI_LIKELY(e))
        return e;
    pthread_mutex_lock(&ep_lock);
    e = c->fabric;
    /* Past SHMEM_OFI_CTX_ENDPOINTS, contexts share the PE's endpoint: their
     * quiet then also waits for the others' transfers (still correct). */
    if (!e && open_eps >= shmemi.cfg.OFI_CTX_ENDPOINTS)
        e = &shmemi_fab.main;
    if (!e) {
        e = calloc(1, sizeof(*e));
        int rc = e ? ep_open(e, 0) : -FI_ENOMEM;
        if (rc)
            shmemi_fab_fail(rc, "opening a context's endpoint", -1, fn);
        e->file = file_of(e->ep);
        e->next = ctx_eps;
        ctx_eps = e;
        open_eps++;
    }
    /* Release: the endpoint is set up before another thread uses it. The
     * context's quiet completes what this endpoint carries for it. */
    __atomic_store_n((struct fab_ep **)&c->fabric, e, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&ep_lock);
    return e;
}

void shmemi_fab_ctx_free(struct shmemi_ctx *c) {
    struct fab_ep *e = c->fabric;
    c->fabric = NULL;
    if (!e || e == &shmemi_fab.main)
        return;
    pthread_mutex_lock(&ep_lock);
    for (struct fab_ep **at = &ctx_eps; *at; at = &(*at)->next)
        if (*at == e) {
            *at = e->next;
            break;
        }
    open_eps--;
    pthread_mutex_unlock(&ep_lock);
    free(e->file);
    ep_close(e);
    free(e);
}

/* -------------------------------------------------------- registration */

int shmemi_fab_local(const void *buf, size_t n, void **desc) {
    *desc = NULL;
    uintptr_t a = (uintptr_t)buf;
    for (int g = 0; g < SHMEMI_REGIONS; g++) {
        uintptr_t lo = (uintptr_t)shmemi_fab.lbase[g];
        if (shmemi_fab.lsize[g] && a - lo < shmemi_fab.lsize[g] &&
            n <= shmemi_fab.lsize[g] - (a - lo)) {
            if (!shmemi_fab.mr[g])
                return -1; /* the device heap without FI_HMEM: staged */
            *desc = shmemi_fab.desc[g];
            return 0;
        }
    }
    if (shmemi_on_device(buf))
        return -1;
    return shmemi_fab.mr_local ? -1 : 0;
}

static int mr_open(int g, char *base, size_t size, int device) {
    shmemi_fab.lbase[g] = base;
    shmemi_fab.lsize[g] = size;
    if (!size)
        return 0;
    struct iovec iov = {base, size};
    struct fi_mr_attr a = {
        .mr_iov = &iov,
        .iov_count = 1,
        .access = FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE,
        .requested_key = (uint64_t)g + 1,
        .iface = FI_HMEM_SYSTEM,
    };
#if defined(SHMEM_GPU_CUDA)
    if (device) {
        int dev = 0;
        a.iface = FI_HMEM_CUDA;
        if (hipGetDevice(&dev) != hipSuccess)
            (void)hipGetLastError();
        a.device.cuda = dev; /* the PE's GPU, current on this thread since shmem_init */
    }
#elif defined(SHMEM_GPU_HIP)
    if (device) {
        a.iface = FI_HMEM_ROCR;
    }
#else
    (void)device;
#endif
    int rc = fi_mr_regattr(shmemi_fab.domain, &a, 0, &shmemi_fab.mr[g]);
    if (rc)
        return rc;
    if (shmemi_fab.mr_endpoint) {
        if ((rc = fi_mr_bind(shmemi_fab.mr[g], &shmemi_fab.main.ep->fid, 0)) ||
            (rc = fi_mr_enable(shmemi_fab.mr[g])))
            return rc;
    }
    shmemi_fab.desc[g] = fi_mr_desc(shmemi_fab.mr[g]);
    return 0;
}

/* ------------------------------------------------------------- open/close */

static int fail_open(int rc, const char *what) {
    shmemi_warn("fabric: %s failed (%s): %s", what, shmemi_fab.prov ? shmemi_fab.prov : "libfabric",
                fi_strerror(-rc));
    return -1;
}

static int atomics_index(void) {
    const char *m = shmemi.cfg.OFI_ATOMICS;
    return !strcmp(m, "native") ? 3 : !strcmp(m, "am") ? 2 : !strcmp(m, "cas") ? 1 : 0;
}

int shmemi_fab_open(void) {
    load();
    int rc = shmemi_fab_choose();
    if (rc) {
        const char *p = shmemi.cfg.OFI_PROVIDER;
        shmemi_fatal(
            "PE %d needs the fabric (%s), and libfabric offers no provider%s%s%s%s%s "
            "with RDM endpoints, RMA, atomics, messages and delivery completion: %s "
            "(fi_info lists the providers; SHMEM_OFI_PROVIDER, SHMEM_OFI_DOMAIN choose)",
            shmemi.my_pe, shmemi.cfg.FORCE_FABRIC ? "SHMEM_FORCE_FABRIC=1" : "PEs on other nodes",
            p[0] ? " \"" : "", p, p[0] ? "\"" : "", shmemi.cfg.OFI_DOMAIN[0] ? " in domain " : "",
            shmemi.cfg.OFI_DOMAIN, fi_strerror(-rc));
    }
    struct fi_info *info = shmemi_fab.info;
    shmemi_fab.prov = info->fabric_attr->prov_name;
    shmemi_fab.auto_progress = shmemi_fab_progresses_alone(info);
    shmemi_fab.sleeps = !shmemi_fab.auto_progress && !strcmp(shmemi.cfg.OFI_PROGRESS, "auto") &&
                        shmemi_fab_wakes_on_arrival(info);
    shmemi_fab.eager = shmemi_fab_eager_bytes(info);
    shmemi_fab.bounce = shmemi_fab_bounce_bytes(info);
    uint64_t mode = info->domain_attr->mr_mode;
    shmemi_fab.mr_local = (mode & FI_MR_LOCAL) || shmemi.cfg.OFI_MR_LOCAL;
    shmemi_fab.mr_endpoint = !!(mode & FI_MR_ENDPOINT);
    shmemi_fab.waw = !!(info->tx_attr->msg_order & info->rx_attr->msg_order & FI_ORDER_WAW);
    /* FI_ORDER_WAW orders writes and atomics with each other too; the RMA_
     * and ATOMIC_ forms each among themselves (tcp;ofi_rxm: its atomics are
     * messages of its own); FI_ORDER_SAW places a message after both. */
    uint64_t ord = info->tx_attr->msg_order & info->rx_attr->msg_order;
    int saw = ord & FI_ORDER_SAW ? FAB_WAY_MESSAGE : 0;
    shmemi_fab.behind[0] = (ord & (FI_ORDER_WAW | FI_ORDER_RMA_WAW) ? FAB_WAY_WRITE : 0) |
                           (ord & FI_ORDER_WAW ? FAB_WAY_ATOMIC : 0) | saw;
    shmemi_fab.behind[1] = (ord & (FI_ORDER_WAW | FI_ORDER_ATOMIC_WAW) ? FAB_WAY_ATOMIC : 0) |
                           (ord & FI_ORDER_WAW ? FAB_WAY_WRITE : 0) | saw;
    shmemi_fab.inject = info->tx_attr->inject_size;
    shmemi_fab.max_msg = info->ep_attr->max_msg_size ? info->ep_attr->max_msg_size : SIZE_MAX;
    if (shmemi_fab.max_msg > ((size_t)1 << 30))
        shmemi_fab.max_msg = (size_t)1 << 30;
    size_t piece = shmemi_fab_piece_bytes(info);
    if (piece && shmemi_fab.max_msg > piece)
        shmemi_fab.max_msg = piece;
    shmemi_fab.timeout_s = shmemi.cfg.OFI_TIMEOUT;
    /* How quiet knows transfers are visible (see SHMEM_OFI_QUIET). */
    const char *quiet = shmemi.cfg.OFI_QUIET;
    uint64_t order = info->tx_attr->msg_order & info->rx_attr->msg_order;
    int rb =
        !strcmp(quiet, "readback") || (!strcmp(quiet, "auto") && !strcmp(shmemi_fab.prov, "shm"));
    if (rb && !(order & FI_ORDER_RAW))
        shmemi_fatal("SHMEM_OFI_QUIET=readback: the provider %s does not place a read after "
                     "earlier writes and atomics (FI_ORDER_RAW)",
                     shmemi_fab.prov);
    /* auto where the provider places a read after earlier writes but maybe
     * not after atomics (FI_ORDER_RMA_RAW: tcp, whose atomics its rxm layer
     * carries out): writes are read back, atomics delivered. A delivered
     * write costs the target an acknowledgement each: windows of puts ran
     * at half of OSHMEM's rate over tcp. */
    int wrb = rb || (!strcmp(quiet, "auto") && (order & FI_ORDER_RMA_RAW));
    shmemi_fab.dc = rb ? 0 : FI_DELIVERY_COMPLETE;
    shmemi_fab.wdc = wrb ? 0 : FI_DELIVERY_COMPLETE;

    if ((rc = fi_fabric(info->fabric_attr, &shmemi_fab.fabric, NULL)))
        return fail_open(rc, "fi_fabric");
    if ((rc = fi_domain(shmemi_fab.fabric, info, &shmemi_fab.domain, NULL)))
        return fail_open(rc, "fi_domain");
    struct fi_av_attr aa = {.type = FI_AV_TABLE, .count = (size_t)shmemi.n_pes};
    if ((rc = fi_av_open(shmemi_fab.domain, &aa, &shmemi_fab.av, NULL)))
        return fail_open(rc, "fi_av_open");
    if ((rc = ep_open(&shmemi_fab.main, 1)))
        return fail_open(rc, "opening the endpoint");
    main_file = file_of(shmemi_fab.main.ep);
    /* The host heap (user heap and the library's words), the data segment,
     * and the device heap where the provider registers GPU memory. */
    if ((rc = mr_open(SHMEMI_REGION_HEAP, shmemi.heap_base, shmemi.heap_size, 0)) ||
        (rc = mr_open(SHMEMI_REGION_DATA, shmemi.data_base, shmemi.data_size, 0)))
        return fail_open(rc, "registering symmetric memory");
    if (shmemi.dev_size) {
        if (shmemi_fab.dev_hmem &&
            (rc = mr_open(SHMEMI_REGION_DEVICE, shmemi.dev_base, shmemi.dev_size, 1))) {
            shmemi_debug("fabric: the device heap cannot be registered (%s): staged",
                         fi_strerror(-rc));
            shmemi_fab.dev_hmem = 0;
            shmemi_fab.mr[SHMEMI_REGION_DEVICE] = NULL;
        }
        if (!shmemi_fab.dev_hmem) {
            shmemi_fab.lbase[SHMEMI_REGION_DEVICE] = shmemi.dev_base;
            shmemi_fab.lsize[SHMEMI_REGION_DEVICE] = shmemi.dev_size;
        }
    }
    if ((rc = shmemi_fab_am_open()))
        return fail_open(rc, "posting message buffers");
    shmemi_fab_amo_table();

    /* The exchange: names, keys, where each region starts. */
    struct fab_card me = {0}, *cards = calloc((size_t)shmemi.n_pes, sizeof(*cards));
    shmemi_fab.peers = calloc((size_t)shmemi.n_pes, sizeof(*shmemi_fab.peers));
    if (!cards || !shmemi_fab.peers)
        return -1;
    snprintf(me.prov, sizeof(me.prov), "%s", shmemi_fab.prov);
    size_t len = sizeof(me.name);
    if ((rc = fi_getname(&shmemi_fab.main.ep->fid, me.name, &len)))
        return fail_open(rc, "fi_getname");
    me.name_len = len;
    /* The progress thread's doorbell, where the thread will run and the
     * endpoint has an IP address (the same on every PE: the same provider
     * and settings). */
    if (!shmemi_fab.auto_progress && !strcmp(shmemi.cfg.OFI_PROGRESS, "auto")) {
        size_t words = (size_t)(shmemi.n_pes + 63) / 64;
        len = sizeof(me.bell);
        if ((rc = shmemi_fab_bell_open(me.bell, &len)) ||
            !(shmemi_fab.main.towards = calloc(words, sizeof(uint64_t)))) {
            shmemi_debug("fabric: no doorbell (%s): the progress thread %s",
                         fi_strerror(rc < 0 ? -rc : FI_ENOMEM),
                         shmemi_fab.sleeps ? "wakes for every transfer that reaches this PE"
                                           : "polls");
            shmemi_fab_bell_close();
        } else {
            me.bell_len = len;
        }
    }
    me.atomics = atomics_index();
    me.local_only = local_only(info);
    shmemi_node_key(me.node);
    for (int g = 0; g < SHMEMI_REGIONS; g++) {
        if (shmemi_fab.mr[g]) {
            me.key[g] = fi_mr_key(shmemi_fab.mr[g]);
            me.raddr[g] = (mode & FI_MR_VIRT_ADDR) ? (uint64_t)(uintptr_t)shmemi_fab.lbase[g] : 0;
            me.reach[g] = 1;
        } else if (shmemi_fab.lsize[g]) {
            me.reach[g] = 2;
        }
    }
    int all_bells = 1;
    struct boot *b = shmemi.boot;
    if (b->allgather(b, &me, cards, sizeof(me)))
        shmemi_fatal("bootstrap allgather failed during init (fabric addresses)");
    for (int pe = 0; pe < shmemi.n_pes; pe++) {
        struct fab_card *c = &cards[pe];
        if (strncmp(c->prov, me.prov, sizeof(me.prov)))
            shmemi_fatal("PE %d uses the fabric provider \"%.48s\" and PE %d \"%s\": every PE "
                         "needs the same (SHMEM_OFI_PROVIDER, SHMEM_OFI_DOMAIN)",
                         pe, c->prov, shmemi.my_pe, me.prov);
        if (c->atomics != me.atomics)
            shmemi_fatal("PE %d and PE %d differ in SHMEM_OFI_ATOMICS: every PE needs the same", pe,
                         shmemi.my_pe);
        if ((me.local_only == 2 && memcmp(c->node, me.node, sizeof(me.node))) ||
            (me.local_only && (c->node[0] != me.node[0] || c->node[2] != me.node[2])))
            shmemi_fatal("PE %d and PE %d are on different nodes (hosts or network "
                         "namespaces), and the fabric's interface (%s%s%s) reaches within a "
                         "node only: name one that reaches the others (SHMEM_OFI_DOMAIN, "
                         "SHMEM_OFI_PROVIDER)",
                         pe, shmemi.my_pe, shmemi_fab.prov,
                         info->domain_attr->name ? ", domain " : "",
                         info->domain_attr->name ? info->domain_attr->name : "");
        if (fi_av_insert(shmemi_fab.av, c->name, 1, &shmemi_fab.peers[pe].addr, 0, NULL) != 1)
            shmemi_fatal("fabric: cannot insert PE %d's address into the address vector (%s)", pe,
                         shmemi_fab.prov);
        if (!c->bell_len)
            all_bells = 0;
        else if (me.bell_len && shmemi_fab_bell_insert(pe, c->bell, c->bell_len))
            all_bells = 0; /* another address family */
        for (int g = 0; g < SHMEMI_REGIONS; g++) {
            shmemi_fab.peers[pe].raddr[g] = c->raddr[g];
            shmemi_fab.peers[pe].key[g] = c->key[g];
            shmemi_fab.peers[pe].reach[g] = c->reach[g];
        }
    }
    free(cards);
    /* A PE without one (its socket could not be made) is never rung: then
     * no PE's thread sleeps on its bell. */
    if (me.bell_len && !all_bells)
        shmemi_fab_bell_close();
    forget_name();
    shmemi_fab.open = 1;
    shmemi_fab_progress_start();
    if (shmemi.dev_size)
        shmemi_debug("fabric: the device heap %s", shmemi_fab.dev_hmem
                                                       ? "is registered (FI_HMEM): RMA to and "
                                                         "from GPU memory"
                                                       : "is staged through pinned host buffers "
                                                         "(messages the target carries out)");
    int how[3] = {0, 0, 0}; /* AMOs (operation, size) natively, by CAS, by messages */
    for (int op = 0; op < FAB_AMO_OPS; op++)
        for (int s8 = 0; s8 < 2; s8++)
            how[shmemi_fab.amo_how[op][s8]]++;
    shmemi_debug("fabric: %s, domain %s, mr_mode 0x%llx%s, inject %zu bytes, transfers in "
                 "pieces of up to %zu bytes, %s progress, %s quiet%s; AMOs: %d native, %d by "
                 "compare-and-swap, %d by messages",
                 shmemi_fab.prov, info->domain_attr->name, (unsigned long long)mode,
                 shmemi.cfg.OFI_MR_LOCAL ? " (FI_MR_LOCAL asked for)" : "", shmemi_fab.inject,
                 shmemi_fab.max_msg, shmemi_fab.auto_progress ? "automatic" : "manual",
                 rb    ? "readback"
                 : wrb ? "writes read back, atomics delivered"
                       : "delivery",
                 shmemi_fab.waw ? ", ordered writes" : "", how[FAB_AMO_NATIVE], how[FAB_AMO_CAS],
                 how[FAB_AMO_AM]);
    return 0;
}

/* shmem_finalize, every PE in it and done with its transfers: the bootstrap's
 * barrier, then the close. Until every PE is past it, peers may still read
 * this PE's memory (the liveness record's last look), so its progress runs
 * meanwhile, by a thread: the bootstrap's barrier does not return to us. */
void shmemi_fab_finish(void) {
    if (!shmemi_fab.open)
        return;
    shmemi_fab_progress_now();
    struct boot *b = shmemi.boot;
    if (b->barrier(b))
        shmemi_fatal("shmem_finalize: bootstrap barrier failed (fabric): %s", b->err);
    shmemi_fab_close();
}

void shmemi_fab_close(void) {
    if (!shmemi_fab.open)
        return;
    shmemi_fab_progress_stop();
    shmemi_fab_am_close();
    shmemi_fab_bell_close();
    ep_close(&shmemi_fab.main);
    for (int g = 0; g < SHMEMI_REGIONS; g++)
        if (shmemi_fab.mr[g])
            fi_close(&shmemi_fab.mr[g]->fid);
    if (shmemi_fab.av)
        fi_close(&shmemi_fab.av->fid);
    if (shmemi_fab.domain)
        fi_close(&shmemi_fab.domain->fid);
    if (shmemi_fab.fabric)
        fi_close(&shmemi_fab.fabric->fid);
    free(shmemi_fab.peers);
    fi_freeinfo(shmemi_fab.info);
    memset(&shmemi_fab, 0, sizeof(shmemi_fab));
}
