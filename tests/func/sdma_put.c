/* Copy-engine puts (shmemx_sdma_*): a plain put completed by quiet, a put
 * with a remote signal, a put held back by a local wait flag until the
 * sender sets it, 2D tiles and a batch of tiles under one wait and one
 * signal, and quiet per PE. Also a large non-blocking put that returns
 * before its bytes have moved (the engine carries it). */
#include "check.h"

#include <shmemx.h>
#include <string.h>

#define N 4096
#define W 37 /* tile width (elements): rows are not a multiple of anything */
#define H 19
#define LD 64

static uint32_t go; /* local wait flag (the sender's own) */
static uint64_t got, tiles_got;

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes(), to = (me + 1) % n, from = (me + n - 1) % n;
    CHECK(strcmp(shmemx_copy_engine_name(), "none") != 0, "no copy engine: %s",
          shmemx_copy_engine_name());
    long *dst = shmem_calloc(N, sizeof(long));
    long *src = shmem_malloc(N * sizeof(long));
    double *mat = shmem_calloc(H * LD, sizeof(double));
    double *mine = shmem_malloc(H * LD * sizeof(double));
    for (int i = 0; i < N; i++)
        src[i] = me * 100000L + i;
    for (int i = 0; i < H * LD; i++)
        mine[i] = me + i * 0.5;
    shmem_barrier_all();

    /* 1. Plain put, completed by shmem_quiet. */
    CHECK(shmemx_sdma_putmem(dst, src, N * sizeof(long), to, NULL) == 0, "putmem failed");
    shmem_quiet();
    shmem_barrier_all();
    for (int i = 0; i < N; i++)
        CHECK(dst[i] == from * 100000L + i, "plain put: dst[%d] = %ld", i, dst[i]);
    shmem_barrier_all();

    /* 2. Put with a local wait flag and a remote signal: nothing moves until
     *    the sender sets its flag. */
    for (int i = 0; i < N; i++)
        src[i] = -(me * 100000L + i);
    shmemx_sdma_opts_t o = {&go, 1, &got, 1};
    CHECK(shmemx_sdma_putmem(dst, src, N * sizeof(long), to, &o) == 0, "flag put failed");
    /* The flag is still 0: the copy must not have happened. */
    shmem_barrier_all();
    CHECK(shmem_uint64_atomic_fetch(&got, me) == 0, "signal arrived before the wait flag was set");
    CHECK(dst[5] == from * 100000L + 5, "data moved before the wait flag was set");
    shmem_barrier_all();
    __atomic_store_n(&go, 1, __ATOMIC_RELEASE);
    shmem_uint64_wait_until(&got, SHMEM_CMP_EQ, 1);
    for (int i = 0; i < N; i++)
        CHECK(dst[i] == -(from * 100000L + i), "flag put: dst[%d] = %ld", i, dst[i]);
    CHECK(shmemx_sdma_quiet_pe(to) == 0, "quiet_pe failed");

    /* 3. Tiles: one tile, then a batch of two under one signal. */
    shmemx_tile_t t = {mat + 2 * LD + 3, mine + 2 * LD + 3, H - 2, W, LD, LD};
    CHECK(shmemx_sdma_put_tile(&t, sizeof(double), to, NULL) == 0, "put_tile failed");
    shmem_quiet();
    shmem_barrier_all();
    for (int r = 0; r < H; r++)
        for (int c = 0; c < LD; c++) {
            int in = r >= 2 && c >= 3 && c < 3 + W;
            double want = in ? from + (r * LD + c) * 0.5 : 0.0;
            CHECK(mat[r * LD + c] == want, "tile: [%d][%d] = %g, want %g", r, c, mat[r * LD + c],
                  want);
        }
    shmem_barrier_all();
    shmemx_tile_t two[2] = {{mat, mine, 1, LD, LD, LD},
                            {mat + (H - 1) * LD, mine + (H - 1) * LD, 1, 5, LD, LD}};
    shmemx_sdma_opts_t s = {NULL, 0, &tiles_got, 7};
    CHECK(shmemx_sdma_put_tiles(two, 2, sizeof(double), to, &s) == 0, "put_tiles failed");
    shmem_uint64_wait_until(&tiles_got, SHMEM_CMP_EQ, 7);
    for (int c = 0; c < LD; c++)
        CHECK(mat[c] == from + c * 0.5, "batch: row 0 [%d] = %g", c, mat[c]);
    for (int c = 0; c < 5; c++)
        CHECK(mat[(H - 1) * LD + c] == from + ((H - 1) * LD + c) * 0.5, "batch: last row [%d]", c);
    shmem_quiet();
    shmem_barrier_all();

    /* 4. A large non-blocking put proceeds beside the caller. */
    size_t big = (size_t)32 << 20;
    char *b = shmem_malloc(big);
    char *bs = malloc(big);
    memset(bs, 'a' + me, big);
    shmem_barrier_all();
    shmem_putmem_nbi(b, bs, big, to);
    shmem_quiet();
    shmem_barrier_all();
    for (size_t i = 0; i < big; i += 4093)
        CHECK(b[i] == 'a' + from, "large nbi put: byte %zu = %d", i, b[i]);
    free(bs);
    shmem_free(b);
    shmem_free(dst);
    shmem_free(src);
    shmem_free(mat);
    shmem_free(mine);
    if (me == 0)
        printf("sdma_put: PASS (%d PEs, engine %s)\n", n, shmemx_copy_engine_name());
    shmem_finalize();
    return 0;
}
