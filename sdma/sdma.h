/* The copy-engine layer: queues of SDMA packets executed by an engine.
 *
 * It moves bytes, polls 32-bit words, adds to words and writes fences; it knows nothing
 * about the layers above it. Engines (chosen by a kind string):
 *   "soft"   one host thread per engine executes the packet bytes of all its queues
 *   "hsakmt" user-mode SDMA queues of an AMD GPU through libhsakmt (needs /dev/kfd)
 *   "cuda"   NVIDIA copy engines through streams (not in CPU builds)
 *   "none"   no engine: sdma_engine_open returns SDMA_ERR_DISABLED
 *   "auto"   hsakmt when it can run here, else soft
 *
 * Status convention: 0 ok, negative SDMA_ERR_* (sdma/status.h), sdma_strerror() names it,
 * sdma_last_error() gives this thread's message about its latest failure.
 * Outputs are written only on success.
 *
 * Completion: the read pointer only says what the engine consumed. Completion is a FENCE
 * (or ATOMIC) after the operation and a wait on its word: sdma_queue_mark / _test / _quiet
 * do that with a queue-local word.
 *
 * Thread safety: any number of threads may submit to one queue (unless it was opened
 * SDMA_QUEUE_SINGLE_PRODUCER). Opening and closing queues and engines is not concurrent
 * with use of the same objects. */
#ifndef SDMA_SDMA_H
#define SDMA_SDMA_H

#include <stddef.h>
#include <stdint.h>

#include "sdma/packets.h"
#include "sdma/ring.h"
#include "sdma/status.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sdma_engine;
struct sdma_queue;

/* Address check of the soft engine: nonzero when [addr, addr+len) may be read (write=0) or
 * written (write=1). A packet that names a refused range stops its queue with an error. */
typedef int (*sdma_addr_check_fn)(void *arg, uint64_t addr, uint64_t len, int write);
/* TRAP callback (soft engine: called on the engine thread, keep it short). */
typedef void (*sdma_trap_fn)(void *arg, struct sdma_queue *q, uint32_t context);

/* 2D copy packet formats. */
#define SDMA_COPY_2D_AUTO                                                                          \
    0 /* by target: SW13 on AMD gfx9 hardware, LARGE in the soft and
                                cuda engines */
#define SDMA_COPY_2D_LARGE                                                                         \
    1                       /* LINEAR_SUB_WINDOW_LARGE, 20 dwords (SDMA 5.2+; unverified on
                                SDMA 4.4) */
#define SDMA_COPY_2D_SW13 2 /* LINEAR_SUB_WINDOW, 13 dwords (every part before gfx12) */

/* What an engine's queues mostly carry (hsakmt: the queue type, ROCr's rule: PCIe-optimised
 * queues for host memory, XGMI-optimised ones between GPUs). */
#define SDMA_LINK_AUTO 0 /* XGMI queues where the GPU has XGMI engines, else PCIe */
#define SDMA_LINK_PCIE 1
#define SDMA_LINK_XGMI 2

#define SDMA_RING_DEFAULT_BYTES (1u << 20)

/* Engine settings; a zeroed struct (or NULL) means defaults. */
/* A window of addresses that stand for memory the engine's host thread cannot touch (another
 * host's, reached through a network by its owner), whose packets callbacks carry out: a COPY
 * with either end in the window, a FENCE or an ATOMIC on it, a POLL of it. Soft engine only
 * (the others run packets where the window means nothing). Each callback returns 0, or -1
 * with the reason written into msg; a copy or a write is complete, visible where it went,
 * when it returns. */
