/* Progress while every PE polls with the test routines and none waits in
 * the library: each round, every PE puts a word to its right neighbour and
 * polls (shmem_test, test_any, test_all, test_some in turn) until its left
 * neighbour's word lands; every fifth round the word comes with a signal,
 * polled for with shmem_signal_fetch. Through a fabric whose provider moves data only in
 * a caller's progress, the tests must give it that. The PEs first sleep so
 * that any progress thread of the library has gone idle. */
#include "check.h"

#include <unistd.h>

#define ROUNDS 40

static int word[ROUNDS];
static uint64_t sig[ROUNDS];

int main(void) {
    shmem_init();
    int me, npes, right, left;
    func_ring(&me, &npes, &right, &left);
    shmem_barrier_all();
    usleep(200000);
    for (int r = 0; r < ROUNDS; r++) {
        static const int one = 1;
        if (r % 5 == 4)
            shmem_putmem_signal_nbi(&word[r], &one, sizeof(one), &sig[r], 1, SHMEM_SIGNAL_SET,
                                    right);
        else
            shmem_int_p(&word[r], 1, right);
        size_t idx[1];
        switch (r % 5) {
        case 0:
            while (!shmem_int_test(&word[r], SHMEM_CMP_EQ, 1)) {
            }
            break;
        case 1:
            while (shmem_int_test_any(&word[r], 1, NULL, SHMEM_CMP_EQ, 1) == SIZE_MAX) {
            }
            break;
        case 2:
            while (!shmem_int_test_all(&word[r], 1, NULL, SHMEM_CMP_EQ, 1)) {
            }
            break;
        case 3:
            while (!shmem_int_test_some(&word[r], 1, idx, NULL, SHMEM_CMP_EQ, 1)) {
            }
            break;
        default:
            while (shmem_signal_fetch(&sig[r]) != 1) {
            }
            CHECK(word[r] == 1, "round %d: the signal came before its data", r);
        }
    }
    (void)left;
    func_pass("poll_test");
    shmem_finalize();
    return 0;
}
