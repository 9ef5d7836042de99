/* Triggered plans over many rounds: row chunks plus a strided 2D chunk per PE,
 * written by two host threads per PE (two writers per chunk), 100 rounds, the
 * whole buffer checked at every PE every round. Then an overlapping schedule
 * must be refused with SHMEMX_PLAN_EINVAL on every PE, leaving nothing behind:
 * a valid plan created right after it works.
 *
 * Buffer layout (n PEs):
 *   [0, ROWS_AREA)            n * ROWS rows of ROW_B bytes, packed; PE q owns
 *                              rows [q * ROWS, (q + 1) * ROWS), cut in NROWCH chunks
 *   [ROWS_AREA, + GRID_AREA)  GRID_ROWS rows of LD bytes; PE q owns the column
 *                              block [q * COL_B, (q + 1) * COL_B) of every row
 *                              (one 2D region: stride LD > COL_B), the rest of a
 *                              row is padding nobody sends
 */
#include "check.h"

#include <shmemx.h>

#include <pthread.h>
#include <string.h>

#define ROUNDS 100
#define ROW_B 48
#define ROWS 30
#define NROWCH 3
#define COL_B 40
#define GRID_ROWS 17
#define PAD 24
#define WRITERS 2
#define PAD_BYTE 0xEE

static int me, npes;
static size_t rows_area, grid_off, ld, buf_size;

static unsigned char *rows_at(unsigned char *buf, int q) { return buf + (size_t)q * ROWS * ROW_B; }

/* Byte i of PE q's rows (i < ROWS * ROW_B) and of its column block (i < GRID_ROWS * COL_B). */
static unsigned char row_byte(int q, size_t i, unsigned r) { return func_byte(q, i, r); }
static unsigned char grid_byte(int q, size_t i, unsigned r) { return func_byte(q + 100, i, r); }

struct writer {
    unsigned char *buf;
    shmemx_plan_view_t *view;
    shmemx_plan_t plan;
    unsigned round;
    int id; /* 0 or 1: which half of every chunk it writes */
};

/* Writer w writes its half of the rows of each row chunk and of the grid chunk,
 * marking each chunk once its part is written. */
static void *produce(void *arg) {
    struct writer *w = arg;
    const size_t per = ROWS / NROWCH; /* ROWS is a multiple of NROWCH */
    unsigned char *mine = rows_at(w->buf, me);
    for (int k = 0; k < NROWCH; k++) {
        size_t first = (size_t)k * per, half = per / 2;
        size_t lo = w->id ? first + half : first, hi = w->id ? first + per : first + half;
        for (size_t row = lo; row < hi; row++)
            for (size_t b = 0; b < ROW_B; b++)
                mine[row * ROW_B + b] = row_byte(me, row * ROW_B + b, w->round);
        shmemx_plan_mark_ready(w->view, shmemx_plan_chunk_id(w->plan, me, (size_t)k));
    }
    for (size_t row = (size_t)w->id; row < GRID_ROWS; row += 2) /* interleaved halves */
        for (size_t b = 0; b < COL_B; b++)
            w->buf[grid_off + row * ld + (size_t)me * COL_B + b] =
                grid_byte(me, row * COL_B + b, w->round);
    shmemx_plan_mark_ready(w->view, shmemx_plan_chunk_id(w->plan, me, NROWCH));
    return NULL;
}

static void check_all(const unsigned char *buf, unsigned r) {
    for (int q = 0; q < npes; q++) {
        const unsigned char *rq = buf + (size_t)q * ROWS * ROW_B;
        for (size_t i = 0; i < (size_t)ROWS * ROW_B; i++)
            CHECK(rq[i] == row_byte(q, i, r), "round %u: row byte %zu of PE %d is %d, expected %d",
                  r, i, q, rq[i], row_byte(q, i, r));
        for (size_t row = 0; row < GRID_ROWS; row++)
            for (size_t b = 0; b < COL_B; b++) {
                unsigned char got = buf[grid_off + row * ld + (size_t)q * COL_B + b];
                CHECK(got == grid_byte(q, row * COL_B + b, r),
                      "round %u: grid row %zu byte %zu of PE %d is %d, expected %d", r, row, b, q,
                      got, grid_byte(q, row * COL_B + b, r));
            }
    }
    for (size_t row = 0; row < GRID_ROWS; row++)
        for (size_t b = (size_t)npes * COL_B; b < ld; b++)
            CHECK(buf[grid_off + row * ld + b] == PAD_BYTE,
                  "round %u: padding byte %zu of grid row %zu was overwritten", r, b, row);
}

