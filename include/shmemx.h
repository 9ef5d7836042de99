/* SDMA-SHMEM extensions: copy-engine puts, triggered plans, GPU helpers.
 * Everything here is outside the OpenSHMEM specification and carries the
 * shmemx_ prefix. */
#ifndef SHMEMX_H
#define SHMEMX_H

#include <shmem.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Name of the copy engine the library runs ("soft", "hsakmt", "cuda" or
 * "none"); valid after shmem_init. */
const char *shmemx_copy_engine_name(void);

/* Seconds on a monotonic clock from a point fixed for the process: the
 * timer benchmarks and tests written for other OpenSHMEM libraries call. */
#define HAVE_SHMEMX_WTIME 1
double shmemx_wtime(void);

/* ------------------------------------------------------------------------
 * Triggered plans: copies of regions of one symmetric buffer to every other
 * PE, prepared once on the copy engines and released chunk by chunk by a
 * producer (host threads in CPU builds, kernels in GPU builds), every round.
 * Collective calls are marked. Every int-returning call returns
 * SHMEMX_PLAN_OK (0) or a negative SHMEMX_PLAN_E* code; shmemx_plan_strerror
 * names it, and shmemx_plan_errmsg gives the plan's latest detailed message
 * (which names the round, chunk and PE).
 *
 * Stream-ordered rounds (GPU builds, buffer on the device heap): wait_on_stream
 * queues a stream wait that a library thread releases when the round is
 * delivered or the plan's timeout passed (a bounded wait kernel when module
 * loading is lazy), next_round_on_stream stream writes, on `stream` (a
 * hipStream_t / cudaStream_t); both return at once. What they find (a timeout, extra marks, a
 * peer that did not reach the fence or could not prepare the next round) is
 * recorded on the GPU, first error wins, and returned once by the next
 * shmemx_plan_wait or by shmemx_plan_close; rounds queued after it end at
 * once. Synchronize the stream before close.
 * ---------------------------------------------------------------------- */
typedef struct shmemx_plan *shmemx_plan_t;
typedef struct shmemx_plan_view shmemx_plan_view_t; /* one round's handle for producers */

/* rows rows of row_bytes bytes, stride bytes apart (0 = packed), starting offset
 * bytes into the plan's buffer; the same bytes land at the same offset on every peer. */
typedef struct {
    size_t offset, row_bytes, rows, stride;
} shmemx_region_t;
/* Regions sent together once all `writers` marked the chunk ready. */
typedef struct {
    const shmemx_region_t *regions;
    size_t nregions;
    int writers;
} shmemx_chunk_t;
/* A zeroed config means the defaults: timeout_s <= 0 -> 30 s, prepare_ahead off,
 * team 0 -> SHMEM_TEAM_WORLD. */
typedef struct {
    double timeout_s;
    int prepare_ahead;
    shmem_team_t team;
} shmemx_plan_config_t;
/* The defaults spelled out (team 0 is SHMEM_TEAM_WORLD); usable in static initializers. */
#define SHMEMX_PLAN_CONFIG_INIT                                                                    \
    { 30.0, 0, (shmem_team_t)0 }

enum {
    SHMEMX_PLAN_OK = 0,
    SHMEMX_PLAN_EINVAL = -1,       /* bad argument or schedule (same error on every PE) */
    SHMEMX_PLAN_ETIMEDOUT = -2,    /* a wait or round fence ran past the plan timeout */
    SHMEMX_PLAN_EMARKS = -3,       /* a chunk got more marks than it has writers */
    SHMEMX_PLAN_EPEER = -4,        /* a peer could not prepare the round */
    SHMEMX_PLAN_ESTATE = -5,       /* call out of order (start twice, wait before start...) */
    SHMEMX_PLAN_ENOSPC = -6,       /* the plan queues' rings cannot hold the chains */
    SHMEMX_PLAN_ENOMEM = -7,       /* out of (symmetric) memory */
    SHMEMX_PLAN_EUNSUPPORTED = -8, /* not in this build (streams), or a team other than WORLD */
    SHMEMX_PLAN_EROUNDS = -9,      /* the 32-bit round counter would pass 2^32 - 1 */
    SHMEMX_PLAN_EENGINE = -10,     /* no copy engine, or its queue failed */
    SHMEMX_PLAN_EORDER = -11       /* rounds started out of the order they were prepared */
};

