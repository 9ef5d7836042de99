/* What the host barriers and syncs promise about work a PE queued on its GPU
 * (README, GPU builds): shmem_barrier_all, shmem_sync_all, shmem_sync and
 * shmem_team_sync first wait for everything the PE queued on its GPU, so a
 * peer that passed the barrier sees it.
 *
 * Each round, every PE queues on a stream of its own (non-blocking: nothing
 * else orders it) a kernel that waits DELAY on the GPU clock and then puts a
 * value into the right neighbour's slot, and after it a memset of one of its
 * own buffers; then, without synchronizing anything, it calls the routine.
 * After the routine the PE reads its slot and the left neighbour's buffer
 * from the host. With SHMEM_BARRIER_GPU_SYNC=0 (the setting's test) the
 * routine must return long before the kernel ends instead. */
/* shmem_barrier and the 4-argument shmem_sync are deprecated: tested on purpose. */
#define SHMEM_NO_DEPRECATION_WARNINGS 1
#include "gpu_test.h"

#include <string.h>
#include <time.h>

#if !defined(__HIPCC__)
#define hipStreamCreateWithFlags cudaStreamCreateWithFlags
#define hipStreamNonBlocking cudaStreamNonBlocking
#define hipMemsetAsync cudaMemsetAsync
#endif

#define DELAY_NS 200000000ull /* 200 ms: far longer than a barrier of an idle job */
#define MB 4096

static long psync[SHMEM_SYNC_SIZE]; /* shmem_sync's work array (symmetric: a global) */

__global__ void k_late_put(int *slot, int value, int pe, unsigned long long delay_ns) {
    unsigned long long t0 = shmemi_arch_now_ns();
    unsigned spins = 0;
    while (shmemi_arch_now_ns() - t0 < delay_ns)
        shmemi_arch_pause(&spins);
    shmem_int_p(slot, value, pe);
    shmem_quiet();
}

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

enum { R_BARRIER_ALL, R_SYNC_ALL, R_SYNC, R_TEAM_SYNC, ROUNDS };
static const char *const names[ROUNDS] = {"shmem_barrier_all", "shmem_sync_all", "shmem_sync",
                                          "shmem_team_sync"};

static void routine(int r, int npes) {
    switch (r) {
    case R_BARRIER_ALL: shmem_barrier_all(); break;
    case R_SYNC_ALL: shmem_sync_all(); break;
    case R_SYNC: shmem_sync(0, 0, npes, psync); break;
    default: shmem_team_sync(SHMEM_TEAM_WORLD); break;
    }
}

int main(void) {
    for (int i = 0; i < SHMEM_SYNC_SIZE; i++)
        psync[i] = SHMEM_SYNC_VALUE;
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    const char *set = getenv("SHMEM_BARRIER_GPU_SYNC");
    int promised = !(set && (!strcmp(set, "0") || !strcmp(set, "n") || !strcmp(set, "no") ||
                             !strcmp(set, "off") || !strcmp(set, "false")));
    int *slots = (int *)shmem_calloc(ROUNDS, sizeof(int));
    unsigned char *buf = (unsigned char *)shmem_calloc(ROUNDS, MB);
    unsigned char *got = (unsigned char *)malloc(MB);
    hipStream_t s;
    GT_CK(hipStreamCreateWithFlags(&s, hipStreamNonBlocking));
    shmem_barrier_all();

    for (int r = 0; r < ROUNDS; r++) {
        int value = 1000 * (r + 1) + me;
        k_late_put<<<1, 1, 0, s>>>(&slots[r], value, right, DELAY_NS);
        GT_CK(hipGetLastError());
        GT_CK(hipMemsetAsync(buf + (size_t)r * MB, 0x40 + me, MB, s));
        double t0 = now_s();
        routine(r, npes);
        double took = now_s() - t0;
        if (promised) {
            /* This PE's own kernel ran DELAY before the routine could return. */
            GT_EXPECT(took > 0.9e-9 * DELAY_NS,
                      "%s returned after %.1f ms, before this PE's "
                      "kernel of %.0f ms ended",
                      names[r], took * 1e3, 1e-6 * DELAY_NS);
            int v = shmem_int_g(&slots[r], me);
            GT_EXPECT(v == 1000 * (r + 1) + left,
                      "%s: the slot holds %d, want %d (PE %d's "
                      "kernel put it before the routine)",
                      names[r], v, 1000 * (r + 1) + left, left);
            shmem_getmem(got, buf + (size_t)r * MB, MB, left);
            int bad = 0;
            for (int i = 0; i < MB; i++)
                bad += got[i] != (unsigned char)(0x40 + left);
            GT_EXPECT(bad == 0, "%s: %d bytes of PE %d's memset buffer not yet set", names[r], bad,
                      left);
        } else {
            GT_EXPECT(took < 0.5e-9 * DELAY_NS,
                      "SHMEM_BARRIER_GPU_SYNC=0: %s waited %.1f ms "
                      "for the GPU",
                      names[r], took * 1e3);
            GT_CK(hipStreamSynchronize(s));
            shmem_barrier_all();
        }
        if (me == 0)
            printf("barrier_gpu: %s returned after %.1f ms (kernel %.0f ms, GPU sync %s)\n",
                   names[r], took * 1e3, 1e-6 * DELAY_NS, promised ? "on" : "off");
    }

    /* What the synchronize costs a barrier when the GPU is idle. */
    GT_CK(hipStreamSynchronize(s));
    shmem_barrier_all();
    const int iters = 2000;
    double t0 = now_s();
    for (int i = 0; i < iters; i++)
        shmem_barrier_all();
    double per = (now_s() - t0) / iters;
    if (me == 0)
        printf("barrier_gpu: idle GPU: shmem_barrier_all %.2f us (GPU sync %s)\n", per * 1e6,
               promised ? "on" : "off");

    GT_CK(hipStreamDestroy(s));
    free(got);
    shmem_free(buf);
    shmem_free(slots);
    return gt_finish("barrier_gpu");
}
