/* The soft copy engine's window onto the PEs of the fabric row.
 *
 * The soft copy engine carries packets to PEs reached through the fabric
 * (triggered plans' chains, shmemx_sdma_* puts): each such PE has a window of
 * address space here, as long as its host heap, data segment and device
 * heap, reserved and never accessible; the engine hands packets naming it to
 * the callbacks below (struct sdma_foreign), which make them transfers of
 * the engine's own context through the fabric row (shmem/path_fabric.c),
 * complete (visible at the target) before the next packet runs. */
#include "shmem/fabric.h"

#include "sdma/packets.h"
#include "sdma/sdma.h"

#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

/* The copy engine's own context: its transfers, and its quiets, are its own. */
static struct shmemi_ctx engine_ctx = {.team = &shmemi_team_world};

static struct {
    pthread_once_t once;
    char *base;
    size_t stride, at[SHMEMI_REGIONS], len[SHMEMI_REGIONS];
    struct sdma_foreign ops;
} win = {.once = PTHREAD_ONCE_INIT};

static size_t page_up(size_t n) {
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    return (n + pg - 1) / pg * pg;
}

static void win_reserve(void) {
    size_t lens[SHMEMI_REGIONS] = {shmemi.heap_size, shmemi.data_size, shmemi.dev_size};
    size_t at = 0;
    for (int g = 0; g < SHMEMI_REGIONS; g++) {
        win.at[g] = at;
        win.len[g] = lens[g];
        at += page_up(lens[g]);
    }
    win.stride = at;
    void *p = mmap(NULL, win.stride * (size_t)shmemi.n_pes, PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        shmemi_debug("fabric: no address space for the copy engine's window (%zu bytes)",
                     win.stride * (size_t)shmemi.n_pes);
    else
        win.base = p;
}

/* The route of a window address of `len` bytes: 0, or -1 (msg says why). */
static int win_route(uint64_t a, uint64_t len, struct shmemi_route *r, char *msg, size_t ml) {
    uint64_t rel = a - (uint64_t)(uintptr_t)win.base;
    int pe = (int)(rel / win.stride);
    size_t in = rel % win.stride;
    for (int g = 0; g < SHMEMI_REGIONS; g++)
        if (in - win.at[g] < win.len[g] && len <= win.len[g] - (in - win.at[g])) {
            shmemi_route_slot(r, pe, g, in - win.at[g]);
            if (r->path == &shmemi_path_fabric)
                return 0;
        }
    snprintf(msg, ml, "address 0x%llx (+%llu bytes) of the fabric window is not a PE's memory",
             (unsigned long long)a, (unsigned long long)len);
    return -1;
}

static const char *const win_fn = "the copy engine (a transfer to a PE of another node)";

static int win_copy(void *arg, uint64_t dst, uint64_t src, uint64_t len, char *msg, size_t ml) {
    (void)arg;
    struct shmemi_route r;
    uint64_t lo = (uint64_t)(uintptr_t)win.base, hi = lo + win.stride * (uint64_t)shmemi.n_pes;
    if (dst - lo < hi - lo) {
        if (src - lo < hi - lo) {
            snprintf(msg, ml, "a copy between two PEs of other nodes");
            return -1;
        }
        if (win_route(dst, len, &r, msg, ml))
            return -1;
        shmemi_path_fabric.put(&engine_ctx, &r, (const void *)(uintptr_t)src, len, 1, win_fn);
        shmemi_fab_quiet(shmemi_fab_ep(&engine_ctx, win_fn), win_fn);
        return 0;
    }
    if (win_route(src, len, &r, msg, ml))
        return -1;
    shmemi_path_fabric.get(&engine_ctx, (void *)(uintptr_t)dst, &r, len, 0, win_fn);
    return 0;
}

static int win_write32(void *arg, uint64_t addr, uint32_t value, char *msg, size_t ml) {
    (void)arg;
    struct shmemi_route r;
    if (win_route(addr, 4, &r, msg, ml))
        return -1;
    shmemi_path_fabric.amo(&engine_ctx, &r, SHMEMI_AMO_SET, 4, value, 0, NULL, win_fn);
    shmemi_fab_quiet(shmemi_fab_ep(&engine_ctx, win_fn), win_fn);
    return 0;
}

static int win_atomic(void *arg, uint64_t addr, unsigned op, int is64, uint64_t src, uint64_t cmp,
                      char *msg, size_t ml) {
    (void)arg;
    struct shmemi_route r;
    if (win_route(addr, is64 ? 8 : 4, &r, msg, ml))
        return -1;
    enum shmemi_amo_op o = op == SDMA_ATOMIC_ADD32    ? SHMEMI_AMO_ADD
                           : op == SDMA_ATOMIC_SWAP32 ? SHMEMI_AMO_SWAP
                                                      : SHMEMI_AMO_CSWAP;
    uint64_t old;
    shmemi_path_fabric.amo(&engine_ctx, &r, o, is64 ? 8 : 4, src, cmp,
                           o == SHMEMI_AMO_ADD ? NULL : &old, win_fn);
    shmemi_fab_quiet(shmemi_fab_ep(&engine_ctx, win_fn), win_fn);
    return 0;
}

static int win_read32(void *arg, uint64_t addr, uint32_t *v, char *msg, size_t ml) {
    (void)arg;
    struct shmemi_route r;
    if (win_route(addr, 4, &r, msg, ml))
        return -1;
    shmemi_path_fabric.get(&engine_ctx, v, &r, 4, 0, win_fn);
    return 0;
}

void *shmemi_fabric_window(int pe, int region, size_t off) {
    if (!shmemi_fab.open || strcmp(shmemi_copy_engine_name(), "soft"))
        return NULL;
    pthread_once(&win.once, win_reserve);
    if (!win.base || off >= win.len[region])
        return NULL;
    return win.base + (size_t)pe * win.stride + win.at[region] + off;
}

const struct sdma_foreign *shmemi_fabric_foreign(void) {
    if (!shmemi_fab.open)
        return NULL;
    pthread_once(&win.once, win_reserve);
    if (!win.base)
        return NULL;
    win.ops = (struct sdma_foreign){.base = (uint64_t)(uintptr_t)win.base,
                                    .len = win.stride * (uint64_t)shmemi.n_pes,
                                    .copy = win_copy,
                                    .write32 = win_write32,
                                    .atomic = win_atomic,
                                    .read32 = win_read32};
    return &win.ops;
}

/* The fabric closes: the engine's context goes first (its endpoint). */
void shmemi_fab_window_fini(void) { shmemi_fab_ctx_free(&engine_ctx); }
