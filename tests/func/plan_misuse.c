/* Triggered plans refuse misuse with the documented codes: calls out of order
 * (SHMEMX_PLAN_ESTATE), bad buffers and schedules (SHMEMX_PLAN_EINVAL on every
 * PE, even when only one PE passed the bad argument), teams other than WORLD
 * and stream-ordered calls in a CPU build (SHMEMX_PLAN_EUNSUPPORTED). Every
 * code has a message, and a timeout's message names the round, chunk and PE.
 * After each refused create a valid plan still works.
 */
#include "check.h"

#include <shmemx.h>

#include <string.h>

#define PART 256

static int me, npes;
static unsigned char *buf;
static size_t size;

static shmemx_region_t reg;
static shmemx_chunk_t chunk;

static void own_part(int writers) {
    CHECK(shmemx_plan_whole((size_t)me * PART, PART, writers, &reg, &chunk) == 1, "whole");
}

/* One round on a fresh plan over the whole buffer: proves no refused create left
 * anything behind. */
static void valid_round(unsigned tag) {
    own_part(1);
    shmemx_plan_t p = NULL;
    int rc = shmemx_plan_create(buf, size, &chunk, 1, NULL, &p);
    CHECK(rc == 0, "valid create after a refused one: %s (%s)", shmemx_plan_strerror(rc),
          shmemx_plan_errmsg(NULL));
    for (size_t i = 0; i < PART; i++)
        buf[(size_t)me * PART + i] = func_byte(me, i, tag);
    rc = shmemx_plan_run(p, -1);
    CHECK(rc == 0, "run: %s", shmemx_plan_errmsg(p));
    for (int q = 0; q < npes; q++)
        for (size_t i = 0; i < PART; i++)
            CHECK(buf[(size_t)q * PART + i] == func_byte(q, i, tag), "tag %u: byte %zu of PE %d",
                  tag, i, q);
    rc = shmemx_plan_close(p, -1);
    CHECK(rc == 0, "close: %s", shmemx_plan_errmsg(p));
}

static void expect_create(int want, const char *what, unsigned char *b, size_t sz,
                          const shmemx_chunk_t *ch, size_t nch, const shmemx_plan_config_t *cfg) {
    shmemx_plan_t p = NULL;
    int rc = shmemx_plan_create(b, sz, ch, nch, cfg, &p);
    CHECK(rc == want, "%s: create returned %d (%s), expected %d; message \"%s\"", what, rc,
          shmemx_plan_strerror(rc), want, shmemx_plan_errmsg(NULL));
    CHECK(shmemx_plan_errmsg(NULL)[0], "%s: no message from the refused create", what);
    CHECK(p == NULL, "%s: a refused create returned a plan", what);
}

