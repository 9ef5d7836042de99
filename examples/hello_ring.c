/* A first OpenSHMEM program: every PE writes its block into every other PE's
 * copy of a symmetric array (an all-gather by puts), counts itself in on PE
 * 0 with an atomic, and passes a token around the ring through a global
 * variable. Build: oshcc -o hello_ring hello_ring.c; run: oshrun -np 4 ./hello_ring */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#define BLOCK 1024

static long arrived; /* a global variable: symmetric, so peers can update it */
static long token = -1;

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();

    long *all = shmem_malloc((size_t)n * BLOCK * sizeof(long));
    long mine[BLOCK];
    for (int i = 0; i < BLOCK; i++)
        mine[i] = (long)me * 1000000 + i;
    for (int pe = 0; pe < n; pe++)
        shmem_long_put(all + (size_t)me * BLOCK, mine, BLOCK, pe);
    shmem_long_atomic_inc(&arrived, 0);
    shmem_barrier_all();

    int bad = 0;
    for (int pe = 0; pe < n; pe++)
        for (int i = 0; i < BLOCK; i++)
            bad += all[(size_t)pe * BLOCK + i] != (long)pe * 1000000 + i;

    /* The token goes 0 -> 1 -> ... -> n-1 -> 0, each PE adding its number. */
    if (me == 0)
        shmem_long_p(&token, 0, 1 % n);
    shmem_long_wait_until(&token, SHMEM_CMP_GE, 0);
    long t = token + me;
    if (me != 0)
        shmem_long_p(&token, t, (me + 1) % n);
    if (me == 0 && n > 1) {
        shmem_long_wait_until(&token, SHMEM_CMP_GT, 0);
        t = token;
    }
    shmem_barrier_all();

    if (me == 0) {
        char name[SHMEM_MAX_NAME_LEN];
        shmem_info_get_name(name);
        printf("%s: %d PEs, all-gather of %d longs per PE %s, %ld PEs counted in, ring token %ld "
               "(expected %ld)\n",
               name, n, BLOCK, bad ? "FAILED" : "ok", arrived, t, (long)n * (n - 1) / 2);
    }
    int ok = !bad && (me != 0 || (arrived == n && t == (long)n * (n - 1) / 2));
    shmem_free(all);
    shmem_finalize();
    return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
