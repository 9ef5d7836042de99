/* The hsakmt engine on the KFD model, review findings 7 (LARGE sub-window on SDMA 4.4),
 * 8 (sub-window dword rules), 12 (faults reported at once), 4a (the thunk's shared state),
 * 6 (ring placement), 10 (PCIe atomics), 11 (gfx10+ refused) and the queue budget. Each
 * "before" case reproduces the old engine's packets or calls. */
#include "kfd_test.h"

/* ------------------------------------------------------------------ finding 7 */

/* A queue on e, with a and b (n bytes each) mapped for its GPU. */
static struct sdma_queue *mapped_queue(struct sdma_engine *e, void *a, void *b, size_t n) {
    struct sdma_queue *q = NULL;
    ck_assert_int_eq(sdma_queue_open(e, 1 << 16, "t", &q), SDMA_OK);
    ck_assert_int_eq(sdma_engine_map(e, a, n), SDMA_OK);
    ck_assert_int_eq(sdma_engine_map(e, b, n), SDMA_OK);
    return q;
}

/* LINEAR_SUB_WINDOW_LARGE is not an SDMA 4.4 packet: the engine used it by default on
 * gfx94x and the queue stopped there (a quiet that never ends). The default is now the
 * 13-dword sub-window on every gfx9; LARGE only on request. */
START_TEST(test_f7_large_subwindow) {
    enum { W = 96, H = 40, P = 128 };
    struct sdma_engine *before = kt_engine(GFX942_PCI, SDMA_COPY_2D_LARGE), *after;
    struct sdma_queue *q;
    char *src = kt_pages(P * H, 0), *dst = kt_pages(P * H, 0), msg[512];
    int i;
    for (i = 0; i < P * H; i++)
        src[i] = (char)(i * 7 + 1);
    ck_assert_int_eq(sdma_engine_copy_2d_format(before), SDMA_COPY_2D_LARGE);
    q = mapped_queue(before, src, dst, P * H);
    ck_assert_int_eq(sdma_copy_2d(q, dst, P, src, P, W, H), SDMA_OK);
    ck_assert_int_eq(sdma_queue_quiet(q, 1.0), SDMA_ERR_TIMEOUT);
    ck_assert_msg(strstr(sdma_last_error(), "packet header 0x00002401"), "%s", sdma_last_error());
    ck_assert_uint_eq(kt_stats().illegal, 1);
    sdma_queue_close(q);
    sdma_engine_close(before);

    after = kt_engine(GFX942_PCI, SDMA_COPY_2D_AUTO);
    ck_assert_int_eq(sdma_engine_copy_2d_format(after), SDMA_COPY_2D_SW13);
    q = mapped_queue(after, src, dst, P * H);
    ck_assert_int_eq(sdma_copy_2d(q, dst, P, src, P, W, H), SDMA_OK);
    ck_assert_int_eq(sdma_queue_quiet(q, 10.0), SDMA_OK);
    for (i = 0; i < H; i++) {
        ck_assert_int_eq(memcmp(dst + i * P, src + i * P, W), 0);
        ck_assert_int_eq(dst[i * P + W], 0);
    }
    ck_assert(!sdma_queue_error(q, msg, sizeof msg));
    sdma_queue_close(q);
    sdma_engine_close(after);
    free(src);
    free(dst);
}
END_TEST

/* ------------------------------------------------------------------ finding 8 */

static void fill_pattern(char *p, size_t n) {
    size_t i;
    for (i = 0; i < n; i++)
        p[i] = (char)(i * 13 + 5);
}

/* The 13-dword sub-window needs dword-aligned bases and pitches. The encoder used to put an
 * unaligned base in the packet as it was (with 1-byte elements): the queue stops. Now bases
 * are aligned down with the remainder in x, and pitches that are not dword multiples are
 * copied row by row. */
