/* RMA on the symmetric heap: every typed put/get/p/g/iput/iget and their
 * _nbi forms for every standard RMA type, the sized and mem forms, sizes
 * from 1 byte to 4 MiB (powers of two and odd sizes, aligned and not), to
 * self and to every peer, and a ring that forwards a payload through all PEs. */
#include "check.h"
#include "../../include/shmem_typelists.h" /* the spec's type tables */

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define NELEM 37 /* odd on purpose */
#define NSTR 9   /* elements moved by iput/iget */
#define SST 2    /* source stride */
#define TST 3    /* target stride */
#define MAXBYTES ((size_t)4 << 20)

static int me, npes;

/* Value of element i written by PE pe in phase ph: small positive integers,
 * exact in every type (signed char included); 0 means "not written". */
static int val(int pe, int i, int ph) { return 1 + (pe * 13 + i * 7 + ph * 29) % 100; }

/* For each type, with target = right neighbour and source of my data = left:
 *  ph 0 put, ph 1 get, ph 2 p/g, ph 3 iput, ph 4 iget, ph 5 put_nbi/get_nbi. */
#define DEFINE_TYPED_TEST(T, N)                                                                    \
    static void test_##N(void) {                                                                   \
        const int right = (me + 1) % npes, left = (me + npes - 1) % npes;                          \
        T *src = shmem_malloc(NELEM * sizeof(T));                                                  \
        T *dst = shmem_malloc(NELEM * sizeof(T));                                                  \
        CHECK(src &&dst, #N ": shmem_malloc failed");                                              \
        T loc[NELEM];                                                                              \
        for (int ph = 0; ph < 6; ph++) {                                                           \
            for (int i = 0; i < NELEM; i++) {                                                      \
                src[i] = (T)val(me, i, ph);                                                        \
                dst[i] = (T)0;                                                                     \
                loc[i] = (T)0;                                                                     \
            }                                                                                      \
            shmem_barrier_all();                                                                   \
            switch (ph) {                                                                          \
            case 0: shmem_##N##_put(dst, src, NELEM, right); break;                                \
            case 1: shmem_##N##_get(loc, src, NELEM, right); break;                                \
            case 2:                                                                                \
                for (int i = 0; i < NELEM; i++) {                                                  \
                    shmem_##N##_p(&dst[i], src[i], right);                                         \
                    loc[i] = shmem_##N##_g(&src[i], right);                                        \
                }                                                                                  \
                break;                                                                             \
            case 3:                                                                                \
                shmem_##N##_iput(dst, src, TST, SST, NSTR, right);                                 \
                shmem_##N##_iget(loc, src, TST, SST, NSTR, right);                                 \
                break;                                                                             \
            case 4:                                                                                \
                shmem_##N##_iput(dst, src, 1, 4, NSTR, right);                                     \
                shmem_##N##_iget(loc, src, 4, 1, NSTR, right);                                     \
                break;                                                                             \
            case 5:                                                                                \
                shmem_##N##_put_nbi(dst, src, NELEM, right);                                       \
                shmem_##N##_get_nbi(loc, src, NELEM, right);                                       \
                shmem_quiet();                                                                     \
                break;                                                                             \
            }                                                                                      \
            shmem_barrier_all();                                                                   \
            for (int i = 0; i < NELEM; i++) {                                                      \
                T want_dst = (T)0, want_loc = (T)0;                                                \
                switch (ph) {                                                                      \
                case 0: want_dst = (T)val(left, i, ph); break;                                     \
                case 1: want_loc = (T)val(right, i, ph); break;                                    \
                case 2:                                                                            \
                case 5:                                                                            \
                    want_dst = (T)val(left, i, ph);                                                \
                    want_loc = (T)val(right, i, ph);                                               \
                    break;                                                                         \
                case 3:                                                                            \
                    if (i % TST == 0 && i / TST < NSTR)                                            \
                        want_dst = (T)val(left, i / TST * SST, ph);                                \
                    if (i % TST == 0 && i / TST < NSTR)                                            \
                        want_loc = (T)val(right, i / TST * SST, ph);                               \
                    break;                                                                         \
                case 4:                                                                            \
                    if (i < NSTR)                                                                  \
                        want_dst = (T)val(left, i * 4, ph);                                        \
                    if (i % 4 == 0 && i / 4 < NSTR)                                                \
                        want_loc = (T)val(right, i / 4, ph);                                       \
                    break;                                                                         \
                }                                                                                  \
                CHECK(dst[i] == want_dst, #N " phase %d: dst[%d] = %d, expected %d", ph, i,        \
                      (int)dst[i], (int)want_dst);                                                 \
                CHECK(loc[i] == want_loc, #N " phase %d: local[%d] = %d, expected %d", ph, i,      \
                      (int)loc[i], (int)want_loc);                                                 \
            }                                                                                      \
        }                                                                                          \
        shmem_barrier_all();                                                                       \
        shmem_free(dst);                                                                           \
        shmem_free(src);                                                                           \
    }
