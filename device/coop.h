/* The device API's cooperative routines: called by every thread of a
 * workgroup (shmemx_*_wg) or of a wave (shmemx_*_wave) with the same
 * arguments, and the WORLD collectives of one workgroup per PE. Part of
 * <shmem_device.h>, which includes it where these bodies belong (after the
 * thread-scope routines they are built from); including this header alone
 * includes <shmem_device.h>. */
#ifndef SHMEM_DEVICE_COOP_H
#define SHMEM_DEVICE_COOP_H

#include "shmem_device.h"

/* ---------------------------------------- workgroup- and wave-cooperative */
/* Every thread of the group calls with the same arguments. The blocking
 * forms end with a group barrier: on return the whole group's stores are
 * issued (source reusable) and, for gets, dest is readable by every thread. */
/* _nbi puts of at least ce_min_bytes go to the copy engine (one packet from
 * the group's first thread); smaller ones, and the blocking forms, are the
 * group's stores. */
SHMEMI_DFN void shmemi_dev_putmem_nbi_wg(void *dest, const void *source, size_t nelems, int pe) {
    const struct shmemi_dev_queue *q = shmemi_dev_ce_queue(pe, nelems);
    if (q) {
        shmemi_arch_wg_sync(); /* the group's writes to source come first */
        if (shmemi_arch_wg_rank() == 0)
            shmemi_dev_ce_put(q, (char *)shmemi_dev_peer(dest, pe), (const char *)source, nelems);
        shmemi_arch_wg_sync(); /* any thread's quiet now covers the group's put */
        return;
    }
    shmemi_dev_copy_par(shmemi_dev_peer(dest, pe), source, nelems, shmemi_arch_wg_rank(),
                        shmemi_arch_wg_size());
}
SHMEMI_DFN void shmemi_dev_getmem_nbi_wg(void *dest, const void *source, size_t nelems, int pe) {
    shmemi_dev_copy_par(dest, shmemi_dev_peer(source, pe), nelems, shmemi_arch_wg_rank(),
                        shmemi_arch_wg_size());
}
SHMEMI_DFN void shmemi_dev_putmem_wg(void *dest, const void *source, size_t nelems, int pe) {
    shmemi_dev_copy_par(shmemi_dev_peer(dest, pe), source, nelems, shmemi_arch_wg_rank(),
                        shmemi_arch_wg_size());
    shmemi_arch_wg_sync();
}
SHMEMI_DFN void shmemi_dev_getmem_wg(void *dest, const void *source, size_t nelems, int pe) {
    shmemi_dev_getmem_nbi_wg(dest, source, nelems, pe);
    shmemi_arch_wg_sync();
}
SHMEMI_DFN void shmemi_dev_putmem_nbi_wave(void *dest, const void *source, size_t nelems, int pe) {
    const struct shmemi_dev_queue *q = shmemi_dev_ce_queue(pe, nelems);
    if (q) {
        shmemi_arch_wave_sync(shmemi_arch_active()); /* the wave's writes to source first */
        if (shmemi_arch_lane() == 0)
            shmemi_dev_ce_put(q, (char *)shmemi_dev_peer(dest, pe), (const char *)source, nelems);
        shmemi_arch_wave_sync(shmemi_arch_active()); /* any lane's quiet covers the put */
        return;
    }
    shmemi_dev_copy_par(shmemi_dev_peer(dest, pe), source, nelems, shmemi_arch_lane(),
                        shmemi_arch_wave_threads());
}
SHMEMI_DFN void shmemi_dev_getmem_nbi_wave(void *dest, const void *source, size_t nelems, int pe) {
    shmemi_dev_copy_par(dest, shmemi_dev_peer(source, pe), nelems, shmemi_arch_lane(),
                        shmemi_arch_wave_threads());
}
SHMEMI_DFN void shmemi_dev_putmem_wave(void *dest, const void *source, size_t nelems, int pe) {
    shmemi_dev_copy_par(shmemi_dev_peer(dest, pe), source, nelems, shmemi_arch_lane(),
                        shmemi_arch_wave_threads());
    shmemi_arch_wave_sync(shmemi_arch_active());
}
SHMEMI_DFN void shmemi_dev_getmem_wave(void *dest, const void *source, size_t nelems, int pe) {
    shmemi_dev_getmem_nbi_wave(dest, source, nelems, pe);
    shmemi_arch_wave_sync(shmemi_arch_active());
}

