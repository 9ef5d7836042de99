/* The direct row of the path table: the peer's memory is mapped here.
 *
 * Every PE of the node maps every other PE's host heap and static data
 * segment (shmem/heap.c), so a put is a memcpy into the peer's mapping and an
 * AMO a hardware atomic on it. Non-blocking copies of at least
 * SHMEM_NBI_THRESHOLD bytes go to the copy engine and complete at quiet. A
 * local buffer on this PE's device heap (GPU builds) is copied by the GPU
 * runtime, blocking. */
#include "shmem/path_direct.h"

static int direct_setup(void) {
    for (int pe = 0; pe < shmemi.n_pes; pe++) {
        struct shmemi_peer *p = &shmemi.peers[pe];
        if (p->heap)
            p->path[SHMEMI_REGION_HEAP] = &shmemi_path_direct;
        if (p->data)
            p->path[SHMEMI_REGION_DATA] = &shmemi_path_direct;
    }
    return 0;
}

static void direct_iput(struct shmemi_ctx *c, const struct shmemi_route *r, size_t rstride,
                        const void *src, size_t lstride, size_t esize, size_t nelems,
                        const char *fn) {
    (void)c;
    /* Element by element (a local buffer on the device heap: one 2D runtime copy). */
    shmemi_local_copy_2d(r->addr, rstride, src, lstride, esize, nelems, fn);
    shmemi_wake_at(r->pe, r->addr, (nelems - 1) * rstride + esize);
}

static void direct_iget(struct shmemi_ctx *c, void *dst, size_t lstride,
                        const struct shmemi_route *r, size_t rstride, size_t esize, size_t nelems,
                        const char *fn) {
    (void)c;
    shmemi_local_copy_2d(dst, lstride, r->addr, rstride, esize, nelems, fn);
}

/* The signal update: release the data before the signal, so that whoever
 * observes the signal (an acquire load in wait_until / signal_wait_until)
 * sees the data. A full fence, because large copies may use non-temporal
 * stores. */
static void direct_signal(struct shmemi_ctx *c, const struct shmemi_route *sig, uint64_t signal,
                          int sig_op, int nbi, const char *fn) {
    (void)c, (void)nbi, (void)fn;
    uint64_t *w = (uint64_t *)sig->addr;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (sig_op == SHMEM_SIGNAL_SET)
        __atomic_store_n(w, signal, __ATOMIC_RELEASE);
    else
        __atomic_fetch_add(w, signal, __ATOMIC_RELEASE);
    shmemi_wake_at(sig->pe, w, sizeof(*w));
}

static void direct_put_signal(struct shmemi_ctx *c, const struct shmemi_route *r, const void *src,
                              size_t n, const struct shmemi_route *sig, uint64_t signal, int sig_op,
                              int nbi, const char *fn) {
    /* Large non-blocking ones: the copy and the signal on one engine queue,
     * which completes the copy before it runs the signal's atomic. */
    if (nbi && n >= shmemi.cfg.NBI_THRESHOLD && !shmemi_on_device(src) && shmemi_engine_offload()) {
        shmemi_pages_ready(r->pe, r->region, r->off, n);
        if (shmemi_engine_copy_signal(c, r->addr, src, n, sig, signal, sig_op, fn))
            return;
    }
    shmemi_direct_put(c, r, src, n, 0, fn);
    direct_signal(c, sig, signal, sig_op, 0, fn);
}

/* Acquire: data put before the word was updated is visible once the caller
 * sees the update. */
static void direct_load(const struct shmemi_route *r, void *out, size_t size, const char *fn) {
    (void)fn;
    switch (size) {
    case 1: *(uint8_t *)out = __atomic_load_n((const uint8_t *)r->addr, __ATOMIC_ACQUIRE); break;
    case 2: {
        uint16_t v = __atomic_load_n((const uint16_t *)r->addr, __ATOMIC_ACQUIRE);
        memcpy(out, &v, 2);
        break;
    }
    case 4: {
        uint32_t v = __atomic_load_n((const uint32_t *)r->addr, __ATOMIC_ACQUIRE);
        memcpy(out, &v, 4);
        break;
    }
    default: {
        uint64_t v = __atomic_load_n((const uint64_t *)r->addr, __ATOMIC_ACQUIRE);
        memcpy(out, &v, 8);
        break;
    }
    }
}

/* Quiet and fence: the engine's part is done by the core (shared with the
 * device row), the stores themselves by its final fence. Nothing else to
 * wait for. */
const struct shmemi_path_ops shmemi_path_direct = {
    .name = "direct",
    .caps = SHMEMI_PATH_HOST_MAPPED,
    .refusal = "is mapped here",
    .setup = direct_setup,
    .put = shmemi_direct_put,
    .get = shmemi_direct_get,
    .iput = direct_iput,
    .iget = direct_iget,
    .put_signal = direct_put_signal,
    .signal = direct_signal,
    .amo = shmemi_direct_amo,
    .load = direct_load,
};
