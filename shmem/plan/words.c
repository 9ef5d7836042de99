/* The shared words of a triggered plan, laid out in one place (the struct
 * and what each word is: shmem/plan/plan.h). */
#include "shmem/plan/plan.h"

/* The one place that says where each word is: its order, size and alignment.
 * Every array starts on its own cache line (words written by different
 * agents -- producers, the engine, peers -- do not share one). */
size_t shmemi_plan_words_place(struct shmemi_plan_words *w, char *base, size_t N, size_t n) {
    size_t at = 0, Nn = 0;
    int ok = !__builtin_mul_overflow(N, n, &Nn);
#define PLACE(field, count)                                                                        \
    do {                                                                                           \
        size_t bytes_ = 0;                                                                         \
        ok &= !__builtin_mul_overflow((size_t)(count), sizeof(*w->field), &bytes_);                \
        w->field = base ? (void *)(base + at) : NULL;                                              \
        ok &= !__builtin_add_overflow(at, bytes_, &at);                                            \
        ok &= !__builtin_add_overflow(at, (size_t)63, &at);                                        \
        at &= ~(size_t)63;                                                                         \
    } while (0)
    PLACE(marks, N);
    PLACE(gates, N);
    PLACE(arrival, N);
    PLACE(sent, Nn);
    PLACE(fence, n);
    PLACE(abortw, n);
    PLACE(error, 1);
    PLACE(error_chunk, 1);
    PLACE(error_round, 1);
    PLACE(error_peer, 1);
    PLACE(done, 1);
    PLACE(go, 1);
    PLACE(views, SHMEMI_PLAN_VIEW_SLOTS);
    PLACE(peer_fence, n);
    PLACE(writers, N);
#undef PLACE
    return ok ? at : SIZE_MAX;
}
