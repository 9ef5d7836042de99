/* Stream-ordered rounds of triggered plans (GPU builds): the round's wait and
 * its fence queued on the caller's stream (shmemx_plan_wait_on_stream,
 * shmemx_plan_next_round_on_stream), and the watchdog thread that releases
 * the stream waits. CPU builds refuse both calls. */
#include "shmem/plan/plan.h"

#if defined(SHMEM_GPU_CUDA) || defined(SHMEM_GPU_HIP)
#include "shmem/gpu_stream.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static struct shmemi_plan_gpu gpu_round(struct shmemx_plan *p, uint32_t r) {
    return (struct shmemi_plan_gpu){.round = r,
                                    .me = p->me,
                                    .n = p->n,
                                    .nchunks = (int)p->nchunks,
                                    .own_first = p->chunk_base[p->me],
                                    .own_count = (int)p->own,
                                    .sent = p->w.sent,
                                    .arrival = p->w.arrival,
                                    .fence = p->w.fence,
                                    .abortw = p->w.abortw,
                                    .error = p->w.error,
                                    .error_chunk = p->w.error_chunk,
                                    .error_round = p->w.error_round,
                                    .error_peer = p->w.error_peer,
                                    .timeout_ns = (uint64_t)(p->timeout_s * 1e9)};
}

static int stream_usable(struct shmemx_plan *p, const char *fn) {
    int rc = shmemi_plan_check_live(p, fn);
    if (rc)
        return rc;
    if (!p->on_dev)
        return shmemi_plan_err(p, SHMEMX_PLAN_EUNSUPPORTED,
                               "%s: the plan's buffer is host "
                               "memory; stream-ordered rounds need a buffer on the device heap",
                               fn);
    return shmemi_plan_stream_error(p);
}

/* The stream-ordered wait without a kernel: the stream waits (a stream memory
 * wait, cheaper to queue than a launch) until go reaches the round, and this
 * thread releases go once the round is delivered, or records why it cannot
 * be (a peer that could not prepare it, a timeout naming a peer that never
 * passed the last next_round or the chunk that did not come) and releases it
 * anyway, so a stream never waits past the plan's timeout. A round's timeout
 * runs from the previous round's release (rounds pass in stream order). Needs
 * eager module loading (a stream wait deadlocks a lazy first launch); the wait
 * kernel does the same work otherwise. */
struct watch {
    struct shmemx_plan *p;
    uint32_t round;
};
static struct {
    pthread_mutex_t lock;
    pthread_cond_t work; /* signalled when a watch comes, or at stop */
    pthread_t thread;
    int started, stop;
    struct watch *w; /* pending, oldest first */
    size_t n, cap;
} wd = {.lock = PTHREAD_MUTEX_INITIALIZER, .work = PTHREAD_COND_INITIALIZER};

/* A host-side error of the round, first one wins (like the kernels'). */
static void watch_error(struct shmemx_plan *p, int code, uint32_t chunk, uint32_t peer,
                        uint32_t round) {
    uint32_t expected = 0;
    if (__atomic_compare_exchange_n(p->w.error, &expected, (uint32_t)-code, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE)) {
        __atomic_store_n(p->w.error_chunk, chunk, __ATOMIC_RELAXED);
        __atomic_store_n(p->w.error_round, round, __ATOMIC_RELAXED);
        __atomic_store_n(p->w.error_peer, peer, __ATOMIC_RELEASE);
    }
}

/* 1 when the watch is over (go released). since: when the plan's previous
 * watch ended (or this one began). */
static int watch_check(struct watch *w, double now, double *since) {
    struct shmemx_plan *p = w->p;
    uint32_t r = w->round;
    size_t cursor = 0;
    int peer = -1;
    if (!__atomic_load_n(p->w.error, __ATOMIC_ACQUIRE)) {
        for (int q = 0; q < p->n; q++)
            if (q != p->me && r >= 2 && __atomic_load_n(&p->w.abortw[q], __ATOMIC_ACQUIRE) == r - 1)
                watch_error(p, SHMEMX_PLAN_EPEER, UINT32_MAX, (uint32_t)q, r - 1);
    }
    if (!__atomic_load_n(p->w.error, __ATOMIC_ACQUIRE)) {
        long c = shmemi_plan_first_missing(p, r, &cursor, &peer);
        if (c >= 0 && now - *since <= p->timeout_s)
            return 0;
        if (c >= 0) {
            int late = -1;
            for (int q = 0; q < p->n && late < 0; q++)
                if (q != p->me && __atomic_load_n(&p->w.fence[q], __ATOMIC_ACQUIRE) < r - 1)
                    late = q;
            if (late >= 0)
                watch_error(p, SHMEMX_PLAN_ETIMEDOUT, UINT32_MAX, (uint32_t)late, r - 1);
            else
                watch_error(p, SHMEMX_PLAN_ETIMEDOUT, (uint32_t)c, (uint32_t)peer, r);
        }
    }
    /* Release: the copies this thread saw delivered are visible to the stream's
     * later work once it sees go (the engine's fences preceded what we read). */
    __atomic_store_n(p->w.go, r, __ATOMIC_RELEASE);
    *since = now;
    return 1;
}

