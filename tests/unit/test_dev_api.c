/* The device API's bodies (shmem_device.h) compiled as plain C: each host
 * thread plays one PE with its own device state over heaps in this process,
 * so address translation, RMA copies, AMOs, waits, the dissemination barrier,
 * the collectives and the device-side ring enqueue run on the CPU. */
#include <check.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <shmem_device.h>

#include "sdma/sdma.h"

#define MAXPE 8
#define USER (1u << 20)

static struct {
    int n;
    char *heap[MAXPE];
    char *table[MAXPE];
    struct shmemi_device_state st[MAXPE];
} W;

static void world_init(int n) {
    memset(&W, 0, sizeof W);
    W.n = n;
    for (int pe = 0; pe < n; ++pe) {
        W.heap[pe] = aligned_alloc(4096, USER + SHMEMI_DEV_CTL_SIZE);
        ck_assert_ptr_nonnull(W.heap[pe]);
        memset(W.heap[pe], 0, USER + SHMEMI_DEV_CTL_SIZE);
        W.table[pe] = W.heap[pe];
    }
    for (int pe = 0; pe < n; ++pe) {
        struct shmemi_device_state *s = &W.st[pe];
        s->version = SHMEMI_DEVICE_STATE_VERSION;
        s->my_pe = pe;
        s->n_pes = n;
        s->ready = 1;
        s->heap_base = W.heap[pe];
        s->heap_size = USER + SHMEMI_DEV_CTL_SIZE;
        s->peer_heap = W.table;
        for (int q = 0; q < n && q < SHMEMI_DEV_INLINE_PEERS; ++q)
            s->peer_base[q] = W.table[q];
        s->ctl = (struct shmemi_dev_ctl *)(W.heap[pe] + USER);
    }
}
static void world_fini(void) {
    for (int pe = 0; pe < W.n; ++pe)
        free(W.heap[pe]);
}

/* Run fn(pe) on one thread per PE, each bound to its PE's state. */
typedef void (*pe_fn)(int pe);
struct run_arg {
    int pe;
    pe_fn fn;
};
static void *run_one(void *p) {
    struct run_arg *a = p;
    shmemi_dev_cpu_bind(&W.st[a->pe]);
    a->fn(a->pe);
    return NULL;
}
static void run_all(pe_fn fn) {
    pthread_t t[MAXPE];
    struct run_arg a[MAXPE];
    for (int pe = 0; pe < W.n; ++pe) {
        a[pe].pe = pe;
        a[pe].fn = fn;
        ck_assert_int_eq(pthread_create(&t[pe], NULL, run_one, &a[pe]), 0);
    }
    for (int pe = 0; pe < W.n; ++pe)
        pthread_join(t[pe], NULL);
}

/* A symmetric address (as PE `pe` sees it) of offset `off`. */
#define SYM(pe, off) ((void *)(W.heap[pe] + (off)))

START_TEST(test_translate) {
    world_init(3);
    shmemi_dev_cpu_bind(&W.st[1]);
    ck_assert_int_eq(shmemi_dev_my_pe(), 1);
    ck_assert_int_eq(shmemi_dev_n_pes(), 3);
    ck_assert_ptr_eq(shmemi_dev_ptr(SYM(1, 100), 2), W.heap[2] + 100);
    ck_assert_ptr_eq(shmemi_dev_ptr(SYM(1, 100), 1), W.heap[1] + 100);
    ck_assert_ptr_null(shmemi_dev_ptr(SYM(1, 100), 3));
    ck_assert_ptr_null(shmemi_dev_ptr(SYM(1, 100), -1));
    ck_assert_ptr_null(shmemi_dev_ptr(W.heap[1] + USER + SHMEMI_DEV_CTL_SIZE, 0));
    ck_assert_ptr_null(shmemi_dev_ptr(W.heap[1] - 1, 0));
    world_fini();
}
END_TEST