struct sdma_foreign {
    uint64_t base, len;
    void *arg;
    int (*copy)(void *arg, uint64_t dst, uint64_t src, uint64_t len, char *msg, size_t msglen);
    int (*write32)(void *arg, uint64_t addr, uint32_t value, char *msg, size_t msglen);
    /* op: SDMA_ATOMIC_ADD32, _SWAP32 or _CMPSWAP32 (the 32-bit base of either size) */
    int (*atomic)(void *arg, uint64_t addr, unsigned op, int is64, uint64_t src, uint64_t cmp,
                  char *msg, size_t msglen);
    int (*read32)(void *arg, uint64_t addr, uint32_t *value, char *msg, size_t msglen);
};

struct sdma_engine_config {
    double poll_timeout_s;   /* soft: safety deadline of one POLL, "forever" included (0: 60) */
    double full_wait_s;      /* convenience calls: wait on a full ring this long (0: 10) */
    uint64_t max_copy_bytes; /* largest COPY packet; larger copies split (0: 1 GiB) */
    sdma_addr_check_fn addr_check; /* soft: NULL = any canonical user address */
    void *addr_check_arg;
    sdma_trap_fn trap; /* soft: TRAP callback, NULL = ignore */
    void *trap_arg;
    const char *ring_setting; /* name of the setting that sizes rings, quoted on "ring full" */
    /* hsakmt: which GPU's engines. By PCI location when pci_valid (the GPU a HIP device is,
     * whatever HIP_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES renumbered); else `gpu` indexes the
     * KFD GPU nodes that have SDMA engines, after ROCR_VISIBLE_DEVICES and HIP_VISIBLE_DEVICES
     * (numeric lists) have filtered them, taken modulo their number. */
    int gpu;
    int pci_valid;
    uint32_t pci_domain;
    uint32_t pci_bdf; /* bus << 8 | device << 3 | function (KFD's LocationId) */
    int copy_2d;      /* SDMA_COPY_2D_* */
    int queue_link;   /* SDMA_LINK_*: default of sdma_queue_attr.link */
    int burst_nop;    /* pad rings with burst NOPs (SDMA firmware feature_version >= 20)
                                 instead of zero dwords */
    int stream_waits; /* cuda: POLLs on registered host words wait in the stream
                                 too (needs CUDA_MODULE_LOADING=EAGER); 0: the proxy polls */
    const struct sdma_foreign *foreign; /* soft: a window its callbacks reach, or NULL */
    /* soft: where the engine's thread sleeps while a POLL waits, a word shared with whoever
     * stores the polled words (other processes too). The thread adds one to *wake_sleepers,
     * calls wake_fence (may be NULL), reads *wake_seq and looks at its polls once more
     * before it sleeps; a writer that sees *wake_sleepers non-zero adds one to *wake_seq and
     * wakes it (FUTEX_WAKE; FUTEX_PRIVATE_FLAG unless wake_shared). NULL wake_seq: a waiting
     * POLL is re-checked on a timer (up to every millisecond): its word may change unseen.
     * Without a waiting POLL the thread sleeps until a submit kicks it, without timer, unless
     * a queue has GPU producers (SDMA_QUEUE_TAGGED, _GPU_PRODUCER, _GPU_WRITES). */
    uint32_t *wake_seq;
    uint32_t *wake_sleepers;
    int wake_shared;
    void (*wake_fence)(void);
    /* soft: 1 (with wake_seq NULL): a waiting POLL neither keeps the thread awake nor sets a
     * timer; it is looked at again on the next kick, or by a caller of sdma_engine_progress
     * (where no CPU is free for the thread, the waiters run the packets). */
    int polls_by_callers;
};

/* Parse a PCI bus id ("dddd:bb:dd.f" as hipDeviceGetPCIBusId writes it, or "bb:dd.f") into
 * cfg's pci_domain / pci_bdf; sets pci_valid. Returns 0, or SDMA_ERR_INVAL. */
int sdma_config_set_pci(struct sdma_engine_config *cfg, const char *bus_id);

/* Open an engine of `kind` (auto|soft|hsakmt|cuda|none; NULL or "" = auto).
 * SDMA_ERR_DISABLED for "none", SDMA_ERR_NOT_BUILT for kinds missing from this build,
 * SDMA_ERR_UNAVAILABLE when the engine cannot run here; err gets a message. */
