/* SDMA packet encoders (SDMA 4.4: MI200 gfx90a, MI300 gfx94x, MI350 gfx950).
 *
 * Header-only and free of any runtime: usable from C, C++, HIP and CUDA device code.
 * Every encoder writes one packet at `dw` and returns the number of dwords written.
 * Sizes, pitches and counts are passed in bytes (or units) as-is; the encoders apply
 * the hardware's minus-one encodings. Addresses are two dwords, low then high.
 * Field layouts: shared/docs/SDMA.md ("Packets"). */
#ifndef SDMA_PACKETS_H
#define SDMA_PACKETS_H

#include <stddef.h>
#include <stdint.h>

#if defined(__CUDACC__) || defined(__HIPCC__)
#define SDMA_HD __host__ __device__
#else
#define SDMA_HD
#endif

#ifdef __cplusplus
#define SDMA_STATIC_ASSERT(c, m) static_assert(c, m)
#else
#define SDMA_STATIC_ASSERT(c, m) _Static_assert(c, m)
#endif

/* ---- opcodes (DW0 bits 7:0) and sub-opcodes (DW0 bits 15:8) ---- */
#define SDMA_OP_NOP 0u
#define SDMA_OP_COPY 1u
#define SDMA_OP_WRITE 2u
#define SDMA_OP_INDIRECT 4u
#define SDMA_OP_FENCE 5u
#define SDMA_OP_TRAP 6u
#define SDMA_OP_SEM 7u
#define SDMA_OP_POLL_REGMEM 8u
#define SDMA_OP_COND_EXE 9u
#define SDMA_OP_ATOMIC 10u
#define SDMA_OP_CONST_FILL 11u
#define SDMA_OP_PTEPDE 12u
#define SDMA_OP_TIMESTAMP 13u
#define SDMA_OP_SRBM_WRITE 14u
#define SDMA_OP_PRE_EXE 15u
#define SDMA_OP_DUMMY_TRAP 16u
#define SDMA_OP_GCR 17u

#define SDMA_SUBOP_COPY_LINEAR 0u
#define SDMA_SUBOP_COPY_TILED 1u
#define SDMA_SUBOP_COPY_SOA 3u
#define SDMA_SUBOP_COPY_LINEAR_SUB_WINDOW 4u
#define SDMA_SUBOP_COPY_TILED_SUB_WINDOW 5u
#define SDMA_SUBOP_COPY_T2T 6u
#define SDMA_SUBOP_COPY_LINEAR_SUB_WINDOW_LARGE 0x24u
#define SDMA_SUBOP_TIMESTAMP_GET_GLOBAL 2u

/* ---- packet sizes in dwords ---- */
#define SDMA_NOP_DW 1u          /* minimum; a NOP may span up to SDMA_NOP_MAX_DW */
#define SDMA_NOP_MAX_DW 0x4000u /* count field is 14 bits (N-1) */
#define SDMA_COPY_LINEAR_DW 7u
#define SDMA_COPY_2D_SW13_DW 13u
#define SDMA_COPY_2D_DW 20u /* LINEAR_SUB_WINDOW_LARGE */
#define SDMA_FENCE_DW 4u
#define SDMA_TRAP_DW 2u
#define SDMA_POLL_DW 6u
#define SDMA_ATOMIC_DW 8u
#define SDMA_CONST_FILL_DW 5u
#define SDMA_TIMESTAMP_DW 3u
#define SDMA_PKT_MAX_DW 20u /* largest fixed-size packet */

/* ---- limits ---- */
/* COPY_LINEAR's count is 30 bits on SDMA 4.4 (ROCr commit 81c64228, "SDMA4.4 and SDMA5.2+ has
 * increased its available copy size to 2^30"; 22 bits on earlier SDMA 4.x); capped a little
 * below 1 GiB at a 32-byte multiple, as ROCm/mori's cco.hpp does. */
#define SDMA_COPY_LINEAR_MAX 0x3FFFFFE0ull
#define SDMA_COPY_LINEAR_MAX_SDMA40 0x3FFFE0ull /* SDMA 4.0-4.2 (gfx900-gfx908): 22-bit count */
/* CONST_FILL's count stays 22 bits on every SDMA 4.x: Linux vega10_sdma_pkt_open.h
 * SDMA_PKT_CONSTANT_FILL_COUNT_count_mask 0x003FFFFF (used by sdma_v4_4_2.c, whose
 * fill_max_bytes is 0x400000); ROCr sdma_registers.h SDMA_PKT_CONSTANT_FILL count:22,
 * kMaxSize_ 0x3fffe0 (a dword multiple, so a dword pattern keeps its phase across packets).
 * The 30-bit fill count is SDMA 7 (gfx12). */
