/* The KFD model behaving as AMD's driver and hardware do, and the hsakmt engine on it:
 * review findings 1 (the PE's own GPU), 2 (host memory mapped for the GPU), 3 (22-bit fill
 * count) and 5 (the ring never filled to its size). Each "before" case reproduces what the
 * engine did before its fix and shows the model failing it as the hardware would. */
#include "kfd_test.h"

/* ------------------------------------------------------------------ the model itself */

START_TEST(test_copy_fence) {
    struct sdma_engine *e = kt_engine(NULL, 0);
    struct sdma_queue *q;
    char *a = kt_pages(1 << 20, 0x5A), *b = kt_pages(1 << 20, 0);
    struct kfdm_stats s;
    ck_assert_ptr_nonnull(strstr(sdma_engine_target(e), "gfx90a"));
    ck_assert_int_eq(sdma_queue_open(e, 1 << 16, "t", &q), SDMA_OK);
    ck_assert_int_eq(sdma_engine_map(e, a, 1 << 20), SDMA_OK);
    ck_assert_int_eq(sdma_engine_map(e, b, 1 << 20), SDMA_OK);
    ck_assert_int_eq(sdma_engine_map(e, b + 100, 50), SDMA_OK); /* covered already */
    ck_assert_int_eq(sdma_copy(q, b, a, 1 << 20), SDMA_OK);
    ck_assert_int_eq(sdma_queue_quiet(q, 10.0), SDMA_OK);
    ck_assert_int_eq(memcmp(a, b, 1 << 20), 0);
    s = kt_stats();
    ck_assert_uint_ge(s.packets, 2);
    ck_assert_uint_ge(s.doorbells, 1);
    ck_assert_uint_eq(s.bytes, 1 << 20);
    ck_assert_uint_eq(s.faults, 0);
    sdma_queue_close(q);
    sdma_engine_close(e);
    free(a);
    free(b);
}
END_TEST

/* The write pointer in memory does not start a queue; the doorbell store does. */
START_TEST(test_doorbell_starts_queue) {
    struct kt_raw r;
    HsaMemFlags f;
    HsaQueueResource res;
    uint32_t *unmapped = NULL;
    kt_raw_setup(&r, 1);
    memset(&f, 0, sizeof f);
    f.ui32.HostAccess = 1;
    /* A ring not mapped for the GPU: KFD refuses it (kfd_queue_buffer_get). */
    ck_assert_int_eq(hsaKmtAllocMemory(1, 4096, f, (void **)&unmapped), HSAKMT_STATUS_SUCCESS);
    ck_assert_int_ne(hsaKmtCreateQueue(1, HSA_QUEUE_SDMA, 100, HSA_QUEUE_PRIORITY_MAXIMUM, unmapped,
                                       4096, NULL, &res),
                     HSAKMT_STATUS_SUCCESS);
    /* A ring size KFD does not take. */
    ck_assert_int_ne(hsaKmtCreateQueue(1, HSA_QUEUE_SDMA, 100, HSA_QUEUE_PRIORITY_MAXIMUM, r.ring,
                                       3000, NULL, &res),
                     HSAKMT_STATUS_SUCCESS);
    kt_raw_queue(&r);
    ck_assert_uint_eq(*r.res.Queue_write_ptr_aql, 0);
    sdma_pkt_fence(r.ring, (uintptr_t)r.word, 77);
    __atomic_store_n(r.res.Queue_write_ptr_aql, 16, __ATOMIC_RELEASE);
    kt_sleep_ms(200);
    ck_assert_uint_eq(*r.word, 0); /* wptr alone: nothing */
    kt_raw_publish(&r, 16);
    ck_assert_uint_eq(kt_wait_word(r.word, 77), 77);
    ck_assert_uint_eq(*r.res.Queue_read_ptr_aql, 16);
    ck_assert_int_eq(hsaKmtDestroyQueue(r.res.QueueId), HSAKMT_STATUS_SUCCESS);
}
END_TEST

/* ------------------------------------------------------------------ finding 1 */

/* A PE's device memory is mapped for its own GPU only. The engine used to open its queues on
 * the first GPU node whatever the PE's GPU: the packets fault there. By PCI location the
 * queues are on the PE's GPU. */