START_TEST(test_copies) {
    world_init(2);
    shmemi_dev_cpu_bind(&W.st[0]);
    unsigned char *src = (unsigned char *)SYM(0, 0);
    for (int i = 0; i < 4096; ++i)
        src[i] = (unsigned char)(i * 7 + 3);
    /* Every (dest, source) misalignment, odd lengths, thread-scope and split
     * over "threads" (rank, nthr) as the group forms do. */
    for (int d = 0; d < 16; ++d)
        for (int s = 0; s < 16; ++s)
            for (unsigned nthr = 1; nthr <= 5; nthr += 2) {
                size_t len = 300 + (size_t)(d * 16 + s);
                size_t off = 8192 + 64;
                memset(W.heap[1] + off - 64, 0, 2048);
                for (unsigned r = 0; r < nthr; ++r)
                    shmemi_dev_copy_par(W.heap[1] + off + d, src + s, len, r, nthr);
                for (size_t i = 0; i < len; ++i)
                    ck_assert_uint_eq((unsigned char)W.heap[1][off + d + i], src[s + i]);
                ck_assert_uint_eq((unsigned char)W.heap[1][off + d + len], 0);
                ck_assert_uint_eq((unsigned char)W.heap[1][off + d - 1], 0);
            }
    /* Typed shapes. */
    int *a = (int *)SYM(0, 65536);
    for (int i = 0; i < 10; ++i)
        a[i] = i + 1;
    shmemi_dev_int_put(a + 100, a, 10, 1);
    shmemi_dev_int_iput(a + 200, a, 3, 2, 4, 1); /* a[0,2,4,6] -> [200,203,206,209] */
    shmemi_dev_int_p(a + 300, 42, 1);
    int *b = (int *)(W.heap[1] + 65536);
    for (int i = 0; i < 10; ++i)
        ck_assert_int_eq(b[100 + i], i + 1);
    for (int i = 0; i < 4; ++i)
        ck_assert_int_eq(b[200 + 3 * i], 2 * i + 1);
    ck_assert_int_eq(b[300], 42);
    ck_assert_int_eq(shmemi_dev_int_g(a + 300, 1), 42);
    int got[4];
    shmemi_dev_int_iget(got, a + 100, 1, 3, 4, 1);
    for (int i = 0; i < 4; ++i)
        ck_assert_int_eq(got[i], 3 * i + 1);
    world_fini();
}
END_TEST

START_TEST(test_amo_values) {
    world_init(2);
    shmemi_dev_cpu_bind(&W.st[0]);
    long *w = (long *)SYM(0, 128);
    long *rw = (long *)(W.heap[1] + 128);
    shmemi_dev_long_atomic_set(w, 1, 1);
    ck_assert_int_eq(*rw, 1);
    ck_assert_int_eq(shmemi_dev_long_atomic_compare_swap(w, 1, 7, 1), 1);
    ck_assert_int_eq(shmemi_dev_long_atomic_compare_swap(w, 1, 8, 1), 7);
    ck_assert_int_eq(shmemi_dev_long_atomic_fetch_inc(w, 1), 7);
    ck_assert_int_eq(shmemi_dev_long_atomic_fetch_add(w, -10, 1), 8);
    ck_assert_int_eq(shmemi_dev_long_atomic_fetch(w, 1), -2);
    ck_assert_int_eq(shmemi_dev_long_atomic_swap(w, 5, 1), -2);
    unsigned int *u = (unsigned int *)SYM(0, 256);
    shmemi_dev_uint_atomic_set(u, 0xF0, 1);
    ck_assert_uint_eq(shmemi_dev_uint_atomic_fetch_and(u, 0x3C, 1), 0xF0);
    shmemi_dev_uint_atomic_or(u, 0x5, 1);
    ck_assert_uint_eq(shmemi_dev_uint_atomic_fetch_xor(u, 0xFF, 1), 0x35);
    ck_assert_uint_eq(shmemi_dev_uint_atomic_fetch(u, 1), 0xCA);
    double *f = (double *)SYM(0, 512);
    shmemi_dev_double_atomic_set(f, 2.5, 1);
    ck_assert(shmemi_dev_double_atomic_swap(f, -1.25, 1) == 2.5);
    ck_assert(shmemi_dev_double_atomic_fetch(f, 1) == -1.25);
    float *g = (float *)SYM(0, 520);
    float fetched = 0;
    shmemi_dev_float_atomic_set(g, 3.5f, 1);
    shmemi_dev_float_atomic_fetch_nbi(&fetched, g, 1);
    ck_assert(fetched == 3.5f);
    world_fini();
}
END_TEST

