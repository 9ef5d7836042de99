/* The configuration table: strict parsers, defaults, errors, "did you mean". */
#include "shmem/env.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

START_TEST(sizes) {
    size_t v;
    ck_assert_int_eq(shmemi_parse_size("512", &v), 0);
    ck_assert_uint_eq(v, 512);
    ck_assert_int_eq(shmemi_parse_size("4k", &v), 0);
    ck_assert_uint_eq(v, 4096);
    ck_assert_int_eq(shmemi_parse_size("256M", &v), 0);
    ck_assert_uint_eq(v, 256u << 20);
    ck_assert_int_eq(shmemi_parse_size("2gb", &v), 0);
    ck_assert_uint_eq(v, (size_t)2 << 30);
    ck_assert_int_eq(shmemi_parse_size(" 1m ", &v), 0);
    ck_assert_int_eq(shmemi_parse_size("12q", &v), -1);
    ck_assert_int_eq(shmemi_parse_size("-1", &v), -1);
    ck_assert_int_eq(shmemi_parse_size("", &v), -1);
    ck_assert_int_eq(shmemi_parse_size("1.5g", &v), -1);
    ck_assert_int_eq(shmemi_parse_size("99999999999999999999", &v), -1);
    ck_assert_int_eq(shmemi_parse_size("17179869184g", &v), -1); /* overflows */
    /* t and p, and the spellings users write: kb, KiB. */
    ck_assert_int_eq(shmemi_parse_size("1t", &v), 0);
    ck_assert_uint_eq(v, (size_t)1 << 40);
    ck_assert_int_eq(shmemi_parse_size("2TiB", &v), 0);
    ck_assert_uint_eq(v, (size_t)2 << 40);
    ck_assert_int_eq(shmemi_parse_size("3p", &v), 0);
    ck_assert_uint_eq(v, (size_t)3 << 50);
    ck_assert_int_eq(shmemi_parse_size("16kb", &v), 0);
    ck_assert_uint_eq(v, 16384);
    ck_assert_int_eq(shmemi_parse_size("4096b", &v), 0);
    ck_assert_uint_eq(v, 4096);
    ck_assert_int_eq(shmemi_parse_size("16384p", &v), -1); /* overflows */
    ck_assert_int_eq(shmemi_parse_size("1ib", &v), -1);
    ck_assert_int_eq(shmemi_parse_size("1ki", &v), -1);
    ck_assert_int_eq(shmemi_parse_size("1e", &v), -1);
}
END_TEST

START_TEST(bools_ints_doubles_enums) {
    int b;
    const char *yes[] = {"1", "y", "YES", "on", "true"}, *no[] = {"0", "n", "No", "off", "false"};
    for (int i = 0; i < 5; i++) {
        ck_assert_int_eq(shmemi_parse_bool(yes[i], &b), 0);
        ck_assert_int_eq(b, 1);
        ck_assert_int_eq(shmemi_parse_bool(no[i], &b), 0);
        ck_assert_int_eq(b, 0);
    }
    ck_assert_int_eq(shmemi_parse_bool("2", &b), -1);
    ck_assert_int_eq(shmemi_parse_bool("yess", &b), -1);
    long l;
    ck_assert_int_eq(shmemi_parse_int("-42", &l), 0);
    ck_assert_int_eq(l, -42);
    ck_assert_int_eq(shmemi_parse_int("4x", &l), -1);
    double d;
    ck_assert_int_eq(shmemi_parse_double("2.5", &d), 0);
    ck_assert(d == 2.5);
    ck_assert_int_eq(shmemi_parse_double("nan", &d), -1);
    const char *e;
    ck_assert_int_eq(shmemi_parse_enum("SOFT", "auto|soft|none: doc", &e), 0);
    ck_assert(!strncmp(e, "soft", 4));
    ck_assert_int_eq(shmemi_parse_enum("sof", "auto|soft|none: doc", &e), -1);
    ck_assert_int_eq(shmemi_parse_enum("doc", "auto|soft|none: doc", &e), -1);
}
END_TEST

START_TEST(load_defaults_and_errors) {
    struct shmemi_config cfg;
    char err[256];
    unsetenv("SHMEM_SYMMETRIC_SIZE");
    ck_assert_int_eq(shmemi_env_load(&cfg, err, sizeof(err)), 0);
    ck_assert_uint_eq(cfg.SYMMETRIC_SIZE, 256u << 20);
    setenv("SHMEM_SYMMETRIC_SIZE", "1g", 1);
    setenv("SHMEM_COPY_ENGINE", "NONE", 1);
    ck_assert_int_eq(shmemi_env_load(&cfg, err, sizeof(err)), 0);
    ck_assert_uint_eq(cfg.SYMMETRIC_SIZE, 1u << 30);
    ck_assert_str_eq(cfg.COPY_ENGINE, "none");
    setenv("SHMEM_COPY_ENGINE", "turbo", 1);
    ck_assert_int_eq(shmemi_env_load(&cfg, err, sizeof(err)), -1);
    ck_assert_ptr_nonnull(strstr(err, "SHMEM_COPY_ENGINE"));
    ck_assert_ptr_nonnull(strstr(err, "auto|soft|hsakmt|cuda|none"));
    unsetenv("SHMEM_COPY_ENGINE");
    setenv("SHMEM_DEBUG", "maybe", 1);
    ck_assert_int_eq(shmemi_env_load(&cfg, err, sizeof(err)), -1);
    ck_assert_ptr_nonnull(strstr(err, "SHMEM_DEBUG=\"maybe\""));
    unsetenv("SHMEM_DEBUG");
}
END_TEST

