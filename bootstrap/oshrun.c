/* oshrun: start an OpenSHMEM job. This file reads the command line, sets
 * the PEs' environment and chooses how to start the PEs.
 *
 * On one host it forks the PEs itself (no daemons) and serves their
 * bootstrap requests over one Unix socket pair per PE (oshrun_local.c,
 * launch_proto.h). On several hosts, or with SHMEM_LAUNCHER=mpirun, it execs
 * Open MPI's mpirun and the PEs use the PMIx bootstrap (oshrun_mpirun.c).
 */
#include "bootstrap/oshrun.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#ifndef SHMEM_VERSION
#define SHMEM_VERSION "unknown"
#endif
#define PRODUCT_NAME "SDMA-SHMEM"

/* CUDA_DEVICE_MAX_CONNECTIONS depends on how many PEs share a GPU: each PE's
 * library sets it (shmem/gpu.c). */
const char *const oshrun_default_env[][2] = {
    {"CUDA_MODULE_LOADING", "EAGER"},
};
const size_t oshrun_n_default_env = sizeof oshrun_default_env / sizeof *oshrun_default_env;

void oshrun_msg(const char *fmt, ...) {
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "oshrun: %s\n", line);
}

/* ---- command line ------------------------------------------------------- */

static void usage(FILE *f) {
    fprintf(f, "Usage: oshrun [options] program [args...]\n"
               "Start an OpenSHMEM job of " PRODUCT_NAME ".\n"
               "\n"
               "  -np N, -n N, -c N    number of PEs (default 1)\n"
               "  -x VAR[=VAL]         set VAR (or pass it on, with mpirun) for every PE\n"
               "  --timeout S          end the job after S seconds and exit with 124\n"
               "  --hosts h1,h2        hosts to run on (also --host, -H); hosts other than this\n"
               "                       one are started through mpirun\n"
               "  --hostfile FILE      the hosts, one a line (also --machinefile), as mpirun\n"
               "                       reads them\n"
               "  --map-by X, --rank-by X, --bind-to X, -N N (--npernode), --mca K V,\n"
               "  --cpus-per-proc N (--cpus-per-rank), --report-bindings, --display-map,\n"
               "  --display-allocation, --use-hwthread-cpus, --oversubscribe,\n"
               "  --nooversubscribe, --allow-run-as-root, --quiet (-q)\n"
               "                       passed to mpirun (with one dash too: -mca); on one\n"
               "                       host --bind-to none turns SHMEM_BIND off, the others\n"
               "                       change nothing there\n"
               "  --version            print the version\n"
               "  --help               print this help\n"
               "\n"
               "On one host the PEs are forked directly. SHMEM_LAUNCHER=mpirun, or remote\n"
               "hosts, exec mpirun (SHMEM_MPIRUN names it) instead.\n"
               "The PEs' large malloc'd blocks go on transparent huge pages where the kernel\n"
               "gives them on request (glibc.malloc.hugetlb=1 added to GLIBC_TUNABLES;\n"
               "SHMEM_MALLOC_HUGEPAGES=0: not).\n"
               "Exit status: the first failing PE's exit status (128+N when killed by\n"
               "signal N, the status of shmem_global_exit), 124 on timeout, 127 when the\n"
               "program cannot be found, 2 for a bad command line.\n");
}

static int usage_error(const char *fmt, const char *arg) {
    fprintf(stderr, "oshrun: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry 'oshrun --help'.\n");
    return EXIT_USAGE;
}

/* "--name=value" or "--name value": returns the value and advances *i, or
 * NULL when the option does not match. *missing is set when it matches but
 * has no value. */
static const char *opt_value(int argc, char **argv, int *i, const char *name, int *missing) {
    size_t n = strlen(name);
    const char *a = argv[*i];
    if (strncmp(a, name, n) != 0)
        return NULL;
    if (a[n] == '=')
        return a + n + 1;
    if (a[n] != '\0')
        return NULL;
    if (*i + 1 >= argc) {
        *missing = 1;
        return NULL;
    }
    return argv[++*i];
}

#define COUNT(a) (sizeof(a) / sizeof *(a))

