/* A program with no device code of its own, on the device heap, loads device
 * code after shmem_init (late_kernels.cu, through dlopen). Until then no
 * engine thread serves device-driven queues (none are open: the cuda engine's
 * proxy thread has not started); the module's kernels then find the queues,
 * and their copy-engine puts complete. */
#include <shmem.h>
#include <shmemx.h>

#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Threads of this process named `name`. */
static int threads_named(const char *name) {
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    int n = 0;
    while (d && (e = readdir(d))) {
        char path[300], comm[32] = "";
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        if (fgets(comm, sizeof(comm), f))
            comm[strcspn(comm, "\n")] = '\0';
        fclose(f);
        n += !strcmp(comm, name);
    }
    if (d)
        closedir(d);
    return n;
}

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), failures = 0;
    if (shmem_n_pes() != 2) {
        if (me == 0)
            fprintf(stderr, "late: run with 2 PEs\n");
        shmem_finalize();
        return 2;
    }
    const char *heap = getenv("SHMEM_HEAP");
    int proxy = !strcmp(shmemx_copy_engine_name(), "cuda") && !(heap && !strcmp(heap, "host"));
    shmem_barrier_all();
    if (proxy && threads_named("sdma-proxy")) {
        fprintf(stderr, "[PE %d] late: the engine's proxy runs before any device code\n", me);
        failures++;
    }
    void *h = dlopen(LATE_KERNELS, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "[PE %d] late: %s\n", me, dlerror());
        shmem_global_exit(2);
    }
    int (*run)(void) = (int (*)(void))dlsym(h, "late_run");
    if (!run) {
        fprintf(stderr, "[PE %d] late: %s\n", me, dlerror());
        shmem_global_exit(2);
    }
    failures += run();
    shmem_barrier_all();
    if (me == 0)
        printf("late: device code loaded after shmem_init: %s\n", failures ? "FAILED" : "ok");
    shmem_finalize();
    return failures ? 1 : 0;
}
