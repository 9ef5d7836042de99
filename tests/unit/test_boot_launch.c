/* oshrun end to end: runs oshrun on test_boot_prog and checks its exit
 * status, its message, how fast it ends a failing job, and that no PE
 * survives. */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef OSHRUN_PATH
#error "OSHRUN_PATH must name the oshrun executable"
#endif
#ifndef PROG_PATH
#error "PROG_PATH must name test_boot_prog"
#endif

/* A failing job must be over this fast (the goal is under a second after the
 * failure; leave room for a loaded machine and sanitizers). */
#define FAST_MS 3000

struct run {
    int status;     /* oshrun's exit code, or 1000 + signal */
    long ms;        /* how long oshrun ran */
    char err[8192]; /* its stderr */
    char dir[64];   /* where PEs wrote their pids */
};

static long ms_since(const struct timespec *t0) {
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (t1.tv_sec - t0->tv_sec) * 1000 + (t1.tv_nsec - t0->tv_nsec) / 1000000;
}

static int count_pid_files(const char *dir) {
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    if (!d)
        return 0;
    while ((e = readdir(d)))
        if (strncmp(e->d_name, "pe.", 3) == 0)
            n++;
    closedir(d);
    return n;
}

/* Alive and not a zombie. */
static int pid_alive(int pid) {
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *p = strrchr(buf, ')');
    return p && p[1] == ' ' && p[2] != 'Z' && p[2] != 'X';
}

/* Every PE that wrote its pid is gone within wait_ms. */
static void assert_no_pes_left(const char *dir, int wait_ms) {
    DIR *d = opendir(dir);
    struct dirent *e;
    ck_assert_ptr_nonnull(d);
    while ((e = readdir(d))) {
        char path[4096];
        int pid = 0;
        if (strncmp(e->d_name, "pe.", 3) != 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "r");
        ck_assert_ptr_nonnull(f);
        ck_assert_int_eq(fscanf(f, "%d", &pid), 1);
        fclose(f);
        for (int t = 0; pid_alive(pid) && t < wait_ms; t += 10)
            usleep(10000);
        ck_assert_msg(!pid_alive(pid), "%s: pid %d is still running", e->d_name, pid);
    }
    closedir(d);
}

/* Scratch folders of this test, removed by the fixture. */
static char made_dirs[32][64];
static int n_made_dirs;

static void remove_dirs(void) {
    for (int i = 0; i < n_made_dirs; i++) {
        DIR *d = opendir(made_dirs[i]);
        struct dirent *e;
        char path[4096];
        while (d && (e = readdir(d))) {
            if (e->d_name[0] == '.')
                continue;
            snprintf(path, sizeof path, "%s/%s", made_dirs[i], e->d_name);
            unlink(path);
        }
        if (d)
            closedir(d);
        rmdir(made_dirs[i]);
    }
    n_made_dirs = 0;
}

/* Run oshrun with args (NULL-terminated). When sig is non-zero, send it to
 * oshrun once `npes` PEs have written their pids. */
static void run_oshrun(struct run *r, int sig, int npes, const char *const *args) {
    const char *argv[64];
    char errpath[128];
    struct timespec t0;
    int n = 0, ws;

    memset(r, 0, sizeof *r);
    snprintf(r->dir, sizeof r->dir, "/tmp/test_boot_launch.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(r->dir));
    if (n_made_dirs < 32)
        memcpy(made_dirs[n_made_dirs++], r->dir, sizeof r->dir);
    snprintf(errpath, sizeof errpath, "%s/stderr", r->dir);
    argv[n++] = OSHRUN_PATH;
    while (*args && n < 62)
        argv[n++] = *args++;
    argv[n] = NULL;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        int fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        dup2(fd, 2);
        setenv("TEST_BOOT_PIDDIR", r->dir, 1);
        execv(argv[0], (char *const *)argv);
        _exit(99);
    }
    if (sig) {
        for (int t = 0; count_pid_files(r->dir) < npes && t < 20000; t += 5)
            usleep(5000);
        ck_assert_int_eq(count_pid_files(r->dir), npes);
        kill(pid, sig);
    }
    /* Bounded wait: a hung oshrun is a failure, not a hung test. */
    for (;;) {
        pid_t w = waitpid(pid, &ws, WNOHANG);
        if (w == pid)
            break;
        if (ms_since(&t0) > 60000) {
            kill(pid, SIGKILL);
            waitpid(pid, &ws, 0);
            ck_abort_msg("oshrun did not end within 60 s");
        }
        usleep(2000);
    }
    r->ms = ms_since(&t0);
    r->status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 1000 + WTERMSIG(ws);
    FILE *f = fopen(errpath, "r");
    if (f) {
        size_t len = fread(r->err, 1, sizeof r->err - 1, f);
        r->err[len] = '\0';
        fclose(f);
    }
}