#define SDMA_CONST_FILL_MAX 0x3FFFE0ull
#define SDMA_COPY_COUNT_MASK 0x3FFFFFFFu /* COPY_LINEAR DW1 count field (SDMA 4.4) */
#define SDMA_FILL_COUNT_MASK 0x003FFFFFu /* CONST_FILL DW4 count field (SDMA 4.x) */
#define SDMA_SW13_MAX_RECT 16384u        /* rect_x (elements) and rect_y: 14-bit fields */
#define SDMA_SW13_MAX_PITCH (1u << 19)   /* pitch in elements: 19-bit field */
#define SDMA_POLL_RETRY_FOREVER 0xFFFu   /* retry count meaning "poll forever" */

/* POLL_REGMEM compare functions (DW0 bits 30:28); passes when (*addr & mask) <func> ref. */
#define SDMA_POLL_ALWAYS 0
#define SDMA_POLL_LT 1
#define SDMA_POLL_LE 2
#define SDMA_POLL_EQ 3
#define SDMA_POLL_NE 4
#define SDMA_POLL_GE 5
#define SDMA_POLL_GT 6
/* Aliases in the hardware manual's spelling. */
#define SDMA_POLL_FUNC_GEQ SDMA_POLL_GE

/* ATOMIC operation codes (DW0 bits 31:25). +0x20: 64-bit, +0x40: no return. */
#define SDMA_ATOMIC_SWAP32 0x07
#define SDMA_ATOMIC_CMPSWAP32 0x08
#define SDMA_ATOMIC_ADD32 0x0F
#define SDMA_ATOMIC_SWAP64 0x27
#define SDMA_ATOMIC_CMPSWAP64 0x28
#define SDMA_ATOMIC_ADD64 0x2F
#define SDMA_ATOMIC_SWAP32_NORET 0x47
#define SDMA_ATOMIC_CMPSWAP32_NORET 0x48
#define SDMA_ATOMIC_ADD32_NORET 0x4F
#define SDMA_ATOMIC_SWAP64_NORET 0x67
#define SDMA_ATOMIC_CMPSWAP64_NORET 0x68
#define SDMA_ATOMIC_ADD64_NORET 0x6F
#define SDMA_ATOMIC_FLAG_64 0x20
#define SDMA_ATOMIC_FLAG_NORET 0x40

/* CONST_FILL fill sizes (DW0 bits 31:30). */
#define SDMA_FILL_BYTE 0u
#define SDMA_FILL_WORD 1u
#define SDMA_FILL_DWORD 2u

/* DW0 bits of POLL_REGMEM. */
#define SDMA_POLL_MEM (1u << 31)
#define SDMA_POLL_HDP_FLUSH (1u << 26)

SDMA_STATIC_ASSERT(SDMA_COPY_LINEAR_DW == 7, "COPY_LINEAR is 7 dwords");
SDMA_STATIC_ASSERT(SDMA_COPY_2D_SW13_DW == 13, "LINEAR_SUB_WINDOW is 13 dwords");
SDMA_STATIC_ASSERT(SDMA_COPY_2D_DW == 20, "LINEAR_SUB_WINDOW_LARGE is 20 dwords");
SDMA_STATIC_ASSERT(SDMA_POLL_DW == 6, "POLL_REGMEM is 6 dwords");
SDMA_STATIC_ASSERT(SDMA_ATOMIC_DW == 8, "ATOMIC is 8 dwords");
SDMA_STATIC_ASSERT(SDMA_FENCE_DW == 4, "FENCE is 4 dwords");
SDMA_STATIC_ASSERT(SDMA_TRAP_DW == 2, "TRAP is 2 dwords");
SDMA_STATIC_ASSERT(SDMA_CONST_FILL_DW == 5, "CONST_FILL is 5 dwords");
SDMA_STATIC_ASSERT(SDMA_TIMESTAMP_DW == 3, "TIMESTAMP is 3 dwords");
SDMA_STATIC_ASSERT(SDMA_PKT_MAX_DW >= SDMA_COPY_2D_DW, "largest packet");
SDMA_STATIC_ASSERT((SDMA_ATOMIC_ADD64 & 0x7F) == SDMA_ATOMIC_ADD64, "7-bit op");

