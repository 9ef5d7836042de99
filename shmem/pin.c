/* Which CPU a PE's thread runs on (SHMEM_BIND).
 *
 * A PE that the scheduler moves between CPUs leaves its caches behind: a
 * stencil's sweeps over private grids ran 8-10% slower unpinned at 2 PEs.
 * Launchers that pin (Open MPI's mpirun, srun) give each process fewer CPUs
 * than the node has; then nothing is done here. Otherwise the main thread of
 * each PE takes one CPU of its own, one physical core before a second thread
 * of any core, when the node has a CPU for every PE of the job.
 *
 * Two jobs on one node (a test suite run in parallel) must not pin their PEs
 * to the same CPUs: two PEs on one CPU that wait for each other turn every
 * wait into a time slice. So a CPU is taken by holding an exclusive flock on
 * a file of its own in /dev/shm, for the life of the process (the kernel
 * drops it when the process ends, however it ends). A PE starts at its local
 * rank and takes the next free CPU; where every CPU is held it stays unpinned.
 *
 * Only the calling thread is pinned: the library's threads made before keep
 * every CPU, and those made after are given them back (shmemi_unpinned_attr). */
#define _GNU_SOURCE
#include "shmem/shmemi.h"

#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <sys/file.h>
#include <unistd.h>

static struct {
    cpu_set_t before; /* the process's CPUs before pinning */
    int pinned;
    int fd; /* the claim, held until exit */
} pin = {.fd = -1};

/* The lowest CPU of cpu's core (itself where the topology is not readable). */
static int core_first(int cpu) {
    char path[96];
    snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list", cpu);
    FILE *f = fopen(path, "r");
    int first = cpu;
    if (f) {
        if (fscanf(f, "%d", &first) != 1)
            first = cpu;
        fclose(f);
    }
    return first;
}

/* The allowed CPUs, first threads of their cores first. */
static int order_cpus(const cpu_set_t *mask, int *out) {
    int n = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
            if (CPU_ISSET(cpu, mask) && (core_first(cpu) == cpu) == (pass == 0))
                out[n++] = cpu;
    return n;
}

/* An exclusive hold on cpu's claim file, or -1 where another process has it. */
static int claim(int cpu) {
    char path[64];
    snprintf(path, sizeof(path), "/dev/shm/sdma-shmem-cpu%d", cpu);
    int fd = open(path, O_RDONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return -1;
    if (flock(fd, LOCK_EX | LOCK_NB)) {
        close(fd);
        return -1;
    }
    return fd;
}

void shmemi_pin(int local_rank, int local_size) {
    cpu_set_t mask;
    if (sched_getaffinity(0, sizeof(mask), &mask))
        return;
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    int allowed = CPU_COUNT(&mask);
    if (allowed < online || allowed < local_size)
        return; /* a launcher pinned us, or the node is oversubscribed */
    static int order[CPU_SETSIZE];
    int n = order_cpus(&mask, order);
    for (int k = 0; k < n; k++) {
        int cpu = order[(local_rank + k) % n];
        int fd = claim(cpu);
        if (fd < 0)
            continue;
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        if (sched_setaffinity(0, sizeof(one), &one)) {
            close(fd);
            return;
        }
        pin.before = mask;
        pin.pinned = 1;
        pin.fd = fd;
        shmemi_debug("pinned to CPU %d", cpu);
        return;
    }
    shmemi_debug("not pinned: every CPU is held by a PE of this or another job");
}

void shmemi_unpinned_attr(pthread_attr_t *a) {
    if (pin.pinned)
        pthread_attr_setaffinity_np(a, sizeof(pin.before), &pin.before);
}