/* Every enum setting keeps its own value, however many there are: each set
 * to its last listed value, all read back after one load. */
START_TEST(enums_keep_their_values) {
    static const struct {
        const char *name, *val;
    } set[] = {{"SHMEM_COPY_ENGINE", "none"},
               {"SHMEM_NBI_ENGINE", "never"},
               {"SHMEM_ENGINE_COPY_2D", "sw13"}};
    struct shmemi_config cfg;
    char err[256];
    for (size_t i = 0; i < sizeof(set) / sizeof(set[0]); i++)
        setenv(set[i].name, set[i].val, 1);
    int rc = shmemi_env_load(&cfg, err, sizeof(err));
    for (size_t i = 0; i < sizeof(set) / sizeof(set[0]); i++)
        unsetenv(set[i].name);
    ck_assert_int_eq(rc, 0);
    /* Load the defaults many times over: earlier values must not move. */
    struct shmemi_config again;
    for (int i = 0; i < 20; i++)
        ck_assert_int_eq(shmemi_env_load(&again, err, sizeof(err)), 0);
    ck_assert_str_eq(cfg.COPY_ENGINE, "none");
    ck_assert_str_eq(cfg.NBI_ENGINE, "never");
    ck_assert_str_eq(cfg.ENGINE_COPY_2D, "sw13");
    ck_assert_str_eq(again.NBI_ENGINE, "auto");
}
END_TEST

/* Set `name` to `val`, load, and return the message (empty when accepted). */
static const char *load_with(const char *name, const char *val) {
    static char err[512];
    struct shmemi_config cfg;
    err[0] = '\0';
    setenv(name, val, 1);
    int rc = shmemi_env_load(&cfg, err, sizeof(err));
    unsetenv(name);
    ck_assert_int_eq(rc, err[0] ? -1 : 0);
    return err;
}

#define ACCEPTED(name, val) ck_assert_str_eq(load_with(name, val), "")
#define REFUSED(name, val, why)                                                                    \
    do {                                                                                           \
        const char *e_ = load_with(name, val);                                                     \
        ck_assert_msg(strstr(e_, name "=\"" val "\" is not valid") && strstr(e_, why),             \
                      "%s=%s: \"%s\"", name, val, e_);                                             \
    } while (0)

/* Every numeric setting refuses values outside its range, by name. */
START_TEST(ranges) {
    /* A heap size whose rounding or total would wrap around 2^64. */
    REFUSED("SHMEM_SYMMETRIC_SIZE", "18446744073709551615", "from 1 to 1p");
    REFUSED("SHMEM_SYMMETRIC_SIZE", "18446744073709486080", "from 1 to 1p");
    REFUSED("SHMEM_SYMMETRIC_SIZE", "2p", "from 1 to 1p");
    REFUSED("SHMEM_SYMMETRIC_SIZE", "0", "from 1 to 1p");
    ACCEPTED("SHMEM_SYMMETRIC_SIZE", "1p");
    ACCEPTED("SHMEM_SYMMETRIC_SIZE", "2t");
    ACCEPTED("SHMEM_SYMMETRIC_SIZE", "1");
    /* A timeout is a positive, finite number of seconds. */
    REFUSED("SHMEM_ENGINE_TIMEOUT", "-1", "a number from 0.001 to 1e9");
    REFUSED("SHMEM_ENGINE_TIMEOUT", "0", "from 0.001 to 1e9");
    REFUSED("SHMEM_ENGINE_TIMEOUT", "inf", "from 0.001 to 1e9");
    REFUSED("SHMEM_ENGINE_TIMEOUT", "1e10", "from 0.001 to 1e9");
    ACCEPTED("SHMEM_ENGINE_TIMEOUT", "0.5");
    ACCEPTED("SHMEM_ENGINE_TIMEOUT", "1e9");
    /* Ring sizes: powers of two from 4 KiB to 1 GiB. */
    REFUSED("SHMEM_ENGINE_RING_SIZE", "5000", "from 4k to 1g, a power of two");
    REFUSED("SHMEM_ENGINE_RING_SIZE", "2k", "from 4k to 1g");
    REFUSED("SHMEM_ENGINE_RING_SIZE", "2g", "from 4k to 1g");
    ACCEPTED("SHMEM_ENGINE_RING_SIZE", "64k");
    REFUSED("SHMEM_PLAN_RING_SIZE", "3m", "a power of two");
    ACCEPTED("SHMEM_PLAN_RING_SIZE", "1g");
    /* -1 picks the GPU by local rank; anything lower is a mistake. */
    REFUSED("SHMEM_DEVICE_ID", "-2", "an integer of at least -1");
    ACCEPTED("SHMEM_DEVICE_ID", "-1");
    ACCEPTED("SHMEM_DEVICE_ID", "3");
    /* Thresholds take any size, 0 included. */
    ACCEPTED("SHMEM_NBI_THRESHOLD", "0");
    ACCEPTED("SHMEM_DEVICE_NBI_THRESHOLD", "1t");
}
END_TEST