START_TEST(test_f1_queue_on_the_pes_gpu) {
    HsaMemFlags f;
    char *vram = NULL, *host = kt_pages(65536, 0x11), msg[512];
    struct sdma_engine *before, *after;
    struct sdma_queue *q;
    double t0;
    memset(&f, 0, sizeof f);
    f.ui32.NonPaged = 1; /* on a GPU node: its VRAM */
    f.ui32.HostAccess = 1;
    ck_assert_int_eq(hsaKmtOpenKFD(), HSAKMT_STATUS_SUCCESS);
    {
        HsaSystemProperties sys;
        HsaPointerInfo pi;
        ck_assert_int_eq(hsaKmtAcquireSystemProperties(&sys), HSAKMT_STATUS_SUCCESS);
        ck_assert_int_eq(hsaKmtAllocMemory(2, 65536, f, (void **)&vram), HSAKMT_STATUS_SUCCESS);
        ck_assert_int_eq(hsaKmtMapMemoryToGPU(vram, 65536, NULL), HSAKMT_STATUS_SUCCESS);
        ck_assert_int_eq(hsaKmtQueryPointerInfo(vram, &pi), HSAKMT_STATUS_SUCCESS);
        ck_assert_uint_eq(pi.NMappedNodes, 1);
        ck_assert_uint_eq(pi.MappedNodes[0], 2);
    }

    /* Before: cfg.gpu never set, no PCI location: the first GPU node (gfx90a, node 1). */
    before = kt_engine(NULL, 0);
    ck_assert_ptr_nonnull(strstr(sdma_engine_target(before), "node 1"));
    ck_assert_int_eq(sdma_queue_open(before, 1 << 16, "before", &q), SDMA_OK);
    ck_assert_int_eq(sdma_engine_map(before, host, 65536), SDMA_OK);
    ck_assert_int_eq(sdma_engine_reaches(before, vram, 65536), 0);
    {
        uint32_t dw[SDMA_COPY_LINEAR_DW];
        sdma_pkt_copy_linear(dw, (uintptr_t)vram, (uintptr_t)host, 65536);
        kt_raw(q, dw, SDMA_COPY_LINEAR_DW);
    }
    t0 = kt_now();
    ck_assert_int_eq(sdma_queue_quiet(q, 60.0), SDMA_ERR_QUEUE);
    ck_assert_double_lt(kt_now() - t0, 10.0); /* reported at once, not a timeout */
    ck_assert(sdma_queue_error(q, msg, sizeof msg));
    ck_assert_msg(strstr(msg, "memory access fault") && strstr(msg, "GPU node 1"), "%s", msg);
    {
        char want[32];
        snprintf(want, sizeof want, "0x%llx", (unsigned long long)(uintptr_t)vram);
        ck_assert_msg(strstr(msg, want), "%s lacks %s", msg, want);
    }
    sdma_queue_close(q);
    sdma_engine_close(before);

    /* After: the PE's GPU by PCI location. */
    after = kt_engine(GFX942_PCI, 0);
    ck_assert_ptr_nonnull(strstr(sdma_engine_target(after), "node 2 (gfx942, 0000:a9:00.0)"));
    ck_assert_int_eq(sdma_queue_open(after, 1 << 16, "after", &q), SDMA_OK);
    ck_assert_int_eq(sdma_engine_map(after, host, 65536), SDMA_OK);
    ck_assert_int_eq(sdma_engine_reaches(after, vram, 65536), 1);
    ck_assert_int_eq(sdma_copy(q, vram, host, 65536), SDMA_OK);
    ck_assert_int_eq(sdma_queue_quiet(q, 10.0), SDMA_OK);
    ck_assert_int_eq(memcmp(vram, host, 65536), 0);
    sdma_queue_close(q);
    sdma_engine_close(after);
    free(host);
}
END_TEST

/* Without a PCI location (no HIP): the index counts the GPUs ROCR_VISIBLE_DEVICES and
 * HIP_VISIBLE_DEVICES leave, as ROCr and HIP number them; a bad location is an error. */