static void assert_err_has(const struct run *r, const char *what) {
    ck_assert_msg(strstr(r->err, what), "stderr lacks \"%s\":\n%s", what, r->err);
}

static void assert_err_has_one(const struct run *r, const char *a, const char *b) {
    ck_assert_msg(strstr(r->err, a) || strstr(r->err, b), "stderr lacks \"%s\" and \"%s\":\n%s", a,
                  b, r->err);
}

#define RUN(r, ...) run_oshrun(r, 0, 0, (const char *const[]){__VA_ARGS__, NULL})

START_TEST(all_ok) {
    struct run r;
    RUN(&r, "-np", "8", PROG_PATH);
    ck_assert_msg(r.status == 0, "status %d:\n%s", r.status, r.err);
    ck_assert_int_eq(count_pid_files(r.dir), 8);
    assert_no_pes_left(r.dir, 0);
}
END_TEST

START_TEST(abort_status) {
    struct run r;
    RUN(&r, "-np", "4", PROG_PATH, "abort", "7", "2");
    ck_assert_int_eq(r.status, 7);
    assert_err_has(&r, "oshrun: PE 2 aborted the job with status 7");
    ck_assert_int_lt(r.ms, FAST_MS);
    assert_no_pes_left(r.dir, 0);
}
END_TEST

START_TEST(segv_reported) {
    struct run r;
    RUN(&r, "-np", "4", PROG_PATH, "segv", "1");
    ck_assert_int_eq(r.status, 128 + SIGSEGV);
    assert_err_has(&r, "oshrun: PE 1 (pid ");
    assert_err_has(&r, ") was killed by signal 11 (Segmentation fault)");
    ck_assert_int_lt(r.ms, FAST_MS);
    assert_no_pes_left(r.dir, 0);
}
END_TEST

START_TEST(exit_status) {
    struct run r;
    RUN(&r, "-np", "3", PROG_PATH, "exit", "3", "2");
    ck_assert_int_eq(r.status, 3);
    assert_err_has(&r, ") exited with status 3");
    ck_assert_int_lt(r.ms, FAST_MS);
    assert_no_pes_left(r.dir, 0);
}
END_TEST

START_TEST(left_without_finalize) {
    struct run r;
    RUN(&r, "-np", "3", PROG_PATH, "leave", "1");
    ck_assert_int_eq(r.status, 1);
    assert_err_has(&r, "oshrun: PE 1 (pid ");
    assert_err_has(&r, "without finalizing while ");
    /* The others are in the barrier, or (on a loaded machine) not there yet:
     * either way the launcher ends the job and says why. */
    assert_err_has_one(&r, "waits in a barrier", "other PEs still run");
    ck_assert_int_lt(r.ms, FAST_MS);
    assert_no_pes_left(r.dir, 0);
    RUN(&r, "-np", "3", PROG_PATH, "leave", "2", "allgather");
    ck_assert_int_eq(r.status, 1);
    assert_err_has(&r, "oshrun: PE 2 (pid ");
    assert_err_has(&r, "without finalizing while ");
    assert_err_has_one(&r, " waits in an allgather", "other PEs still run");
    ck_assert_int_lt(r.ms, FAST_MS);
}
END_TEST

/* A PE that exits 0 without finalizing while the others wait for it
 * elsewhere than in the launcher (in shared memory): the launcher knows it
 * left, and that the others cannot finish without it. */
START_TEST(vanished_without_finalize) {
    struct run r;
    RUN(&r, "-np", "3", PROG_PATH, "vanish", "1");
    ck_assert_int_eq(r.status, 1);
    assert_err_has(&r, "oshrun: PE 1 (pid ");
    assert_err_has(&r, ") exited without finalizing while 2 other PEs still run");
    ck_assert_int_lt(r.ms, FAST_MS);
    assert_no_pes_left(r.dir, 0);
}
END_TEST

START_TEST(allgather_mismatch) {
    struct run r;
    RUN(&r, "-np", "2", PROG_PATH, "mismatch");
    ck_assert_int_eq(r.status, 1);
    assert_err_has(&r, "bytes to an allgather where PE");
    ck_assert_int_lt(r.ms, FAST_MS);
}
END_TEST

START_TEST(timeout) {
    struct run r;
    RUN(&r, "--timeout", "1", "-np", "4", PROG_PATH, "hang");
    ck_assert_int_eq(r.status, 124);
    assert_err_has(&r, "oshrun: timeout after 1 s, ending 4 PEs");
    ck_assert_int_ge(r.ms, 1000);
    ck_assert_int_lt(r.ms, 1000 + FAST_MS);
    assert_no_pes_left(r.dir, 0);
}
END_TEST

