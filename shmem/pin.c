/* Which CPUs a PE runs on (SHMEM_BIND).
 *
 * A PE that the scheduler moves between CPUs leaves its caches behind: a
 * stencil's sweeps over private grids ran 8-10% slower unpinned at 2 PEs on
 * 2 CPUs. Launchers that pin (Open MPI's mpirun, srun) give each process
 * fewer CPUs than the node has; then nothing is done here. Otherwise, when
 * the node has a CPU for every PE of the job, each PE's main thread takes an
 * equal share of them: one CPU (a physical core before a second thread of
 * any core) where the PEs fill the node, whole cores where fewer PEs leave
 * more (the threads a program starts after shmem_init, OpenMP's, run there).
 *
 * Two jobs on one node (a test suite run in parallel) must not pin their PEs
 * to the same CPUs: two PEs on one CPU that wait for each other turn every
 * wait into a time slice. So a CPU is taken by holding an exclusive flock on
 * a file of its own in /dev/shm, for the life of the process (the kernel
 * drops it when the process ends, however it ends). A PE starts at the share
 * of its local rank and takes the next one all free; where none is, it stays
 * unpinned.
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
} pin; /* the claims' descriptors stay open until exit */

/* The lowest CPU of cpu's core (itself where the topology is not readable). */
static int core_first(int cpu) {
    char path[96];
    snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list",
             cpu);
    FILE *f = fopen(path, "r");
    int first = cpu;
    if (f) {
        if (fscanf(f, "%d", &first) != 1)
            first = cpu;
        fclose(f);
    }
    return first;
}

/* The allowed CPUs in the order PEs take them: for shares of one CPU, first
 * threads of their cores first (two PEs never on one core while a core is
 * free); for larger shares, core by core (a share is whole cores). */
static int order_cpus(const cpu_set_t *mask, int one, int *out) {
    static int first[CPU_SETSIZE];
    int n = 0;
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
        first[cpu] = CPU_ISSET(cpu, mask) ? core_first(cpu) : -1;
    if (one) {
        for (int pass = 0; pass < 2; pass++)
            for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
                if (first[cpu] >= 0 && (first[cpu] == cpu) == (pass == 0))
                    out[n++] = cpu;
        return n;
    }
    for (int core = 0; core < CPU_SETSIZE; core++)
        if (first[core] == core) /* a core's first thread: then its others */
            for (int cpu = core; cpu < CPU_SETSIZE; cpu++)
                if (first[cpu] == core)
                    out[n++] = cpu;
    /* Threads whose first sibling is outside the mask, last. */
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
        if (first[cpu] >= 0 && first[cpu] != cpu && !CPU_ISSET(first[cpu], mask))
            out[n++] = cpu;
    return n;
}

/* An exclusive hold on cpu's claim file, or -1 where another process has it. */
static int claim(int cpu) {
    char path[64];
    snprintf(path, sizeof(path), "/dev/shm/sdma-shmem-cpu%d", cpu);
    int fd = open(path, O_RDONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) /* another user's file, where fs.protected_regular refuses O_CREAT on it */
        fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    if (flock(fd, LOCK_EX | LOCK_NB)) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Claims on CPUs cpus[0..k), all of them (descriptors in fds), or none (0). */
static int claim_all(const int *cpus, int k, int *fds) {
    for (int i = 0; i < k; i++)
        if ((fds[i] = claim(cpus[i])) < 0) {
            while (i--)
                close(fds[i]);
            return 0;
        }
    return 1;
}

void shmemi_pin(int local_rank, int local_size) {
    cpu_set_t mask;
    if (sched_getaffinity(0, sizeof(mask), &mask))
        return;
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    int allowed = CPU_COUNT(&mask);
    if (allowed < online || allowed < local_size)
        return; /* a launcher pinned us, or the node is oversubscribed */
    static int order[CPU_SETSIZE], fds[CPU_SETSIZE];
    int k = allowed / local_size;
    int n = order_cpus(&mask, k == 1, order), shares = n / k;
    for (int j = 0; j < shares; j++) {
        const int *share = order + (size_t)((local_rank + j) % shares) * k;
        if (!claim_all(share, k, fds))
            continue;
        cpu_set_t mine;
        CPU_ZERO(&mine);
        for (int i = 0; i < k; i++)
            CPU_SET(share[i], &mine);
        if (sched_setaffinity(0, sizeof(mine), &mine)) {
            for (int i = 0; i < k; i++)
                close(fds[i]);
            return;
        }
        pin.before = mask;
        pin.pinned = 1;
        shmemi_debug("pinned to %d CPU%s from CPU %d", k, k > 1 ? "s" : "", share[0]);
        return;
    }
    shmemi_debug("not pinned: every share of the CPUs is held by a PE of this or another job");
}

void shmemi_unpinned_attr(pthread_attr_t *a) {
    if (pin.pinned)
        pthread_attr_setaffinity_np(a, sizeof(pin.before), &pin.before);
}