SHMEMI_RMA_TYPES(DEFINE_TYPED_TEST)

/* Sized routines: put/get 8..128 bits, mem, and their _nbi forms. */
static void test_sized(void) {
    const int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    const size_t bytes = 16 * 23; /* a multiple of 16, not a power of two */
    unsigned char *src = shmem_malloc(bytes), *dst = shmem_malloc(bytes);
    unsigned char loc[16 * 23];
    CHECK(src && dst, "shmem_malloc failed");
    static const int bits[] = {8, 16, 32, 64, 128, 0};
    for (int nbi = 0; nbi < 2; nbi++) {
        for (int b = 0; b < 6; b++) {
            const unsigned round = (unsigned)(nbi * 8 + b);
            const size_t esz = bits[b] ? (size_t)bits[b] / 8 : 1;
            const size_t n = bytes / esz;
            for (size_t i = 0; i < bytes; i++)
                src[i] = func_byte(me, i, round);
            memset(dst, 0, bytes);
            memset(loc, 0, bytes);
            shmem_barrier_all();
#define SIZED(B)                                                                                   \
    case B:                                                                                        \
        if (nbi) {                                                                                 \
            shmem_put##B##_nbi(dst, src, n, right);                                                \
            shmem_get##B##_nbi(loc, src, n, right);                                                \
        } else {                                                                                   \
            shmem_put##B(dst, src, n, right);                                                      \
            shmem_get##B(loc, src, n, right);                                                      \
        }                                                                                          \
        break;
            switch (bits[b]) {
                SIZED(8)
                SIZED(16)
                SIZED(32)
                SIZED(64)
                SIZED(128)
            case 0:
                if (nbi) {
                    shmem_putmem_nbi(dst, src, n, right);
                    shmem_getmem_nbi(loc, src, n, right);
                } else {
                    shmem_putmem(dst, src, n, right);
                    shmem_getmem(loc, src, n, right);
                }
                break;
            }
#undef SIZED
            if (nbi)
                shmem_quiet();
            shmem_barrier_all();
            for (size_t i = 0; i < bytes; i++) {
                CHECK(dst[i] == func_byte(left, i, round), "put%d%s: byte %zu = %u", bits[b],
                      nbi ? "_nbi" : "", i, dst[i]);
                CHECK(loc[i] == func_byte(right, i, round), "get%d%s: byte %zu = %u", bits[b],
                      nbi ? "_nbi" : "", i, loc[i]);
            }
        }
    }
    shmem_barrier_all();
    shmem_free(dst);
    shmem_free(src);
}

/* putmem/getmem (blocking and _nbi) of many sizes at odd offsets, to every PE
 * in turn (round r: target me + r), with a guard byte after each transfer. */