START_TEST(test_f8_subwindow_alignment) {
    struct sdma_engine *e = kt_engine(NULL, 0);
    struct sdma_queue *q;
    char *src = kt_pages(1 << 16, 0), *dst = kt_pages(1 << 16, 0), *ref = kt_pages(1 << 16, 0);
    uint32_t dw[SDMA_COPY_2D_SW13_DW];
    struct {
        size_t soff, doff, sp, dp, w, h;
    } cases[] = {
        {1, 3, 40, 44, 33, 17}, /* unaligned bases, dword pitches: one packet, x remainders */
        {2, 2, 64, 64, 60, 9},  /* 2-byte elements */
        {1, 0, 37, 41, 30, 11}, /* pitches not dword multiples: rows */
        {3, 1, 40, 40, 39, 5},  /* a row past its pitch after the remainder: rows */
        {0, 0, 256, 512, 64, 100},
    };
    size_t c, r;
    ck_assert_int_eq(sdma_engine_copy_2d_format(e), SDMA_COPY_2D_SW13);
    ck_assert_int_eq(sdma_queue_open(e, 1 << 16, "t", &q), SDMA_OK);
    ck_assert_int_eq(sdma_engine_map(e, src, 1 << 16), SDMA_OK);
    ck_assert_int_eq(sdma_engine_map(e, dst, 1 << 16), SDMA_OK);
    fill_pattern(src, 1 << 16);
    for (c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        memset(dst, 0, 1 << 16);
        memset(ref, 0, 1 << 16);
        for (r = 0; r < cases[c].h; r++)
            memcpy(ref + cases[c].doff + r * cases[c].dp, src + cases[c].soff + r * cases[c].sp,
                   cases[c].w);
        ck_assert_int_eq(sdma_copy_2d(q, dst + cases[c].doff, cases[c].dp, src + cases[c].soff,
                                      cases[c].sp, cases[c].w, cases[c].h),
                         SDMA_OK);
        ck_assert_int_eq(sdma_queue_quiet(q, 10.0), SDMA_OK);
        ck_assert_msg(memcmp(dst, ref, 1 << 16) == 0, "case %zu", c);
    }
    ck_assert_uint_eq(kt_stats().illegal, 0);
    /* Before: the raw unaligned base, element 1 byte, x = 0. */
    dw[0] = SDMA_HDR(SDMA_OP_COPY, SDMA_SUBOP_COPY_LINEAR_SUB_WINDOW);
    dw[1] = (uint32_t)((uintptr_t)src + 1);
    dw[2] = (uint32_t)((uintptr_t)src >> 32);
    dw[3] = 0;
    dw[4] = (40u - 1) << 13;
    dw[5] = 40u * 17 - 1;
    dw[6] = (uint32_t)((uintptr_t)dst + 3);
    dw[7] = (uint32_t)((uintptr_t)dst >> 32);
    dw[8] = 0;
    dw[9] = (44u - 1) << 13;
    dw[10] = 44u * 17 - 1;
    dw[11] = (33u - 1) | ((17u - 1) << 16);
    dw[12] = 0;
    kt_raw(q, dw, SDMA_COPY_2D_SW13_DW);
    ck_assert_int_eq(sdma_queue_quiet(q, 1.0), SDMA_ERR_TIMEOUT);
    ck_assert_uint_eq(kt_stats().illegal, 1);
    sdma_queue_close(q);
    sdma_engine_close(e);
    free(src);
    free(dst);
    free(ref);
}
END_TEST

/* ------------------------------------------------------------------ finding 12 */

/* A VM fault stops the queue; the driver tells only through a memory event. Without one (the
 * engine created none) the queue just stands still: a quiet ran into its 60 s timeout. The
 * engine now watches the event: the fault is reported at once, with the address. */
