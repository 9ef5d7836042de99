/* Host copies of bulk data: memcpy, or streaming (non-temporal) stores for copies too large
 * to stay in the caches (they would only evict what the caller and the reader still use, and
 * every cache-line write would first read the line: a third more memory traffic).
 *
 * sdma_copy_bytes() ends with a store fence when it streamed, so a release store after it
 * publishes the data as it does after memcpy. The source and destination must not overlap
 * (memcpy's contract). Host only. */
#ifndef SDMA_COPY_H
#define SDMA_COPY_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Copies of at least this many bytes stream: 8 MiB until sdma_copy_set_stream_min() sets
 * it; SIZE_MAX: never. */
extern size_t sdma_copy_stream_min;

/* Set the threshold: 0 never streams; SDMA_COPY_STREAM_AUTO: half of the last-level cache
 * (sysfs, else sysconf), 8 MiB when the system does not say, never on processors without
 * streaming stores. Returns the threshold set (0: never). */
#define SDMA_COPY_STREAM_AUTO ((size_t)-1)
size_t sdma_copy_set_stream_min(size_t bytes);

void sdma_copy_stream(void *dst, const void *src, size_t n);
/* A copy from the end down: for a destination just above the source modulo 4 KiB. */
void sdma_copy_down(void *dst, const void *src, size_t n);

/* A forward copy whose destination sits just above its source modulo 4 KiB (a heap object
 * at a page boundary read into a malloc'd buffer 16 bytes past one) makes every load wait
 * for the store 4 KiB-aliased with it: the processor cannot tell them apart until the
 * address is known in full (a third of the speed, measured at 8 KiB on AMD Zen without the
 * vector loop). Copying down avoids it there. Not on Intel, whose memcpy avoids it itself
 * and runs at twice the loop's speed (2 to 16 KiB, destination 0 to 32 bytes above the
 * source: 80-133 against 42-49 GB/s on a Xeon): sdma_copy_alias_down says where (set at
 * load: AMD processors). */
extern int sdma_copy_alias_down;
#define SDMA_COPY_ALIAS_WINDOW 64
/* Up to here only: larger copies go to memcpy, whose large-copy path does not stall on the
 * aliasing and is faster than the backward loop (a get of 1 MiB: 22 us against 27). */
#define SDMA_COPY_DOWN_MAX (64 * 1024)

/* A forward copy with 32-byte loads and aligned 32-byte stores. Where memcpy's middle sizes
 * are `rep movsb` (glibc on AMD Zen), that runs at two thirds of this loop's speed once the
 * destination is not at the source's offset in its page (16 bytes off: 33 against 48 GB/s
 * from 32 KiB to 512 KiB on a Zen 4) and no faster when it is. sdma_copy_vector says whether
 * sdma_copy_bytes uses it (set at load: AMD processors with AVX2). */
void sdma_copy_fwd(void *dst, const void *src, size_t n);
extern int sdma_copy_vector;
#define SDMA_COPY_VECTOR_MIN 512

/* Copies of at least this many bytes whose destination and source lie at one offset in their
 * cache lines go to memcpy instead. On AMD family 1Ah (Zen 5) `rep movsb` then moves whole
 * lines and beats the loop once the copy leaves the first-level cache (32 KiB to 512 KiB:
 * 100-145 against 75-105 GB/s), while a copy 8 or 16 bytes off runs at the loop's speed or
 * below. SIZE_MAX elsewhere (set at load). */
extern size_t sdma_copy_lines_min;
#define SDMA_COPY_LINES_MIN (32 * 1024)

/* Up to SDMA_COPY_SMALL_MAX bytes: loads and stores of 16, 8, 4 or 2 bytes that may overlap,
 * inline (a single-element put through a mapping is one such copy, and a call to memcpy costs
 * more than the copy). */
#define SDMA_COPY_SMALL_MAX 64
#define SDMA_COPY_PIECE(d, s, n)                                                                   \
    do {                                                                                           \
        unsigned char t_[n];                                                                       \
        memcpy(t_, (s), n);                                                                        \
        memcpy((d), t_, n);                                                                        \
    } while (0)
static inline void sdma_copy_small(void *dst, const void *src, size_t n) {
    unsigned char *d = (unsigned char *)dst;
    const unsigned char *s = (const unsigned char *)src;
    if (n >= 16) {
        SDMA_COPY_PIECE(d, s, 16);
        SDMA_COPY_PIECE(d + n - 16, s + n - 16, 16);
        if (n > 32) {
            SDMA_COPY_PIECE(d + 16, s + 16, 16);
            SDMA_COPY_PIECE(d + n - 32, s + n - 32, 16);
        }
    } else if (n >= 8) {
        SDMA_COPY_PIECE(d, s, 8);
        SDMA_COPY_PIECE(d + n - 8, s + n - 8, 8);
    } else if (n >= 4) {
        SDMA_COPY_PIECE(d, s, 4);
        SDMA_COPY_PIECE(d + n - 4, s + n - 4, 4);
    } else if (n >= 2) {
        SDMA_COPY_PIECE(d, s, 2);
        SDMA_COPY_PIECE(d + n - 2, s + n - 2, 2);
    } else if (n) {
        *d = *s;
    }
}

static inline void sdma_copy_bytes(void *dst, const void *src, size_t n) {
    if (n <= SDMA_COPY_SMALL_MAX)
        sdma_copy_small(dst, src, n);
    else if (n >= sdma_copy_stream_min)
        sdma_copy_stream(dst, src, n);
    else if (n >= sdma_copy_lines_min && !(((uintptr_t)dst - (uintptr_t)src) & 63))
        memcpy(dst, src, n);
    else if (n >= SDMA_COPY_VECTOR_MIN && sdma_copy_vector)
        sdma_copy_fwd(dst, src, n);
    else if (sdma_copy_alias_down && n >= 512 && n < SDMA_COPY_DOWN_MAX &&
             (((uintptr_t)dst - (uintptr_t)src) & 4095) < SDMA_COPY_ALIAS_WINDOW)
        sdma_copy_down(dst, src, n);
    else
        memcpy(dst, src, n);
}

#endif