/* One PE left: "1 PE", not "1 PEs". */
START_TEST(timeout_one_pe) {
    struct run r;
    RUN(&r, "--timeout", "0.5", "-np", "1", PROG_PATH, "hang");
    ck_assert_int_eq(r.status, 124);
    assert_err_has(&r, "oshrun: timeout after 0.5 s, ending 1 PE\n");
}
END_TEST

START_TEST(timeout_sigterm_ignored) {
    struct run r;
    /* PEs that ignore SIGTERM get SIGKILL. */
    RUN(&r, "--timeout=0.5", "-np", "2", PROG_PATH, "hang", "noterm");
    ck_assert_int_eq(r.status, 124);
    ck_assert_int_lt(r.ms, 500 + FAST_MS);
    assert_no_pes_left(r.dir, 0);
}
END_TEST

START_TEST(sigterm_forwarded) {
    struct run r;
    run_oshrun(&r, SIGTERM, 4, (const char *const[]){"-np", "4", PROG_PATH, "hang", NULL});
    ck_assert_int_eq(r.status, 128 + SIGTERM);
    assert_err_has(&r, "received signal 15");
    assert_no_pes_left(r.dir, 0);
}
END_TEST

START_TEST(sigint_forwarded_then_kill) {
    struct run r;
    run_oshrun(&r, SIGINT, 2, (const char *const[]){"-np", "2", PROG_PATH, "hang", "noterm", NULL});
    ck_assert_int_eq(r.status, 128 + SIGINT);
    assert_no_pes_left(r.dir, 0);
}
END_TEST

START_TEST(no_orphans_when_oshrun_killed) {
    struct run r;
    run_oshrun(&r, SIGKILL, 4, (const char *const[]){"-np", "4", PROG_PATH, "hang", NULL});
    ck_assert_int_eq(r.status, 1000 + SIGKILL);
    assert_no_pes_left(r.dir, 2000);
}
END_TEST

START_TEST(missing_program) {
    struct run r;
    RUN(&r, "-np", "2", "/nonexistent/program");
    ck_assert_int_eq(r.status, 127);
    assert_err_has(&r, "oshrun: cannot run '/nonexistent/program': No such file or directory");
    RUN(&r, "-np", "2", "no-such-program-anywhere");
    ck_assert_int_eq(r.status, 127);
    assert_err_has(&r, "cannot find program 'no-such-program-anywhere' in PATH");
}
END_TEST

START_TEST(environment) {
    struct run r;
    setenv("TEST_BOOT_PASSED", "kept", 1);
    setenv("CUDA_DEVICE_MAX_CONNECTIONS", "8", 1);
    unsetenv("CUDA_MODULE_LOADING");
    RUN(&r, "-np", "2", "-x", "TEST_BOOT_SET=a=b", "-x", "TEST_BOOT_PASSED", PROG_PATH, "env",
        "TEST_BOOT_SET=a=b", "TEST_BOOT_PASSED=kept", "CUDA_MODULE_LOADING=EAGER",
        "CUDA_DEVICE_MAX_CONNECTIONS=8", "SHMEMI_BOOT_SIZE=2");
    ck_assert_msg(r.status == 0, "status %d:\n%s", r.status, r.err);
}
END_TEST

START_TEST(command_line) {
    struct run r;
    RUN(&r, "--version");
    ck_assert_int_eq(r.status, 0);
    RUN(&r, "-np", "0", PROG_PATH);
    ck_assert_int_eq(r.status, 2);
    assert_err_has(&r, "bad number of PEs '0'");
    RUN(&r, "--frobnicate", PROG_PATH);
    ck_assert_int_eq(r.status, 2);
    assert_err_has(&r, "unknown option '--frobnicate'");
    RUN(&r, "-np");
    ck_assert_int_eq(r.status, 2);
    RUN(&r, "--timeout", "-1", PROG_PATH);
    ck_assert_int_eq(r.status, 2);
    /* This host by name stays with the built-in launcher. */
    RUN(&r, "--hosts", "localhost,localhost", "-np", "2", PROG_PATH);
    ck_assert_msg(r.status == 0, "status %d:\n%s", r.status, r.err);
}
END_TEST

/* Open MPI's launch options, as users of its oshrun pass them: on one host
 * they start the job there (--bind-to none turning the pinning off), say
 * which ones mean nothing there, and a host file of this host alone keeps the
 * built-in launcher. */
