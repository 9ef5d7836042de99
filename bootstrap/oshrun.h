/* oshrun's parts: the command line (oshrun.c), the built-in launcher that
 * forks the PEs on this host (oshrun_local.c) and the hand-over to Open MPI's
 * mpirun (oshrun_mpirun.c). */
#ifndef BOOT_OSHRUN_H
#define BOOT_OSHRUN_H

#include <stddef.h>

#define EXIT_USAGE 2
#define EXIT_NOT_FOUND 127
#define EXIT_TIMEOUT 124

#define MAX_PES 65536

/* The parsed command line. */
struct opts {
    int np;
    double timeout_s; /* 0: none */
    const char *hosts;
    const char *hostfile; /* --hostfile, --machinefile */
    const char **xvars;
    int nx;
    /* Open MPI's own options as given (--map-by X, --mca K V, ...): passed to
     * mpirun; on one host, read for what they mean there (oshrun.c). */
    const char **mpi_args;
    int nmpi;
    char **prog_argv;
};

/* Environment defaults set for every PE unless already set. */
extern const char *const oshrun_default_env[][2];
extern const size_t oshrun_n_default_env;

/* "oshrun: <message>" on stderr. */
void oshrun_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Start the PEs on this host and serve them until every one has ended;
 * returns oshrun's exit status. */
int oshrun_run_local(const struct opts *o);

/* Replace oshrun by mpirun; returns an exit status only when it could not. */
int oshrun_exec_mpirun(const struct opts *o);

#endif
