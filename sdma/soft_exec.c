/* The soft engine's packet interpreter: the same packet bytes the hardware executes,
 * with memmove for copies and C11/GCC atomics for POLL, ATOMIC and FENCE. */
#include "sdma/soft_exec.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "sdma/copy.h"
#include "sdma/packets.h"

double sdma_soft_clock(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int sdma_soft_default_check(void *arg, uint64_t addr, uint64_t len, int write) {
    (void)arg;
    (void)write;
    /* Cheap sanity only: not the null page, no wrap, canonical user half (x86-64/arm64). */
    return addr >= 4096 && addr + len >= addr && addr + len <= (1ull << 47);
}

int sdma_exec_fail(struct sdma_soft_ctx *x, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(x->msg, sizeof x->msg, fmt, ap);
    va_end(ap);
    x->poll_active = 0;
    return SDMA_EXEC_ERROR;
}

static uint64_t addr64(const uint32_t *lo) { return (uint64_t)lo[0] | ((uint64_t)lo[1] << 32); }

static int check(struct sdma_soft_ctx *x, uint64_t addr, uint64_t len, int write) {
    return x->check ? x->check(x->check_arg, addr, len, write)
                    : sdma_soft_default_check(NULL, addr, len, write);
}

static double now(struct sdma_soft_ctx *x) { return x->clock ? x->clock() : sdma_soft_clock(); }

#define NEED(n)                                                                                    \
    do {                                                                                           \
        if (avail < (n))                                                                           \
            return sdma_exec_fail(                                                                 \
                x,                                                                                 \
                "truncated packet: %zu of %u dwords before the write pointer or "                  \
                "the ring end",                                                                    \
                avail, (unsigned)(n));                                                             \
    } while (0)

/* ---- the foreign window (struct sdma_foreign): packets on it go to its callbacks ---- */

static int foreign(const struct sdma_soft_ctx *x, uint64_t addr, uint64_t len) {
    const struct sdma_foreign *f = x->foreign;
    return f && addr - f->base < f->len && len <= f->len - (addr - f->base);
}

static int foreign_fail(struct sdma_soft_ctx *x, const char *why) {
    return sdma_exec_fail(x, "%s", why);
}

/* A rectangle copy with an end in the window: row by row. */
static int foreign_copy(struct sdma_soft_ctx *x, uint64_t dst, uint64_t dpitch, uint64_t dslice,
                        uint64_t src, uint64_t spitch, uint64_t sslice, uint64_t width,
                        uint64_t rows, uint64_t depth) {
    char msg[sizeof x->msg] = "";
    for (uint64_t z = 0; z < depth; z++)
        for (uint64_t y = 0; y < rows; y++)
            if (x->foreign->copy(x->foreign->arg, dst + z * dslice + y * dpitch,
                                 src + z * sslice + y * spitch, width, msg, sizeof msg))
                return foreign_fail(x, msg);
    return SDMA_EXEC_DONE;
}

static int do_copy(struct sdma_soft_ctx *x, uint64_t dst, uint64_t dlen, uint64_t dpitch,
                   uint64_t dslice, uint64_t src, uint64_t slen, uint64_t spitch, uint64_t sslice,
                   uint64_t width, uint64_t rows, uint64_t depth) {
    if (x->foreign && (foreign(x, dst, dlen) || foreign(x, src, slen))) {
        if (x->ops != &sdma_host_exec)
            return sdma_exec_fail(x, "a copy to or from a foreign window needs the host executor");
        return foreign_copy(x, dst, dpitch, dslice, src, spitch, sslice, width, rows, depth);
    }
    return x->ops->copy(x, dst, dpitch, dslice, src, spitch, sslice, width, rows, depth);
}

/* One rectangle copy: base + x + y*pitch + z*slice, rows x depth rows of width bytes. */
struct rect {
    uint64_t base, x, y, z, pitch, slice;
};

static int span(const struct rect *r, uint64_t width, uint64_t rows, uint64_t depth,
                uint64_t *first, uint64_t *len) {
    uint64_t a, b, c, d;
    if (__builtin_mul_overflow(r->y, r->pitch, &a) || __builtin_mul_overflow(r->z, r->slice, &b) ||
        __builtin_add_overflow(a, b, &a) || __builtin_add_overflow(a, r->x, &a) ||
        __builtin_add_overflow(r->base, a, first))
        return 0;
    if (__builtin_mul_overflow(rows - 1, r->pitch, &c) ||
        __builtin_mul_overflow(depth - 1, r->slice, &d) || __builtin_add_overflow(c, d, &c) ||
        __builtin_add_overflow(c, width, len))
        return 0;
    return 1;
}

static int copy_rect(struct sdma_soft_ctx *x, const struct rect *dst, const struct rect *src,
                     uint64_t width, uint64_t rows, uint64_t depth) {
    uint64_t s0, slen, d0, dlen, plane;
    int ovf = __builtin_mul_overflow(rows - 1, dst->pitch, &plane) ||
              __builtin_add_overflow(plane, width, &plane);
    /* Destination rows and slices must not overlap: then the bytes written are bounded by
     * the checked destination span, and the result is well defined. */
    if (ovf || dst->pitch < width || (depth > 1 && plane > dst->slice))
        return sdma_exec_fail(
            x, "destination rows or slices overlap (width %llu, pitch %llu, slice %llu)",
            (unsigned long long)width, (unsigned long long)dst->pitch,
            (unsigned long long)dst->slice);
    if (!span(src, width, rows, depth, &s0, &slen) || !check(x, s0, slen, 0))
        return sdma_exec_fail(x, "source window at 0x%llx (%llux%llux%llu) not accessible",
                              (unsigned long long)src->base, (unsigned long long)width,
                              (unsigned long long)rows, (unsigned long long)depth);
    if (!span(dst, width, rows, depth, &d0, &dlen) || !check(x, d0, dlen, 1))
        return sdma_exec_fail(x, "destination window at 0x%llx (%llux%llux%llu) not accessible",
                              (unsigned long long)dst->base, (unsigned long long)width,
                              (unsigned long long)rows, (unsigned long long)depth);
    return do_copy(x, d0, dlen, dst->pitch, dst->slice, s0, slen, src->pitch, src->slice, width,
                   rows, depth);
}

static int exec_copy(struct sdma_soft_ctx *x, const uint32_t *dw, size_t avail, size_t *used) {
    uint32_t sub = (dw[0] >> 8) & 0xFF;
    if (sub == SDMA_SUBOP_COPY_LINEAR) {
        uint64_t n, src, dst;
        NEED(SDMA_COPY_LINEAR_DW);
        if (dw[0] & (1u << 27))
            return sdma_exec_fail(x, "broadcast copy not supported");
        n = (uint64_t)(dw[1] & 0x3FFFFFFFu) + 1;
        src = addr64(dw + 3);
        dst = addr64(dw + 5);
        if (!check(x, src, n, 0))
            return sdma_exec_fail(x, "copy source 0x%llx (+%llu bytes) not accessible",
                                  (unsigned long long)src, (unsigned long long)n);
        if (!check(x, dst, n, 1))
            return sdma_exec_fail(x, "copy destination 0x%llx (+%llu bytes) not accessible",
                                  (unsigned long long)dst, (unsigned long long)n);
        *used = SDMA_COPY_LINEAR_DW;
        return do_copy(x, dst, n, n, n, src, n, n, n, n, 1, 1);
    }
    if (sub == SDMA_SUBOP_COPY_LINEAR_SUB_WINDOW_LARGE) {
        struct rect s, d;
        NEED(SDMA_COPY_2D_DW);
        s.base = addr64(dw + 1);
        s.x = dw[3];
        s.y = dw[4];
        s.z = dw[5];
        s.pitch = (uint64_t)dw[6] + 1;
        s.slice = addr64(dw + 7);
        d.base = addr64(dw + 9);
        d.x = dw[11];
        d.y = dw[12];
        d.z = dw[13];
        d.pitch = (uint64_t)dw[14] + 1;
        d.slice = addr64(dw + 15);
        *used = SDMA_COPY_2D_DW;
        return copy_rect(x, &d, &s, (uint64_t)dw[17] + 1, (uint64_t)dw[18] + 1,
                         (uint64_t)dw[19] + 1);
    }
    if (sub == SDMA_SUBOP_COPY_LINEAR_SUB_WINDOW) {
        struct rect s, d;
        unsigned e = dw[0] >> 29;
        NEED(SDMA_COPY_2D_SW13_DW);
        if (e > 4)
            return sdma_exec_fail(x, "sub-window element size 2^%u bytes not valid", e);
        s.base = addr64(dw + 1);
        s.x = (uint64_t)(dw[3] & 0x3FFF) << e;
        s.y = (dw[3] >> 16) & 0x3FFF;
        s.z = dw[4] & 0x7FF;
        s.pitch = ((uint64_t)(dw[4] >> 13) + 1) << e;
        s.slice = ((uint64_t)(dw[5] & 0xFFFFFFF) + 1) << e;
        d.base = addr64(dw + 6);
        d.x = (uint64_t)(dw[8] & 0x3FFF) << e;
        d.y = (dw[8] >> 16) & 0x3FFF;
        d.z = dw[9] & 0x7FF;
        d.pitch = ((uint64_t)(dw[9] >> 13) + 1) << e;
        d.slice = ((uint64_t)(dw[10] & 0xFFFFFFF) + 1) << e;
        *used = SDMA_COPY_2D_SW13_DW;
        return copy_rect(x, &d, &s, ((uint64_t)(dw[11] & 0x3FFF) + 1) << e,
                         (uint64_t)((dw[11] >> 16) & 0x3FFF) + 1, (uint64_t)(dw[12] & 0x7FF) + 1);
    }
    return sdma_exec_fail(x, "copy sub-op %u not supported", sub);
}

int sdma_poll_holds(uint32_t v, uint32_t ref, unsigned func) {
    switch (func) {
    case SDMA_POLL_ALWAYS: return 1;
    case SDMA_POLL_LT: return v < ref;
    case SDMA_POLL_LE: return v <= ref;
    case SDMA_POLL_EQ: return v == ref;
    case SDMA_POLL_NE: return v != ref;
    case SDMA_POLL_GE: return v >= ref;
    case SDMA_POLL_GT: return v > ref;
    default: return 0;
    }
}

static const char *const poll_names[8] = {"always", "<", "<=", "==", "!=", ">=", ">", "?"};

static int exec_poll(struct sdma_soft_ctx *x, const uint32_t *dw, size_t avail, size_t *used) {
    unsigned func, retry, interval;
    uint64_t addr;
    uint32_t v, ref, mask;
    double t;
    int rc;
    NEED(SDMA_POLL_DW);
    func = (dw[0] >> 28) & 7;
    addr = addr64(dw + 1);
    ref = dw[3];
    mask = dw[4];
    interval = dw[5] & 0xFFFF;
    retry = (dw[5] >> 16) & 0xFFF;
    if (!(dw[0] & SDMA_POLL_MEM))
        return sdma_exec_fail(x, "register poll not supported (mem_poll bit clear)");
    if (func > SDMA_POLL_GT)
        return sdma_exec_fail(x, "poll function %u not valid", func);
    if ((addr & 3) || !check(x, addr, 4, 0))
        return sdma_exec_fail(x, "poll address 0x%llx not accessible or not 4-byte aligned",
                              (unsigned long long)addr);
    t = now(x);
    if (!x->poll_active) {
        x->poll_active = 1;
        x->poll_counted = retry != SDMA_POLL_RETRY_FOREVER;
        x->poll_checks = 0;
        x->poll_start = t;
        x->wait_until = t;
    }
    if (t < x->wait_until)
        return SDMA_EXEC_WAIT;
    x->poll_checks++;
    v = 0;
    if (foreign(x, addr, 4)) {
        char msg[sizeof x->msg] = "";
        if (x->foreign->read32(x->foreign->arg, addr, &v, msg, sizeof msg))
            return foreign_fail(x, msg);
        rc = sdma_poll_holds(v & mask, ref, func);
    } else {
        rc = x->ops->poll(x, addr, ref, mask, func, &v);
    }
    if (rc < 0)
        return SDMA_EXEC_ERROR; /* the executor said why */
    if (rc) {
        x->poll_active = 0;
        *used = SDMA_POLL_DW;
        return SDMA_EXEC_DONE;
    }
    if (retry != SDMA_POLL_RETRY_FOREVER && x->poll_checks > retry)
        return sdma_exec_fail(
            x,
            "poll gave up after %u checks: word at 0x%llx is 0x%08x (mask 0x%08x), "
            "waiting for %s 0x%08x",
            x->poll_checks, (unsigned long long)addr, v, mask, poll_names[func], ref);
    if (t - x->poll_start >= x->poll_timeout_s)
        return sdma_exec_fail(
            x,
            "poll deadline of %.3g s expired: word at 0x%llx is 0x%08x (mask 0x%08x), "
            "waiting for %s 0x%08x",
            x->poll_timeout_s, (unsigned long long)addr, v, mask, poll_names[func], ref);
    /* Soft engine: interval is in microseconds. */
    x->wait_until = t + (x->poll_interval_max_s > 0 && x->poll_interval_max_s < interval * 1e-6
                             ? x->poll_interval_max_s
                             : (double)interval * 1e-6);
    return SDMA_EXEC_WAIT;
}

static int exec_atomic(struct sdma_soft_ctx *x, const uint32_t *dw, size_t avail, size_t *used) {
    unsigned op, base;
    int is64;
    uint64_t addr, src, cmp;
    NEED(SDMA_ATOMIC_DW);
    op = dw[0] >> 25;
    base = op & 0x1F;
    is64 = (op & SDMA_ATOMIC_FLAG_64) != 0;
    addr = addr64(dw + 1);
    src = addr64(dw + 3);
    cmp = addr64(dw + 5);
    if (dw[0] & (1u << 16))
        return sdma_exec_fail(x, "atomic loop mode not supported");
    if (base != SDMA_ATOMIC_ADD32 && base != SDMA_ATOMIC_CMPSWAP32 && base != SDMA_ATOMIC_SWAP32)
        return sdma_exec_fail(x, "atomic operation 0x%02x not supported", op);
    if ((addr & (is64 ? 7 : 3)) || !check(x, addr, is64 ? 8 : 4, 1))
        return sdma_exec_fail(x, "atomic address 0x%llx not accessible or not %d-byte aligned",
                              (unsigned long long)addr, is64 ? 8 : 4);
    *used = SDMA_ATOMIC_DW;
    if (foreign(x, addr, is64 ? 8 : 4)) {
        char msg[sizeof x->msg] = "";
        if (x->foreign->atomic(x->foreign->arg, addr, base, is64, src, cmp, msg, sizeof msg))
            return foreign_fail(x, msg);
        return SDMA_EXEC_DONE;
    }
    return x->ops->atomic(x, addr, base, is64, src, cmp);
}

static void fill(unsigned char *d, uint64_t n, uint32_t pattern, unsigned unit) {
    uint64_t have, i;
    for (i = 0; i < unit && i < n; i++)
        d[i] = (unsigned char)(pattern >> (8 * i));
    /* Double the filled prefix until done. */
    for (have = i; have < n;) {
        uint64_t k = have < n - have ? have : n - have;
        memcpy(d + have, d, (size_t)k);
        have += k;
    }
}

/* ---- the host executor (the soft engine) ---- */

static int host_copy(struct sdma_soft_ctx *x, uint64_t dst, uint64_t dpitch, uint64_t dslice,
                     uint64_t src, uint64_t spitch, uint64_t sslice, uint64_t width, uint64_t rows,
                     uint64_t depth) {
    uint64_t z, y;
    (void)x;
    for (z = 0; z < depth; z++)
        for (y = 0; y < rows; y++) {
            char *d = (char *)(uintptr_t)(dst + z * dslice + y * dpitch);
            const char *s = (const char *)(uintptr_t)(src + z * sslice + y * spitch);
            /* Large rows that do not overlap stream past the caches (sdma/copy.h). */
            if (width >= sdma_copy_stream_min && (d + width <= s || s + width <= d))
                sdma_copy_stream(d, s, (size_t)width);
            else
                memmove(d, s, (size_t)width);
        }
    return SDMA_EXEC_DONE;
}

static int host_poll(struct sdma_soft_ctx *x, uint64_t addr, uint32_t ref, uint32_t mask,
                     unsigned func, uint32_t *seen) {
    (void)x;
    /* Acquire pairs with the release store (or release RMW) that opens the gate: the data
     * the gate protects is visible to the packets behind this poll. */
    *seen = __atomic_load_n((const uint32_t *)(uintptr_t)addr, __ATOMIC_ACQUIRE);
    return sdma_poll_holds(*seen & mask, ref, func);
}

static int host_fence(struct sdma_soft_ctx *x, uint64_t addr, uint32_t value) {
    (void)x;
    /* Release: every earlier packet of this queue ran on this thread before; a waiter
     * that acquires the fence word sees all of their writes. */
    __atomic_store_n((uint32_t *)(uintptr_t)addr, value, __ATOMIC_RELEASE);
    return SDMA_EXEC_DONE;
}

static int host_atomic(struct sdma_soft_ctx *x, uint64_t addr, unsigned base, int is64,
                       uint64_t src, uint64_t cmp) {
    (void)x;
    /* Sequentially consistent read-modify-writes: they also release the effects of every
     * earlier packet of this queue (executed in order by this thread) to whoever acquires
     * the word. The returned (old) value has no destination in the packet and is dropped. */
    if (is64) {
        uint64_t *p = (uint64_t *)(uintptr_t)addr;
        if (base == SDMA_ATOMIC_ADD32)
            __atomic_fetch_add(p, src, __ATOMIC_SEQ_CST);
        else if (base == SDMA_ATOMIC_SWAP32)
            __atomic_exchange_n(p, src, __ATOMIC_SEQ_CST);
        else
            __atomic_compare_exchange_n(p, &cmp, src, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    } else {
        uint32_t *p = (uint32_t *)(uintptr_t)addr, c32 = (uint32_t)cmp;
        if (base == SDMA_ATOMIC_ADD32)
            __atomic_fetch_add(p, (uint32_t)src, __ATOMIC_SEQ_CST);
        else if (base == SDMA_ATOMIC_SWAP32)
            __atomic_exchange_n(p, (uint32_t)src, __ATOMIC_SEQ_CST);
        else
            __atomic_compare_exchange_n(p, &c32, (uint32_t)src, 0, __ATOMIC_SEQ_CST,
                                        __ATOMIC_SEQ_CST);
    }
    return SDMA_EXEC_DONE;
}

static int host_fill(struct sdma_soft_ctx *x, uint64_t dst, uint64_t bytes, uint32_t pattern,
                     unsigned unit) {
    (void)x;
    fill((unsigned char *)(uintptr_t)dst, bytes, pattern, unit);
    return SDMA_EXEC_DONE;
}

static int host_timestamp(struct sdma_soft_ctx *x, uint64_t addr) {
    struct timespec ts;
    uint64_t v;
    (void)x;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    v = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec; /* nanoseconds */
    __atomic_store_n((uint64_t *)(uintptr_t)addr, v, __ATOMIC_RELEASE);
    return SDMA_EXEC_DONE;
}

const struct sdma_exec_ops sdma_host_exec = {host_copy,   host_poll, host_fence,
                                             host_atomic, host_fill, host_timestamp};

static int exec_fill(struct sdma_soft_ctx *x, const uint32_t *dw, size_t avail, size_t *used) {
    unsigned size;
    uint64_t dst, n;
    NEED(SDMA_CONST_FILL_DW);
    size = dw[0] >> 30;
    if (size > SDMA_FILL_DWORD)
        return sdma_exec_fail(x, "fill size %u not valid", size);
    dst = addr64(dw + 1);
    n = (uint64_t)(dw[4] & 0x3FFFFFFFu) + 1;
    if (!check(x, dst, n, 1))
        return sdma_exec_fail(x, "fill destination 0x%llx (+%llu bytes) not accessible",
                              (unsigned long long)dst, (unsigned long long)n);
    if (foreign(x, dst, 1))
        return sdma_exec_fail(x, "fill destination 0x%llx is in a foreign window",
                              (unsigned long long)dst);
    *used = SDMA_CONST_FILL_DW;
    return x->ops->fill(x, dst, n, dw[3], 1u << size);
}

int sdma_soft_exec(struct sdma_soft_ctx *x, const uint32_t *dw, size_t avail, size_t *used) {
    uint64_t addr;
    if (!x->ops)
        x->ops = &sdma_host_exec;
    if (avail == 0)
        return sdma_exec_fail(x, "no packet");
    x->op = dw[0] & 0xFF;
    x->sub_op = (dw[0] >> 8) & 0xFF;
    switch (x->op) {
    case SDMA_OP_NOP: {
        size_t n = ((dw[0] >> 16) & 0x3FFF) + 1;
        NEED(n);
        *used = n;
        return SDMA_EXEC_DONE;
    }
    case SDMA_OP_COPY: return exec_copy(x, dw, avail, used);
    case SDMA_OP_FENCE:
        NEED(SDMA_FENCE_DW);
        addr = addr64(dw + 1);
        if ((addr & 3) || !check(x, addr, 4, 1))
            return sdma_exec_fail(x, "fence address 0x%llx not accessible or not 4-byte aligned",
                                  (unsigned long long)addr);
        *used = SDMA_FENCE_DW;
        if (foreign(x, addr, 4)) {
            char msg[sizeof x->msg] = "";
            if (x->foreign->write32(x->foreign->arg, addr, dw[3], msg, sizeof msg))
                return foreign_fail(x, msg);
            return SDMA_EXEC_DONE;
        }
        return x->ops->fence(x, addr, dw[3]);
    case SDMA_OP_TRAP:
        NEED(SDMA_TRAP_DW);
        if (x->trap)
            x->trap(x->trap_arg, dw[1] & 0x0FFFFFFFu);
        *used = SDMA_TRAP_DW;
        return SDMA_EXEC_DONE;
    case SDMA_OP_POLL_REGMEM: return exec_poll(x, dw, avail, used);
    case SDMA_OP_ATOMIC: return exec_atomic(x, dw, avail, used);
    case SDMA_OP_CONST_FILL: return exec_fill(x, dw, avail, used);
    case SDMA_OP_TIMESTAMP:
        NEED(SDMA_TIMESTAMP_DW);
        if (x->sub_op != SDMA_SUBOP_TIMESTAMP_GET_GLOBAL && x->sub_op != 1)
            return sdma_exec_fail(x, "timestamp sub-op %u not supported", x->sub_op);
        addr = addr64(dw + 1);
        if ((addr & 31) || !check(x, addr, 8, 1) || foreign(x, addr, 8))
            return sdma_exec_fail(x,
                                  "timestamp address 0x%llx not accessible or not 32-byte aligned",
                                  (unsigned long long)addr);
        *used = SDMA_TIMESTAMP_DW;
        return x->ops->timestamp(x, addr);
    default: return sdma_exec_fail(x, "unknown or unsupported opcode");
    }
}
