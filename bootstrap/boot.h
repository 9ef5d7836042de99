/* Bootstrap: how the PEs of a job find each other.
 *
 * This layer knows nothing about OpenSHMEM. It gives the core a rank, a size,
 * the node-local rank, an allgather, a barrier and a way to end the whole job.
 *
 *   local : started by oshrun's built-in launcher (env SHMEMI_BOOT_FD is set)
 *   pmix  : started by mpirun / prterun / srun with PMIx (env PMIX_RANK is set)
 *   self  : no launcher: the program runs as one PE
 */
#ifndef BOOT_H
#define BOOT_H

#include <stddef.h>

struct boot {
    const char *name; /* "local", "pmix" or "self" */
    int rank;         /* 0 .. size-1 */
    int size;
    int local_rank; /* rank among the PEs of this node */
    int local_size;
    /* Gather `len` bytes from every rank into out[rank * len]. Collective. */
    int (*allgather)(struct boot *b, const void *in, void *out, size_t len);
    /* Collective barrier over all ranks. */
    int (*barrier)(struct boot *b);
    /* End the whole job with `status`: every other PE is killed within a
     * second. `msg` (may be NULL) is already printed by the caller. Never
     * returns. */
    void (*abort)(struct boot *b, int status, const char *msg);
    /* Tell the launcher this rank finished cleanly, release resources. Frees
     * b (also on error): do not use it afterwards. */
    int (*finalize)(struct boot *b);
    void *impl;
    /* One-line reason for the last failed call (empty when none). */
    char err[256];
};

/* Status codes (0 ok, negative error; b->err or the caller's err buffer holds
 * the one-line reason). */
enum {
    BOOT_OK = 0,
    BOOT_ERR_SYS = -1,         /* a system call failed */
    BOOT_ERR_LAUNCHER = -2,    /* the launcher went away or broke the protocol */
    BOOT_ERR_INVAL = -3,       /* bad argument or bad environment */
    BOOT_ERR_PMIX = -4,        /* a PMIx call failed */
    BOOT_ERR_UNSUPPORTED = -5, /* not built with the needed support */
    BOOT_ERR_NOMEM = -6,
};

/* Pick the bootstrap from the environment and connect. On failure return a
 * negative value and write a one-line reason into err. */
int boot_open(struct boot **out, char *err, size_t errlen);

/* Individual bootstraps (boot_open picks one). */
int boot_local_open(struct boot **out, char *err, size_t errlen);
int boot_pmix_open(struct boot **out, char *err, size_t errlen);
int boot_self_open(struct boot **out, char *err, size_t errlen);

#endif