int sdma_engine_open(const char *kind, const struct sdma_engine_config *cfg,
                     struct sdma_engine **out, char *err, size_t errlen);
/* Stop the engine; its queues must be closed first. */
void sdma_engine_close(struct sdma_engine *e);
/* "soft", "hsakmt", ... */
const char *sdma_engine_name(const struct sdma_engine *e);
/* What the engine can do beyond the packets. */
#define SDMA_CAP_DEVICE_MEMORY 1u /* copies and words may be in GPU memory (IPC-mapped too) */
#define SDMA_CAP_TAGGED 2u        /* queues may be opened with SDMA_QUEUE_TAGGED */
#define SDMA_CAP_GPU_RINGS                                                                         \
    4u /* the engine's own rings, pointers and doorbells are mapped
                                     into the GPU: kernels may produce on its queues with the
                                     doorbell protocol (device/ring_dev.h) */
#define SDMA_CAP_GPU_DOORBELL                                                                      \
    8u /* ... and a doorbell stored by a kernel is known to start the
                                     engine on this target (AMD: shown by ROCm/mori on gfx94x
                                     and gfx950; not on gfx90a) */
unsigned sdma_engine_caps(const struct sdma_engine *e);
/* What the engine runs on, for messages: "soft", "hsakmt: GPU node 2 (gfx942, 0000:29:00.0)". */
const char *sdma_engine_target(const struct sdma_engine *e);
/* The 2D copy packet the engine takes: SDMA_COPY_2D_LARGE or SDMA_COPY_2D_SW13 (by target). */
int sdma_engine_copy_2d_format(const struct sdma_engine *e);
/* Make [addr, addr+len) reachable by the engine (hsakmt: register and map the pages into the
 * GPU's page tables, unless the driver already has them mapped for it; soft: nothing to do).
 * Memory must be reachable before a packet names it. Mappings are cached: mapping a range
 * that is already reachable does nothing; they are undone by sdma_engine_unmap(addr) with
 * the same address, or when the engine closes. The memory must stay mapped in the process
 * until then. */
int sdma_engine_map(struct sdma_engine *e, void *addr, size_t len);
int sdma_engine_unmap(struct sdma_engine *e, void *addr);
/* [addr, addr+len) is mapped for the engine's GPU by its owner (e.g. the GPU runtime's device
 * heap and IPC mappings: a libhsakmt of the runtime's own cannot be asked about them);
 * device: it is GPU memory. Forgotten by sdma_engine_unmap(addr) or at close. */
int sdma_engine_declare(struct sdma_engine *e, void *addr, size_t len, int device);
/* 1 when every byte of [addr, addr+len) is reachable by the engine (see sdma_engine_map). The
 * convenience operations below check their addresses this way and refuse with
 * SDMA_ERR_UNMAPPED (nothing queued); raw packets are not checked (an address the GPU does
 * not map makes a hardware queue fault). */
int sdma_engine_reaches(struct sdma_engine *e, const void *addr, size_t len);
/* Look for hardware failures now (hsakmt: a GPU memory access fault reported by the driver)
 * and put the queues they stopped in the error state. Returns the number of queues that
 * failed. Waits in this layer do it by themselves. */
int sdma_engine_check(struct sdma_engine *e);
/* Import a peer's dma-buf (hsakmt) and map it; *addr gets its address here. */
int sdma_engine_import_dmabuf(struct sdma_engine *e, int fd, size_t len, void **addr);

/* Run ready packets on the calling thread when the engine's own thread is not running them
 * (soft engine; engines that run by themselves return 0). Returns the packets executed.
 * Waiters call it so that completion never waits for a thread hand-off. */
int sdma_engine_progress(struct sdma_engine *e);
/* Sleep until the engine's thread has run more packets, done(arg) is true (checked after
 * announcing the sleep), or timeout_s passes. 1: it slept (or found done true); 0: this
 * engine cannot wake a waiter (none runs packets now, or it is hardware): poll instead. */