/* States for shmemx_plan_query. */
enum {
    SHMEMX_PLAN_ARMED = 1,     /* round prepared, not started */
    SHMEMX_PLAN_ACTIVE = 2,    /* started, not yet delivered */
    SHMEMX_PLAN_DELIVERED = 3, /* wait returned: the round is here */
    SHMEMX_PLAN_FAILED = 4,    /* an error ended the plan's rounds; close it */
    SHMEMX_PLAN_CLOSING = 5,   /* closed, copies still queued behind an earlier plan */
    SHMEMX_PLAN_CLOSED = 6
};

int shmemx_plan_create(void *buf, size_t size, const shmemx_chunk_t *schedule, size_t nchunks,
                       const shmemx_plan_config_t *cfg, shmemx_plan_t *plan); /* collective */
int shmemx_plan_chunk_id(shmemx_plan_t plan, int pe, size_t index);
int shmemx_plan_start(shmemx_plan_t plan, shmemx_plan_view_t **view);
int shmemx_plan_wait(shmemx_plan_t plan, double timeout_s); /* < 0: the plan's timeout */
int shmemx_plan_wait_on_stream(shmemx_plan_t plan, void *stream);
int shmemx_plan_prepare_next(shmemx_plan_t plan);
int shmemx_plan_next_round(shmemx_plan_t plan); /* collective */
int shmemx_plan_next_round_on_stream(shmemx_plan_t plan, void *stream);
int shmemx_plan_query(shmemx_plan_t plan, int *state, long *round);
int shmemx_plan_run(shmemx_plan_t plan, double timeout_s);
int shmemx_plan_close(shmemx_plan_t plan, double timeout_s); /* collective */
const char *shmemx_plan_strerror(int code);
const char *shmemx_plan_errmsg(shmemx_plan_t plan);

/* Producer view functions: host threads call them in CPU builds, kernels in GPU builds.
 * mark_ready: one call per writer after its writes to chunk c (a workgroup calls it
 * together, outside divergent branches); the last writer releases the chunk's copies.
 * arrived: chunk c is here this round (own chunks: marked ready by all writers).
 * wait_chunk: wait until arrived, bounded by the plan timeout; 0 or SHMEMX_PLAN_ETIMEDOUT. */
SHMEM_HD int shmemx_plan_owns(const shmemx_plan_view_t *view, int c);
SHMEM_HD void shmemx_plan_mark_ready(shmemx_plan_view_t *view, int c);
SHMEM_HD int shmemx_plan_arrived(const shmemx_plan_view_t *view, int c);
SHMEM_HD int shmemx_plan_wait_chunk(const shmemx_plan_view_t *view, int c);

/* Schedule builders. Each fills caller-provided arrays and returns the number of chunks
 * written (>= 0) or SHMEMX_PLAN_EINVAL.
 * whole: one chunk, one region [offset, offset + bytes).                   (1 region)
 * rows:  rows rows of row_bytes bytes, `stride` apart (0 = packed), split in order into
 *        nchunks row blocks of (nearly) equal size.                   (nchunks regions)
 * tiles: a rows x cols matrix of elem_bytes elements, ld_bytes per row, cut in
 *        tile_rows x tile_cols tiles (edge tiles are smaller); `order` lists the tiles this
 *        PE produces (tile index = tile_row * tiles_per_row + tile_col) in the order its
 *        producer completes them (NULL: all tiles, row-major), ntiles of them; they are
 *        grouped tiles_per_chunk at a time.     (ntiles regions, ceil(ntiles / tpc) chunks) */
int shmemx_plan_whole(size_t offset, size_t bytes, int writers, shmemx_region_t *region,
                      shmemx_chunk_t *chunk);
int shmemx_plan_rows(size_t offset, size_t row_bytes, size_t rows, size_t stride, size_t nchunks,
                     int writers, shmemx_region_t *regions, shmemx_chunk_t *chunks);