START_TEST(test_f12_fault_reported) {
    struct sdma_engine *e;
    struct sdma_queue *q;
    char *good = kt_pages(4096, 0), *bad = kt_pages(4096, 0), msg[512], want[32];
    uint32_t dw[SDMA_COPY_LINEAR_DW];
    double t0;

    /* Before, on the raw thunk: a queue with no event watching. */
    {
        struct kt_raw r;
        HsaEventDescriptor ed;
        HsaEvent *late = NULL;
        char why[256];
        kt_raw_setup(&r, 1);
        kt_raw_queue(&r);
        sdma_pkt_copy_linear(r.ring, (uintptr_t)r.word, (uintptr_t)bad, 64);
        sdma_pkt_fence(r.ring + 7, (uintptr_t)r.word + 64, 1);
        kt_raw_publish(&r, 44);
        kt_sleep_ms(300);
        ck_assert_uint_eq(r.word[16], 0);                /* the fence never comes */
        ck_assert_uint_eq(*r.res.Queue_read_ptr_aql, 0); /* stopped at the copy */
        ck_assert_int_eq(kfdm_queue_stopped(r.res.QueueId, why, sizeof why), 1);
        /* An event made afterwards never hears of it. */
        memset(&ed, 0, sizeof ed);
        ed.EventType = HSA_EVENTTYPE_MEMORY;
        ed.NodeId = r.node;
        ck_assert_int_eq(hsaKmtCreateEvent(&ed, true, false, &late), 0);
        ck_assert_int_eq(hsaKmtWaitOnEvent(late, 0), HSAKMT_STATUS_WAIT_TIMEOUT);
        hsaKmtDestroyEvent(late);
        hsaKmtDestroyQueue(r.res.QueueId);
    }

    /* After: the engine (on the other GPU, whose queues the fault above left running). */
    e = kt_engine(GFX942_PCI, 0);
    ck_assert_int_eq(sdma_queue_open(e, 1 << 16, "t", &q), SDMA_OK);
    ck_assert_int_eq(sdma_engine_map(e, good, 4096), SDMA_OK);
    sdma_pkt_copy_linear(dw, (uintptr_t)good, (uintptr_t)bad, 64);
    kt_raw(q, dw, SDMA_COPY_LINEAR_DW);
    t0 = kt_now();
    ck_assert_int_eq(sdma_queue_quiet(q, 60.0), SDMA_ERR_QUEUE);
    ck_assert_double_lt(kt_now() - t0, 5.0);
    ck_assert(sdma_queue_error(q, msg, sizeof msg));
    snprintf(want, sizeof want, "0x%llx", (unsigned long long)(uintptr_t)bad);
    ck_assert_msg(strstr(msg, want) && strstr(msg, "GPU node 2") && strstr(msg, "page not present"),
                  "%s", msg);
    /* Every queue of the node stopped, later ones included; the layer says so at once. */
    {
        struct sdma_queue *q2;
        ck_assert_int_eq(sdma_queue_open(e, 1 << 16, "t2", &q2), SDMA_OK);
        ck_assert_int_eq(sdma_fence(q2, (uint32_t *)good, 1), SDMA_ERR_QUEUE);
        sdma_queue_close(q2);
    }
    sdma_queue_close(q);
    sdma_engine_close(e);
    free(good);
    free(bad);
}
END_TEST

/* ------------------------------------------------------------------ finding 4a */

/* The topology snapshot is the process's, shared by every user of the thunk (HIP's runtime
 * on a shared libhsakmt). The engine's probe used to release it: the other user's next
 * call failed. The engine now never releases it. */
START_TEST(test_f4_topology_shared) {
    HsaSystemProperties sys;
    HsaMemFlags f;
    void *p = NULL;
    struct sdma_engine *e = NULL;
    char err[512];
    memset(&f, 0, sizeof f);
    f.ui32.HostAccess = 1;
    /* The other user (HIP's runtime) opened the driver first. */
    ck_assert_int_eq(hsaKmtOpenKFD(), HSAKMT_STATUS_SUCCESS);
    ck_assert_int_eq(hsaKmtAcquireSystemProperties(&sys), 0);
    /* After: the engine opens beside it (a second open is "already opened", not an error),
     * probes, closes; the other user still works. */
    ck_assert_int_eq(sdma_engine_open("auto", NULL, &e, err, sizeof err), SDMA_OK);
    ck_assert_str_eq(sdma_engine_name(e), "hsakmt");
    sdma_engine_close(e);
    ck_assert_int_eq(hsaKmtAllocMemory(1, 4096, f, &p), HSAKMT_STATUS_SUCCESS);
    ck_assert_int_eq(hsaKmtFreeMemory(p, 4096), HSAKMT_STATUS_SUCCESS);
    /* Before: the probe's hsaKmtOpenKFD / Acquire / Release / Close. */
    ck_assert_int_eq(hsaKmtOpenKFD(), HSAKMT_STATUS_KERNEL_ALREADY_OPENED);
    ck_assert_int_eq(hsaKmtAcquireSystemProperties(&sys), 0);
    ck_assert_int_eq(hsaKmtReleaseSystemProperties(), 0);
    ck_assert_int_eq(hsaKmtCloseKFD(), 0);
    ck_assert_int_eq(hsaKmtAllocMemory(1, 4096, f, &p), HSAKMT_STATUS_INVALID_NODE_UNIT);
}
END_TEST

/* ------------------------------------------------------------------ finding 11 */

START_TEST(test_f11_gfx12_refused) {
    struct sdma_engine *e = NULL;
    char err[512];
    ck_assert_int_eq(kfdm_set_topology("gfx=gfx1201,pci=0000:03:00.0,sdma=2"), 0);
    ck_assert_int_eq(sdma_engine_open("hsakmt", NULL, &e, err, sizeof err), SDMA_ERR_UNAVAILABLE);
    ck_assert_msg(strstr(err, "gfx1201") && strstr(err, "SDMA 5 or later"), "%s", err);
    /* auto takes the soft engine instead. */
    ck_assert_int_eq(sdma_engine_open("auto", NULL, &e, err, sizeof err), SDMA_OK);
    ck_assert_str_eq(sdma_engine_name(e), "soft");
    sdma_engine_close(e);
    ck_assert_int_eq(kfdm_set_topology("gfx=9.4.2"), -1); /* fixed once opened */
}
END_TEST

