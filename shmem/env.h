/* Settings from the environment, generated from env.def. */
#ifndef SHMEMI_ENV_H
#define SHMEMI_ENV_H

#include <stddef.h>
#include <stdio.h>

typedef int shmemi_env_bool;
typedef size_t shmemi_env_size;
typedef long shmemi_env_int;
typedef double shmemi_env_double;
typedef const char *shmemi_env_string;
typedef const char *shmemi_env_enum;

struct shmemi_config {
#define SHMEMI_ENV(NAME, TYPE, DEF, DOC) shmemi_env_##TYPE NAME;
#include "shmem/env.def"
#undef SHMEMI_ENV
};

/* Parse every setting from the environment (defaults where unset). On a
 * malformed value return -1 with a message naming the variable in err. */
int shmemi_env_load(struct shmemi_config *cfg, char *err, size_t errlen);

/* Strict parsers, 0 on success. */
int shmemi_parse_bool(const char *s, int *out);
int shmemi_parse_size(const char *s, size_t *out);
int shmemi_parse_int(const char *s, long *out);
int shmemi_parse_double(const char *s, double *out);
int shmemi_parse_enum(const char *s, const char *doc, const char **out);

/* Names of SHMEM_* variables in envp that the library does not know, each
 * with the nearest known name: calls report(name, suggestion, arg). */
void shmemi_env_unknown(char **envp, void (*report)(const char *, const char *, void *), void *arg);

/* CUDA_DEVICE_MAX_CONNECTIONS (hardware queues per GPU context) for PEs of
 * this node that share one GPU, per_gpu of them: 32 up to three (enough that
 * streams blocked in waits do not starve kernel launches), then a share of 96
 * (under CUDA MPS the clients' queues together are bounded: on an H100, four
 * PEs of 32 each fail to create their contexts, "out of memory"; of 24 each
 * they start). */
int shmemi_gpu_connections(int per_gpu);
/* PEs of this node per GPU, from what the launcher and the driver say before
 * any GPU runtime starts: the node's PEs (the built-in launcher's job size,
 * Open MPI's OMPI_COMM_WORLD_LOCAL_SIZE, MPICH's MPI_LOCALNRANKS, Slurm's
 * SLURM_TASKS_PER_NODE; 1 when none says) over the visible GPUs
 * (CUDA_VISIBLE_DEVICES, else the NVIDIA driver's list; 1 when neither
 * says), rounded up. */
int shmemi_pes_per_gpu_from_env(void);

/* Print the table: text (with current values) or markdown (README). */
void shmemi_env_print(FILE *f, const struct shmemi_config *cfg, int markdown);

#endif
