/* Host code and device code on the wrong heap, each told why.
 * - Device code with the heap in host memory (SHMEM_HEAP=host): shmem_init says
 *   that the kernels' puts, gets and atomics need the device heap (unless the
 *   GPU accesses pageable host memory), once per PE, and nothing of the kind
 *   with the device heap. A kernel that asks only for its PE and the PE count
 *   still runs. stderr goes to a file around shmem_init, which is then read.
 * - Host code that loads from the device heap (GPU memory) directly: the
 *   process ends with SIGSEGV as before, having said that the address is the
 *   device heap's and what to do (a forked child makes the load); with the
 *   host heap the load just reads. Where the host can reach GPU memory (a
 *   large BAR on AMD's fine-grained memory, a coherent CPU-GPU link), the load
 *   from the device heap reads too, and nothing is said. */
#include "gpu_test.h"

#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

__global__ void k_who(int *out) {
    out[0] = shmem_my_pe();
    out[1] = shmem_n_pes();
}

/* Occurrences of what in the file at fd, from its start. */
static int count_in(int fd, const char *what) {
    char buf[8192];
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    int hits = 0;
    buf[n > 0 ? n : 0] = '\0';
    for (const char *p = buf; (p = strstr(p, what)) != NULL; p++)
        hits++;
    return hits;
}

int main(void) {
    char path[] = "/tmp/gpu_host_heap.XXXXXX";
    int fd = mkstemp(path), saved = dup(2);
    if (fd < 0 || saved < 0 || dup2(fd, 2) < 0) {
        perror("host_heap: stderr to a file");
        return 2;
    }
    shmem_init();
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    unlink(path);
    int said = count_in(fd, "the symmetric heap is in host memory");
    close(fd);

    const char *heap = getenv("SHMEM_HEAP");
    int host = heap && !strcmp(heap, "host");
    GT_EXPECT(said == host, "the host-heap warning came %d time(s) with SHMEM_HEAP=%s", said,
              heap ? heap : "(unset)");

    int *who, got[2];
    GT_CK(hipMalloc((void **)&who, sizeof got));
    k_who<<<1, 1>>>(who);
    GT_SYNC();
    GT_CK(hipMemcpy(got, who, sizeof got, hipMemcpyDeviceToHost));
    GT_EXPECT(got[0] == shmem_my_pe() && got[1] == shmem_n_pes(), "the kernel saw PE %d of %d",
              got[0], got[1]);
    GT_CK(hipFree(who));

    long *sym = (long *)shmem_calloc(1, sizeof(long));
    char cpath[] = "/tmp/gpu_host_heap_child.XXXXXX";
    int cfd = mkstemp(cpath);
    GT_EXPECT(sym && cfd >= 0, "shmem_calloc or mkstemp failed");
    if (sym && cfd >= 0) {
        pid_t child = fork();
        if (child == 0) {
            dup2(cfd, 2);
            long v = *(volatile long *)sym; /* the device heap: faults, mostly */
            _exit(v == 0 ? 0 : 3);
        }
        int st = 0;
        GT_EXPECT(child > 0 && waitpid(child, &st, 0) == child, "fork or waitpid failed");
        int told = count_in(cfd, "which is GPU memory (the device heap");
        if (host)
            GT_EXPECT(WIFEXITED(st) && WEXITSTATUS(st) == 0 && !told,
                      "a host load from the host heap: status 0x%x, told %d", st, told);
        else {
            int faulted = WIFSIGNALED(st) && (WTERMSIG(st) == SIGSEGV || WTERMSIG(st) == SIGBUS);
            int reached = WIFEXITED(st) && WEXITSTATUS(st) == 0; /* host-visible GPU memory */
            GT_EXPECT((faulted && told == 1) || (reached && !told),
                      "a host load from the device heap: status 0x%x, told %d", st, told);
        }
    }
    if (cfd >= 0) {
        close(cfd);
        unlink(cpath);
    }
    shmem_free(sym);
    return gt_finish("host_heap");
}