static void order_misuse(void) {
    own_part(1);
    shmemx_plan_t p = NULL;
    int rc = shmemx_plan_create(buf, size, &chunk, 1, NULL, &p);
    CHECK(rc == 0, "create: %s", shmemx_plan_errmsg(NULL));
    shmemx_plan_view_t *v = NULL;

    CHECK(shmemx_plan_wait(p, 1.0) == SHMEMX_PLAN_ESTATE, "wait before start");
    CHECK(shmemx_plan_next_round(p) == SHMEMX_PLAN_ESTATE, "next_round before start");
    CHECK(shmemx_plan_prepare_next(p) == SHMEMX_PLAN_ESTATE, "prepare_next without prepare_ahead");
    CHECK(shmemx_plan_wait_on_stream(p, NULL) == SHMEMX_PLAN_EUNSUPPORTED,
          "wait_on_stream in a CPU build");
    CHECK(shmemx_plan_next_round_on_stream(p, NULL) == SHMEMX_PLAN_EUNSUPPORTED,
          "next_round_on_stream in a CPU build");

    CHECK(shmemx_plan_start(p, &v) == 0 && v, "start: %s", shmemx_plan_errmsg(p));
    rc = shmemx_plan_start(p, &v);
    CHECK(rc == SHMEMX_PLAN_ESTATE, "start twice returned %d", rc);
    rc = shmemx_plan_next_round(p);
    CHECK(rc == SHMEMX_PLAN_ESTATE, "next_round before wait returned %d", rc);
    rc = shmemx_plan_prepare_next(p);
    CHECK(rc == SHMEMX_PLAN_ESTATE, "prepare_next without prepare_ahead returned %d", rc);
    CHECK(strstr(shmemx_plan_errmsg(p), "prepare_ahead"), "message \"%s\"", shmemx_plan_errmsg(p));

    /* None of the refusals disturbed the round. */
    int cid = shmemx_plan_chunk_id(p, me, 0);
    CHECK(cid == me, "chunk id of PE %d is %d", me, cid);
    CHECK(shmemx_plan_chunk_id(p, me, 1) == SHMEMX_PLAN_EINVAL, "chunk index past the end");
    CHECK(shmemx_plan_chunk_id(p, npes, 0) == SHMEMX_PLAN_EINVAL, "chunk id of PE n");
    for (size_t i = 0; i < PART; i++)
        buf[(size_t)me * PART + i] = func_byte(me, i, 1);
    shmemx_plan_mark_ready(v, cid);
    rc = shmemx_plan_wait(p, -1);
    CHECK(rc == 0, "wait: %s", shmemx_plan_errmsg(p));
    CHECK(shmemx_plan_wait(p, -1) == 0, "a second wait of a delivered round");
    CHECK(shmemx_plan_start(p, &v) == SHMEMX_PLAN_ESTATE, "start of a delivered round");
    for (int q = 0; q < npes; q++)
        CHECK(buf[(size_t)q * PART + 5] == func_byte(q, 5, 1), "data of PE %d", q);
    CHECK(shmemx_plan_next_round(p) == 0, "next_round: %s", shmemx_plan_errmsg(p));
    CHECK(shmemx_plan_close(p, -1) == 0, "close: %s", shmemx_plan_errmsg(p));

    /* A closed plan refuses everything but query and close. */
    CHECK(shmemx_plan_start(p, &v) == SHMEMX_PLAN_ESTATE, "start after close");
    CHECK(shmemx_plan_close(p, -1) == 0, "a second close");
    int st = 0;
    CHECK(shmemx_plan_query(p, &st, NULL) == 0 && st == SHMEMX_PLAN_CLOSED, "state %d", st);

    CHECK(shmemx_plan_start(NULL, &v) == SHMEMX_PLAN_EINVAL, "start(NULL)");
    CHECK(shmemx_plan_wait(NULL, 1.0) == SHMEMX_PLAN_EINVAL, "wait(NULL)");
    CHECK(shmemx_plan_query(NULL, &st, NULL) == SHMEMX_PLAN_EINVAL, "query(NULL)");
}