START_TEST(test_f1_visible_devices) {
    struct sdma_engine_config cfg;
    struct sdma_engine *e = NULL;
    char err[512];
    memset(&cfg, 0, sizeof cfg);
    setenv("ROCR_VISIBLE_DEVICES", "1", 1);
    ck_assert_int_eq(sdma_engine_open("hsakmt", &cfg, &e, err, sizeof err), SDMA_OK);
    ck_assert_msg(strstr(sdma_engine_target(e), "node 2"), "%s", sdma_engine_target(e));
    sdma_engine_close(e);
    setenv("ROCR_VISIBLE_DEVICES", "1,0", 1);
    setenv("HIP_VISIBLE_DEVICES", "1", 1);
    ck_assert_int_eq(sdma_engine_open("hsakmt", &cfg, &e, err, sizeof err), SDMA_OK);
    ck_assert_msg(strstr(sdma_engine_target(e), "node 1"), "%s", sdma_engine_target(e));
    sdma_engine_close(e);
    unsetenv("HIP_VISIBLE_DEVICES");
    setenv("ROCR_VISIBLE_DEVICES", "GPU-1a2b3c4d00000002", 1);
    cfg.gpu = 5; /* modulo the one visible GPU */
    ck_assert_int_eq(sdma_engine_open("hsakmt", &cfg, &e, err, sizeof err), SDMA_OK);
    ck_assert_msg(strstr(sdma_engine_target(e), "node 2"), "%s", sdma_engine_target(e));
    sdma_engine_close(e);
    unsetenv("ROCR_VISIBLE_DEVICES");
    ck_assert_int_eq(sdma_config_set_pci(&cfg, "0000:77:00.0"), SDMA_OK);
    ck_assert_int_eq(sdma_engine_open("hsakmt", &cfg, &e, err, sizeof err), SDMA_ERR_UNAVAILABLE);
    ck_assert_msg(strstr(err, "no KFD GPU node at PCI 0000:77:00.0"), "%s", err);
    ck_assert_int_eq(sdma_config_set_pci(&cfg, "a9:00.0"), SDMA_OK);
    ck_assert_uint_eq(cfg.pci_bdf, 0xa9u << 8);
    ck_assert_int_eq(sdma_config_set_pci(&cfg, "0000:a9:20.0"), SDMA_ERR_INVAL);
    ck_assert_int_eq(sdma_config_set_pci(&cfg, "nonsense"), SDMA_ERR_INVAL);
}
END_TEST

/* ------------------------------------------------------------------ finding 2 */

/* Host memory the driver does not know faults the queue: the engine used to hand any
 * pointer to the hardware. Now the convenience calls refuse it (nothing queued, the caller
 * copies) until it is mapped. */
START_TEST(test_f2_host_memory_mapped) {
    struct sdma_engine *e = kt_engine(NULL, 0);
    struct sdma_queue *q;
    char *src = kt_pages(8192, 0x77), *dst = kt_pages(8192, 0), msg[512];
    uint32_t dw[SDMA_COPY_LINEAR_DW];
    char want[32];
    ck_assert_int_eq(sdma_queue_open(e, 1 << 16, "t", &q), SDMA_OK);
    ck_assert_int_eq(sdma_engine_map(e, dst, 8192), SDMA_OK);
    /* After: refused before anything is queued. */
    ck_assert_int_eq(sdma_engine_reaches(e, src, 8192), 0);
    ck_assert_int_eq(sdma_copy(q, dst, src, 8192), SDMA_ERR_UNMAPPED);
    ck_assert_ptr_nonnull(strstr(sdma_last_error(), "not mapped for the copy engine"));
    ck_assert_int_eq(sdma_queue_quiet(q, 10.0), SDMA_OK);
    ck_assert_int_eq(sdma_engine_map(e, src, 8192), SDMA_OK);
    ck_assert_int_eq(sdma_copy(q, dst, src, 8192), SDMA_OK);
    ck_assert_int_eq(sdma_queue_quiet(q, 10.0), SDMA_OK);
    ck_assert_int_eq(memcmp(src, dst, 8192), 0);
    /* Before: an unregistered buffer in a packet is a GPU VM fault at its address. */
    sdma_engine_unmap(e, src);
    ck_assert_int_eq(sdma_engine_reaches(e, src, 8192), 0);
    sdma_pkt_copy_linear(dw, (uintptr_t)dst, (uintptr_t)src, 8192);
    kt_raw(q, dw, SDMA_COPY_LINEAR_DW);
    ck_assert_int_eq(sdma_queue_quiet(q, 60.0), SDMA_ERR_QUEUE);
    ck_assert(sdma_queue_error(q, msg, sizeof msg));
    snprintf(want, sizeof want, "0x%llx", (unsigned long long)(uintptr_t)src);
    ck_assert_msg(strstr(msg, want), "%s lacks %s", msg, want);
    ck_assert_uint_eq(kt_stats().faults, 1);
    sdma_queue_close(q);
    sdma_engine_close(e);
    free(src);
    free(dst);
}
END_TEST