/* One workgroup per PE: each thread drains its stores, the group meets, then
 * thread 0 releases for all of them at system scope (fence + barrier flags:
 * cumulative over what the group barrier ordered before it) and the group
 * meets again, so every thread acquires what thread 0 acquired. */
SHMEMI_DFN void shmemi_dev_barrier_all_wg(void) {
    shmemi_arch_drain();
    shmemi_arch_wg_sync();
    if (shmemi_arch_wg_rank() == 0)
        shmemi_dev_barrier_all();
    shmemi_arch_wg_sync();
}
SHMEMI_DFN void shmemi_dev_sync_all_wg(void) {
    shmemi_arch_drain();
    shmemi_arch_wg_sync();
    if (shmemi_arch_wg_rank() == 0)
        shmemi_dev_sync_all();
    shmemi_arch_wg_sync();
}

SHMEMI_XDEV(void, putmem_wg, (void *dest, const void *source, size_t nelems, int pe),
            (dest, source, nelems, pe))
SHMEMI_XDEV(void, getmem_wg, (void *dest, const void *source, size_t nelems, int pe),
            (dest, source, nelems, pe))
SHMEMI_XDEV(void, putmem_nbi_wg, (void *dest, const void *source, size_t nelems, int pe),
            (dest, source, nelems, pe))
SHMEMI_XDEV(void, getmem_nbi_wg, (void *dest, const void *source, size_t nelems, int pe),
            (dest, source, nelems, pe))
SHMEMI_XDEV(void, putmem_wave, (void *dest, const void *source, size_t nelems, int pe),
            (dest, source, nelems, pe))
SHMEMI_XDEV(void, getmem_wave, (void *dest, const void *source, size_t nelems, int pe),
            (dest, source, nelems, pe))
SHMEMI_XDEV(void, putmem_nbi_wave, (void *dest, const void *source, size_t nelems, int pe),
            (dest, source, nelems, pe))
SHMEMI_XDEV(void, getmem_nbi_wave, (void *dest, const void *source, size_t nelems, int pe),
            (dest, source, nelems, pe))
SHMEMI_XDEV(void, barrier_all_wg, (void), ())
SHMEMI_XDEV(void, sync_all_wg, (void), ())

/* Typed group forms: shmemx_<T>_{put,get,put_nbi,get_nbi}_{wg,wave}. */
#define SHMEMI_DEV_RMA_GROUP(T, N)                                                                 \
    SHMEMI_DFN void shmemi_dev_##N##_put_wg(T *dest, const T *source, size_t nelems, int pe) {     \
        shmemi_dev_putmem_wg(dest, source, nelems * sizeof(T), pe);                                \
    }                                                                                              \
    SHMEMI_DFN void shmemi_dev_##N##_get_wg(T *dest, const T *source, size_t nelems, int pe) {     \
        shmemi_dev_getmem_wg(dest, source, nelems * sizeof(T), pe);                                \
    }                                                                                              \
    SHMEMI_DFN void shmemi_dev_##N##_put_nbi_wg(T *dest, const T *source, size_t nelems, int pe) { \
        shmemi_dev_putmem_nbi_wg(dest, source, nelems * sizeof(T), pe);                            \
    }                                                                                              \
    SHMEMI_DFN void shmemi_dev_##N##_get_nbi_wg(T *dest, const T *source, size_t nelems, int pe) { \
        shmemi_dev_getmem_nbi_wg(dest, source, nelems * sizeof(T), pe);                            \
    }                                                                                              \
    SHMEMI_DFN void shmemi_dev_##N##_put_wave(T *dest, const T *source, size_t nelems, int pe) {   \
        shmemi_dev_putmem_wave(dest, source, nelems * sizeof(T), pe);                              \
    }                                                                                              \
    SHMEMI_DFN void shmemi_dev_##N##_get_wave(T *dest, const T *source, size_t nelems, int pe) {   \
        shmemi_dev_getmem_wave(dest, source, nelems * sizeof(T), pe);                              \
    }                                                                                              \
    SHMEMI_XDEV(void, N##_put_wg, (T * dest, const T *source, size_t nelems, int pe),              \
                (dest, source, nelems, pe))                                                        \
    SHMEMI_XDEV(void, N##_get_wg, (T * dest, const T *source, size_t nelems, int pe),              \
                (dest, source, nelems, pe))                                                        \
    SHMEMI_XDEV(void, N##_put_nbi_wg, (T * dest, const T *source, size_t nelems, int pe),          \
                (dest, source, nelems, pe))                                                        \
    SHMEMI_XDEV(void, N##_get_nbi_wg, (T * dest, const T *source, size_t nelems, int pe),          \
                (dest, source, nelems, pe))                                                        \
    SHMEMI_XDEV(void, N##_put_wave, (T * dest, const T *source, size_t nelems, int pe),            \
                (dest, source, nelems, pe))                                                        \
    SHMEMI_XDEV(void, N##_get_wave, (T * dest, const T *source, size_t nelems, int pe),            \
                (dest, source, nelems, pe))
