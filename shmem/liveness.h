/* Liveness: a job that can no longer progress ends, promptly and with a
 * message naming the PE that left and what the others wait in, instead of
 * hanging until a timeout (shmem/liveness.c). */
#ifndef SHMEMI_LIVENESS_H
#define SHMEMI_LIVENESS_H

#include "shmem/shmemi.h"

/* Around shmem_init: count the threads the library starts (the copy engine's),
 * so that a waiting PE can tell whether another application thread could end
 * its wait. */
void shmemi_live_init_begin(void);
void shmemi_live_init_end(void);

/* PE pe is a process of this PID namespace (its memory is mapped here):
 * watched, so that its end without a word (a signal, _exit) ends the job
 * like an exit with a non-zero status. */
void shmemi_live_watch(int pe, int pid);

/* The slow path of every blocking wait (shmemi_spin_slow): publish the wait,
 * and end the job when it can never end (a peer is in shmem_finalize while
 * this PE waits in a barrier of all PEs that peer never entered; a peer left
 * with a non-zero status, or a peer of this node ended without a word, and
 * the launcher did not end the job). */
void shmemi_live_wait(struct shmemi_spin *s);

/* shmem_finalize's synchronization, after this PE's operations are
 * complete: wait until every PE has reached shmem_finalize. Ends the job
 * when that cannot happen: every other PE that has not reached it is
 * blocked in a wait only a peer could end. implicit: called by the exit
 * handler (the program left main or called exit without shmem_finalize). */
void shmemi_live_finalize(int implicit);

/* shmem_global_exit(status): the peers' waits end the job with that status
 * should the launcher not. */
void shmemi_live_global_exit(int status);

/* The exit handler with a non-zero status: tell the peers (their waits end
 * the job) and say why the job ends. The process then exits. */
void shmemi_live_exit(int status);

#endif
