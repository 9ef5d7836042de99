/* Which KFD GPU node the hsakmt engine runs on.
 *
 * A PE's SDMA queues must be on the PE's own GPU: the packets name its device heap, the
 * peers' heaps as HIP mapped them for it, and words its kernels poll; another node's VM does
 * not map them (ROCm/mori anvil.cpp, gpuAgentIndexForHipDevice: a raw HIP ordinal picked
 * "the WRONG physical GPU -> ... Memory access fault by GPU node-N"). HIP ordinals count only
 * the devices HIP_VISIBLE_DEVICES and ROCR_VISIBLE_DEVICES leave, in ROCr's agent order; KFD
 * node numbers count everything, CPUs included, and libhsakmt applies neither variable. So a
 * GPU build names its device by PCI location (KFD's LocationId is bus << 8 | device << 3 |
 * function, with the PCI domain in Domain: libhsakmt topology.c reads both from sysfs), and
 * a build without HIP numbers the visible GPU nodes as ROCr would. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sdma/hsakmt_node.h"

#define MAX_GPUS 64

static void gfx_name(const HsaNodeProperties *p, char *out, size_t len) {
    snprintf(out, len, "gfx%u%u%x", (unsigned)p->EngineId.ui32.Major,
             (unsigned)p->EngineId.ui32.Minor, (unsigned)p->EngineId.ui32.Stepping);
}

/* Filter the n GPU nodes (ids and properties, in node order) by a visibility variable as
 * ROCr reads ROCR_VISIBLE_DEVICES: comma-separated indices into the list, or "GPU-<hex>"
 * unique ids; parsing stops at the first entry it cannot use. Unset: unchanged. Returns how
 * many are left. */
static int visible(const char *var, HSAuint32 *ids, HsaNodeProperties *props, int n) {
    const char *v = getenv(var), *p;
    int keep[MAX_GPUS], m = 0, i;
    if (!v)
        return n;
    for (p = v; *p && m < MAX_GPUS;) {
        char tok[64];
        size_t k = strcspn(p, ",");
        int pick = -1;
        if (k == 0 || k >= sizeof tok)
            break;
        memcpy(tok, p, k);
        tok[k] = '\0';
        if (!strncmp(tok, "GPU-", 4)) {
            unsigned long long id = strtoull(tok + 4, NULL, 16);
            for (i = 0; i < n; i++)
                if (props[i].UniqueID == id)
                    pick = i;
        } else {
            char *end;
            long x = strtol(tok, &end, 10);
            if (*end == '\0' && x >= 0 && x < n)
                pick = (int)x;
        }
        if (pick < 0)
            break;
        for (i = 0; i < m; i++)
            if (keep[i] == pick)
                pick = -1;
        if (pick >= 0)
            keep[m++] = pick;
        p += k + (p[k] == ',');
    }
    {
        HSAuint32 id2[MAX_GPUS];
        HsaNodeProperties *p2 = malloc((size_t)(m ? m : 1) * sizeof *p2);
        if (!p2)
            return 0;
        for (i = 0; i < m; i++) {
            id2[i] = ids[keep[i]];
            p2[i] = props[keep[i]];
        }
        memcpy(ids, id2, (size_t)m * sizeof *ids);
        memcpy(props, p2, (size_t)m * sizeof *props);
        free(p2);
    }
    return m;
}

int sdma_hsakmt_pick_gpu(const struct sdma_engine_config *cfg, struct sdma_hsakmt_gpu *g, char *err,
                         size_t errlen) {
    HsaSystemProperties sys;
    HSAuint32 nodes[MAX_GPUS], i, pick;
    HsaNodeProperties *props;
    HSAKMT_STATUS st;
    int n = 0, want = cfg->gpu < 0 ? 0 : cfg->gpu, rc = SDMA_OK;
    char gfx[32];

    st = hsaKmtAcquireSystemProperties(&sys);
    if (st != HSAKMT_STATUS_SUCCESS) {
        snprintf(err, errlen,
                 "hsakmt: cannot read the GPU topology (hsaKmtAcquireSystemProperties "
                 "status %d); with HIP in the same process, the library must use "
                 "the libhsakmt of HIP's own ROCm",
                 (int)st);
        return SDMA_ERR_UNAVAILABLE;
    }
    props = calloc(MAX_GPUS, sizeof *props);
    if (!props) {
        snprintf(err, errlen, "hsakmt: out of memory");
        return SDMA_ERR_NOMEM;
    }
    for (i = 0; i < sys.NumNodes && n < MAX_GPUS; i++) {
        HsaNodeProperties p;
        if (hsaKmtGetNodeProperties(i, &p) != HSAKMT_STATUS_SUCCESS || p.NumFComputeCores == 0 ||
            p.NumSdmaEngines + p.NumSdmaXgmiEngines == 0)
            continue;
        nodes[n] = i;
        props[n++] = p;
    }
    if (n == 0) {
        snprintf(err, errlen, "hsakmt: no AMD GPU with SDMA engines found");
        rc = SDMA_ERR_UNAVAILABLE;
        goto out;
    }
    if (cfg->pci_valid) {
        HSAuint32 match[MAX_GPUS];
        int m = 0;
        for (i = 0; i < (HSAuint32)n; i++)
            if (props[i].LocationId == cfg->pci_bdf && props[i].Domain == cfg->pci_domain)
                match[m++] = i;
        if (m == 0) {
            snprintf(err, errlen,
                     "hsakmt: no KFD GPU node at PCI %04x:%02x:%02x.%x (this PE's "
                     "GPU)",
                     cfg->pci_domain, cfg->pci_bdf >> 8, (cfg->pci_bdf >> 3) & 0x1F,
                     cfg->pci_bdf & 7);
            rc = SDMA_ERR_UNAVAILABLE;
            goto out;
        }
        /* Several nodes at one location: a partitioned GPU (CPX/DPX modes). */
        pick = match[(unsigned)want % (unsigned)m];
    } else {
        n = visible("ROCR_VISIBLE_DEVICES", nodes, props, n);
        n = visible(getenv("HIP_VISIBLE_DEVICES") ? "HIP_VISIBLE_DEVICES" : "CUDA_VISIBLE_DEVICES",
                    nodes, props, n);
        if (n == 0) {
            snprintf(err, errlen,
                     "hsakmt: no GPU left visible by ROCR_VISIBLE_DEVICES / "
                     "HIP_VISIBLE_DEVICES");
            rc = SDMA_ERR_UNAVAILABLE;
            goto out;
        }
        pick = (unsigned)want % (unsigned)n;
    }
    g->node = nodes[pick];
    g->props = props[pick];
    gfx_name(&g->props, gfx, sizeof gfx);
    snprintf(g->name, sizeof g->name, "GPU node %u (%s, %04x:%02x:%02x.%x)", (unsigned)g->node, gfx,
             g->props.Domain, g->props.LocationId >> 8, (g->props.LocationId >> 3) & 0x1F,
             g->props.LocationId & 7);
    if (g->props.EngineId.ui32.Major != 9) {
        snprintf(err, errlen,
                 "hsakmt: %s has an SDMA 5 or later engine (gfx10 and later): "
                 "this library encodes SDMA 4.x packets (gfx9: MI100, MI200, "
                 "MI300) only; use SHMEM_COPY_ENGINE=soft",
                 g->name);
        rc = SDMA_ERR_UNAVAILABLE;
        goto out;
    }
    g->sdma44 = g->props.EngineId.ui32.Minor >= 4 ||
                (g->props.EngineId.ui32.Minor == 0 && g->props.EngineId.ui32.Stepping >= 10);
out:
    free(props);
    return rc;
}
