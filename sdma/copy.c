/* Streaming copies (copy.h). */
#include "sdma/copy.h"

#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

#define DEFAULT_STREAM_MIN ((size_t)8 << 20)

/* A last-level cache known only from sysconf (no cache topology in sysfs: a virtual machine,
 * typically) counts as at most this much: there it is what the hypervisor reports, often the
 * host's whole socket (508 MiB on a 2-CPU guest), shared with other guests. Copies of 16 to
 * 64 MiB on such a guest: 35 GB/s streamed against 15-28 through the caches. */
#define SYSCONF_LLC_MAX ((size_t)32 << 20)

/* A logical CPU's share of a last-level cache counts as at most this much. Server processors
 * give a thread 1-2.5 MiB of it (105 MiB for 112 threads, 32 MiB for a core complex of 16);
 * a guest's sysfs shows the host's whole cache beside its own few CPUs (266240K shared by 2
 * CPUs on a Xeon guest), which other guests fill too. There, copies of 4 to 64 MiB: 15-16 GB/s
 * streamed against 10-13.5 through the caches (puts between two PEs, alternating runs), and
 * an exchange of 33 MB puts that the targets then read took 0.0097 s against 0.0139. */
#define LLC_PER_CPU_MAX ((size_t)2 << 20)

/* The logical CPUs in a sysfs CPU list ("0-3,8,10-11"); 0 where unreadable. */
static size_t cpu_list_count(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = 0;
    unsigned a, b;
    char sep;
    for (;;) {
        int got = fscanf(f, "%u", &a);
        if (got != 1)
            break;
        b = a;
        got = fscanf(f, "%c", &sep);
        if (got == 1 && sep == '-') {
            if (fscanf(f, "%u", &b) != 1)
                break;
            got = fscanf(f, "%c", &sep);
        }
        n += b >= a ? b - a + 1 : 0;
        if (got != 1 || sep != ',')
            break;
    }
    fclose(f);
    return n;
}

/* The last-level cache in bytes as sysfs says it (cpu0's highest-level data or unified
 * cache; at most LLC_PER_CPU_MAX for each CPU that shares it, SYSCONF_LLC_MAX where
 * sysfs does not say which do), else as sysconf says it (capped: SYSCONF_LLC_MAX), else 0. */
static size_t llc_bytes(void) {
    size_t best = 0, best_cpus = 0;
    int best_level = 0;
    for (int i = 0; i < 8; i++) {
        char path[96], type[32] = "";
        int level = 0;
        unsigned long kb = 0;
        char unit = 0;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
        FILE *f = fopen(path, "r");
        if (!f)
            break;
        if (fscanf(f, "%d", &level) != 1)
            level = 0;
        fclose(f);
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
        if ((f = fopen(path, "r"))) {
            if (fscanf(f, "%31s", type) != 1)
                type[0] = 0;
            fclose(f);
        }
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        if ((f = fopen(path, "r"))) {
            if (fscanf(f, "%lu%c", &kb, &unit) < 1)
                kb = 0;
            fclose(f);
        }
        size_t bytes = unit == 'M' ? (size_t)kb << 20 : unit == 'K' ? (size_t)kb << 10 : kb;
        if (strcmp(type, "Instruction") && level > best_level && bytes) {
            best_level = level;
            best = bytes;
            snprintf(path, sizeof path,
                     "/sys/devices/system/cpu/cpu0/cache/index%d/shared_cpu_list", i);
            best_cpus = cpu_list_count(path);
        }
    }
    if (best && best_cpus && best / best_cpus > LLC_PER_CPU_MAX)
        best = best_cpus * LLC_PER_CPU_MAX;
    else if (best && !best_cpus && best > SYSCONF_LLC_MAX)
        best = SYSCONF_LLC_MAX; /* who shares it unknown */
    if (best)
        return best;
    long llc = -1;
#ifdef _SC_LEVEL3_CACHE_SIZE
    llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
#endif
#ifdef _SC_LEVEL2_CACHE_SIZE
    if (llc <= 0)
        llc = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
    if (llc <= 0)
        return 0;
    return (size_t)llc < SYSCONF_LLC_MAX ? (size_t)llc : SYSCONF_LLC_MAX;
}

static size_t auto_min(void) {
#if defined(__x86_64__)
    size_t llc = llc_bytes();
    return llc ? llc / 2 : DEFAULT_STREAM_MIN;
#else
    return 0; /* no streaming stores here: memcpy always */
#endif
}