typedef struct {
    size_t offset, elem_bytes, ld_bytes, rows, cols, tile_rows, tile_cols;
} shmemx_tiling_t;
int shmemx_plan_tiles(const shmemx_tiling_t *tiling, const size_t *order, size_t ntiles,
                      size_t tiles_per_chunk, int writers, shmemx_region_t *regions,
                      shmemx_chunk_t *chunks);

/* ------------------------------------------------------------------------
 * Copy-engine puts: non-blocking transfers queued on the copy engine, with an
 * optional local wait flag (the engine polls it before the copy) and an
 * optional remote signal (the engine adds to it after the copy).
 *
 * Without a wait flag the transfer goes on the same queue as ordinary RMA and
 * shmem_quiet completes it. With a wait flag it goes on the queue that polls
 * (the one triggered plans use), so that quiet never waits on a flag nobody
 * has set: complete it with shmemx_sdma_quiet_pe, or watch the signal.
 * Addresses are symmetric addresses of this PE (translated for `pe`); wait_flag
 * is a local 32-bit word, signal a symmetric 64-bit word on `pe`. src is memory
 * the copy engine reaches: any with the soft engine; with hsakmt symmetric
 * memory (or memory mapped for the PE's GPU).
 * Each returns 0, or -1 with the reason under SHMEM_DEBUG (no copy engine, a
 * src it does not reach, a signal it cannot add: no PCIe atomics).
 * ---------------------------------------------------------------------- */
typedef struct {
    const uint32_t *wait_flag; /* NULL: no wait; else wait until *wait_flag >= wait_value */
    uint32_t wait_value;
    uint64_t *signal; /* NULL: no signal; else *signal += signal_value on pe after */
    uint64_t signal_value;
} shmemx_sdma_opts_t;

/* A 2D tile: rows rows of cols elements; strides in elements between rows. */
typedef struct {
    void *dest;
    const void *src;
    size_t rows, cols, dst_stride, src_stride;
} shmemx_tile_t;

int shmemx_sdma_putmem(void *dest, const void *src, size_t bytes, int pe,
                       const shmemx_sdma_opts_t *opts);
int shmemx_sdma_put_tile(const shmemx_tile_t *tile, size_t elem_bytes, int pe,
                         const shmemx_sdma_opts_t *opts);
/* One wait before all tiles, one signal after all of them. */
int shmemx_sdma_put_tiles(const shmemx_tile_t *tiles, size_t ntiles, size_t elem_bytes, int pe,
                          const shmemx_sdma_opts_t *opts);
/* Wait until every copy-engine put to pe (both queues) is complete, bounded by
 * SHMEM_ENGINE_TIMEOUT. */
int shmemx_sdma_quiet_pe(int pe);

/* ------------------------------------------------------------------------
 * GPU builds with a device heap: what the host's shmem.h routines promise
 * about work the PE queued on its GPU.
 *
 * shmem_barrier_all, shmem_barrier, shmem_sync_all, shmem_sync and
 * shmem_team_sync first wait for everything this PE queued on its GPU --
 * kernels, and copies and memsets on any stream, the legacy default stream
 * included (cudaMemcpy from pageable memory, device-to-device copies and
 * cudaMemset / hipMemset return before they are done) -- then synchronize
 * with the other PEs: what a PE wrote on its GPU before the barrier, the
 * others see after it. On an idle GPU that wait (one device synchronize)
 * costs a few microseconds. A kernel or a stream-ordered wait still running
 * is waited for too: one that waits for what a peer does only after its own
 * barrier holds the barrier (a stream-ordered wait until it times out, a
 * kernel's wait for ever). End such work before the barrier, or set
 * SHMEM_BARRIER_GPU_SYNC=0 and synchronize the GPU yourself.
 *
 * shmem_quiet, shmem_ctx_quiet and shmem_fence complete (order) this PE's
 * OpenSHMEM operations -- host-API puts, gets and AMOs, those on the device
 * heap included -- and do not wait for the program's own kernels, copies or
 * memsets; a kernel's shmem_quiet completes that kernel's operations.
 * ---------------------------------------------------------------------- */