/* The range is shown where users read about the setting. */
START_TEST(ranges_printed) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    struct shmemi_config cfg;
    char err[256];
    ck_assert_int_eq(shmemi_env_load(&cfg, err, sizeof(err)), 0);
    shmemi_env_print(f, &cfg, 1);
    fclose(f);
    ck_assert_ptr_nonnull(
        strstr(buf, "| `SHMEM_ENGINE_TIMEOUT` | double from 0.001 to 1e9 | `60` | Seconds"));
    ck_assert_ptr_nonnull(strstr(buf, "| `SHMEM_ENGINE_RING_SIZE` | size from 4k to 1g, a power "
                                      "of two | `1m` | Ring size"));
    ck_assert_ptr_null(strstr(buf, "[4k"));
    free(buf);
}
END_TEST

static char seen[4][96];
static int nseen;
static void report(const char *name, const char *best, void *arg) {
    (void)arg;
    snprintf(seen[nseen++], sizeof(seen[0]), "%s->%s", name, best ? best : "");
}

START_TEST(did_you_mean) {
    char *envp[] = {"SHMEM_SYMETRIC_SIZE=1m", "SHMEM_DEBUG=1",         "PATH=/bin",
                    "SHMEM_LAUNCHER=mpirun",  "SHMEM_COPYENGINE=soft", NULL};
    nseen = 0;
    shmemi_env_unknown(envp, report, NULL);
    ck_assert_int_eq(nseen, 2);
    ck_assert_str_eq(seen[0], "SHMEM_SYMETRIC_SIZE->SYMMETRIC_SIZE");
    ck_assert_str_eq(seen[1], "SHMEM_COPYENGINE->COPY_ENGINE");
}
END_TEST

/* The hardware queues per GPU context: 32 for up to three PEs a GPU, then a
 * share of 96; the PEs a GPU from the launchers' variables and the visible
 * GPUs. */
START_TEST(gpu_connections) {
    ck_assert_int_eq(shmemi_gpu_connections(1), 32);
    ck_assert_int_eq(shmemi_gpu_connections(3), 32);
    ck_assert_int_eq(shmemi_gpu_connections(4), 24);
    ck_assert_int_eq(shmemi_gpu_connections(8), 12);
    ck_assert_int_eq(shmemi_gpu_connections(48), 2);
    ck_assert_int_eq(shmemi_gpu_connections(200), 1);
    const char *vars[] = {"SHMEMI_BOOT_FD", "SHMEMI_BOOT_SIZE", "OMPI_COMM_WORLD_LOCAL_SIZE",
                          "MPI_LOCALNRANKS", "SLURM_TASKS_PER_NODE"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++)
        unsetenv(vars[i]);
    setenv("CUDA_VISIBLE_DEVICES", "0,1", 1);
    ck_assert_int_eq(shmemi_pes_per_gpu_from_env(), 1); /* nobody says: one PE */
    setenv("SHMEMI_BOOT_SIZE", "8", 1);                 /* not the built-in launcher's */
    ck_assert_int_eq(shmemi_pes_per_gpu_from_env(), 1);
    setenv("SHMEMI_BOOT_FD", "3", 1);
    ck_assert_int_eq(shmemi_pes_per_gpu_from_env(), 4);
    unsetenv("SHMEMI_BOOT_FD");
    setenv("SLURM_TASKS_PER_NODE", "5(x2),1", 1);
    ck_assert_int_eq(shmemi_pes_per_gpu_from_env(), 3);
    setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "4", 1);
    setenv("CUDA_VISIBLE_DEVICES", "3", 1);
    ck_assert_int_eq(shmemi_pes_per_gpu_from_env(), 4);
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++)
        unsetenv(vars[i]);
    unsetenv("CUDA_VISIBLE_DEVICES");
}
END_TEST

int main(void) {
    Suite *s = suite_create("env");
    TCase *tc = tcase_create("env");
    tcase_add_test(tc, sizes);
    tcase_add_test(tc, bools_ints_doubles_enums);
    tcase_add_test(tc, load_defaults_and_errors);
    tcase_add_test(tc, enums_keep_their_values);
    tcase_add_test(tc, did_you_mean);
    tcase_add_test(tc, ranges);
    tcase_add_test(tc, ranges_printed);
    tcase_add_test(tc, gpu_connections);
    suite_add_tcase(s, tc);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