#define SDMA_HDR(op, sub) ((uint32_t)(op) | ((uint32_t)(sub) << 8))
#define SDMA_LO(a) ((uint32_t)((uint64_t)(a)&0xFFFFFFFFu))
#define SDMA_HI(a) ((uint32_t)((uint64_t)(a) >> 32))

/* NOP spanning `ndw` dwords (1..SDMA_NOP_MAX_DW): header count = ndw-1 (bits 29:16), the
 * following dwords are zero. Returns ndw (0 when ndw is 0). A count above 0 is a "burst" NOP,
 * which needs SDMA firmware feature_version >= 20 (Linux amdgpu_sdma.c sets burst_nop from
 * it); the skipped dwords are zeros, which older firmware runs as 1-dword NOPs anyway. */
static inline SDMA_HD size_t sdma_pkt_nop(uint32_t *dw, size_t ndw) {
    size_t i;
    if (ndw == 0)
        return 0;
    dw[0] = SDMA_HDR(SDMA_OP_NOP, 0) | ((uint32_t)((ndw - 1) & 0x3FFFu) << 16);
    for (i = 1; i < ndw; i++)
        dw[i] = 0;
    return ndw;
}

/* `ndw` zero dwords: each is a 1-dword NOP on any firmware. ROCr pads the ring end this way
 * (amd_blit_sdma.cpp PadRingToEnd: memset 0). Returns ndw. */
static inline SDMA_HD size_t sdma_pkt_nop_zero(uint32_t *dw, size_t ndw) {
    size_t i;
    for (i = 0; i < ndw; i++)
        dw[i] = 0;
    return ndw;
}

/* COPY_LINEAR of `bytes` (1..SDMA_COPY_LINEAR_MAX) from src to dst. */
static inline SDMA_HD size_t sdma_pkt_copy_linear(uint32_t *dw, uint64_t dst, uint64_t src,
                                                  uint32_t bytes) {
    dw[0] = SDMA_HDR(SDMA_OP_COPY, SDMA_SUBOP_COPY_LINEAR);
    dw[1] = (bytes - 1u) & SDMA_COPY_COUNT_MASK; /* bits 31:30 are reserved */
    dw[2] = 0;                                   /* swap / cache hints */
    dw[3] = SDMA_LO(src);
    dw[4] = SDMA_HI(src);
    dw[5] = SDMA_LO(dst);
    dw[6] = SDMA_HI(dst);
    return SDMA_COPY_LINEAR_DW;
}

/* 2D copy with LINEAR_SUB_WINDOW_LARGE (sub-op 0x24, 20 dwords): `rows` rows of `row_bytes`
 * bytes, rows `src_pitch` / `dst_pitch` bytes apart. The packet is in the SDMA 5.2/6/7
 * definitions (PAL's gfx12 SDMA_PKT_COPY_LINEAR_SUBWIN_LARGE) but not in the kernel's
 * vega10_sdma_pkt_open.h that SDMA 4.4 (MI200/MI300) uses, and no public AMD source uses it on
 * gfx9, nor says whether its pitch/rect fields are minus-one encoded: on gfx9 hardware it is
 * only sent on request (SHMEM_ENGINE_COPY_2D=large). The soft and cuda engines take it. */
static inline SDMA_HD size_t sdma_pkt_copy_2d(uint32_t *dw, uint64_t dst, uint32_t dst_pitch,
                                              uint64_t src, uint32_t src_pitch, uint32_t row_bytes,
                                              uint32_t rows) {
    dw[0] = SDMA_HDR(SDMA_OP_COPY, SDMA_SUBOP_COPY_LINEAR_SUB_WINDOW_LARGE);
    dw[1] = SDMA_LO(src);
    dw[2] = SDMA_HI(src);
    dw[3] = 0;              /* src_x (bytes) */
    dw[4] = 0;              /* src_y (rows) */
    dw[5] = 0;              /* src_z */
    dw[6] = src_pitch - 1u; /* src pitch, bytes - 1 */
    dw[7] = 0;              /* src slice pitch (64-bit), 0 for 2D */
    dw[8] = 0;
    dw[9] = SDMA_LO(dst);
    dw[10] = SDMA_HI(dst);
    dw[11] = 0;              /* dst_x */
    dw[12] = 0;              /* dst_y */
    dw[13] = 0;              /* dst_z */
    dw[14] = dst_pitch - 1u; /* dst pitch, bytes - 1 */
    dw[15] = 0;              /* dst slice pitch */
    dw[16] = 0;
    dw[17] = row_bytes - 1u; /* rect width, bytes - 1 */
    dw[18] = rows - 1u;      /* rect height - 1 */
    dw[19] = 0;              /* rect depth - 1 */
    return SDMA_COPY_2D_DW;
}