size_t sdma_copy_stream_min = DEFAULT_STREAM_MIN;

size_t sdma_copy_set_stream_min(size_t bytes) {
    if (bytes == SDMA_COPY_STREAM_AUTO)
        bytes = auto_min();
    /* 0 (never) is stored as the largest size. */
    sdma_copy_stream_min = bytes ? bytes : (size_t)-1;
    return bytes;
}

#if defined(__x86_64__)
/* 128 bytes a turn from d (32-byte aligned) up: four 32-byte loads, four aligned 32-byte
 * stores, streaming (non-temporal) or not; returns the bytes copied. Inlined into the two
 * AVX2 functions below, each with its kind of store. */
__attribute__((target("avx2"), always_inline)) static inline size_t
ahead_avx2(char *d, const char *s, size_t n, int stream) {
    size_t i = 0;
    for (; i + 128 <= n; i += 128) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(s + i));
        __m256i b = _mm256_loadu_si256((const __m256i *)(s + i + 32));
        __m256i c = _mm256_loadu_si256((const __m256i *)(s + i + 64));
        __m256i e = _mm256_loadu_si256((const __m256i *)(s + i + 96));
        if (stream) {
            _mm256_stream_si256((__m256i *)(d + i), a);
            _mm256_stream_si256((__m256i *)(d + i + 32), b);
            _mm256_stream_si256((__m256i *)(d + i + 64), c);
            _mm256_stream_si256((__m256i *)(d + i + 96), e);
        } else {
            _mm256_store_si256((__m256i *)(d + i), a);
            _mm256_store_si256((__m256i *)(d + i + 32), b);
            _mm256_store_si256((__m256i *)(d + i + 64), c);
            _mm256_store_si256((__m256i *)(d + i + 96), e);
        }
    }
    return i;
}

__attribute__((target("avx2"))) static size_t stream_avx2(char *d, const char *s, size_t n) {
    return ahead_avx2(d, s, n, 1);
}

/* Up to the next 32-byte boundary of the destination (n >= 32), then the aligned loop;
 * returns the bytes copied. */
__attribute__((target("avx2"))) static size_t fwd_avx2(char *d, const char *s, size_t n) {
    size_t head = (size_t)(-(uintptr_t)d & 31);
    sdma_copy_small(d, s, head);
    return head + ahead_avx2(d + head, s + head, n - head, 0);
}

/* The same with SSE2 (every x86-64). */
static size_t stream_sse2(char *d, const char *s, size_t n) {
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
        __m128i a = _mm_loadu_si128((const __m128i *)(s + i));
        __m128i b = _mm_loadu_si128((const __m128i *)(s + i + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(s + i + 32));
        __m128i e = _mm_loadu_si128((const __m128i *)(s + i + 48));
        _mm_stream_si128((__m128i *)(d + i), a);
        _mm_stream_si128((__m128i *)(d + i + 16), b);
        _mm_stream_si128((__m128i *)(d + i + 32), c);
        _mm_stream_si128((__m128i *)(d + i + 48), e);
    }
    return i;
}

static int have_avx2; /* set at load (copy_choose) */

/* From the end down, 128 bytes a turn; returns the bytes left at the start. */
__attribute__((target("avx2"))) static size_t down_avx2(char *d, const char *s, size_t n) {
    while (n >= 128) {
        n -= 128;
        __m256i a = _mm256_loadu_si256((const __m256i *)(s + n + 96));
        __m256i b = _mm256_loadu_si256((const __m256i *)(s + n + 64));
        __m256i c = _mm256_loadu_si256((const __m256i *)(s + n + 32));
        __m256i e = _mm256_loadu_si256((const __m256i *)(s + n));
        _mm256_storeu_si256((__m256i *)(d + n + 96), a);
        _mm256_storeu_si256((__m256i *)(d + n + 64), b);
        _mm256_storeu_si256((__m256i *)(d + n + 32), c);
        _mm256_storeu_si256((__m256i *)(d + n), e);
    }
    return n;
}

static size_t down_sse2(char *d, const char *s, size_t n) {
    while (n >= 64) {
        n -= 64;
        __m128i a = _mm_loadu_si128((const __m128i *)(s + n + 48));
        __m128i b = _mm_loadu_si128((const __m128i *)(s + n + 32));
        __m128i c = _mm_loadu_si128((const __m128i *)(s + n + 16));
        __m128i e = _mm_loadu_si128((const __m128i *)(s + n));
        _mm_storeu_si128((__m128i *)(d + n + 48), a);
        _mm_storeu_si128((__m128i *)(d + n + 32), b);
        _mm_storeu_si128((__m128i *)(d + n + 16), c);
        _mm_storeu_si128((__m128i *)(d + n), e);
    }
    return n;
}
#endif

