/* A multi-PE program built on the bootstrap alone, run by oshrun (or mpirun)
 * to check the launcher and the bootstraps end to end. Exits non-zero on
 * failure.
 *
 *   test_boot_prog                     allgather / barrier correctness
 *   test_boot_prog abort S R           PE R aborts the job with status S
 *   test_boot_prog segv R              PE R dies of SIGSEGV
 *   test_boot_prog exit S R            PE R exits with status S, no finalize
 *   test_boot_prog leave R [allgather] PE R exits 0 without finalizing while the
 *                                      others wait in a barrier (or an allgather)
 *   test_boot_prog vanish R            PE R exits 0 without finalizing while the
 *                                      others wait outside the bootstrap (sleep)
 *   test_boot_prog mismatch            PEs give different allgather sizes
 *   test_boot_prog hang [noterm]       every PE sleeps (optionally ignoring SIGTERM)
 *   test_boot_prog env VAR=VAL...      every PE checks its environment
 *
 * With TEST_BOOT_PIDDIR set, each PE writes its pid to $TEST_BOOT_PIDDIR/pe.<rank>
 * once every PE has connected, so a test can check that none survives.
 */
#include "bootstrap/boot.h"

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct boot *b;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "[PE %d] test_boot_prog: %s:%d: ", b ? b->rank : -1, __FILE__,         \
                    __LINE__);                                                                     \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

#define BOOT_CALL(call) CHECK((call) == 0, "%s: %s", #call, b->err)

static unsigned char pattern(int rank, size_t i, int round) {
    return (unsigned char)(rank * 131 + (int)i * 7 + round * 17 + 1);
}

static void check_allgather(size_t len, int round) {
    unsigned char *in = malloc(len ? len : 1);
    unsigned char *out = malloc(len * (size_t)b->size + 1);
    CHECK(in && out, "out of memory");
    for (size_t i = 0; i < len; i++)
        in[i] = pattern(b->rank, i, round);
    memset(out, 0xee, len * (size_t)b->size + 1);
    BOOT_CALL(b->allgather(b, in, out, len));
    for (int r = 0; r < b->size; r++)
        for (size_t i = 0; i < len; i++)
            CHECK(out[(size_t)r * len + i] == pattern(r, i, round),
                  "allgather of %zu bytes, round %d: byte %zu from PE %d is %u, expected %u", len,
                  round, i, r, out[(size_t)r * len + i], pattern(r, i, round));
    CHECK(out[len * (size_t)b->size] == 0xee, "allgather of %zu bytes wrote past the end", len);
    free(in);
    free(out);
}

static void write_pid(void) {
    const char *dir = getenv("TEST_BOOT_PIDDIR");
    char path[4096];
    if (!dir)
        return;
    /* Written under another name, then renamed: the launcher test sends its
     * signal once every pe.* file exists, and must never find one empty. */
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s/tmp.%d", dir, b->rank);
    snprintf(path, sizeof path, "%s/pe.%d", dir, b->rank);
    FILE *f = fopen(tmp, "w");
    CHECK(f, "cannot write %s", tmp);
    fprintf(f, "%d\n", (int)getpid());
    CHECK(fclose(f) == 0 && rename(tmp, path) == 0, "cannot write %s", path);
}

static int arg_int(int argc, char **argv, int i, int dflt) {
    return i < argc ? atoi(argv[i]) : dflt;
}

