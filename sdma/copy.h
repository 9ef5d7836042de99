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
/* "Just above": 1 to SDMA_COPY_ALIAS_WINDOW - 1 bytes. A destination at its source's offset
 * (a put or get between one symmetric object and its peer's copy) aliases nothing the loads
 * still wait on, and memcpy is faster there: 512 bytes from memory in 30 ns against 60
 * copied down. */
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
/* sdma_copy_bytes takes the loop from sdma_copy_vector_min bytes: SDMA_COPY_VECTOR_MIN, or
 * SDMA_COPY_WIDE_MIN where the loop is the wide one (set at load). */
extern size_t sdma_copy_vector_min;
#define SDMA_COPY_VECTOR_MIN 512
/* From SDMA_COPY_WIDE_MIN to below SDMA_COPY_WIDE_MAX, on AMD family 1Ah (Zen 5: 512-bit
 * loads and stores at full width) with AVX-512, the loop moves 64 bytes an instruction. Over
 * every pair of 8-byte source and destination offsets, cache-resident, from 4 to 24 KiB:
 * 1.1-1.35 times the 32-byte loop's speed (140-235 GB/s) and 1.2-1.5 times memcpy's. Below
 * 4 KiB memcpy is as fast or faster there (both loops trail it at 512 bytes to 2 KiB, the
 * call's own cost included), and from 32 KiB the 32-byte loop is. */
#define SDMA_COPY_WIDE_MIN 4096
#define SDMA_COPY_WIDE_MAX (32 * 1024)

/* Copies of at least this many bytes whose destination lies at or below its source's offset in
 * their cache lines go to memcpy instead. On AMD family 1Ah (Zen 5), once the copy leaves the
 * first-level cache, `rep movsb` then runs at 1.3-1.6 times the loop's speed (32 KiB to
 * 512 KiB, every pair of 8-byte offsets: 105-145 against 75-105 GB/s), while a destination
 * above its source's offset runs at 0.93 of the loop's speed up to 128 KiB, and at its speed
 * beyond. SIZE_MAX elsewhere (set at load). */
extern size_t sdma_copy_lines_min;
#define SDMA_COPY_LINES_MIN (32 * 1024)

/* Up to SDMA_COPY_SMALL_MAX bytes: loads and stores of 16, 8, 4, 2 and 1 bytes, inline (a
 * single-element put through a mapping is one such copy, and a call to memcpy costs more than
 * the copy). Every byte of the destination is stored once, in ascending order, and a copy of
 * 1, 2, 4, 8 or 16 bytes is one store. Stores that overlap (memcpy's way with sizes that fall
 * between its moves: two 8-byte stores for 8 to 16 bytes, both at the start for 8) store some
 * bytes twice, a moment apart, and a PE that waits on a word sees the first store and may
 * write the word at once (a flag taken and cleared): the second store then undoes that write,
 * and the next flag is lost (a two-PE ping-pong of shmem_long_put on one word lost one in
 * 10^4 rounds). sdma_copy_small takes up to 127 bytes; the vector loops' heads and tails
 * (copy.c) are such copies too. Larger copies that go to memcpy may store bytes near their
 * ends twice. */
#define SDMA_COPY_SMALL_MAX 64
#define SDMA_COPY_PIECE(d, s, n)                                                                   \
    do {                                                                                           \
        unsigned char t_[n];                                                                       \
        memcpy(t_, (s), n);                                                                        \
        memcpy((d), t_, n);                                                                        \
    } while (0)
/* One block of 2^k bytes where n has bit k, largest first. */
#define SDMA_COPY_BLOCK(d, s, n, k, piece)                                                         \
    do {                                                                                           \
        if ((n) & (k)) {                                                                           \
            for (size_t o_ = 0; o_ < (k); o_ += (piece))                                           \
                SDMA_COPY_PIECE((d) + o_, (s) + o_, piece);                                        \
            (d) += (k), (s) += (k);                                                                \
        }                                                                                          \
    } while (0)
static inline void sdma_copy_small(void *dst, const void *src, size_t n) {
    unsigned char *d = (unsigned char *)dst;
    const unsigned char *s = (const unsigned char *)src;
    SDMA_COPY_BLOCK(d, s, n, 64, 16);
    SDMA_COPY_BLOCK(d, s, n, 32, 16);
    SDMA_COPY_BLOCK(d, s, n, 16, 16);
    SDMA_COPY_BLOCK(d, s, n, 8, 8);
    SDMA_COPY_BLOCK(d, s, n, 4, 4);
    SDMA_COPY_BLOCK(d, s, n, 2, 2);
    if (n & 1)
        *d = *s;
}

static inline void sdma_copy_bytes(void *dst, const void *src, size_t n) {
    if (n <= SDMA_COPY_SMALL_MAX)
        sdma_copy_small(dst, src, n);
    else if (n >= sdma_copy_stream_min)
        sdma_copy_stream(dst, src, n);
    else if (n >= sdma_copy_lines_min && ((uintptr_t)dst & 63) <= ((uintptr_t)src & 63))
        memcpy(dst, src, n);
    else if (n >= sdma_copy_vector_min && sdma_copy_vector)
        sdma_copy_fwd(dst, src, n);
    else if (sdma_copy_alias_down && n >= 512 && n < SDMA_COPY_DOWN_MAX &&
             ((((uintptr_t)dst - (uintptr_t)src) & 4095) - 1) < SDMA_COPY_ALIAS_WINDOW - 1)
        sdma_copy_down(dst, src, n);
    else
        memcpy(dst, src, n);
}

#endif
