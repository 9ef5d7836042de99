/* plan_allgather: an all-gather of a row-blocked buffer with a triggered plan.
 *
 * Every PE owns a block of ROWS_PER_PE rows of a ROWS x ROW_BYTES matrix held in
 * one symmetric buffer. Each round, every PE rewrites its rows; the plan sends
 * them to every other PE as soon as they are written, so after
 * shmemx_plan_wait every PE holds the whole matrix. The copies are prepared
 * once at shmemx_plan_create; a round only releases them.
 *
 * The producer here is a pool of host threads (the CPU build's stand-in for a
 * GPU kernel): the PE's rows are cut into CHUNKS chunks, and each chunk is
 * written by WRITERS threads, each of which marks the chunk ready after its
 * part; the last mark releases the chunk's copies.
 *
 * Build: oshcc -O2 -pthread plan_allgather.c -o plan_allgather
 * Run:   oshrun -np 4 ./plan_allgather [rounds]
 */
#include <shmem.h>
#include <shmemx.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ROWS_PER_PE 256
#define ROW_BYTES 1024 /* 256 floats */
#define CHUNKS 4       /* chunks per PE: sent as soon as each is written */
#define WRITERS 2      /* producer threads per chunk */

static int me, npes;
static float *matrix; /* symmetric: npes * ROWS_PER_PE rows */

static double now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}

/* The value of element j of global row `row` in round r. */
static float value(size_t row, size_t j, unsigned r) { return (float)(row * 1000 + j + r); }

/* One producer thread: writes its share of every chunk of this PE's block,
 * then marks the chunk ready. */
struct producer {
    shmemx_plan_t plan;
    shmemx_plan_view_t *view;
    unsigned round;
    int id;
};

static void *produce(void *arg) {
    struct producer *p = arg;
    const size_t floats = ROW_BYTES / sizeof(float);
    const size_t rows_per_chunk = ROWS_PER_PE / CHUNKS;
    for (int k = 0; k < CHUNKS; k++) {
        /* Rows of chunk k, shared between the WRITERS threads. */
        size_t first = (size_t)me * ROWS_PER_PE + (size_t)k * rows_per_chunk;
        for (size_t row = first + (size_t)p->id; row < first + rows_per_chunk; row += WRITERS)
            for (size_t j = 0; j < floats; j++)
                matrix[row * floats + j] = value(row, j, p->round);
        /* Chunk ids are global: this PE's chunk k. */
        shmemx_plan_mark_ready(p->view, shmemx_plan_chunk_id(p->plan, me, (size_t)k));
    }
    return NULL;
}

int main(int argc, char **argv) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    unsigned rounds = argc > 1 ? (unsigned)atoi(argv[1]) : 20;
    const size_t floats = ROW_BYTES / sizeof(float);
    const size_t bytes = (size_t)npes * ROWS_PER_PE * ROW_BYTES;

    matrix = shmem_malloc(bytes);
    if (!matrix) {
        fprintf(stderr, "PE %d: shmem_malloc(%zu) failed\n", me, bytes);
        shmem_global_exit(1);
    }
    memset(matrix, 0, bytes);

    /* The schedule: this PE's row block, cut into CHUNKS chunks of rows. */
    shmemx_region_t regions[CHUNKS];
    shmemx_chunk_t chunks[CHUNKS];
    shmemx_plan_rows((size_t)me * ROWS_PER_PE * ROW_BYTES, ROW_BYTES, ROWS_PER_PE, 0, CHUNKS,
                     WRITERS, regions, chunks);

    /* Collective: every PE passes the same buffer and its own schedule. */
    shmemx_plan_config_t cfg = SHMEMX_PLAN_CONFIG_INIT;
    cfg.timeout_s = 10.0;
    shmemx_plan_t plan;
    int rc = shmemx_plan_create(matrix, bytes, chunks, CHUNKS, &cfg, &plan);
    if (rc) {
        fprintf(stderr, "PE %d: shmemx_plan_create: %s (%s)\n", me, shmemx_plan_strerror(rc),
                shmemx_plan_errmsg(NULL));
        shmem_global_exit(1);
    }

    double total = 0;
    int errors = 0;
    for (unsigned r = 1; r <= rounds; r++) {
        double t0 = now_us();
        /* 1. Start the round: the view is what producers mark chunks through. */
        shmemx_plan_view_t *view;
        rc = shmemx_plan_start(plan, &view);
        /* 2. Produce: the threads write the rows and mark each chunk ready. */
        pthread_t th[WRITERS];
        struct producer args[WRITERS];
        for (int t = 0; t < WRITERS && !rc; t++) {
            args[t] = (struct producer){plan, view, r, t};
            pthread_create(&th[t], NULL, produce, &args[t]);
        }
        for (int t = 0; t < WRITERS && !rc; t++)
            pthread_join(th[t], NULL);
        /* 3. Wait: every PE's rows are here, and ours have reached every peer. */
        if (!rc)
            rc = shmemx_plan_wait(plan, -1);
        double t1 = now_us();
        if (rc) {
            fprintf(stderr, "PE %d: round %u: %s\n", me, r, shmemx_plan_errmsg(plan));
            shmem_global_exit(1);
        }
        total += t1 - t0;

        /* Use the gathered matrix (here: check it). */
        for (size_t row = 0; row < (size_t)npes * ROWS_PER_PE; row++)
            for (size_t j = 0; j < floats; j += 17)
                errors += matrix[row * floats + j] != value(row, j, r);

        /* 4. Done reading this round: peers may overwrite the buffer from now on. */
        rc = shmemx_plan_next_round(plan);
        if (rc) {
            fprintf(stderr, "PE %d: next_round: %s\n", me, shmemx_plan_errmsg(plan));
            shmem_global_exit(1);
        }
    }

    /* Collective: every PE closes the plan before the buffer is freed. */
    shmemx_plan_close(plan, -1);
    if (me == 0)
        printf("plan_allgather: %d PEs, %zu KiB per PE, %u rounds: %.1f us of host time per round "
               "(start + produce + wait), %s\n",
               npes, (size_t)ROWS_PER_PE * ROW_BYTES / 1024, rounds, total / rounds,
               errors ? "WRONG DATA" : "data checked");
    if (errors)
        fprintf(stderr, "PE %d: %d wrong elements\n", me, errors);
    shmem_free(matrix);
    shmem_finalize();
    return errors ? 1 : 0;
}