static void bad_creates(void) {
    shmemx_region_t r;
    shmemx_chunk_t c;
    int last = npes - 1;

    /* Asymmetric buffer: the last PE passes an address 64 bytes further on. */
    own_part(1);
    expect_create(SHMEMX_PLAN_EINVAL, "asymmetric buffer", me == last ? buf + 64 : buf, size - 64,
                  &chunk, 1, NULL);
    CHECK(strstr(shmemx_plan_errmsg(NULL), "symmetric"), "message \"%s\"",
          shmemx_plan_errmsg(NULL));
    /* Sizes that differ. */
    expect_create(SHMEMX_PLAN_EINVAL, "asymmetric size", buf, me == last ? size - PART : size,
                  &chunk, 1, NULL);
    /* A buffer outside the symmetric heap. */
    static unsigned char private_buf[1024];
    expect_create(SHMEMX_PLAN_EINVAL, "private buffer", me == last ? private_buf : buf,
                  me == last ? sizeof(private_buf) : size, &chunk, 1, NULL);
    valid_round(2);

    /* A region past the end of the buffer, on one PE only. */
    r = (shmemx_region_t){size - 16, 64, 1, 0};
    c = (shmemx_chunk_t){&r, 1, 1};
    expect_create(SHMEMX_PLAN_EINVAL, "region out of range", buf, size, me == last ? &c : &chunk, 1,
                  NULL);
    CHECK(strstr(shmemx_plan_errmsg(NULL), "past the end"), "message \"%s\"",
          shmemx_plan_errmsg(NULL));
    /* A strided region whose last row runs past the end. */
    r = (shmemx_region_t){(size_t)me * PART, 16, 1000, PART};
    expect_create(SHMEMX_PLAN_EINVAL, "strided region out of range", buf, size,
                  me == last ? &c : &chunk, 1, NULL);
    /* Zero-sized regions, on PE 0 only. */
    r = (shmemx_region_t){(size_t)me * PART, 0, 1, 0};
    expect_create(SHMEMX_PLAN_EINVAL, "zero-byte rows", buf, size, me == 0 ? &c : &chunk, 1, NULL);
    r = (shmemx_region_t){(size_t)me * PART, 16, 0, 0};
    expect_create(SHMEMX_PLAN_EINVAL, "zero rows", buf, size, me == 0 ? &c : &chunk, 1, NULL);
    /* A stride smaller than the rows. */
    r = (shmemx_region_t){(size_t)me * PART, 32, 4, 16};
    expect_create(SHMEMX_PLAN_EINVAL, "stride < row bytes", buf, size, me == 0 ? &c : &chunk, 1,
                  NULL);
    /* A chunk without regions, and one with no writers, on PE 1 only. */
    r = (shmemx_region_t){(size_t)me * PART, PART, 1, 0};
    c = (shmemx_chunk_t){&r, 0, 1};
    expect_create(SHMEMX_PLAN_EINVAL, "chunk without regions", buf, size, me == 1 ? &c : &chunk, 1,
                  NULL);
    c = (shmemx_chunk_t){&r, 1, 0};
    expect_create(SHMEMX_PLAN_EINVAL, "writers 0", buf, size, me == 1 ? &c : &chunk, 1, NULL);
    CHECK(strstr(shmemx_plan_errmsg(NULL), "writers"), "message \"%s\"", shmemx_plan_errmsg(NULL));
    c = (shmemx_chunk_t){&r, 1, -3};
    expect_create(SHMEMX_PLAN_EINVAL, "writers < 0", buf, size, me == 1 ? &c : &chunk, 1, NULL);
    /* Configs that differ between PEs. */
    shmemx_plan_config_t cfg = SHMEMX_PLAN_CONFIG_INIT;
    cfg.timeout_s = me == last ? 5.0 : 6.0;
    expect_create(SHMEMX_PLAN_EINVAL, "timeouts differ", buf, size, &chunk, 1, &cfg);
    cfg = (shmemx_plan_config_t)SHMEMX_PLAN_CONFIG_INIT;
    cfg.prepare_ahead = me == last;
    expect_create(SHMEMX_PLAN_EINVAL, "prepare_ahead differs", buf, size, &chunk, 1, &cfg);
    /* NULL output. */
    int rc = shmemx_plan_create(buf, size, &chunk, 1, NULL, me == 0 ? NULL : &(shmemx_plan_t){0});
    CHECK(rc == SHMEMX_PLAN_EINVAL, "NULL plan pointer on PE 0: %d", rc);
    valid_round(3);

    /* The builders refuse what they cannot build. */
    shmemx_region_t rr[4];
    shmemx_chunk_t cc[4];
    CHECK(shmemx_plan_whole(0, 64, 0, &r, &c) == SHMEMX_PLAN_EINVAL, "whole, writers 0");
    CHECK(shmemx_plan_whole(0, 0, 1, &r, &c) == SHMEMX_PLAN_EINVAL, "whole, 0 bytes");
    CHECK(shmemx_plan_rows(0, 16, 3, 0, 4, 1, rr, cc) == SHMEMX_PLAN_EINVAL, "rows, 4 chunks of 3");
    CHECK(shmemx_plan_rows(0, 16, 8, 8, 2, 1, rr, cc) == SHMEMX_PLAN_EINVAL, "rows, stride < row");
    CHECK(shmemx_plan_rows(0, 16, 8, 0, 2, 0, rr, cc) == SHMEMX_PLAN_EINVAL, "rows, writers 0");
    shmemx_tiling_t t = {0, 4, 40, 10, 10, 4, 4};
    size_t bad_order[1] = {9}; /* a 3 x 3 grid has tiles 0..8 */
    CHECK(shmemx_plan_tiles(&t, bad_order, 1, 1, 1, rr, cc) == SHMEMX_PLAN_EINVAL, "tile 9 of 9");
    t.ld_bytes = 39;
    CHECK(shmemx_plan_tiles(&t, NULL, 0, 1, 1, rr, cc) == SHMEMX_PLAN_EINVAL, "ld < row");
}