int sdma_engine_block(struct sdma_engine *e, int (*done)(void *), void *arg, double timeout_s);

/* ---- queues ---- */

#define SDMA_QUEUE_SINGLE_PRODUCER 1u /* one submitting thread: skip the CAS and the wait */
#define SDMA_QUEUE_TAGGED                                                                          \
    2u /* producers publish tagged slots (sdma/ring.h), no doorbell:
                                soft and cuda engines; GPU producers only */
#define SDMA_QUEUE_GPU_PRODUCER                                                                    \
    4u /* kernels write the packets (hsakmt: the ring in the GPU's
                                      memory, as ROCm/mori's; host-written rings are in
                                      system memory, as ROCr's and kfdtest's) */
#define SDMA_QUEUE_GPU_WRITES                                                                      \
    8u /* kernels may write the words its POLLs wait on (plan gates):
                                    nothing wakes the soft engine's thread for them, it
                                    re-checks a waiting POLL of this queue on a timer */

struct sdma_queue_attr {
    size_t ring_bytes; /* power of two; 0 = SDMA_RING_DEFAULT_BYTES */
    const char *label; /* for messages */
    unsigned flags;    /* SDMA_QUEUE_* */
    int engine_id;     /* hsakmt: SDMA engine, -1 = the driver's choice */
    int link;          /* SDMA_LINK_*; AUTO: the engine's queue_link */
    /* Caller-provided ring (soft engine only): all five set, or all NULL. The pointers must
     * start equal (normally 0) and the control block zeroed; they stay owned by the caller
     * and must outlive the queue. This lets other producers (GPU kernels) share the ring. */
    void *ring;
    struct sdma_ring_ctl *ctl;
    volatile uint64_t *rptr;
    volatile uint64_t *wptr;
    volatile uint64_t *doorbell;
    /* Optional: the engine stores here (in order with the queue's operations) the ring index
     * below which every packet has completed, e.g. a GPU word that kernels wait on. cuda:
     * device memory or mapped host memory; soft: host memory. */
    volatile uint64_t *complete;
    /* Optional (soft engine and its proxies): called after packets of the queue ran, on the
     * thread that ran them (the engine's, or a caller of sdma_engine_progress): a way to wake
     * whoever sleeps until the stores of its copies, fences and atomics. */
    void (*stored)(void *arg);
    void *stored_arg;
};

void sdma_queue_attr_init(struct sdma_queue_attr *a);
int sdma_queue_open_attr(struct sdma_engine *e, const struct sdma_queue_attr *a,
                         struct sdma_queue **out);
int sdma_queue_open(struct sdma_engine *e, size_t ring_bytes, const char *label,
                    struct sdma_queue **out);
/* Packets not yet executed are dropped: quiet first. */
void sdma_queue_close(struct sdma_queue *q);
const char *sdma_queue_label(const struct sdma_queue *q);
/* From now on kernels may write the words this queue's POLLs wait on: the queue gains
 * SDMA_QUEUE_GPU_WRITES (for a queue opened before the program had device code). */
void sdma_queue_gpu_writes(struct sdma_queue *q);
/* 1 when the engine has taken everything published to the queue (read pointer at the
 * write pointer, or at a slot not yet tagged). */
int sdma_queue_idle(const struct sdma_queue *q);
/* The ring view producers use (e.g. to copy into a GPU kernel's state). */
const struct sdma_ring *sdma_queue_ring(const struct sdma_queue *q);

/* ---- convenience operations: one packet each (copies split), bounded wait on a full ring,
 * SDMA_ERR_NO_RESOURCE after it, SDMA_ERR_QUEUE when the queue is in error state ---- */