/* opt_value for each of n names in turn. */
static const char *opt_any(int argc, char **argv, int *i, const char *const *names, size_t n,
                           int *missing) {
    const char *v = NULL;
    for (size_t k = 0; k < n && !v && !*missing; k++)
        v = opt_value(argc, argv, i, names[k], missing);
    return v;
}

/* Open MPI's options that oshrun takes, with how many values each has: what
 * users of Open MPI's oshrun pass. They go to mpirun under these names. Like
 * mpirun, oshrun takes the long ones with one dash too (-mca, -bind-to). */
static const struct mpi_opt {
    const char *name;
    int values;
} mpi_opts[] = {{"--map-by", 1},
                {"--rank-by", 1},
                {"--bind-to", 1},
                {"-N", 1},
                {"--npernode", 1},
                {"--mca", 2},
                {"--oversubscribe", 0},
                {"--nooversubscribe", 0},
                {"--allow-run-as-root", 0},
                {"--report-bindings", 0},
                {"--display-map", 0},
                {"--display-allocation", 0},
                {"--use-hwthread-cpus", 0},
                {"--cpus-per-proc", 1},
                {"--cpus-per-rank", 1},
                {"--quiet", 0},
                {"-q", 0}};

/* An Open MPI option at argv[*i]: recorded with its values (advancing *i);
 * 0 when argv[*i] is none of them, -1 when its values are missing. */
static int mpi_option(int argc, char **argv, int *i, struct opts *o) {
    for (size_t k = 0; k < COUNT(mpi_opts); k++) {
        const struct mpi_opt *m = &mpi_opts[k];
        /* "-mca" for "--mca": the name less its first dash */
        const char *name = m->name + (m->name[1] == '-' && argv[*i][1] != '-');
        size_t n = strlen(name);
        if (strncmp(argv[*i], name, n) != 0)
            continue;
        if (argv[*i][n] == '=' && m->values == 1) {
            o->mpi_args[o->nmpi++] = m->name;
            o->mpi_args[o->nmpi++] = argv[*i] + n + 1;
            return 1;
        }
        if (argv[*i][n] != '\0')
            continue;
        if (*i + m->values >= argc)
            return -1;
        o->mpi_args[o->nmpi++] = m->name;
        for (int v = 0; v < m->values; v++)
            o->mpi_args[o->nmpi++] = argv[++*i];
        return 1;
    }
    return 0;
}

/* Returns -1 to continue, or an exit status. */
static int parse_args(int argc, char **argv, struct opts *o) {
    static const char *const np_names[] = {"-np", "-n", "--np", "--n", "-c"};
    static const char *const host_names[] = {"--hosts", "--host", "-H"};
    static const char *const hostfile_names[] = {"--hostfile", "--machinefile", "-hostfile",
                                                 "-machinefile"};
    int i;

    memset(o, 0, sizeof *o);
    o->np = 1;
    o->xvars = calloc((size_t)argc, sizeof *o->xvars);
    o->mpi_args = calloc((size_t)argc + 1, sizeof *o->mpi_args);
    if (!o->xvars || !o->mpi_args)
        return 1;

    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        int missing = 0, matched = 0;

        if (strcmp(a, "--") == 0) {
            i++;
            break;
        }
        if (a[0] != '-')
            break;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        }
        if (strcmp(a, "--version") == 0 || strcmp(a, "-V") == 0) {
            printf("oshrun (" PRODUCT_NAME ") " SHMEM_VERSION "\n");
            return 0;
        }
        if ((v = opt_any(argc, argv, &i, np_names, COUNT(np_names), &missing))) {
            char *end;
            long n;
            errno = 0;
            n = strtol(v, &end, 10);
            if (errno || *end || end == v || n < 1 || n > MAX_PES)
                return usage_error("bad number of PEs '%s' (1 to 65536)", v);
            o->np = (int)n;
            matched = 1;
        }
        if (!matched && (v = opt_any(argc, argv, &i, host_names, COUNT(host_names), &missing))) {
            if (!*v)
                return usage_error("empty host list%s", "");
            o->hosts = v;
            matched = 1;
        }
        if (!matched &&
            (v = opt_any(argc, argv, &i, hostfile_names, COUNT(hostfile_names), &missing))) {
            if (!*v)
                return usage_error("empty host file name%s", "");
            o->hostfile = v;
            matched = 1;
        }
        if (!matched && !missing) {
            int m = mpi_option(argc, argv, &i, o);
            missing = m < 0;
            matched = m > 0;
        }
        if (!matched && (v = opt_value(argc, argv, &i, "-x", &missing))) {
            if (!*v || *v == '=')
                return usage_error("bad -x '%s': expected VAR or VAR=VALUE", v);
            o->xvars[o->nx++] = v;
            matched = 1;
        }
        if (!matched && (v = opt_value(argc, argv, &i, "--timeout", &missing))) {
            char *end;
            errno = 0;
            o->timeout_s = strtod(v, &end);
            if (errno || *end || end == v || !(o->timeout_s > 0) || o->timeout_s > 1e7)
                return usage_error("bad --timeout '%s': expected seconds > 0", v);
            matched = 1;
        }
        if (missing)
            return usage_error("option '%s' needs a value", a);
        if (!matched)
            return usage_error("unknown option '%s'", a);
    }
    if (i >= argc)
        return usage_error("no program to run%s", "");
    o->prog_argv = argv + i;
    return -1;
}