START_TEST(mpirun_options) {
    struct run r;
    unsetenv("SHMEM_BIND");
    RUN(&r, "--oversubscribe", "--allow-run-as-root", "--report-bindings", "--bind-to", "none",
        "-np", "2", PROG_PATH, "env", "SHMEM_BIND=0", "SHMEMI_BOOT_SIZE=2");
    ck_assert_msg(r.status == 0, "status %d:\n%s", r.status, r.err);
    ck_assert_msg(!strstr(r.err, "without effect"), "%s", r.err);
    RUN(&r, "--map-by=node", "--mca", "spml", "ucx", "-N", "2", "-np", "2", PROG_PATH);
    ck_assert_msg(r.status == 0, "status %d:\n%s", r.status, r.err);
    assert_err_has(&r, "--map-by node: an option of mpirun's, without effect on one host");
    assert_err_has(&r, "--mca spml ucx: an option of mpirun's");
    /* mpirun's spellings: long options with one dash, -c for -np */
    RUN(&r, "-mca", "spml", "ucx", "-bind-to", "none", "-display-map", "-q", "--cpus-per-proc=1",
        "-c", "2", PROG_PATH, "env", "SHMEM_BIND=0", "SHMEMI_BOOT_SIZE=2");
    ck_assert_msg(r.status == 0, "status %d:\n%s", r.status, r.err);
    assert_err_has(&r, "--mca spml ucx: an option of mpirun's");
    assert_err_has(&r, "--cpus-per-proc 1: an option of mpirun's");
    RUN(&r, "-mcaa", "spml", "ucx", PROG_PATH);
    ck_assert_int_eq(r.status, 2);
    assert_err_has(&r, "unknown option '-mcaa'");
    RUN(&r, "--mca", "spml", PROG_PATH);
    ck_assert_int_eq(r.status, 2);
    RUN(&r, "-np", "2", "--bind-to");
    ck_assert_int_eq(r.status, 2);
    assert_err_has(&r, "option '--bind-to' needs a value");

    char hosts[] = "/tmp/test_boot_hosts.XXXXXX";
    int fd = mkstemp(hosts);
    ck_assert_int_ge(fd, 0);
    const char local[] = "# this host\nlocalhost slots=2\n\n  127.0.0.1:2 # again\n";
    ck_assert_int_eq(write(fd, local, sizeof local - 1), (ssize_t)sizeof local - 1);
    RUN(&r, "--hostfile", hosts, "-np", "2", PROG_PATH, "env", "SHMEMI_BOOT_SIZE=2");
    ck_assert_msg(r.status == 0, "status %d:\n%s", r.status, r.err);
    const char other[] = "node-elsewhere.invalid slots=2\n";
    ck_assert_int_eq(write(fd, other, sizeof other - 1), (ssize_t)sizeof other - 1);
    close(fd);
    setenv("SHMEM_LAUNCHER", "local", 1);
    RUN(&r, "--machinefile", hosts, "-np", "2", PROG_PATH);
    unsetenv("SHMEM_LAUNCHER");
    unlink(hosts);
    ck_assert_int_eq(r.status, 2);
    assert_err_has(&r, "cannot start PEs on other hosts (--hostfile /tmp/test_boot_hosts.");
    RUN(&r, "--hostfile", "/nonexistent/hosts", "-np", "2", PROG_PATH);
    ck_assert_int_eq(r.status, 2);
    assert_err_has(&r, "cannot read the host file '/nonexistent/hosts'");
}
END_TEST

int main(void) {
    Suite *s = suite_create("boot_launch");
    TCase *tc = tcase_create("oshrun");
    tcase_set_timeout(tc, 90);
    tcase_add_checked_fixture(tc, NULL, remove_dirs);
    tcase_add_test(tc, all_ok);
    tcase_add_test(tc, abort_status);
    tcase_add_test(tc, segv_reported);
    tcase_add_test(tc, exit_status);
    tcase_add_test(tc, left_without_finalize);
    tcase_add_test(tc, vanished_without_finalize);
    tcase_add_test(tc, allgather_mismatch);
    tcase_add_test(tc, timeout);
    tcase_add_test(tc, timeout_one_pe);
    tcase_add_test(tc, timeout_sigterm_ignored);
    tcase_add_test(tc, sigterm_forwarded);
    tcase_add_test(tc, sigint_forwarded_then_kill);
    tcase_add_test(tc, no_orphans_when_oshrun_killed);
    tcase_add_test(tc, missing_program);
    tcase_add_test(tc, environment);
    tcase_add_test(tc, command_line);
    tcase_add_test(tc, mpirun_options);
    suite_add_tcase(s, tc);

    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