#define CONTEND_ITERS 20000
static void contend(int pe) {
    (void)pe;
    for (int i = 0; i < CONTEND_ITERS; ++i)
        for (int t = 0; t < W.n; ++t) {
            shmemi_dev_ulonglong_atomic_add((unsigned long long *)SYM(pe, 64), 3, t);
            (void)shmemi_dev_int_atomic_fetch_inc((int *)SYM(pe, 72), t);
        }
}
START_TEST(test_amo_contention) {
    world_init(4);
    run_all(contend);
    for (int pe = 0; pe < 4; ++pe) {
        ck_assert_uint_eq(*(unsigned long long *)(W.heap[pe] + 64), 3ull * CONTEND_ITERS * 4);
        ck_assert_int_eq(*(int *)(W.heap[pe] + 72), CONTEND_ITERS * 4);
    }
    world_fini();
}
END_TEST

/* PE 0 publishes data then signals; PE 1 waits with the wait/test forms. */
static void waits(int pe) {
    long *iv = (long *)SYM(pe, 4096);
    uint64_t *sig = (uint64_t *)SYM(pe, 8192);
    int *data = (int *)SYM(pe, 16384);
    if (pe == 0) {
        for (int r = 1; r <= 200; ++r) {
            int buf[256];
            for (int i = 0; i < 256; ++i)
                buf[i] = r * 1000 + i;
            /* Wait for PE 1 to have checked the previous round. */
            shmemi_dev_uint64_wait_until(sig + 8, SHMEM_CMP_GE, (uint64_t)(r - 1));
            memcpy(SYM(0, 32768), buf, sizeof buf);
            shmemi_dev_putmem_signal(data, SYM(0, 32768), sizeof buf, sig, 1, SHMEM_SIGNAL_ADD, 1);
        }
        shmemi_dev_long_p(&iv[2], 1, 1);
        shmemi_dev_quiet();
        shmemi_dev_long_wait_until((long *)SYM(0, 4096 + 64), SHMEM_CMP_EQ, 1);
        for (int i = 0; i < 4; ++i)
            shmemi_dev_long_atomic_set(&iv[i], 1, 1);
    } else if (pe == 1) {
        for (int r = 1; r <= 200; ++r) {
            uint64_t v = shmemi_dev_signal_wait_until(sig, SHMEM_CMP_GE, (uint64_t)r);
            ck_assert_uint_ge(v, (uint64_t)r);
            for (int i = 0; i < 256; ++i)
                ck_assert_int_eq(data[i], r * 1000 + i);
            shmemi_dev_uint64_atomic_add(sig + 8, 1, 0);
        }
        size_t idx[4];
        int status[4] = {0, 0, 1, 0};
        ck_assert_uint_eq(shmemi_dev_long_wait_until_any(iv, 4, NULL, SHMEM_CMP_EQ, 1), 2);
        ck_assert_uint_eq(shmemi_dev_long_test_some(iv, 4, idx, NULL, SHMEM_CMP_EQ, 1), 1);
        ck_assert_uint_eq(idx[0], 2);
        ck_assert_int_eq(shmemi_dev_long_test_all(iv, 4, NULL, SHMEM_CMP_EQ, 1), 0);
        ck_assert_uint_eq(shmemi_dev_long_test_any(iv, 4, status, SHMEM_CMP_EQ, 1), SIZE_MAX);
        shmemi_dev_long_p((long *)SYM(1, 4096 + 64), 1, 0);
        shmemi_dev_long_wait_until_all(iv, 4, NULL, SHMEM_CMP_EQ, 1);
        ck_assert_uint_eq(shmemi_dev_long_wait_until_some(iv, 4, idx, status, SHMEM_CMP_EQ, 1), 3);
        ck_assert_uint_eq(idx[0] + 10 * idx[1] + 100 * idx[2], 310);
        long cmpv[4] = {1, 1, 1, 2};
        ck_assert_uint_eq(shmemi_dev_long_test_any_vector(iv, 4, NULL, SHMEM_CMP_EQ, cmpv), 0);
        ck_assert_int_eq(shmemi_dev_long_test_all_vector(iv, 4, NULL, SHMEM_CMP_LE, cmpv), 1);
        ck_assert_int_eq(shmemi_dev_signal_fetch(sig) >= 200, 1);
    }
}
START_TEST(test_waits) {
    world_init(2);
    run_all(waits);
    world_fini();
}
END_TEST