/* Is host h (a name, "name:slots" or "name slots=N") this host? */
static int host_is_local(char *h) {
    char self[256] = "";
    gethostname(self, sizeof self - 1);
    size_t self_short = strcspn(self, ".");
    h[strcspn(h, ": \t")] = '\0';
    size_t hs = strcspn(h, ".");
    return strcmp(h, "localhost") == 0 || strcmp(h, "127.0.0.1") == 0 || strcmp(h, self) == 0 ||
           (hs == self_short && strncmp(h, self, hs) == 0);
}

/* Is every host of the list this host? */
static int hosts_all_local(const char *list) {
    char *copy = strdup(list), *save = NULL, *h;
    int local = 1;

    if (!copy)
        return 0;
    for (h = strtok_r(copy, ",", &save); h; h = strtok_r(NULL, ",", &save))
        local &= host_is_local(h);
    free(copy);
    return local;
}

/* Is every host of the file this host (one a line, '#' comments, as mpirun
 * reads it)? -1 when it cannot be read. */
static int hostfile_all_local(const char *path) {
    FILE *f = fopen(path, "r");
    char line[1024];
    int local = 1;

    if (!f) {
        oshrun_msg("cannot read the host file '%s': %s", path, strerror(errno));
        return -1;
    }
    while (fgets(line, sizeof line, f)) {
        char *h = line + strspn(line, " \t");
        h[strcspn(h, "#\r\n")] = '\0';
        if (*h)
            local &= host_is_local(h);
    }
    fclose(f);
    return local;
}

/* Open MPI's options in a job this host starts itself: --bind-to none means
 * SHMEM_BIND=0 (unless set); the mapping, ranking and MCA settings have no
 * meaning for the built-in launcher, which says so; the rest change nothing. */
static void mpi_options_here(const struct opts *o) {
    for (int k = 0; k < o->nmpi; k++) {
        const char *a = o->mpi_args[k];
        int values = 0;
        for (size_t m = 0; m < COUNT(mpi_opts); m++)
            if (strcmp(a, mpi_opts[m].name) == 0)
                values = mpi_opts[m].values;
        if (strcmp(a, "--bind-to") == 0 && strcmp(o->mpi_args[k + 1], "none") == 0)
            setenv("SHMEM_BIND", "0", 0);
        else if (strcmp(a, "--bind-to") && values > 0)
            oshrun_msg("%s %s%s%s: an option of mpirun's, without effect on one host "
                       "(SHMEM_LAUNCHER=mpirun hands the job to mpirun)",
                       a, o->mpi_args[k + 1], values > 1 ? " " : "",
                       values > 1 ? o->mpi_args[k + 2] : "");
        k += values;
    }
}

/* The last -x NAME=VALUE of the command line, or -1. */
static int x_index(const struct opts *o, const char *name) {
    size_t n = strlen(name);
    for (int k = o->nx - 1; k >= 0; k--)
        if (strncmp(o->xvars[k], name, n) == 0 && o->xvars[k][n] == '=')
            return k;
    return -1;
}

/* A setting for the PEs: its -x NAME=VALUE, else this environment's value. */
static const char *pe_setting(const struct opts *o, const char *name) {
    int k = x_index(o, name);
    return k < 0 ? getenv(name) : o->xvars[k] + strlen(name) + 1;
}