static void rounds(void) {
    unsigned char *buf = shmem_malloc(buf_size);
    CHECK(buf, "shmem_malloc(%zu)", buf_size);
    memset(buf, PAD_BYTE, buf_size);

    shmemx_region_t regs[NROWCH + 1];
    shmemx_chunk_t chunks[NROWCH + 1];
    int nc =
        shmemx_plan_rows((size_t)me * ROWS * ROW_B, ROW_B, ROWS, 0, NROWCH, WRITERS, regs, chunks);
    CHECK(nc == NROWCH, "shmemx_plan_rows returned %d", nc);
    regs[NROWCH] = (shmemx_region_t){grid_off + (size_t)me * COL_B, COL_B, GRID_ROWS, ld};
    chunks[NROWCH] = (shmemx_chunk_t){&regs[NROWCH], 1, WRITERS};
    shmem_barrier_all();

    shmemx_plan_config_t cfg = SHMEMX_PLAN_CONFIG_INIT;
    cfg.timeout_s = 10.0;
    shmemx_plan_t plan = NULL;
    int rc = shmemx_plan_create(buf, buf_size, chunks, NROWCH + 1, &cfg, &plan);
    CHECK(rc == 0, "create: %s (%s)", shmemx_plan_strerror(rc), shmemx_plan_errmsg(NULL));
    for (int q = 0; q < npes; q++)
        CHECK(shmemx_plan_chunk_id(plan, q, 0) == q * (NROWCH + 1),
              "chunk ids: PE %d's first chunk is %d", q, shmemx_plan_chunk_id(plan, q, 0));

    for (unsigned r = 1; r <= ROUNDS; r++) {
        int state = 0;
        long pr = 0;
        shmemx_plan_query(plan, &state, &pr);
        CHECK(state == SHMEMX_PLAN_ARMED && pr == (long)r, "round %u: state %d, round %ld", r,
              state, pr);
        shmemx_plan_view_t *view = NULL;
        rc = shmemx_plan_start(plan, &view);
        CHECK(rc == 0 && view, "round %u: start: %s", r, shmemx_plan_errmsg(plan));
        for (int c = 0; c < (int)(NROWCH + 1) * npes; c++)
            CHECK(shmemx_plan_owns(view, c) == (c / (NROWCH + 1) == me), "owns(%d)", c);

        struct writer w[WRITERS];
        pthread_t th[WRITERS];
        for (int t = 0; t < WRITERS; t++) {
            w[t] = (struct writer){buf, view, plan, r, t};
            CHECK(pthread_create(&th[t], NULL, produce, &w[t]) == 0, "pthread_create");
        }
        for (int t = 0; t < WRITERS; t++)
            pthread_join(th[t], NULL);
        /* Every chunk, own and others', becomes visible through the view too. */
        for (int c = 0; c < (int)(NROWCH + 1) * npes; c++) {
            rc = shmemx_plan_wait_chunk(view, c);
            CHECK(rc == 0, "round %u: wait_chunk(%d): %s", r, c, shmemx_plan_strerror(rc));
            CHECK(shmemx_plan_arrived(view, c), "round %u: chunk %d not arrived", r, c);
        }
        rc = shmemx_plan_wait(plan, -1);
        CHECK(rc == 0, "round %u: wait: %s", r, shmemx_plan_errmsg(plan));
        shmemx_plan_query(plan, &state, NULL);
        CHECK(state == SHMEMX_PLAN_DELIVERED, "round %u: state %d after wait", r, state);
        check_all(buf, r);
        if (r < ROUNDS) {
            rc = shmemx_plan_next_round(plan);
            CHECK(rc == 0, "round %u: next_round: %s", r, shmemx_plan_errmsg(plan));
        }
    }
    rc = shmemx_plan_close(plan, -1);
    CHECK(rc == 0, "close: %s", shmemx_plan_errmsg(plan));
    int state = 0;
    shmemx_plan_query(plan, &state, NULL);
    CHECK(state == SHMEMX_PLAN_CLOSED, "state %d after close", state);
    shmem_free(buf);
}