/* ------------------------------------------------------------------------
 * Stream-ordered host API (GPU builds, device heap): each call queues its
 * work on `stream` (a hipStream_t / cudaStream_t; NULL = the runtime's
 * legacy default stream) and returns at once; the work runs in the stream's
 * order with the application's kernels and copies, and is complete once the
 * stream has passed it. The host API (shmem_quiet, shmem_barrier_all) does
 * not wait for it: synchronize the stream for that.
 *
 * putmem/getmem: a runtime copy between a local buffer (device memory, or
 *   pinned host memory for the copy to stay asynchronous) and the peer's
 *   mapped device heap, done by the copy engine.
 * putmem_signal: the copy, then the signal update on pe (SHMEM_SIGNAL_SET or
 *   SHMEM_SIGNAL_ADD), ordered after the data.
 * signal_wait_until: the stream waits until the local signal word satisfies
 *   the comparison (SHMEM_CMP_*), bounded by SHMEM_ENGINE_TIMEOUT seconds; on
 *   expiry the stream moves on and the next shmem_barrier_all or
 *   shmem_finalize ends the job with a "timed out" message.
 * quiet_on_stream: stream order already completes this API's operations;
 *   it also makes the stream wait for this PE's non-blocking host-API
 *   operations on the device heap issued before it.
 * barrier_all_on_stream: quiet_on_stream, then the device API's barrier over
 *   every PE (shmem_device.h's control words and epoch: never at the same time
 *   as a kernel's device barrier on this PE), bounded like signal_wait_until.
 * collective_launch: launch a kernel (func: its host-side handle, as for
 *   cudaLaunchKernel / hipLaunchKernel) after checking that every workgroup of
 *   the grid can be resident on this PE's GPU at once (occupancy per
 *   multiprocessor times multiprocessors), as kernels that wait for other PEs
 *   or other workgroups need; other kernels running at the same time take
 *   room too. The program must use the shared GPU runtime.
 *
 * Each returns SHMEMX_STREAM_OK (0) or a negative SHMEMX_STREAM_E* code, with
 * the reason under SHMEM_DEBUG; an invalid PE or an address outside
 * symmetric memory ends the job, as in the host API. CPU builds (no GPU
 * runtime) return SHMEMX_STREAM_EUNSUPPORTED.
 * ---------------------------------------------------------------------- */
enum {
    SHMEMX_STREAM_OK = 0,
    SHMEMX_STREAM_EINVAL = -1, /* bad argument, or a symmetric address not on the device heap */
    SHMEMX_STREAM_EUNSUPPORTED = -2, /* a CPU build, or the heap in host memory (SHMEM_HEAP=host) */
    SHMEMX_STREAM_ERUNTIME = -3,     /* the GPU runtime refused the copy or the launch */
    SHMEMX_STREAM_ENOTRESIDENT = -4  /* collective_launch: the grid cannot be resident at once */
};

int shmemx_putmem_on_stream(void *dest, const void *src, size_t nbytes, int pe, void *stream);
int shmemx_getmem_on_stream(void *dest, const void *src, size_t nbytes, int pe, void *stream);
int shmemx_putmem_signal_on_stream(void *dest, const void *src, size_t nbytes, uint64_t *sig_addr,
                                   uint64_t signal, int sig_op, int pe, void *stream);
int shmemx_signal_wait_until_on_stream(uint64_t *sig_addr, int cmp, uint64_t cmp_value,
                                       void *stream);
int shmemx_quiet_on_stream(void *stream);
int shmemx_barrier_all_on_stream(void *stream);
int shmemx_collective_launch(const void *func, unsigned grid[3], unsigned block[3], void **args,
                             size_t shared_bytes, void *stream);

/* ------------------------------------------------------------------------
 * Device state registration, used by shmem_device.h (not for direct use):
 * every translation unit that includes shmem_device.h registers, from a
 * static constructor, a function that copies the device state (device/state.h)
 * into that unit's own copy with that unit's GPU runtime. shmem_init calls
 * every registered function; one registered after shmem_init is called at
 * once, and again at the next library call while it returns non-zero (its
 * runtime does not know the unit's symbols yet: a module being loaded).
 * Returns 0, or -1 when the table of registrations is full.
 * ---------------------------------------------------------------------- */
typedef int (*shmemx_device_fill_fn)(const void *state, size_t size);
int shmemx_device_register(shmemx_device_fill_fn fill);

#ifdef __cplusplus
}
#endif

#endif