#define BARRIER_ITERS 2000
static int barrier_errors;
static void barriers(int pe) {
    int *slots = (int *)SYM(pe, 0);
    for (int it = 1; it <= BARRIER_ITERS; ++it) {
        for (int t = 0; t < W.n; ++t)
            shmemi_dev_int_p(&slots[pe], it, t);
        if (it & 1)
            shmemi_dev_barrier_all();
        else
            shmemi_dev_barrier_all_wg(); /* a workgroup of one thread on the CPU */
        for (int t = 0; t < W.n; ++t)
            if (__atomic_load_n(&slots[t], __ATOMIC_RELAXED) != it)
                __atomic_fetch_add(&barrier_errors, 1, __ATOMIC_RELAXED);
        if (it & 1)
            shmemi_dev_sync_all();
        else
            shmemi_dev_sync_all_wg();
    }
}
START_TEST(test_barrier) {
    for (int n = 1; n <= 5; ++n) { /* powers of two and not */
        world_init(n);
        barrier_errors = 0;
        run_all(barriers);
        ck_assert_int_eq(barrier_errors, 0);
        ck_assert_uint_eq(W.st[0].ctl->epoch.v, 2 * BARRIER_ITERS);
        world_fini();
    }
}
END_TEST

static int coll_errors;
static void colls(int pe) {
    char *bsrc = SYM(pe, 0), *bdst = SYM(pe, 4096), *fsrc = SYM(pe, 8192), *fdst = SYM(pe, 12288);
    int *rsrc = (int *)SYM(pe, 65536), *rdst = (int *)SYM(pe, 131072);
    double *dd = (double *)SYM(pe, 196608);
    for (int rep = 0; rep < 20; ++rep) {
        int root = rep % W.n;
        for (int i = 0; i < 1000; ++i) {
            bsrc[i] = (char)(pe * 10 + i + rep);
            fsrc[i % 100] = (char)(pe + i % 100 + rep);
            rsrc[i] = pe * i + rep;
            dd[i] = 0.5 * pe + i;
        }
        shmemi_dev_broadcastmem_wg(bdst, bsrc, 1000, root);
        shmemi_dev_fcollectmem_wg(fdst, fsrc, 100);
        shmemi_dev_int_sum_reduce_wg(rdst, rsrc, 1000);
        shmemi_dev_double_sum_reduce_wg(dd, dd, 1000); /* in place */
        int n = W.n, tri = n * (n - 1) / 2;
        for (int i = 0; i < 1000; ++i) {
            coll_errors += bdst[i] != (char)(root * 10 + i + rep);
            coll_errors += rdst[i] != tri * i + n * rep;
            coll_errors += dd[i] != 0.5 * tri + (double)n * i;
        }
        for (int t = 0; t < n; ++t)
            for (int i = 0; i < 100; ++i)
                coll_errors += fdst[t * 100 + i] != (char)(t + i + rep);
        shmemi_dev_sync_all(); /* nobody rewrites sources before everyone checked */
    }
}
START_TEST(test_collectives) {
    for (int n = 1; n <= 3; ++n) {
        world_init(n);
        coll_errors = 0;
        run_all(colls);
        ck_assert_int_eq(coll_errors, 0);
        world_fini();
    }
}
END_TEST

/* The device-side enqueue on the CPU (a wave of one lane) against the soft engine. */
#define RING_BYTES 4096

/* A queue on a ring the test owns, as GPU producers would share it: words[0] rptr,
 * [8] wptr, [16] doorbell, [24] the completion index. */