/* Overlapping schedules (between PEs, then within one PE's strided rows) are
 * refused on every PE; a valid plan afterwards works. */
static void overlap(void) {
    const size_t size = (size_t)(npes + 1) * 256;
    unsigned char *buf = shmem_malloc(size);
    CHECK(buf, "shmem_malloc");
    memset(buf, 0, size);
    shmemx_region_t reg[2];
    shmemx_chunk_t ch[2];
    shmemx_plan_t plan = NULL;

    /* PE q sends [q * 256, q * 256 + 300): 44 bytes of PE q + 1's part too. The
     * last PE's range stays inside the buffer, so only the overlap is wrong. */
    CHECK(shmemx_plan_whole((size_t)me * 256, 300, 1, &reg[0], &ch[0]) == 1, "whole");
    int rc = shmemx_plan_create(buf, size, ch, 1, NULL, &plan);
    CHECK(rc == SHMEMX_PLAN_EINVAL, "overlap between PEs: create returned %d (%s)", rc,
          shmemx_plan_strerror(rc));
    CHECK(strstr(shmemx_plan_errmsg(NULL), "overlap"), "create's message: \"%s\"",
          shmemx_plan_errmsg(NULL));

    /* Strided rows of one PE's two chunks that hit each other's rows: refused. */
    reg[0] = (shmemx_region_t){(size_t)me * 256, 16, 4, 32};      /* rows at +0, +32, +64, +96 */
    reg[1] = (shmemx_region_t){(size_t)me * 256 + 40, 16, 4, 32}; /* rows at +40 ... overlaps +32 */
    ch[0] = (shmemx_chunk_t){&reg[0], 1, 1};
    ch[1] = (shmemx_chunk_t){&reg[1], 1, 1};
    rc = shmemx_plan_create(buf, size, ch, 2, NULL, &plan);
    CHECK(rc == SHMEMX_PLAN_EINVAL, "overlapping strided rows: create returned %d", rc);

    /* The same chunks interleaved without touching (+16 instead of +40): accepted. */
    reg[1].offset = (size_t)me * 256 + 16;
    plan = NULL;
    rc = shmemx_plan_create(buf, size, ch, 2, NULL, &plan);
    CHECK(rc == 0 && plan, "interleaved strided rows: create: %s (%s)", shmemx_plan_strerror(rc),
          shmemx_plan_errmsg(NULL));
    for (size_t i = 0; i < 128; i++)
        buf[(size_t)me * 256 + i] = func_byte(me, i, 7);
    rc = shmemx_plan_run(plan, -1);
    CHECK(rc == 0, "run: %s", shmemx_plan_errmsg(plan));
    for (int q = 0; q < npes; q++)
        for (size_t i = 0; i < 128; i++)
            CHECK(buf[(size_t)q * 256 + i] == func_byte(q, i, 7), "byte %zu of PE %d's part", i, q);
    rc = shmemx_plan_close(plan, -1);
    CHECK(rc == 0, "close: %s", shmemx_plan_errmsg(plan));
    shmem_free(buf);
}

int main(void) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    rows_area = (size_t)npes * ROWS * ROW_B;
    grid_off = (rows_area + 63) & ~(size_t)63;
    ld = (size_t)npes * COL_B + PAD;
    buf_size = grid_off + GRID_ROWS * ld;
    if (npes < 2) {
        func_pass("plan_rounds (nothing to send with one PE)");
        shmem_finalize();
        return 0;
    }
    rounds();
    overlap();
    shmem_barrier_all();
    func_pass("plan_rounds");
    shmem_finalize();
    return 0;
}