START_TEST(test_no_driver) {
    struct sdma_engine *e = NULL;
    char err[512];
    setenv("KFD_MODEL_ABSENT", "1", 1);
    ck_assert_int_eq(sdma_engine_open("hsakmt", NULL, &e, err, sizeof err), SDMA_ERR_UNAVAILABLE);
    ck_assert_ptr_nonnull(strstr(err, "hsakmt"));
    ck_assert_int_eq(sdma_engine_open("auto", NULL, &e, err, sizeof err), SDMA_OK);
    ck_assert_str_eq(sdma_engine_name(e), "soft");
    sdma_engine_close(e);
}
END_TEST

/* ------------------------------------------------------------------ finding 6 */

/* Host-written rings and the words the host polls are system memory; kernel-written rings
 * the GPU's memory. Both used to be VRAM (NonPaged on the GPU node). */
START_TEST(test_f6_ring_placement) {
    struct sdma_engine *e = kt_engine(NULL, 0);
    struct sdma_queue *host, *dev;
    struct sdma_queue_attr a;
    HsaPointerInfo pi;
    ck_assert_int_eq(sdma_queue_open(e, 1 << 16, "host", &host), SDMA_OK);
    sdma_queue_attr_init(&a);
    a.ring_bytes = 1 << 16;
    a.label = "kernels";
    a.flags = SDMA_QUEUE_GPU_PRODUCER;
    ck_assert_int_eq(sdma_queue_open_attr(e, &a, &dev), SDMA_OK);
    ck_assert_int_eq(hsaKmtQueryPointerInfo(sdma_queue_ring(host)->base, &pi), 0);
    ck_assert_int_eq(pi.MemFlags.ui32.NonPaged, 0);
    ck_assert_int_eq(pi.MemFlags.ui32.Uncached, 1);
    ck_assert_int_eq(hsaKmtQueryPointerInfo(sdma_queue_ring(host)->ctl, &pi), 0);
    ck_assert_int_eq(pi.MemFlags.ui32.NonPaged, 0);
    ck_assert_int_eq(hsaKmtQueryPointerInfo(sdma_queue_ring(dev)->base, &pi), 0);
    ck_assert_int_eq(pi.MemFlags.ui32.NonPaged, 1);
    ck_assert_int_eq(pi.Node, 1);
    ck_assert_int_eq(sdma_queue_quiet(host, 10.0), SDMA_OK);
    ck_assert_int_eq(sdma_queue_quiet(dev, 10.0), SDMA_OK);
    sdma_queue_close(host);
    sdma_queue_close(dev);
    sdma_engine_close(e);
}
END_TEST

/* ------------------------------------------------------------------ finding 10 */

/* An ATOMIC on system memory needs PCIe atomics on the GPU's link to the CPU. Without them
 * it used to be sent anyway (the model faults it, as a root port without AtomicOps fails
 * it); now a SWAP becomes FENCEs (high word first) and an ADD is left to the caller. */
START_TEST(test_f10_no_pcie_atomics) {
    struct sdma_engine *e, *ok;
    struct sdma_queue *q;
    uint64_t *w;
    uint32_t dw[SDMA_ATOMIC_DW];
    char msg[512];
    ck_assert_int_eq(kfdm_set_topology("gfx=90a,pci=0000:29:00.0,atomics=1;"
                                       "gfx=942,pci=0000:a9:00.0,atomics=0"),
                     0);
    e = kt_engine(GFX942_PCI, 0);
    w = kt_pages(4096, 0);
    ck_assert_int_eq(sdma_queue_open(e, 1 << 16, "t", &q), SDMA_OK);
    ck_assert_int_eq(sdma_engine_map(e, w, 4096), SDMA_OK);
    ck_assert_int_eq(sdma_atomic(q, &w[0], SDMA_ATOMIC_SWAP64, 0x1122334455667788ull, 0), SDMA_OK);
    ck_assert_int_eq(sdma_atomic(q, &w[1], SDMA_ATOMIC_ADD64, 5, 0), SDMA_ERR_UNSUPPORTED);
    ck_assert_int_eq(sdma_queue_quiet(q, 10.0), SDMA_OK);
    ck_assert_uint_eq(w[0], 0x1122334455667788ull);
    ck_assert_uint_eq(w[1], 0);
    /* Before: the ATOMIC packet itself. */
    sdma_pkt_atomic(dw, (uintptr_t)&w[1], SDMA_ATOMIC_ADD64, 5, 0);
    kt_raw(q, dw, SDMA_ATOMIC_DW);
    ck_assert_int_eq(sdma_queue_quiet(q, 60.0), SDMA_ERR_QUEUE);
    ck_assert(sdma_queue_error(q, msg, sizeof msg));
    sdma_queue_close(q);
    sdma_engine_close(e);
    /* A link with atomics takes the packet. */
    ok = kt_engine(GFX90A_PCI, 0);
    ck_assert_int_eq(sdma_queue_open(ok, 1 << 16, "t", &q), SDMA_OK);
    ck_assert_int_eq(sdma_engine_map(ok, w, 4096), SDMA_OK);
    ck_assert_int_eq(sdma_atomic(q, &w[1], SDMA_ATOMIC_ADD64, 5, 0), SDMA_OK);
    ck_assert_int_eq(sdma_queue_quiet(q, 10.0), SDMA_OK);
    ck_assert_uint_eq(w[1], 5);
    sdma_queue_close(q);
    sdma_engine_close(ok);
    free(w);
}
END_TEST