static void team_refused(void) {
    shmem_team_t team = SHMEM_TEAM_INVALID;
    int rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &team);
    CHECK(rc == 0 && team != SHMEM_TEAM_INVALID, "shmem_team_split_strided: %d", rc);
    own_part(1);
    shmemx_plan_config_t cfg = SHMEMX_PLAN_CONFIG_INIT;
    cfg.team = team;
    expect_create(SHMEMX_PLAN_EUNSUPPORTED, "split team", buf, size, &chunk, 1, &cfg);
    shmem_team_destroy(team);
    /* A zeroed config means WORLD. */
    shmemx_plan_config_t zero = {0};
    shmemx_plan_t p = NULL;
    rc = shmemx_plan_create(buf, size, &chunk, 1, &zero, &p);
    CHECK(rc == 0, "zeroed config: %s", shmemx_plan_errmsg(NULL));
    CHECK(shmemx_plan_close(p, -1) == 0, "close");
}

static void messages(void) {
    const char *unknown = shmemx_plan_strerror(12345);
    CHECK(unknown && unknown[0], "strerror of an unknown code is empty");
    for (int code = SHMEMX_PLAN_OK; code >= SHMEMX_PLAN_EORDER; code--) {
        const char *s = shmemx_plan_strerror(code);
        CHECK(s && s[0], "strerror(%d) is empty", code);
        CHECK(strcmp(s, unknown) != 0, "strerror(%d) is the unknown-code message", code);
        for (int other = code - 1; other >= SHMEMX_PLAN_EORDER; other--)
            CHECK(strcmp(s, shmemx_plan_strerror(other)) != 0, "codes %d and %d read the same",
                  code, other);
    }

    /* A timeout names round, chunk and PE: every PE leaves its chunk unmarked. */
    own_part(1);
    shmemx_plan_config_t cfg = SHMEMX_PLAN_CONFIG_INIT;
    cfg.timeout_s = 0.3;
    shmemx_plan_t p = NULL;
    int rc = shmemx_plan_create(buf, size, &chunk, 1, &cfg, &p);
    CHECK(rc == 0, "create: %s", shmemx_plan_errmsg(NULL));
    CHECK(shmemx_plan_start(p, NULL) == 0, "start without a view: %s", shmemx_plan_errmsg(p));
    rc = shmemx_plan_wait(p, -1);
    CHECK(rc == SHMEMX_PLAN_ETIMEDOUT, "wait with no marks returned %d", rc);
    const char *m = shmemx_plan_errmsg(p);
    CHECK(strstr(m, "round 1") && strstr(m, "chunk") && strstr(m, "PE"),
          "timeout message \"%s\" does not name round, chunk and PE", m);
    int st = 0;
    shmemx_plan_query(p, &st, NULL);
    CHECK(st == SHMEMX_PLAN_FAILED, "state %d after a timeout", st);
    CHECK(shmemx_plan_start(p, NULL) == SHMEMX_PLAN_ESTATE, "start of a failed plan");
    CHECK(shmemx_plan_next_round(p) == SHMEMX_PLAN_ESTATE, "next_round of a failed plan");
    shmem_barrier_all(); /* close sends chunks as they stand: every PE timed out first */
    rc = shmemx_plan_close(p, -1);
    CHECK(rc == 0, "close of a failed plan: %d (%s)", rc, shmemx_plan_errmsg(p));
}

int main(void) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    if (npes < 2) {
        func_pass("plan_misuse (needs 2 PEs)");
        shmem_finalize();
        return 0;
    }
    size = (size_t)npes * PART + PART; /* a spare part at the end */
    buf = shmem_malloc(size);
    CHECK(buf, "shmem_malloc");
    memset(buf, 0, size);
    shmem_barrier_all();

    order_misuse();
    bad_creates();
    team_refused();
    messages();
    valid_round(4);

    shmem_free(buf);
    func_pass("plan_misuse");
    shmem_finalize();
    return 0;
}
