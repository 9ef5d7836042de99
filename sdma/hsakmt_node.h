/* Private to sdma/: which KFD GPU node the hsakmt engine runs on. Includes <hsakmt.h>. */
#ifndef SDMA_HSAKMT_NODE_H
#define SDMA_HSAKMT_NODE_H

#include <hsakmt.h>

#include "sdma/sdma.h"

struct sdma_hsakmt_gpu {
    HSAuint32 node;
    HsaNodeProperties props;
    int sdma44;    /* SDMA 4.4 (gfx90a, gfx94x, gfx950): 30-bit copy counts */
    char name[96]; /* "GPU node 2 (gfx942, 0000:29:00.0)" */
};

/* Take the topology (hsaKmtAcquireSystemProperties, never released: the snapshot is the
 * process's, shared with every other user of the same libhsakmt) and choose the node cfg
 * asks for: by PCI location, else by index among the visible GPU nodes with SDMA engines.
 * Refuses gfx10+ nodes (SDMA 5 and later packet forms are not encoded) with
 * SDMA_ERR_UNAVAILABLE and a message. */
int sdma_hsakmt_pick_gpu(const struct sdma_engine_config *cfg, struct sdma_hsakmt_gpu *g, char *err,
                         size_t errlen);

#endif