static char *x_tunables; /* a -x GLIBC_TUNABLES=... with ours added */

/* SHMEM_MALLOC_HUGEPAGES (default on): the PEs' large malloc'd blocks on
 * transparent huge pages where the kernel gives them on request
 * (transparent_hugepage/enabled = madvise, the usual default, which leaves a
 * program's own arrays on 4 KiB pages). glibc asks for them when its
 * glibc.malloc.hugetlb tunable is 1, read as a program starts, so the
 * launcher sets it for the PEs, unless GLIBC_TUNABLES already says. A 512 MiB
 * array that a sort fills at random faults in 256 times instead of 131,072
 * (on a hypervisor, 5-8 us each). Returns -1 on a bad value. */
static int malloc_hugepages(struct opts *o) {
    static const char *const yes[] = {"1", "y", "yes", "on", "true"};
    static const char *const no[] = {"0", "n", "no", "off", "false"};
    const char *v = pe_setting(o, "SHMEM_MALLOC_HUGEPAGES");
    int on = 1, known = !v;
    for (size_t k = 0; v && k < COUNT(yes); k++) {
        if (strcasecmp(v, yes[k]) == 0)
            known = 1;
        else if (strcasecmp(v, no[k]) == 0)
            known = 1, on = 0;
    }
    if (!known) {
        oshrun_msg("SHMEM_MALLOC_HUGEPAGES=%s: expected a boolean (1/0, yes/no, on/off, "
                   "true/false)",
                   v);
        return -1;
    }
    const char *t = pe_setting(o, "GLIBC_TUNABLES");
    if (!on || (t && strstr(t, "glibc.malloc.hugetlb=")))
        return 0;
    /* The user's tunables, then ours: in the environment the PEs inherit, and
     * in place of a -x that sets them (kept until oshrun ends). */
    static const char prefix[] = "GLIBC_TUNABLES=";
    size_t len = sizeof prefix + (t ? strlen(t) + 1 : 0) + sizeof "glibc.malloc.hugetlb=1";
    char *kv = malloc(len);
    if (!kv)
        return 0;
    snprintf(kv, len, "%s%s%sglibc.malloc.hugetlb=1", prefix, t ? t : "", t && *t ? ":" : "");
    setenv("GLIBC_TUNABLES", kv + sizeof prefix - 1, 1);
    int k = x_index(o, "GLIBC_TUNABLES");
    if (k >= 0)
        o->xvars[k] = x_tunables = kv;
    else
        free(kv);
    return 0;
}

int main(int argc, char **argv) {
    struct opts o;
    int rc = parse_args(argc, argv, &o);
    if (rc < 0 && malloc_hugepages(&o))
        rc = EXIT_USAGE;
    if (rc >= 0) {
        free(o.xvars);
        free(o.mpi_args);
        free(x_tunables);
        return rc;
    }

    const char *launcher = getenv("SHMEM_LAUNCHER");
    int use_mpirun = 0;
    if (launcher && *launcher) {
        if (strcmp(launcher, "mpirun") == 0)
            use_mpirun = 1;
        else if (strcmp(launcher, "local") != 0) {
            oshrun_msg("SHMEM_LAUNCHER=%s: expected 'local' or 'mpirun'", launcher);
            free(o.xvars);
            return EXIT_USAGE;
        }
    }
    int file_local = o.hostfile ? hostfile_all_local(o.hostfile) : 1;
    if (file_local < 0) {
        rc = EXIT_USAGE;
    } else if ((o.hosts && !hosts_all_local(o.hosts)) || !file_local) {
        if (launcher && strcmp(launcher, "local") == 0) {
            oshrun_msg("SHMEM_LAUNCHER=local cannot start PEs on other hosts (%s %s)",
                       o.hosts ? "--hosts" : "--hostfile", o.hosts ? o.hosts : o.hostfile);
            rc = EXIT_USAGE;
        } else {
            use_mpirun = 1;
        }
    }
    if (rc < 0 && !use_mpirun)
        mpi_options_here(&o);
    if (rc < 0)
        rc = use_mpirun ? oshrun_exec_mpirun(&o) : oshrun_run_local(&o);
    free(o.xvars);
    free(o.mpi_args);
    free(x_tunables);
    return rc;
}
