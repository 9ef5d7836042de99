/* Where each PE runs (SHMEM_BIND, on by default). When no launcher pinned the
 * job and the node has a CPU for every PE, every PE's main thread has a share
 * of the node's CPUs after shmem_init: the same number for every PE (one CPU
 * where the PEs fill the node), none shared with another PE. With
 * SHMEM_BIND=0 (argument "off") every PE keeps the CPUs it started with.
 * The node is the kernel, PID and network namespace (network namespaces are
 * hosts), not SHMEM_TEAM_SHARED: with SHMEM_FORCE_FABRIC=1 the PEs of one
 * node map nothing of each other's, and still share its CPUs.
 * Runs alone (RUN_SERIAL): another job's PEs would hold shares. */
#include "check.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct node {
    char boot[40];
    unsigned long long pid_ns, net_ns;
};

static void node_of_me(struct node *n) {
    memset(n, 0, sizeof *n);
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f) {
        if (!fgets(n->boot, sizeof n->boot, f))
            n->boot[0] = '\0';
        fclose(f);
    }
    struct stat st;
    n->pid_ns = stat("/proc/self/ns/pid", &st) ? 0 : (unsigned long long)st.st_ino;
    n->net_ns = stat("/proc/self/ns/net", &st) ? 0 : (unsigned long long)st.st_ino;
}

int main(int argc, char **argv) {
    int off = argc > 1 && !strcmp(argv[1], "off");
    cpu_set_t before, mine;
    CHECK(sched_getaffinity(0, sizeof before, &before) == 0, "sched_getaffinity");
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    CHECK(sched_getaffinity(0, sizeof mine, &mine) == 0, "sched_getaffinity");
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    int launcher_pinned = CPU_COUNT(&before) < online;

    cpu_set_t *all = shmem_malloc((size_t)npes * sizeof(cpu_set_t));
    struct node *nodes = shmem_malloc((size_t)npes * sizeof(struct node)), here;
    CHECK(all != NULL && nodes != NULL, "shmem_malloc");
    node_of_me(&here);
    for (int pe = 0; pe < npes; pe++) {
        shmem_putmem(&all[me], &mine, sizeof mine, pe);
        shmem_putmem(&nodes[me], &here, sizeof here, pe);
    }
    shmem_barrier_all();
    int one_node = 1;
    for (int pe = 0; pe < npes; pe++)
        one_node &= !memcmp(&nodes[pe], &here, sizeof here);

    if (off || launcher_pinned || !one_node || online < npes || npes < 2) {
        CHECK(CPU_EQUAL(&mine, &before),
              "PE %d's CPUs changed (%d before, %d after) although "
              "nothing was to be pinned",
              me, CPU_COUNT(&before), CPU_COUNT(&mine));
        if (me == 0 && !off)
            printf("pin_share: nothing pinned (%s)\n", launcher_pinned ? "the launcher pinned"
                                                       : !one_node     ? "PEs on several nodes"
                                                       : npes < 2      ? "one PE"
                                                                       : "more PEs than CPUs");
    } else {
        int share = (int)(online / npes);
        for (int a = 0; a < npes; a++) {
            CHECK(CPU_COUNT(&all[a]) == share, "PE %d runs on %d CPUs, not its share of %d", a,
                  CPU_COUNT(&all[a]), share);
            for (int b = a + 1; b < npes; b++) {
                cpu_set_t both;
                CPU_AND(&both, &all[a], &all[b]);
                CHECK(CPU_COUNT(&both) == 0, "PEs %d and %d share %d CPUs", a, b, CPU_COUNT(&both));
            }
        }
    }
    shmem_barrier_all();
    shmem_free(nodes);
    shmem_free(all);
    func_pass("pin_share");
    shmem_finalize();
    return 0;
}