/* While rounds are watched, GPU streams wait on it (nothing wakes it when a
 * kernel's copy lands): it polls, spinning for 200 us after its last
 * release, then every 50 us. Idle for 200 us, it sleeps until a watch comes. */
static void *watchdog(void *arg) {
    (void)arg;
    double idle_since = shmemi_plan_now(), busy_since = idle_since;
    for (;;) {
        double t = shmemi_plan_now();
        pthread_mutex_lock(&wd.lock);
        while (!wd.n && !wd.stop && t - idle_since >= 200e-6) {
            pthread_cond_wait(&wd.work, &wd.lock);
            t = idle_since = busy_since = shmemi_plan_now();
        }
        if (wd.stop) {
            pthread_mutex_unlock(&wd.lock);
            return NULL;
        }
        size_t n = wd.n;
        /* Each plan's oldest watch: its rounds pass in stream order. */
        for (size_t i = 0; i < wd.n; i++) {
            struct shmemx_plan *p = wd.w[i].p;
            int older = 0;
            for (size_t k = 0; k < i && !older; k++)
                older = wd.w[k].p == p;
            if (older || !watch_check(&wd.w[i], t, &p->watch_since))
                continue;
            memmove(wd.w + i, wd.w + i + 1, (wd.n - i - 1) * sizeof(*wd.w));
            wd.n--;
            i--;
            busy_since = t;
        }
        if (n)
            idle_since = t;
        if (wd.n && t - busy_since > 200e-6) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_nsec += 50000;
            if (ts.tv_nsec >= 1000000000) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000;
            }
            pthread_cond_timedwait(&wd.work, &wd.lock, &ts);
            pthread_mutex_unlock(&wd.lock);
            continue;
        }
        pthread_mutex_unlock(&wd.lock);
        sched_yield();
    }
}

void shmemi_plan_watch_stop(void) {
    pthread_mutex_lock(&wd.lock);
    int started = wd.started;
    wd.stop = 1;
    pthread_cond_signal(&wd.work);
    pthread_mutex_unlock(&wd.lock);
    if (started)
        pthread_join(wd.thread, NULL);
    free(wd.w);
    wd.w = NULL;
    wd.n = wd.cap = 0;
    wd.started = wd.stop = 0;
}

static int watch_add(struct shmemx_plan *p, uint32_t round) {
    int rc = 0;
    pthread_mutex_lock(&wd.lock);
    if (!wd.started) {
        pthread_attr_t a;
        pthread_attr_init(&a);
        shmemi_unpinned_attr(&a); /* not on the CPU the caller may be pinned to */
        if (pthread_create(&wd.thread, &a, watchdog, NULL) == 0)
            wd.started = 1;
        else
            rc = -1;
        pthread_attr_destroy(&a);
    }
    if (!rc && wd.n == wd.cap) {
        size_t cap = wd.cap ? wd.cap * 2 : 64;
        struct watch *nw = realloc(wd.w, cap * sizeof(*nw));
        if (nw) {
            wd.w = nw;
            wd.cap = cap;
        } else {
            rc = -1;
        }
    }
    if (!rc) {
        int pending = 0;
        for (size_t i = 0; i < wd.n && !pending; i++)
            pending = wd.w[i].p == p;
        if (!pending) /* the timeout of the plan's next round runs from now */
            p->watch_since = shmemi_plan_now();
        wd.w[wd.n++] = (struct watch){p, round};
        pthread_cond_signal(&wd.work);
    }
    pthread_mutex_unlock(&wd.lock);
    return rc;
}

/* close: the plan's words go; its pending watches (a stream the caller did
 * not synchronize) are released first. */
