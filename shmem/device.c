/* The device state (device/state.h) and its registration hook.
 *
 * shmem_device.h registers, from a static constructor of every translation
 * unit that includes it, a function that copies the state into that unit's
 * own device-side copy with that unit's GPU runtime (no relocatable device
 * code, no runtime shared between the library and the application). This
 * file keeps the table of those functions, builds the state at shmem_init
 * and calls each of them; one registered later is called at once, and again
 * from the library's next routines while it answers "not yet" (a module
 * being loaded). The device-driven queues open with the first of them.
 *
 * With the host heap kind (CPU builds, or SHMEM_HEAP=host) the state holds
 * host pointers into the host heap: CPU builds of the device API run its
 * bodies on the CPU against it. */
#include "shmem/queues.h"
#include "shmem/shmemi.h"

#include <pthread.h>
#include <stdlib.h>

#define MAX_FILLS 256

static pthread_mutex_t fill_lock = PTHREAD_MUTEX_INITIALIZER;
static shmemx_device_fill_fn fills[MAX_FILLS];
static unsigned char pending[MAX_FILLS]; /* said "not yet": called again later */
static unsigned tries[MAX_FILLS];
#define FILL_TRIES 1000 /* then the unit's kernels go without the state */
static int nfills, npending;
static struct shmemi_device_state state; /* ready once built */
static char **host_peer_heap;            /* the peer table of the host kind */

/* Under fill_lock, with the state ready: fill i, pending while it says "not
 * yet" (its unit is in a module whose loading has not registered its symbols
 * with its runtime: the library's next routine tries again). */
static void call_fill(int i) {
    int later = fills[i](&state, sizeof(state)) != 0;
    if (later && ++tries[i] == FILL_TRIES) {
        shmemi_warn("%s: device code registered after shmem_init still cannot take the device "
                    "state; its kernels go without it",
                    shmemi_routine ? shmemi_routine : "shmemx_device_register");
        later = 0;
    }
    npending += later - pending[i];
    pending[i] = (unsigned char)later;
    __atomic_store_n(&shmemi.entry_ok, shmemi.initialized && npending == 0, __ATOMIC_RELAXED);
}

/* Device code in a GPU build whose heap is in host memory: its kernels get
 * host addresses, which a GPU reaches only where it accesses pageable host
 * memory (HMM, ATS); elsewhere their first put faults. Said once, before. */
static void host_heap_note(const char *fn) {
    static int said;
    if (said || !shmemi_gpu_path() || shmemi.heap_kind == SHMEMI_HEAP_DEVICE)
        return;
    said = 1;
    shmemi_warn("%s: this program has device code (shmem_device.h), but the symmetric heap is in "
                "host memory (SHMEM_HEAP=host): its kernels' puts, gets and atomics fault unless "
                "the GPU accesses pageable host memory; use the device heap (SHMEM_HEAP=device)",
                fn);
}

int shmemx_device_register(shmemx_device_fill_fn fill) {
    if (!fill)
        return -1;
    pthread_mutex_lock(&fill_lock);
    int rc = 0;
    if (nfills == MAX_FILLS) {
        rc = -1;
    } else {
        /* The first device code, loaded after shmem_init: its kernels' queues. */
        if (nfills == 0 && state.ready && shmemi.heap_kind == SHMEMI_HEAP_DEVICE)
            shmemi.dev->queues(&state, "shmemx_device_register");
        fills[nfills] = fill;
        __atomic_store_n(&nfills, nfills + 1, __ATOMIC_RELEASE);
        if (state.ready)
            call_fill(nfills - 1);
    }
    int first_late = rc == 0 && nfills == 1 && state.ready;
    if (first_late)
        host_heap_note("shmemx_device_register");
    pthread_mutex_unlock(&fill_lock);
    if (first_late && shmemi_gpu_may_store())
        shmemi_poll_queues_gpu_writes();
    return rc;
}

void shmemi_device_fills_retry(void) {
    pthread_mutex_lock(&fill_lock);
    for (int i = 0; i < nfills && npending && state.ready; i++)
        if (pending[i])
            call_fill(i);
    pthread_mutex_unlock(&fill_lock);
}

int shmemi_gpu_may_store(void) {
    return shmemi_gpu_path() && (shmemi.heap_kind == SHMEMI_HEAP_DEVICE ||
                                 __atomic_load_n(&nfills, __ATOMIC_ACQUIRE) > 0);
}

int shmemi_device_state_init(void) {
    struct shmemi_device_state st = {
        .version = SHMEMI_DEVICE_STATE_VERSION,
        .my_pe = shmemi.my_pe,
        .n_pes = shmemi.n_pes,
    };
    if (shmemi.heap_kind == SHMEMI_HEAP_DEVICE) {
        if (shmemi.dev->state(&st))
            return -1;
    } else {
        /* [user heap | device control area] at the start of the host heap. */
        host_peer_heap = calloc((size_t)shmemi.n_pes, sizeof(*host_peer_heap));
        if (!host_peer_heap)
            return -1;
        for (int pe = 0; pe < shmemi.n_pes; pe++) {
            host_peer_heap[pe] = shmemi.peers[pe].heap;
            if (pe < SHMEMI_DEV_INLINE_PEERS)
                st.peer_base[pe] = host_peer_heap[pe];
        }
        st.heap_base = shmemi.heap_base;
        st.heap_size = shmemi.user_size + SHMEMI_DEV_CTL_SIZE;
        st.peer_heap = host_peer_heap;
        st.ctl = (struct shmemi_dev_ctl *)(shmemi.heap_base + shmemi.user_size);
    }
    st.ready = 1;
    pthread_mutex_lock(&fill_lock);
    /* The device-driven queues wait for device code: without it no kernel
     * writes them, and their proxy (an engine's thread) would look at them on
     * a timer for nothing. */
    if (shmemi.heap_kind == SHMEMI_HEAP_DEVICE && nfills > 0)
        shmemi.dev->queues(&st, "shmem_init");
    state = st;
    if (nfills > 0)
        host_heap_note("shmem_init");
    __atomic_store_n(&shmemi.entry_ok, 1, __ATOMIC_RELAXED);
    for (int i = 0; i < nfills; i++)
        call_fill(i);
    pthread_mutex_unlock(&fill_lock);
    return 0;
}

void shmemi_device_state_fini(void) {
    pthread_mutex_lock(&fill_lock);
    state.ready = 0;
    pthread_mutex_unlock(&fill_lock);
    if (shmemi.dev)
        shmemi.dev->fini();
}

#if !defined(SHMEM_GPU_CUDA) && !defined(SHMEM_GPU_HIP)
const struct shmemi_dev_ops *shmemi_gpu_path(void) { return NULL; }
#endif
