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

int oshrun_exec_mpirun(const struct opts *o)
{
    const char *mpirun = getenv("SHMEM_MPIRUN");
    size_t nprog = 0, n = 0;
    char np[16], tmo[32];

    if (!mpirun || !*mpirun)
        mpirun = "mpirun";
    while (o->prog_argv[nprog])
        nprog++;
    const char **av = calloc(16 + 2 * (size_t)o->nx + nprog, sizeof *av);
    if (!av)
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
    if (o->hosts) {
        av[n++] = "--host";
        av[n++] = o->hosts;
    }
    for (size_t k = 0; k < nprog; k++)
        av[n++] = o->prog_argv[k];
    av[n] = NULL;

    fflush(NULL);
    execvp(mpirun, (char *const *)av);
    oshrun_msg("cannot run '%s': %s (set SHMEM_MPIRUN to Open MPI's mpirun)", mpirun,
               strerror(errno));
    free(av);
    return EXIT_NOT_FOUND;
}