static void test_sizes(void) {
    static const size_t sizes[] = {1,
                                   2,
                                   3,
                                   7,
                                   8,
                                   63,
                                   64,
                                   100,
                                   1000,
                                   4095,
                                   4096,
                                   4097,
                                   65535,
                                   65536,
                                   1u << 20,
                                   (1u << 20) + 13,
                                   MAXBYTES - 5,
                                   MAXBYTES};
    const size_t nsizes = sizeof sizes / sizeof sizes[0];
    unsigned char *src = shmem_malloc(MAXBYTES + 16);
    unsigned char *dst = shmem_malloc(MAXBYTES + 16);
    unsigned char *loc = malloc(MAXBYTES + 16);
    CHECK(src && dst && loc, "allocation of 2 x 4 MiB failed");
    unsigned round = 0;
    for (int r = 0; r < npes; r++) {
        const int target = (me + r) % npes;        /* I write to / read from it */
        const int writer = (me + npes - r) % npes; /* it writes to me */
        for (size_t s = 0; s < nsizes; s++) {
            for (int mode = 0; mode < 2; mode++, round++) {
                const size_t len = sizes[s];
                const size_t soff = len & 1 ? 3 : 0, doff = len & 1 ? 1 : 0;
                for (size_t i = 0; i < len; i++)
                    src[soff + i] = func_byte(me, i, round);
                memset(dst, 0xA5, len + doff + 1);
                memset(loc, 0x5A, len + doff + 1);
                shmem_barrier_all();
                if (mode == 0) {
                    shmem_putmem(dst + doff, src + soff, len, target);
                    shmem_getmem(loc + doff, src + soff, len, target);
                } else {
                    shmem_putmem_nbi(dst + doff, src + soff, len, target);
                    shmem_getmem_nbi(loc + doff, src + soff, len, target);
                    shmem_quiet();
                }
                shmem_barrier_all();
                for (size_t i = 0; i < len; i++) {
                    if (dst[doff + i] != func_byte(writer, i, round))
                        CHECK(0, "putmem%s of %zu B from PE %d: byte %zu = %u, expected %u",
                              mode ? "_nbi" : "", len, writer, i, dst[doff + i],
                              func_byte(writer, i, round));
                    if (loc[doff + i] != func_byte(target, i, round))
                        CHECK(0, "getmem%s of %zu B from PE %d: byte %zu = %u, expected %u",
                              mode ? "_nbi" : "", len, target, i, loc[doff + i],
                              func_byte(target, i, round));
                }
                CHECK(dst[doff + len] == 0xA5, "putmem of %zu B wrote past its end", len);
                CHECK(!doff || dst[0] == 0xA5, "putmem of %zu B wrote before its start", len);
                CHECK(loc[doff + len] == 0x5A, "getmem of %zu B wrote past its end", len);
            }
        }
    }
    shmem_barrier_all();
    free(loc);
    shmem_free(dst);
    shmem_free(src);
}

/* A payload travels 0 -> 1 -> ... -> n-1 -> 0; each PE adds its number. */
static void test_ring(void) {
    enum { NTOK = 4096 };
    if (npes == 1)
        return;
    long *tok = shmem_malloc(NTOK * sizeof(long));
    long *flag = shmem_malloc(sizeof(long));
    CHECK(tok && flag, "shmem_malloc failed");
    *flag = 0;
    shmem_barrier_all();
    const int right = (me + 1) % npes;
    if (me == 0) {
        for (long i = 0; i < NTOK; i++)
            tok[i] = i;
    } else {
        shmem_long_wait_until(flag, SHMEM_CMP_EQ, 1);
        for (long i = 0; i < NTOK; i++)
            tok[i] += me;
    }
    shmem_long_put(tok, tok, NTOK, right);
    shmem_fence();
    shmem_long_p(flag, 1, right);
    if (me == 0) {
        shmem_long_wait_until(flag, SHMEM_CMP_EQ, 1);
        const long add = (long)npes * (npes - 1) / 2;
        for (long i = 0; i < NTOK; i++)
            CHECK(tok[i] == i + add, "ring token[%ld] = %ld, expected %ld", i, tok[i], i + add);
    }
    shmem_barrier_all();
    shmem_free(flag);
    shmem_free(tok);
}

int main(void) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
#define RUN(T, N) test_##N();
    SHMEMI_RMA_TYPES(RUN)
    test_sized();
    test_sizes();
    test_ring();
    func_pass("heap_rma");
    shmem_finalize();
    return 0;
}
