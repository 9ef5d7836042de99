/* A NULL local buffer with bytes to move, and a context used after it was
 * destroyed, end the job with a message naming the routine (never a crash):
 *   get    shmem_getmem into NULL
 *   put    shmem_putmem from NULL
 *   ctx    shmem_ctx_long_p on a destroyed context
 *   twice  shmem_ctx_destroy of a destroyed context */
#include "check.h"

static long word;

int main(int argc, char **argv) {
    shmem_init();
    const char *how = argc > 1 ? argv[1] : "";
    int peer = (shmem_my_pe() + 1) % shmem_n_pes();
    /* A variable the compiler cannot prove NULL. */
    void *volatile none = NULL;
    if (!strcmp(how, "get")) {
        shmem_getmem(none, &word, sizeof word, peer);
    } else if (!strcmp(how, "put")) {
        shmem_putmem(&word, none, sizeof word, peer);
    } else {
        shmem_ctx_t ctx;
        CHECK(shmem_ctx_create(0, &ctx) == 0, "shmem_ctx_create failed");
        shmem_ctx_long_p(ctx, &word, 1, peer);
        shmem_ctx_destroy(ctx);
        if (!strcmp(how, "twice"))
            shmem_ctx_destroy(ctx);
        else
            shmem_ctx_long_p(ctx, &word, 2, peer);
    }
    func_pass("bad_handle: not reached");
    shmem_finalize();
    return 0;
}
