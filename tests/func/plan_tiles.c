/* 2D tile schedules: a ROWS x COLS matrix of 4-byte elements (row pitch LD
 * bytes, with padding nobody sends) cut in 8 x 8 tiles whose last row and
 * column of tiles are smaller (50 = 6 * 8 + 2, 45 = 5 * 8 + 5). PE q produces
 * the tiles t with t % n == q in a scrambled completion order, grouped 3 tiles
 * per chunk (the last chunk short); 20 rounds, every element and the padding
 * checked at every PE.
 */
#include "check.h"

#include <shmemx.h>

#include <stdint.h>
#include <string.h>

#define ROWS 50
#define COLS 45
#define TR 8
#define TC 8
#define LD (COLS * 4 + 12)
#define TPC 3
#define ROUNDS 20
#define PAD 0xA7A7A7A7u

static int me, npes;

static uint32_t val(int pe, size_t row, size_t col, unsigned r) {
    return (uint32_t)(pe + 1) * 0x01000000u + (uint32_t)(row * COLS + col) * 131u + r * 7919u;
}

static uint32_t *at(unsigned char *m, size_t row, size_t col) {
    return (uint32_t *)(m + row * LD + col * 4);
}

int main(void) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    if (npes < 2) {
        func_pass("plan_tiles (needs 2 PEs)");
        shmem_finalize();
        return 0;
    }
    const size_t grid_r = (ROWS + TR - 1) / TR, grid_c = (COLS + TC - 1) / TC;
    const size_t ntiles_all = grid_r * grid_c;
    const size_t size = ROWS * LD;
    unsigned char *m = shmem_malloc(size);
    CHECK(m, "shmem_malloc");
    for (size_t i = 0; i < size / 4; i++)
        ((uint32_t *)m)[i] = PAD;

    /* This PE's tiles, completed in a scrambled order: every third, from the
     * middle, wrapping around. */
    size_t mine[64], n = 0;
    for (size_t t = (size_t)me; t < ntiles_all; t += (size_t)npes)
        mine[n++] = t;
    size_t order[64];
    for (size_t i = 0; i < n; i++)
        order[i] = mine[(n / 2 + i * 3) % n];
    /* i * 3 mod n is a permutation only when 3 does not divide n */
    if (n % 3 == 0)
        for (size_t i = 0; i < n; i++)
            order[i] = mine[n - 1 - i];

    shmemx_tiling_t tiling = {0, 4, LD, ROWS, COLS, TR, TC};
    shmemx_region_t regs[64];
    shmemx_chunk_t chunks[64];
    int nch = shmemx_plan_tiles(&tiling, order, n, TPC, 1, regs, chunks);
    CHECK(nch == (int)((n + TPC - 1) / TPC), "tiles: %d chunks for %zu tiles", nch, n);
    /* The edge tiles are smaller. */
    for (size_t i = 0; i < n; i++) {
        size_t tr = order[i] / grid_c, tc = order[i] % grid_c;
        size_t want_rows = tr == grid_r - 1 ? ROWS - tr * TR : TR;
        size_t want_bytes = (tc == grid_c - 1 ? COLS - tc * TC : TC) * 4;
        CHECK(regs[i].rows == want_rows && regs[i].row_bytes == want_bytes &&
                  regs[i].stride == LD && regs[i].offset == tr * TR * LD + tc * TC * 4,
              "tile %zu: region {%zu, %zu, %zu, %zu}", order[i], regs[i].offset, regs[i].row_bytes,
              regs[i].rows, regs[i].stride);
    }
    shmem_barrier_all();

    shmemx_plan_config_t cfg = SHMEMX_PLAN_CONFIG_INIT;
    cfg.timeout_s = 10.0;
    shmemx_plan_t p = NULL;
    int rc = shmemx_plan_create(m, size, chunks, (size_t)nch, &cfg, &p);
    CHECK(rc == 0, "create: %s (%s)", shmemx_plan_strerror(rc), shmemx_plan_errmsg(NULL));

    for (unsigned r = 1; r <= ROUNDS; r++) {
        shmemx_plan_view_t *v = NULL;
        CHECK(shmemx_plan_start(p, &v) == 0, "round %u: start: %s", r, shmemx_plan_errmsg(p));
        /* The producer completes the tiles in `order`; a chunk is marked once its
         * last tile is written. */
        for (size_t i = 0; i < n; i++) {
            size_t tr = order[i] / grid_c, tc = order[i] % grid_c;
            for (size_t row = tr * TR; row < ROWS && row < (tr + 1) * TR; row++)
                for (size_t col = tc * TC; col < COLS && col < (tc + 1) * TC; col++)
                    *at(m, row, col) = val(me, row, col, r);
            if ((i + 1) % TPC == 0 || i + 1 == n)
                shmemx_plan_mark_ready(v, shmemx_plan_chunk_id(p, me, i / TPC));
        }
        rc = shmemx_plan_wait(p, -1);
        CHECK(rc == 0, "round %u: wait: %s", r, shmemx_plan_errmsg(p));
        for (size_t row = 0; row < ROWS; row++) {
            for (size_t col = 0; col < COLS; col++) {
                size_t tile = (row / TR) * grid_c + col / TC;
                int owner = (int)(tile % (size_t)npes);
                CHECK(*at(m, row, col) == val(owner, row, col, r),
                      "round %u: element (%zu, %zu) of tile %zu (PE %d) is %#x, expected %#x", r,
                      row, col, tile, owner, *at(m, row, col), val(owner, row, col, r));
            }
            for (size_t b = COLS * 4; b < LD; b += 4)
                CHECK(*(uint32_t *)(m + row * LD + b) == PAD, "round %u: padding of row %zu", r,
                      row);
        }
        rc = shmemx_plan_next_round(p);
        CHECK(rc == 0, "round %u: next_round: %s", r, shmemx_plan_errmsg(p));
    }
    CHECK(shmemx_plan_close(p, -1) == 0, "close: %s", shmemx_plan_errmsg(p));
    shmem_free(m);
    func_pass("plan_tiles");
    shmem_finalize();
    return 0;
}
