/* Status codes of the copy-engine layer: 0 ok, negative errors.
 * Plain constants only, so host C, C++, HIP and CUDA device code can share them. */
#ifndef SDMA_STATUS_H
#define SDMA_STATUS_H

enum sdma_status {
    SDMA_OK = 0,
    SDMA_ERR_INVAL = -1,       /* bad argument */
    SDMA_ERR_NO_RESOURCE = -2, /* ring full: make progress and retry */
    SDMA_ERR_NOMEM = -3,       /* host allocation failed */
    SDMA_ERR_UNAVAILABLE = -4, /* engine built but cannot run here (no driver/GPU) */
    SDMA_ERR_DISABLED = -5,    /* kind "none": no copy engine by request */
    SDMA_ERR_NOT_BUILT = -6,   /* engine kind not compiled into this build */
    SDMA_ERR_TIMEOUT = -7,     /* a bounded wait expired */
    SDMA_ERR_QUEUE = -8,       /* the queue stopped in an error state */
    SDMA_ERR_UNSUPPORTED = -9, /* operation not offered by this engine */
    SDMA_ERR_SYSTEM = -10,     /* a system or driver call failed */
    SDMA_ERR_UNMAPPED = -11    /* an address the engine cannot reach (not mapped for its GPU);
                                   nothing was queued */
};

#endif
