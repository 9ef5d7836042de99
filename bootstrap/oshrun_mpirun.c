/* oshrun's hand-over to Open MPI's mpirun: on several hosts, or with
 * SHMEM_LAUNCHER=mpirun, oshrun execs mpirun with the matching flags and the
 * PEs use the PMIx bootstrap. */
#include "bootstrap/oshrun.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

/* The library's settings (SHMEM_*), libfabric's (FI_*) and glibc's tunables
 * (the PEs' malloc on huge pages: oshrun.c) in oshrun's environment: mpirun
 * passes on only what -x names, and the built-in launcher passes on
 * everything. */
static int passed_on(const char *kv) {
    if (strncmp(kv, "GLIBC_TUNABLES=", 15) == 0)
        return 1;
    if (strncmp(kv, "SHMEM_", 6) && strncmp(kv, "FI_", 3))
        return 0;
    return strncmp(kv, "SHMEM_LAUNCHER=", 15) && strncmp(kv, "SHMEM_MPIRUN=", 13) &&
           strchr(kv, '=') != NULL;
}

int oshrun_exec_mpirun(const struct opts *o) {
    const char *mpirun = getenv("SHMEM_MPIRUN");
    size_t nprog = 0, n = 0, nenv = 0;
    char np[16], tmo[32];

    if (!mpirun || !*mpirun)
        mpirun = "mpirun";
    while (o->prog_argv[nprog])
        nprog++;
    for (char **e = environ; *e; e++)
        nenv += passed_on(*e);
    const char **av = calloc(20 + 2 * ((size_t)o->nx + nenv) + (size_t)o->nmpi + nprog, sizeof *av);
    char **names = calloc(nenv + 1, sizeof *names);
    if (!av || !names)
        return 1;

    snprintf(np, sizeof np, "%d", o->np);
    av[n++] = mpirun;
    av[n++] = "-np";
    av[n++] = np;
    if (geteuid() == 0)
        av[n++] = "--allow-run-as-root";
    av[n++] = "--oversubscribe";
    if (o->timeout_s > 0) {
        snprintf(tmo, sizeof tmo, "%.0f", ceil(o->timeout_s));
        av[n++] = "--timeout";
        av[n++] = tmo;
    }
    for (int k = 0; k < o->nx; k++) {
        av[n++] = "-x";
        av[n++] = o->xvars[k];
    }
    for (size_t k = 0; k < oshrun_n_default_env; k++) {
        setenv(oshrun_default_env[k][0], oshrun_default_env[k][1], 0);
        av[n++] = "-x";
        av[n++] = oshrun_default_env[k][0];
    }
    size_t k = 0;
    for (char **e = environ; *e && k < nenv; e++) {
        if (!passed_on(*e))
            continue;
        names[k] = strndup(*e, (size_t)(strchr(*e, '=') - *e));
        if (!names[k])
            return 1;
        av[n++] = "-x";
        av[n++] = names[k++];
    }
    if (o->hosts) {
        av[n++] = "--host";
        av[n++] = o->hosts;
    }
    if (o->hostfile) {
        av[n++] = "--hostfile";
        av[n++] = o->hostfile;
    }
    /* Open MPI's own options as given, but the two always passed above. */
    for (int i = 0; i < o->nmpi; i++)
        if (strcmp(o->mpi_args[i], "--allow-run-as-root") &&
            strcmp(o->mpi_args[i], "--oversubscribe"))
            av[n++] = o->mpi_args[i];
    for (k = 0; k < nprog; k++)
        av[n++] = o->prog_argv[k];
    av[n] = NULL;

    fflush(NULL);
    execvp(mpirun, (char *const *)av);
    oshrun_msg("cannot run '%s': %s (set SHMEM_MPIRUN to Open MPI's mpirun)", mpirun,
               strerror(errno));
    for (k = 0; k < nenv; k++)
        free(names[k]);
    free(names);
    free(av);
    return EXIT_NOT_FOUND;
}