/* The same loop with 64-byte loads and aligned 64-byte stores, 256 bytes a turn, after a
 * copy up to the destination's next line (n >= 64). */
__attribute__((target("avx512f"))) static size_t fwd_avx512(char *d, const char *s, size_t n) {
    size_t head = (size_t)(-(uintptr_t)d & 63), i = head;
    sdma_copy_small(d, s, head);
    for (; i + 256 <= n; i += 256) {
        __m512i a = _mm512_loadu_si512(s + i);
        __m512i b = _mm512_loadu_si512(s + i + 64);
        __m512i c = _mm512_loadu_si512(s + i + 128);
        __m512i e = _mm512_loadu_si512(s + i + 192);
        _mm512_store_si512(d + i, a);
        _mm512_store_si512(d + i + 64, b);
        _mm512_store_si512(d + i + 128, c);
        _mm512_store_si512(d + i + 192, e);
    }
    return i;
}

static int have_avx512; /* and a full-width datapath for it: family 1Ah (set at load) */

int sdma_copy_vector;
size_t sdma_copy_vector_min = SDMA_COPY_VECTOR_MIN;
int sdma_copy_alias_down;
size_t sdma_copy_lines_min = (size_t)-1;

#if defined(__x86_64__)
/* The processor family as CPUID leaf 1 gives it (base plus extended). */
static unsigned cpu_family(void) {
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return 0;
    unsigned base = (a >> 8) & 0xf;
    return base == 0xf ? base + ((a >> 20) & 0xff) : base;
}
#endif

__attribute__((constructor)) static void copy_choose(void) {
#if defined(__x86_64__)
    __builtin_cpu_init();
    have_avx2 = __builtin_cpu_supports("avx2");
    sdma_copy_vector = have_avx2 && __builtin_cpu_is("amd");
    sdma_copy_alias_down = __builtin_cpu_is("amd");
    if (sdma_copy_vector && cpu_family() >= 0x1a) {
        sdma_copy_lines_min = SDMA_COPY_LINES_MIN;
        have_avx512 = __builtin_cpu_supports("avx512f");
        if (have_avx512)
            sdma_copy_vector_min = SDMA_COPY_WIDE_MIN;
    }
#endif
}

/* What a loop left, fewer than 256 bytes, each byte stored once (copy.h: sdma_copy_small). */
static void copy_tail(char *d, const char *s, size_t n) {
    if (n & 128) {
        sdma_copy_small(d, s, 64);
        sdma_copy_small(d + 64, s + 64, 64);
        d += 128, s += 128;
    }
    sdma_copy_small(d, s, n & 127);
}

void sdma_copy_fwd(void *dst, const void *src, size_t n) {
#if defined(__x86_64__)
    if (have_avx512 && n >= SDMA_COPY_WIDE_MIN && n < SDMA_COPY_WIDE_MAX) {
        size_t done = fwd_avx512(dst, src, n);
        copy_tail((char *)dst + done, (const char *)src + done, n - done);
        return;
    }
    if (have_avx2 && n >= 32) {
        size_t done = fwd_avx2(dst, src, n);
        copy_tail((char *)dst + done, (const char *)src + done, n - done);
        return;
    }
#endif
    memcpy(dst, src, n);
}

void sdma_copy_down(void *dst, const void *src, size_t n) {
#if defined(__x86_64__)
    size_t left = have_avx2 ? down_avx2(dst, src, n) : down_sse2(dst, src, n);
    copy_tail(dst, src, left);
#else
    memcpy(dst, src, n);
#endif
}

void sdma_copy_stream(void *dst, const void *src, size_t n) {
#if defined(__x86_64__)
    char *d = dst;
    const char *s = src;
    /* Streaming stores want an aligned destination: copy up to the next 64-byte line. */
    size_t head = (size_t)(-(uintptr_t)d & 63);
    if (head > n)
        head = n;
    sdma_copy_small(d, s, head);
    d += head, s += head, n -= head;
    size_t done = have_avx2 ? stream_avx2(d, s, n) : stream_sse2(d, s, n);
    copy_tail(d + done, s + done, n - done);
    /* Streaming stores are weakly ordered: fence them before whatever publishes the copy. */
    _mm_sfence();
#else
    memcpy(dst, src, n);
#endif
}
