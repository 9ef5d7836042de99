/* The device row of the path table: the device heap of GPU builds.
 *
 * It wraps what shmem/gpu.c provides (shmemi.dev): GPU runtime copies on a
 * library stream, between host memory, this PE's GPU and the peers' heaps as
 * IPC-mapped here (route.addr is a device pointer), and a one-thread kernel
 * for atomics on the same stream, so a signal follows the data it signals.
 * Blocking operations synchronize the stream; non-blocking ones, and
 * non-fetching AMOs, complete at quiet. Non-blocking copies go to the copy
 * engine instead when it reaches GPU memory (the cuda engine). In CPU builds
 * the row claims nothing. */
#include "shmem/shmemi.h"

#include "shmem/engine.h"

static int device_setup(void) {
    if (!shmemi.dev || !shmemi.dev_size)
        return 0;
    for (int pe = 0; pe < shmemi.n_pes; pe++)
        if (shmemi.peers[pe].dev)
            shmemi.peers[pe].path[SHMEMI_REGION_DEVICE] = &shmemi_path_device;
    return 0;
}

static void device_put(struct shmemi_ctx *c, const struct shmemi_route *r, const void *src,
                       size_t n, int nbi, const char *fn) {
    if (nbi && shmemi_engine_reaches_device() && shmemi_engine_copy(c, r->addr, src, n, r->pe, fn))
        return;
    shmemi.dev->copy(r->addr, src, n, nbi, fn);
}

static void device_get(struct shmemi_ctx *c, void *dst, const struct shmemi_route *r, size_t n,
                       int nbi, const char *fn) {
    if (nbi && shmemi_engine_reaches_device() && shmemi_engine_copy(c, dst, r->addr, n, r->pe, fn))
        return;
    shmemi.dev->copy(dst, r->addr, n, nbi, fn);
}

static void device_iput(struct shmemi_ctx *c, const struct shmemi_route *r, size_t rstride,
                        const void *src, size_t lstride, size_t esize, size_t nelems,
                        const char *fn) {
    (void)c;
    shmemi.dev->copy_2d(r->addr, rstride, src, lstride, esize, nelems, fn);
}

static void device_iget(struct shmemi_ctx *c, void *dst, size_t lstride,
                        const struct shmemi_route *r, size_t rstride, size_t esize, size_t nelems,
                        const char *fn) {
    (void)c;
    shmemi.dev->copy_2d(dst, lstride, r->addr, rstride, esize, nelems, fn);
}

static void device_signal(struct shmemi_ctx *c, const struct shmemi_route *sig, uint64_t signal,
                          int sig_op, int nbi, const char *fn) {
    (void)c;
    shmemi.dev->amo(sig->addr, sig_op == SHMEM_SIGNAL_SET ? SHMEMI_AMO_SET : SHMEMI_AMO_ADD,
                    sizeof(uint64_t), signal, 0, NULL, nbi, fn);
}

/* Data and signal on the one library stream (or the one engine queue, for
 * the non-blocking form when the engine reaches GPU memory): the stream or
 * queue keeps the signal behind the data. */
static void device_put_signal(struct shmemi_ctx *c, const struct shmemi_route *r, const void *src,
                              size_t n, const struct shmemi_route *sig, uint64_t signal, int sig_op,
                              int nbi, const char *fn) {
    if (nbi && shmemi_engine_reaches_device() &&
        shmemi_engine_copy_signal(c, r->addr, src, n, sig, signal, sig_op, fn))
        return;
    shmemi.dev->copy(r->addr, src, n, nbi, fn);
    device_signal(c, sig, signal, sig_op, nbi, fn);
}

static void device_amo(struct shmemi_ctx *c, const struct shmemi_route *r, enum shmemi_amo_op op,
                       size_t size, uint64_t value, uint64_t cond, uint64_t *old, const char *fn) {
    (void)c;
    shmemi.dev->amo(r->addr, op, size, value, cond, old, !old, fn);
}

/* A one-word copy through the runtime on every call: slow, but it sees
 * every writer (peers' kernels, copy engines and host AMOs). */
static void device_load(const struct shmemi_route *r, void *out, size_t size, const char *fn) {
    shmemi.dev->copy(out, r->addr, size, 0, fn);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
}

/* The library stream's non-blocking copies and AMOs (every context's). */
static void device_quiet(struct shmemi_ctx *c, int pe, const char *fn) {
    (void)c, (void)pe;
    shmemi.dev->quiet(fn);
}

/* A host barrier or sync completes this PE's GPU work first (SHMEM_BARRIER_GPU_SYNC). */
static void device_check(int how, const char *fn) { shmemi.dev->check(how, fn); }

const struct shmemi_path_ops shmemi_path_device = {
    .name = "device",
    .caps = 0,
    .refusal = "is on the device heap, which this routine does not reach from the host "
               "(SHMEM_HEAP=host puts the symmetric heap in host memory)",
    .setup = device_setup,
    .put = device_put,
    .get = device_get,
    .iput = device_iput,
    .iget = device_iget,
    .put_signal = device_put_signal,
    .signal = device_signal,
    .amo = device_amo,
    .load = device_load,
    .quiet = device_quiet,
    .fence = device_quiet,
    .check = device_check,
};