/* Memory someone else mapped (e.g. the GPU runtime's, on a shared libhsakmt) is reachable
 * without registering it again; unmapping ours never touches theirs. */
START_TEST(test_f2_foreign_mapping) {
    struct sdma_engine *e = kt_engine(NULL, 0);
    char *p = kt_pages(16384, 1);
    HSAuint32 node = 1;
    HsaMemMapFlags mf;
    HsaPointerInfo pi;
    memset(&mf, 0, sizeof mf);
    ck_assert_int_eq(hsaKmtRegisterMemoryToNodes(p, 16384, 1, &node), HSAKMT_STATUS_SUCCESS);
    ck_assert_int_eq(hsaKmtMapMemoryToGPUNodes(p, 16384, NULL, mf, 1, &node),
                     HSAKMT_STATUS_SUCCESS);
    ck_assert_int_eq(sdma_engine_reaches(e, p + 100, 1000), 1);
    ck_assert_int_eq(sdma_engine_map(e, p, 16384), SDMA_OK); /* no second registration */
    sdma_engine_unmap(e, p);
    ck_assert_int_eq(hsaKmtQueryPointerInfo(p, &pi), HSAKMT_STATUS_SUCCESS);
    ck_assert_uint_eq(pi.NMappedNodes, 1);
    ck_assert_int_eq(sdma_engine_declare(e, (void *)0x7f0000000000ull, 4096, 1), SDMA_OK);
    ck_assert_int_eq(sdma_engine_reaches(e, (void *)0x7f0000000100ull, 16), 1);
    sdma_engine_close(e);
    /* Unmapped memory cannot be registered. */
    ck_assert_int_eq(hsaKmtOpenKFD(), HSAKMT_STATUS_SUCCESS);
    ck_assert_int_ne(hsaKmtRegisterMemoryToNodes((void *)0x10000, 4096, 1, &node),
                     HSAKMT_STATUS_SUCCESS);
    free(p);
}
END_TEST

/* ------------------------------------------------------------------ finding 3 */

/* CONST_FILL's count is 22 bits on SDMA 4.x: a bigger count loses its high bits. The layer
 * used to write fills in 1 GiB packets; an 8 MiB fill then filled 4 MiB. */
START_TEST(test_f3_fill_count) {
    const size_t big = 8u << 20;
    struct sdma_engine *e = kt_engine(NULL, 0);
    struct sdma_queue *q;
    uint32_t *buf = kt_pages(big, 0), dw[SDMA_CONST_FILL_DW];
    size_t i, bad = 0;
    ck_assert_int_eq(sdma_queue_open(e, 1 << 16, "t", &q), SDMA_OK);
    ck_assert_int_eq(sdma_engine_map(e, buf, big), SDMA_OK);
    /* Before: one packet for 8 MiB, count big - 1 in the dword. */
    dw[0] = SDMA_HDR(SDMA_OP_CONST_FILL, 0) | (SDMA_FILL_DWORD << 30);
    dw[1] = (uint32_t)(uintptr_t)buf;
    dw[2] = (uint32_t)((uintptr_t)buf >> 32);
    dw[3] = 0xC0FFEE00u;
    dw[4] = (uint32_t)big - 1;
    kt_raw(q, dw, SDMA_CONST_FILL_DW);
    ck_assert_int_eq(sdma_queue_quiet(q, 10.0), SDMA_OK);
    for (i = 0; i < big / 4; i++)
        bad += buf[i] != 0xC0FFEE00u;
    ck_assert_uint_eq(bad, big / 4 - (((big - 1) & 0x3FFFFF) + 1) / 4); /* 4 MiB unfilled */
    /* After: packets of at most 0x3FFFE0 bytes. */
    ck_assert_int_eq(sdma_const_fill(q, buf, 0x600DF111u, big), SDMA_OK);
    ck_assert_int_eq(sdma_queue_quiet(q, 10.0), SDMA_OK);
    for (i = 0, bad = 0; i < big / 4; i++)
        bad += buf[i] != 0x600DF111u;
    ck_assert_uint_eq(bad, 0);
    sdma_queue_close(q);
    sdma_engine_close(e);
    free(buf);
}
END_TEST