/* ------------------------------------------------------------------ queue budget */

START_TEST(test_queue_budget) {
    struct sdma_engine *e;
    struct sdma_queue *q[3];
    ck_assert_int_eq(kfdm_set_topology("gfx=90a,pci=0000:29:00.0,sdma=1,xgmi=1,qpe=1"), 0);
    e = kt_engine(NULL, 0);
    ck_assert_int_eq(sdma_queue_open(e, 4096, "a", &q[0]), SDMA_OK); /* XGMI */
    ck_assert_int_eq(sdma_queue_open(e, 4096, "b", &q[1]), SDMA_OK); /* then PCIe */
    ck_assert_int_eq(sdma_queue_open(e, 4096, "c", &q[2]), SDMA_ERR_SYSTEM);
    ck_assert_msg(strstr(sdma_last_error(), "1 PCIe + 1 XGMI engines, 1 queues each"), "%s",
                  sdma_last_error());
    sdma_queue_close(q[0]);
    ck_assert_int_eq(sdma_queue_open(e, 4096, "c", &q[2]), SDMA_OK);
    sdma_queue_close(q[1]);
    sdma_queue_close(q[2]);
    sdma_engine_close(e);
}
END_TEST

/* Padding the ring end with zero dwords runs on firmware without burst NOPs. */
START_TEST(test_ring_wrap_any_firmware) {
    struct sdma_engine *e;
    struct sdma_queue *q;
    uint32_t *w;
    int i;
    ck_assert_int_eq(kfdm_set_topology("gfx=942,pci=0000:a9:00.0,sdma=2,burst_nop=0"), 0);
    e = kt_engine(NULL, 0);
    w = kt_pages(4096, 0);
    ck_assert_int_eq(sdma_queue_open(e, 4096, "t", &q), SDMA_OK);
    ck_assert_int_eq(sdma_engine_map(e, w, 4096), SDMA_OK);
    for (i = 1; i <= 2000; i++) { /* 7 + 4 dwords a round: wraps many times */
        ck_assert_int_eq(sdma_copy(q, w + 8, w, 16), SDMA_OK);
        ck_assert_int_eq(sdma_fence(q, w, (uint32_t)i), SDMA_OK);
    }
    ck_assert_int_eq(sdma_queue_quiet(q, 10.0), SDMA_OK);
    ck_assert_uint_eq(w[0], 2000);
    ck_assert_uint_eq(kt_stats().illegal, 0);
    sdma_queue_close(q);
    sdma_engine_close(e);
    free(w);
}
END_TEST

int main(void) {
    Suite *s = suite_create("kfd_findings");
    TCase *tc = tcase_create("findings");
    SRunner *sr;
    int failed;
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_f7_large_subwindow);
    tcase_add_test(tc, test_f8_subwindow_alignment);
    tcase_add_test(tc, test_f12_fault_reported);
    tcase_add_test(tc, test_f4_topology_shared);
    tcase_add_test(tc, test_f11_gfx12_refused);
    tcase_add_test(tc, test_no_driver);
    tcase_add_test(tc, test_f6_ring_placement);
    tcase_add_test(tc, test_f10_no_pcie_atomics);
    tcase_add_test(tc, test_queue_budget);
    tcase_add_test(tc, test_ring_wrap_any_firmware);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