static struct sdma_queue *open_caller_ring(struct sdma_engine *e, unsigned flags,
                                           volatile uint64_t *words, void **ring,
                                           struct sdma_ring_ctl **ctl) {
    struct sdma_queue *q = NULL;
    struct sdma_queue_attr a;
    *ring = aligned_alloc(4096, RING_BYTES);
    *ctl = aligned_alloc(64, sizeof **ctl);
    memset(*ring, 0, RING_BYTES);
    memset(*ctl, 0, sizeof **ctl);
    memset((void *)words, 0, 32 * sizeof *words);
    sdma_queue_attr_init(&a);
    a.ring_bytes = RING_BYTES;
    a.label = flags & SDMA_QUEUE_TAGGED ? "tagged" : "dev-api";
    a.ring = *ring;
    a.ctl = *ctl;
    a.rptr = &words[0];
    a.wptr = &words[8];
    a.doorbell = &words[16];
    a.complete = &words[24];
    a.flags = flags;
    ck_assert_int_eq(sdma_queue_open_attr(e, &a, &q), SDMA_OK);
    return q;
}
static struct sdma_ring ring_view;
static unsigned char *ring_src, *ring_dst;
static int ring_errors;
static void ring_producer(int pe) {
    for (int i = 0; i < 500; ++i) {
        size_t id = (size_t)pe * 500 + (size_t)i;
        uint64_t len = id % 13 == 0 ? 0 : 1 + id % 200;
        if (shmemi_dev_ring_copy_wave(&ring_view, (uint64_t)(uintptr_t)(ring_dst + id * 256),
                                      (uint64_t)(uintptr_t)(ring_src + id * 256), len,
                                      10ull * 1000000000ull, NULL) != SDMA_OK)
            __atomic_fetch_add(&ring_errors, 1, __ATOMIC_RELAXED);
    }
}
/* The three ring tests' common part: a soft engine, a caller ring of
 * RING_BYTES, 2000 slices of 256 bytes to copy, and the check of the copied
 * bytes (slice id carries len_of(id) bytes). */
struct ring_fixture {
    struct sdma_engine *e;
    struct sdma_queue *q;
    void *ring;
    struct sdma_ring_ctl *ctl;
};
static volatile uint64_t ring_words[32] __attribute__((aligned(64)));
static void ring_fixture_open(struct ring_fixture *f, unsigned flags, unsigned mul, unsigned add) {
    char err[128];
    ck_assert_int_eq(sdma_engine_open("soft", NULL, &f->e, err, sizeof err), SDMA_OK);
    f->q = open_caller_ring(f->e, flags, ring_words, &f->ring, &f->ctl);
    ring_view = *sdma_queue_ring(f->q);
    ring_src = malloc(2000 * 256);
    ring_dst = calloc(2000, 256);
    for (size_t i = 0; i < 2000 * 256; ++i)
        ring_src[i] = (unsigned char)(i * mul + add);
    ring_errors = 0;
}
static void ring_fixture_check_close(struct ring_fixture *f, uint64_t (*len_of)(size_t)) {
    for (size_t id = 0; id < 2000; ++id) {
        uint64_t len = len_of(id);
        for (size_t k = 0; k < 256; ++k)
            ck_assert_uint_eq(ring_dst[id * 256 + k], k < len ? ring_src[id * 256 + k] : 0);
    }
    sdma_queue_close(f->q);
    sdma_engine_close(f->e);
    free(ring_dst);
    free(ring_src);
    free(f->ring);
    free(f->ctl);
}
/* Run the engine until the completion word's bits under mask read want (a
 * bounded wait), then the queue must be idle. */
static void ring_fixture_drain(struct ring_fixture *f, volatile uint64_t *word, uint64_t want,
                               uint64_t mask) {
    for (int spins = 0; (__atomic_load_n(word, __ATOMIC_ACQUIRE) & mask) != (want & mask);
         ++spins) {
        ck_assert_int_lt(spins, 20000000);
        sdma_engine_progress(f->e);
    }
    ck_assert(sdma_queue_idle(f->q));
}
static uint64_t wave_len(size_t id) { return id % 13 == 0 ? 0 : 1 + id % 200; }
static uint64_t slot_len(size_t id) { return 1 + id % 256; }

START_TEST(test_ring_copy_wave) {
    struct ring_fixture f;
    ring_fixture_open(&f, SDMA_QUEUE_GPU_PRODUCER, 31, 1); /* producers never kick */
    /* Invalid sizes are refused before anything is reserved. */
    ck_assert_int_eq(shmemi_dev_ring_copy_wave(&ring_view, 0, 0, SDMA_COPY_LINEAR_MAX + 1, 0, NULL),
                     SDMA_ERR_INVAL);
    world_init(4);
    run_all(ring_producer);
    ck_assert_int_eq(ring_errors, 0);
    ck_assert_int_eq(sdma_queue_quiet(f.q, 20.0), SDMA_OK);
    world_fini();
    ring_fixture_check_close(&f, wave_len);
}
END_TEST

/* Tagged slots (no doorbell): 4 producer threads, a ring much smaller than the traffic,
 * completion through the queue's `complete` word. */