static void basic(void) {
    static const size_t lens[] = {0, 1, 8, 64, 300, 4096, 70000};
    int *ranks = malloc(sizeof(int) * (size_t)b->size);
    int lr[2] = {b->local_rank, b->local_size};
    int *lrs = malloc(sizeof lr * (size_t)b->size);

    CHECK(ranks && lrs, "out of memory");
    /* Every rank appears exactly once, in order. */
    BOOT_CALL(b->allgather(b, &b->rank, ranks, sizeof(int)));
    for (int r = 0; r < b->size; r++)
        CHECK(ranks[r] == r, "allgather slot %d holds rank %d", r, ranks[r]);
    /* Local ranks are distinct within a node. */
    BOOT_CALL(b->allgather(b, lr, lrs, sizeof lr));
    CHECK(b->local_rank >= 0 && b->local_rank < b->local_size && b->local_size <= b->size,
          "local rank %d of %d", b->local_rank, b->local_size);

    for (size_t k = 0; k < sizeof lens / sizeof *lens; k++)
        check_allgather(lens[k], (int)k);
    for (int round = 0; round < 50; round++) {
        check_allgather(64, round);
        BOOT_CALL(b->barrier(b));
    }
    if (b->rank == 0)
        printf("test_boot_prog: %d PEs, bootstrap %s: ok\n", b->size, b->name);
    free(ranks);
    free(lrs);
}

int main(int argc, char **argv) {
    char err[256];
    const char *mode = argc > 1 ? argv[1] : "basic";

    if (boot_open(&b, err, sizeof err) != 0) {
        fprintf(stderr, "test_boot_prog: %s\n", err);
        return 1;
    }
    CHECK(b->size >= 1 && b->rank >= 0 && b->rank < b->size, "rank %d of %d", b->rank, b->size);
    BOOT_CALL(b->barrier(b));
    write_pid();
    BOOT_CALL(b->barrier(b));

    if (strcmp(mode, "basic") == 0) {
        basic();
    } else if (strcmp(mode, "abort") == 0) {
        if (b->rank == arg_int(argc, argv, 3, 0))
            b->abort(b, arg_int(argc, argv, 2, 1), NULL);
        b->barrier(b);
        sleep(30);
        return 1;
    } else if (strcmp(mode, "segv") == 0) {
        if (b->rank == arg_int(argc, argv, 2, 0)) {
            signal(SIGSEGV, SIG_DFL);
            raise(SIGSEGV);
        }
        b->barrier(b);
        sleep(30);
        return 1;
    } else if (strcmp(mode, "exit") == 0) {
        if (b->rank == arg_int(argc, argv, 3, 0))
            exit(arg_int(argc, argv, 2, 1));
        b->barrier(b);
        sleep(30);
        return 1;
    } else if (strcmp(mode, "leave") == 0) {
        if (b->rank == arg_int(argc, argv, 2, 0))
            exit(0);
        if (argc > 3 && strcmp(argv[3], "allgather") == 0) {
            int in = b->rank, out[64];
            if (b->size <= 64)
                b->allgather(b, &in, out, sizeof in);
        } else {
            b->barrier(b);
        }
        sleep(30);
        return 1;
    } else if (strcmp(mode, "vanish") == 0) {
        if (b->rank == arg_int(argc, argv, 2, 0))
            exit(0);
        sleep(30);
        return 1;
    } else if (strcmp(mode, "mismatch") == 0) {
        char in[16] = {0}, out[16 * 64];
        if (b->size <= 64)
            b->allgather(b, in, out, 8 + (size_t)(b->rank % 2));
        sleep(30);
        return 1;
    } else if (strcmp(mode, "hang") == 0) {
        if (argc > 2 && strcmp(argv[2], "noterm") == 0)
            signal(SIGTERM, SIG_IGN);
        sleep(60);
        return 1;
    } else if (strcmp(mode, "env") == 0) {
        for (int i = 2; i < argc; i++) {
            char *eq = strchr(argv[i], '=');
            CHECK(eq, "bad argument %s", argv[i]);
            *eq = '\0';
            const char *v = getenv(argv[i]);
            CHECK(v && strcmp(v, eq + 1) == 0, "%s is '%s', expected '%s'", argv[i],
                  v ? v : "(unset)", eq + 1);
        }
    } else {
        CHECK(0, "unknown mode %s", mode);
    }
    BOOT_CALL(b->barrier(b));
    struct boot *done = b;
    b = NULL;
    if (done->finalize(done) != 0) {
        fprintf(stderr, "test_boot_prog: finalize failed\n");
        return 1;
    }
    return 0;
}