#define SHMEMI_DEV_X SHMEMI_DEV_RMA_GROUP
SHMEMI_RMA_TYPES(SHMEMI_DEV_FILTER)
#undef SHMEMI_DEV_X

/* ------------------------------------------- collectives on WORLD (one wg) */
/* Each starts with a sync (every PE's dest is free: its previous reads are
 * done) and ends with barrier_all_wg (every PE's data has landed and every
 * PE is done reading the others' source). */
SHMEMI_DFN int shmemi_dev_broadcastmem_wg(void *dest, const void *source, size_t nelems, int root) {
    int me = shmemi_dev_my_pe(), n = shmemi_dev_n_pes(), i;
    shmemi_dev_sync_all_wg();
    if (me == root) /* the root pushes to every PE, itself included (OpenSHMEM 1.5) */
        for (i = 1; i <= n; ++i)
            shmemi_dev_putmem_nbi_wg(dest, source, nelems, (me + i) % n);
    shmemi_dev_barrier_all_wg();
    return 0;
}
SHMEMI_DFN int shmemi_dev_fcollectmem_wg(void *dest, const void *source, size_t nelems) {
    int me = shmemi_dev_my_pe(), n = shmemi_dev_n_pes(), i;
    shmemi_dev_sync_all_wg();
    for (i = 1; i <= n; ++i) /* start at the next PE: spread the traffic */
        shmemi_dev_putmem_nbi_wg((char *)dest + (size_t)me * nelems, source, nelems, (me + i) % n);
    shmemi_dev_barrier_all_wg();
    return 0;
}
SHMEMI_XDEV(int, broadcastmem_wg, (void *dest, const void *source, size_t nelems, int root),
            (dest, source, nelems, root))
SHMEMI_XDEV(int, fcollectmem_wg, (void *dest, const void *source, size_t nelems),
            (dest, source, nelems))

/* Sum reductions: every PE pulls every PE's source and adds in PE order, so
 * all PEs get the same bits (floating point included). When dest is source,
 * each batch of wg_size elements is read by all PEs (a sync) before any PE
 * overwrites it. */
#define SHMEMI_DEV_REDUCE_TYPES(X) X(int, int) X(long, long) X(float, float) X(double, double)
#define SHMEMI_DEV_SUM_REDUCE(T, N)                                                                \
    SHMEMI_DFN int shmemi_dev_##N##_sum_reduce_wg(T *dest, const T *source, size_t nreduce) {      \
        int n = shmemi_dev_n_pes(), pe;                                                            \
        unsigned rank = shmemi_arch_wg_rank(), nthr = shmemi_arch_wg_size();                       \
        size_t base, i;                                                                            \
        int alias = (const T *)dest == source;                                                     \
        shmemi_dev_sync_all_wg();                                                                  \
        for (base = 0; base < nreduce; base += nthr) {                                             \
            T acc = (T)0;                                                                          \
            i = base + rank;                                                                       \
            if (i < nreduce)                                                                       \
                for (pe = 0; pe < n; ++pe)                                                         \
                    acc += ((const T *)shmemi_dev_peer(source, pe))[i];                            \
            if (alias)                                                                             \
                shmemi_dev_sync_all_wg();                                                          \
            if (i < nreduce)                                                                       \
                dest[i] = acc;                                                                     \
        }                                                                                          \
        shmemi_dev_sync_all_wg(); /* no PE changes source while another still reads it */          \
        return 0;                                                                                  \
    }                                                                                              \
    SHMEMI_XDEV(int, N##_sum_reduce_wg, (T * dest, const T *source, size_t nreduce),               \
                (dest, source, nreduce))
SHMEMI_DEV_REDUCE_TYPES(SHMEMI_DEV_SUM_REDUCE)
#undef SHMEMI_DEV_SUM_REDUCE

#endif