static uint64_t tagged_end;
static void tagged_producer(int pe) {
    for (int i = 0; i < 500; ++i) {
        size_t id = (size_t)pe * 500 + (size_t)i;
        uint64_t end = 0;
        if (shmemi_dev_ring_copy_tagged(&ring_view, (uint64_t)(uintptr_t)(ring_dst + id * 256),
                                        (uint64_t)(uintptr_t)(ring_src + id * 256), 1 + id % 256,
                                        10ull * 1000000000ull, &end) != SDMA_OK)
            __atomic_fetch_add(&ring_errors, 1, __ATOMIC_RELAXED);
        shmemi_arch_max64(&tagged_end, end);
    }
}
START_TEST(test_ring_copy_tagged) {
    struct ring_fixture f;
    ring_fixture_open(&f, SDMA_QUEUE_TAGGED, 37, 3);
    /* Host producers cannot reserve on a tagged queue. */
    struct sdma_ring_slot slot;
    ck_assert_int_eq(sdma_queue_reserve(f.q, 8, &slot), SDMA_ERR_INVAL);
    ck_assert_int_eq(shmemi_dev_ring_copy_tagged(&ring_view, 0, 0, 0, 0, &slot.end),
                     SDMA_ERR_INVAL);
    world_init(4);
    tagged_end = 0;
    run_all(tagged_producer);
    ck_assert_int_eq(ring_errors, 0);
    ck_assert_uint_eq(tagged_end, 2000 * SDMA_SLOT_BYTES);
    ring_fixture_drain(&f, &ring_words[24], tagged_end, UINT64_MAX);
    world_fini();
    ring_fixture_check_close(&f, slot_len);
}
END_TEST

/* The doorbell protocol of hardware queues: each copy with its completion
 * FENCE, producers committing in turn. */
static uint64_t fenced_end;
static volatile uint64_t *fenced_word;
static void fenced_producer(int pe) {
    for (int i = 0; i < 500; ++i) {
        size_t id = (size_t)pe * 500 + (size_t)i;
        uint64_t end = 0;
        if (shmemi_dev_ring_copy_fenced(&ring_view, (uint64_t)(uintptr_t)(ring_dst + id * 256),
                                        (uint64_t)(uintptr_t)(ring_src + id * 256), 1 + id % 256,
                                        (uint64_t)(uintptr_t)fenced_word, 10ull * 1000000000ull,
                                        &end) != SDMA_OK)
            __atomic_fetch_add(&ring_errors, 1, __ATOMIC_RELAXED);
        shmemi_arch_max64(&fenced_end, end);
    }
}
START_TEST(test_ring_copy_fenced) {
    struct ring_fixture f;
    ring_fixture_open(&f, SDMA_QUEUE_GPU_PRODUCER, 41, 7);
    fenced_word = &ring_words[28];
    uint64_t end = 0;
    ck_assert_int_eq(shmemi_dev_ring_copy_fenced(&ring_view, 0, 0, 0, 0, 0, &end), SDMA_ERR_INVAL);
    world_init(4);
    fenced_end = 0;
    run_all(fenced_producer);
    ck_assert_int_eq(ring_errors, 0);
    /* 2000 copies and fences of 11 dwords, plus the NOP padding at each lap's end. */
    ck_assert_uint_ge(fenced_end, 2000 * 44);
    ck_assert_uint_lt(fenced_end, 2000 * 44 + (2000 * 44 / RING_BYTES + 1) * 44);
    /* The last FENCE stores the low 32 bits of the index past it. */
    ring_fixture_drain(&f, fenced_word, fenced_end, UINT32_MAX);
    world_fini();
    ring_fixture_check_close(&f, slot_len);
}
END_TEST

int main(void) {
    Suite *s = suite_create("dev_api");
    TCase *tc = tcase_create("core");
    SRunner *sr;
    int failed;
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_translate);
    tcase_add_test(tc, test_copies);
    tcase_add_test(tc, test_amo_values);
    tcase_add_test(tc, test_amo_contention);
    tcase_add_test(tc, test_waits);
    tcase_add_test(tc, test_barrier);
    tcase_add_test(tc, test_collectives);
    tcase_add_test(tc, test_ring_copy_wave);
    tcase_add_test(tc, test_ring_copy_tagged);
    tcase_add_test(tc, test_ring_copy_fenced);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