int sdma_copy(struct sdma_queue *q, void *dst, const void *src, size_t bytes);
/* The same with submit flags (SDMA_SUBMIT_NO_KICK: queued behind the doorbell; a later kick,
 * mark or quiet of the queue starts it, and the engine finds it by itself in time). */
int sdma_copy_flags(struct sdma_queue *q, void *dst, const void *src, size_t bytes, unsigned flags);
int sdma_copy_2d(struct sdma_queue *q, void *dst, size_t dst_pitch, const void *src,
                 size_t src_pitch, size_t row_bytes, size_t rows);
/* Block the queue until (*addr & mask) <func> ref (SDMA_POLL_*), forever (bounded by the
 * soft engine's poll deadline). */
int sdma_poll(struct sdma_queue *q, const uint32_t *addr, uint32_t ref, uint32_t mask, int func);
/* SDMA_ATOMIC_* on a 32/64-bit word; the returned (old) value is not delivered. On host
 * memory behind a link without PCIe atomics (hsakmt, as ROCr's SubmitCommand handles it) a
 * SWAP becomes FENCEs (a 64-bit one writes the high word first), other operations return
 * SDMA_ERR_UNSUPPORTED: the caller applies them after a quiet. */
int sdma_atomic(struct sdma_queue *q, void *addr, int op, uint64_t src, uint64_t cmp);
/* Write value to *addr once everything before it on the queue is complete. */
int sdma_fence(struct sdma_queue *q, uint32_t *addr, uint32_t value);
int sdma_const_fill(struct sdma_queue *q, void *dst, uint32_t value, size_t bytes);
int sdma_trap(struct sdma_queue *q, uint32_t context);
int sdma_timestamp(struct sdma_queue *q, uint64_t *addr); /* addr 32-byte aligned */

/* ---- completion ---- */
/* Fence a new sequence number to the queue-local word; returns the mark, 0 on failure. */
uint64_t sdma_queue_mark(struct sdma_queue *q);
/* 1 when that mark has completed (every packet committed before it is done), else 0. */
int sdma_queue_test(struct sdma_queue *q, uint64_t mark);
/* Mark and wait up to timeout_s: SDMA_OK, SDMA_ERR_TIMEOUT or SDMA_ERR_QUEUE. */
int sdma_queue_quiet(struct sdma_queue *q, double timeout_s);
/* Nonzero when the queue stopped in an error state; msg gets the engine's message. */
int sdma_queue_error(const struct sdma_queue *q, char *msg, size_t len);
/* Wake the engine after a producer outside this API rang the doorbell (soft engine;
 * it also re-checks doorbells by itself, at least every millisecond when idle). */
void sdma_queue_kick(struct sdma_queue *q);

/* ---- raw packets: reserve, place dwords at slot->dw, commit ---- */
/* Never blocks: SDMA_ERR_NO_RESOURCE when the ring is full. A reserved slot must be
 * committed (sdma_queue_commit, or sdma_queue_commit_nops to give it up). */
int sdma_queue_reserve(struct sdma_queue *q, size_t ndw, struct sdma_ring_slot *slot);
void sdma_queue_commit(struct sdma_queue *q, const struct sdma_ring_slot *slot);
void sdma_queue_commit_nops(struct sdma_queue *q, const struct sdma_ring_slot *slot);
/* Reserve (bounded wait on a full ring), copy ndw dwords in, commit. */
int sdma_queue_submit(struct sdma_queue *q, const uint32_t *dw, size_t ndw);
/* The same; SDMA_SUBMIT_NO_KICK leaves the engine asleep (packets that wait on a gate
 * anyway: whoever opens the gate kicks, and the engine re-checks doorbells by itself). */
#define SDMA_SUBMIT_NO_KICK 1u
int sdma_queue_submit_flags(struct sdma_queue *q, const uint32_t *dw, size_t ndw, unsigned flags);

const char *sdma_strerror(int code);
/* This thread's message about its latest failed call ("" when none). */
const char *sdma_last_error(void);

#ifdef __cplusplus
}
#endif

#endif