/* ------------------------------------------------------------------ finding 5 */

/* A ring filled to exactly its size reads as empty to an engine comparing offsets: the
 * queue idles with work published. The reservation used to allow it; now the write index
 * stays strictly below a ring ahead. */
START_TEST(test_f5_full_ring) {
    struct kt_raw r;
    kt_raw_setup(&r, 1);
    kt_raw_queue(&r);
    /* Before: 4096 bytes published at once (zero NOPs, then a FENCE as the last packet). */
    sdma_pkt_nop_zero(r.ring, 1020);
    sdma_pkt_fence(r.ring + 1020, (uintptr_t)r.word, 1);
    kt_raw_publish(&r, 4096);
    kt_sleep_ms(300);
    ck_assert_uint_eq(__atomic_load_n(r.word, __ATOMIC_ACQUIRE), 0);
    ck_assert_uint_eq(*r.res.Queue_read_ptr_aql, 0);
    ck_assert_uint_eq(kt_stats().full_stalls, 1);
    ck_assert_int_eq(hsaKmtDestroyQueue(r.res.QueueId), HSAKMT_STATUS_SUCCESS);
    /* After: one dword short of the ring; it runs. */
    kt_raw_queue(&r);
    sdma_pkt_nop_zero(r.ring, 1019);
    sdma_pkt_fence(r.ring + 1019, (uintptr_t)r.word, 2);
    kt_raw_publish(&r, 4092);
    ck_assert_uint_eq(kt_wait_word(r.word, 2), 2);
    ck_assert_int_eq(hsaKmtDestroyQueue(r.res.QueueId), HSAKMT_STATUS_SUCCESS);
}
END_TEST

/* Through the engine: a queue blocked on a gate fills until the layer refuses, and the
 * write index never reaches a ring ahead; opening the gate completes everything. */
START_TEST(test_f5_engine_never_fills) {
    struct sdma_engine *e = kt_engine(NULL, 0);
    struct sdma_queue *q;
    uint32_t *gate = kt_pages(4096, 0), *out = gate + 64;
    struct sdma_ring_slot s;
    const struct sdma_ring *r;
    int n = 0;
    ck_assert_int_eq(sdma_queue_open(e, 4096, "t", &q), SDMA_OK);
    ck_assert_int_eq(sdma_engine_map(e, gate, 4096), SDMA_OK);
    ck_assert_int_eq(sdma_poll(q, gate, 1, 0xFFFFFFFFu, SDMA_POLL_GE), SDMA_OK);
    while (sdma_queue_reserve(q, SDMA_FENCE_DW, &s) == SDMA_OK) {
        sdma_pkt_fence(s.dw, (uintptr_t)out, (uint32_t)++n);
        sdma_queue_commit(q, &s);
    }
    r = sdma_queue_ring(q);
    ck_assert_uint_lt(*r->wptr - *r->rptr, r->size);
    ck_assert_int_ge(n, 200);
    __atomic_store_n(gate, 1, __ATOMIC_RELEASE);
    ck_assert_int_eq(sdma_queue_quiet(q, 10.0), SDMA_OK);
    ck_assert_uint_eq(*out, (uint32_t)n);
    ck_assert_uint_eq(kt_stats().full_stalls, 0);
    sdma_queue_close(q);
    sdma_engine_close(e);
    free(gate);
}
END_TEST

int main(void) {
    Suite *s = suite_create("kfd_model");
    TCase *tc = tcase_create("model");
    SRunner *sr;
    int failed;
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_copy_fence);
    tcase_add_test(tc, test_doorbell_starts_queue);
    tcase_add_test(tc, test_f1_queue_on_the_pes_gpu);
    tcase_add_test(tc, test_f1_visible_devices);
    tcase_add_test(tc, test_f2_host_memory_mapped);
    tcase_add_test(tc, test_f2_foreign_mapping);
    tcase_add_test(tc, test_f3_fill_count);
    tcase_add_test(tc, test_f5_full_ring);
    tcase_add_test(tc, test_f5_engine_never_fills);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