void shmemi_plan_watch_drop(struct shmemx_plan *p) {
    if (!p->stream_mode)
        return;
    pthread_mutex_lock(&wd.lock);
    size_t k = 0;
    for (size_t i = 0; i < wd.n; i++)
        if (wd.w[i].p != p)
            wd.w[k++] = wd.w[i];
    wd.n = k;
    pthread_mutex_unlock(&wd.lock);
    if (p->w.go)
        __atomic_store_n(p->w.go, UINT32_MAX, __ATOMIC_RELEASE);
}

static int eager_loading(void) {
    const char *m = getenv("CUDA_MODULE_LOADING");
    return m && !strcasecmp(m, "EAGER");
}

int shmemx_plan_wait_on_stream(shmemx_plan_t p, void *stream) {
    int rc = stream_usable(p, __func__);
    if (rc)
        return rc;
    if (p->state != SHMEMX_PLAN_ACTIVE)
        return shmemi_plan_err(p, SHMEMX_PLAN_ESTATE, "round %u: wait_on_stream %s", p->round,
                               p->state == SHMEMX_PLAN_ARMED ? "before start" : "called twice");
    int e;
    if (eager_loading() && watch_add(p, p->round) == 0) {
        e = shmemi_gpu_stream_wait32(stream, p->w.go, p->round);
    } else {
        struct shmemi_plan_gpu a = gpu_round(p, p->round);
        e = shmemi_gpu_plan_wait_launch(&a, stream);
    }
    if (e)
        return shmemi_plan_err(p, SHMEMX_PLAN_EENGINE,
                               "round %u: the stream-ordered wait did not "
                               "queue (runtime error %d)",
                               p->round, e);
    p->stream_mode = 1;
    p->state = SHMEMX_PLAN_DELIVERED; /* as far as the host's calls go: queued */
    return 0;
}

int shmemx_plan_next_round_on_stream(shmemx_plan_t p, void *stream) {
    int rc = stream_usable(p, __func__);
    if (rc)
        return rc;
    if (p->state != SHMEMX_PLAN_DELIVERED)
        return shmemi_plan_err(p, SHMEMX_PLAN_ESTATE,
                               "round %u: next_round_on_stream before the "
                               "round's wait",
                               p->round);
    uint32_t r = p->round;
    int prc = shmemi_plan_prepare(p, r + 1);
    if (prc) /* every peer's next wait reports it (EPEER) */
        for (int q = 0; q < p->n; q++)
            if (q != p->me)
                __atomic_store_n((uint32_t *)shmemi_plan_at_peer(&p->w.abortw[p->me], q), r,
                                 __ATOMIC_RELEASE);
    /* After the stream's reads of round r: tell every peer (its chains to this
     * PE wait for it), then note it here (start's view-slot check). Stream
     * writes, no kernel: nothing on this stream waits for the peers. */
    uint32_t *words[64];
    int e = 0, k = 0;
    for (int q = 0; q <= p->n && !e; q++) {
        if (q < p->n && q != p->me)
            words[k++] = p->w.peer_fence[q];
        else if (q == p->n) /* last: the local note */
            words[k++] = p->w.done;
        if (k == 64 || (q == p->n && k)) {
            e = shmemi_gpu_stream_write32_n(stream, words, k, r);
            k = 0;
        }
    }
    if (e)
        return shmemi_plan_err(p, SHMEMX_PLAN_EENGINE,
                               "round %u: the stream writes of next_round "
                               "did not queue (runtime error %d)",
                               r, e);
    p->stream_mode = 1;
    if (prc) {
        p->state = SHMEMX_PLAN_FAILED;
        return prc;
    }
    p->round = r + 1;
    p->state = SHMEMX_PLAN_ARMED;
    return 0;
}

#else /* CPU builds */

void shmemi_plan_watch_drop(struct shmemx_plan *p) { (void)p; }
void shmemi_plan_watch_stop(void) {}

int shmemx_plan_wait_on_stream(shmemx_plan_t p, void *stream) {
    (void)stream;
    return shmemi_plan_err(p, SHMEMX_PLAN_EUNSUPPORTED, "wait_on_stream needs a GPU build");
}

int shmemx_plan_next_round_on_stream(shmemx_plan_t p, void *stream) {
    (void)stream;
    return shmemi_plan_err(p, SHMEMX_PLAN_EUNSUPPORTED, "next_round_on_stream needs a GPU build");
}
#endif