/* LINEAR_SUB_WINDOW (sub-op 4, 13 dwords), the 2D copy of every part before gfx12, follows
 * ROCr's rules (amd_blit_sdma.cpp, SubmitCopyRectCommand and BuildCopyRectCommand): "Hardware
 * requires DWORD alignment for base address, pitches". Each base goes into the packet aligned
 * down to a dword, the remainder into x in elements; pitches must be dword multiples (else
 * copy row by row); the element size (1..16 bytes, log2 in DW0 bits 31:29) must divide both
 * pitches, the row width and both remainders. Slice pitches are 0 for a 2D window, as ROCr
 * writes them when rect_z is 1. */

/* log2 of the largest element (up to 16 bytes) for this window. */
static inline SDMA_HD unsigned sdma_sw13_elem_log2(uint64_t dst, uint32_t dst_pitch, uint64_t src,
                                                   uint32_t src_pitch, uint32_t row_bytes) {
    uint64_t v = (dst & 3u) | (src & 3u) | dst_pitch | src_pitch | row_bytes;
    unsigned e = 4;
    while (e > 0 && (v & ((1ull << e) - 1)) != 0)
        e--;
    return e;
}

/* 1 when the window can be one LINEAR_SUB_WINDOW packet: dword pitches, each row inside its
 * pitch after the base's remainder, rect within the 14-bit fields, pitches within 19 bits. */
static inline SDMA_HD int sdma_pkt_copy_2d_sw13_fits(uint64_t dst, uint32_t dst_pitch, uint64_t src,
                                                     uint32_t src_pitch, uint32_t row_bytes,
                                                     uint32_t rows) {
    unsigned e = sdma_sw13_elem_log2(dst, dst_pitch, src, src_pitch, row_bytes);
    return row_bytes > 0 && rows > 0 && rows <= SDMA_SW13_MAX_RECT && (src_pitch & 3u) == 0 &&
           (dst_pitch & 3u) == 0 && (uint64_t)(src & 3u) + row_bytes <= src_pitch &&
           (uint64_t)(dst & 3u) + row_bytes <= dst_pitch &&
           (row_bytes >> e) <= SDMA_SW13_MAX_RECT && (src_pitch >> e) <= SDMA_SW13_MAX_PITCH &&
           (dst_pitch >> e) <= SDMA_SW13_MAX_PITCH;
}

/* The packet with element size 2^e (e must suit the window: sdma_sw13_elem_log2 or smaller);
 * check the window with sdma_pkt_copy_2d_sw13_fits first. */
static inline SDMA_HD size_t sdma_pkt_copy_2d_sw13_elem(uint32_t *dw, uint64_t dst,
                                                        uint32_t dst_pitch, uint64_t src,
                                                        uint32_t src_pitch, uint32_t row_bytes,
                                                        uint32_t rows, unsigned e) {
    uint32_t sp = src_pitch >> e, dp = dst_pitch >> e, w = row_bytes >> e;
    dw[0] = SDMA_HDR(SDMA_OP_COPY, SDMA_SUBOP_COPY_LINEAR_SUB_WINDOW) | ((uint32_t)e << 29);
    dw[1] = SDMA_LO(src & ~3ull);
    dw[2] = SDMA_HI(src);
    dw[3] = (uint32_t)((src & 3u) >> e);  /* src_x 13:0 (elements), src_y 29:16 */
    dw[4] = ((sp - 1u) & 0x7FFFFu) << 13; /* src_z 10:0, src pitch-1 31:13 */
    dw[5] = 0;                            /* src slice pitch-1 27:0: 0, rect_z is 1 */
    dw[6] = SDMA_LO(dst & ~3ull);
    dw[7] = SDMA_HI(dst);
    dw[8] = (uint32_t)((dst & 3u) >> e);                             /* dst_x, dst_y */
    dw[9] = ((dp - 1u) & 0x7FFFFu) << 13;                            /* dst_z, dst pitch-1 */
    dw[10] = 0;                                                      /* dst slice pitch-1 */
    dw[11] = ((w - 1u) & 0x3FFFu) | (((rows - 1u) & 0x3FFFu) << 16); /* rect_x-1, rect_y-1 */
    dw[12] = 0;                                                      /* rect_z-1 */
    return SDMA_COPY_2D_SW13_DW;
}

/* The same with the largest element the window allows. */
static inline SDMA_HD size_t sdma_pkt_copy_2d_sw13(uint32_t *dw, uint64_t dst, uint32_t dst_pitch,
                                                   uint64_t src, uint32_t src_pitch,
                                                   uint32_t row_bytes, uint32_t rows) {
    return sdma_pkt_copy_2d_sw13_elem(
        dw, dst, dst_pitch, src, src_pitch, row_bytes, rows,
        sdma_sw13_elem_log2(dst, dst_pitch, src, src_pitch, row_bytes));
}

/* POLL_REGMEM on memory: wait until (*addr & mask) <func> ref, checking every `interval`
 * and at most `retry` times (SDMA_POLL_RETRY_FOREVER = forever). addr: 4-byte aligned. */
static inline SDMA_HD size_t sdma_pkt_poll(uint32_t *dw, uint64_t addr, uint32_t ref, uint32_t mask,
                                           int func, uint16_t interval, uint16_t retry) {
    dw[0] = SDMA_HDR(SDMA_OP_POLL_REGMEM, 0) | (((uint32_t)func & 7u) << 28) | SDMA_POLL_MEM;
    dw[1] = SDMA_LO(addr);
    dw[2] = SDMA_HI(addr);
    dw[3] = ref;
    dw[4] = mask;
    dw[5] = (uint32_t)interval | (((uint32_t)retry & 0xFFFu) << 16);
    return SDMA_POLL_DW;
}

/* ATOMIC `op` (SDMA_ATOMIC_*) on the 32/64-bit word at addr with source and compare values. */
static inline SDMA_HD size_t sdma_pkt_atomic(uint32_t *dw, uint64_t addr, int op, uint64_t src,
                                             uint64_t cmp) {
    dw[0] = SDMA_HDR(SDMA_OP_ATOMIC, 0) | (((uint32_t)op & 0x7Fu) << 25); /* loop bit 16: 0 */
    dw[1] = SDMA_LO(addr);
    dw[2] = SDMA_HI(addr);
    dw[3] = SDMA_LO(src);
    dw[4] = SDMA_HI(src);
    dw[5] = SDMA_LO(cmp);
    dw[6] = SDMA_HI(cmp);
    dw[7] = 0; /* loop interval */
    return SDMA_ATOMIC_DW;
}

/* FENCE: write the 32-bit `value` to addr once every earlier packet of the queue is done. */
static inline SDMA_HD size_t sdma_pkt_fence(uint32_t *dw, uint64_t addr, uint32_t value) {
    dw[0] = SDMA_HDR(SDMA_OP_FENCE, 0);
    dw[1] = SDMA_LO(addr);
    dw[2] = SDMA_HI(addr);
    dw[3] = value;
    return SDMA_FENCE_DW;
}

/* TRAP: raise an interrupt carrying a 28-bit context. */
static inline SDMA_HD size_t sdma_pkt_trap(uint32_t *dw, uint32_t context) {
    dw[0] = SDMA_HDR(SDMA_OP_TRAP, 0);
    dw[1] = context & 0x0FFFFFFFu;
    return SDMA_TRAP_DW;
}

/* CONST_FILL: fill `bytes` (1..SDMA_CONST_FILL_MAX) at dst with the dword `value`. The count
 * is bytes-1, as the kernel's emit_fill_buffer and kfdtest's SDMA_COUNT write it; bits above
 * the 22-bit field are reserved and never set. */
static inline SDMA_HD size_t sdma_pkt_const_fill(uint32_t *dw, uint64_t dst, uint32_t value,
                                                 uint32_t bytes) {
    dw[0] = SDMA_HDR(SDMA_OP_CONST_FILL, 0) | (SDMA_FILL_DWORD << 30);
    dw[1] = SDMA_LO(dst);
    dw[2] = SDMA_HI(dst);
    dw[3] = value;
    dw[4] = (bytes - 1u) & SDMA_FILL_COUNT_MASK;
    return SDMA_CONST_FILL_DW;
}

/* TIMESTAMP (get global): write the engine's 64-bit timestamp to addr (32-byte aligned). */
static inline SDMA_HD size_t sdma_pkt_timestamp(uint32_t *dw, uint64_t addr) {
    dw[0] = SDMA_HDR(SDMA_OP_TIMESTAMP, SDMA_SUBOP_TIMESTAMP_GET_GLOBAL);
    dw[1] = SDMA_LO(addr);
    dw[2] = SDMA_HI(addr);
    return SDMA_TIMESTAMP_DW;
}

#endif
