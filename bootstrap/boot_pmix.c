/* "pmix" bootstrap: the PE was started by a PMIx launcher (Open MPI's
 * mpirun, PRRTE's prterun, Slurm's srun --mpi=pmix). pmix_status_t values are
 * translated into messages here, where they enter. */
#include "bootstrap/boot_internal.h"
#include "bootstrap/launch_proto.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef BOOT_HAVE_PMIX

#include <pmix.h>

/* How long a PE that aborts with status 0 waits for the launcher to end it.
 * Open MPI's mpirun ends the other processes and waits for this one to exit
 * by itself: any longer only delays the end of the job. */
#define PMIX_ABORT_GRACE_MS 200

struct boot_pmix {
    pmix_proc_t me;
    unsigned seq; /* allgather calls so far: each uses fresh keys */
};

static int pmix_fail(char *buf, size_t len, const char *what, pmix_status_t rc) {
    return boot_fail(buf, len, BOOT_ERR_PMIX, "bootstrap: %s failed: %s (PMIx status %d)", what,
                     PMIx_Error_string(rc), (int)rc);
}

/* Read an unsigned number whatever integer type the server chose. */
static int value_to_u32(const pmix_value_t *v, uint32_t *out) {
    switch (v->type) {
    case PMIX_UINT8: *out = v->data.uint8; return 0;
    case PMIX_UINT16: *out = v->data.uint16; return 0;
    case PMIX_UINT32: *out = v->data.uint32; return 0;
    case PMIX_UINT64: *out = (uint32_t)v->data.uint64; return v->data.uint64 > UINT32_MAX;
    case PMIX_UINT: *out = v->data.uint; return 0;
    case PMIX_INT: *out = (uint32_t)v->data.integer; return v->data.integer < 0;
    case PMIX_INT32: *out = (uint32_t)v->data.int32; return v->data.int32 < 0;
    case PMIX_PROC_RANK: *out = v->data.rank; return 0;
    default: return -1;
    }
}

static int get_u32(const pmix_proc_t *p, const char *key, uint32_t *out, char *err, size_t errlen) {
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(p, key, NULL, 0, &v);
    if (rc != PMIX_SUCCESS) {
        char what[128];
        snprintf(what, sizeof what, "PMIx_Get(%s)", key);
        return pmix_fail(err, errlen, what, rc);
    }
    int bad = value_to_u32(v, out);
    PMIX_VALUE_RELEASE(v);
    if (bad)
        return boot_fail(err, errlen, BOOT_ERR_PMIX,
                         "bootstrap: PMIx_Get(%s) returned a value that is not a count", key);
    return BOOT_OK;
}

static int fence(struct boot *b, int collect) {
    pmix_info_t info;
    bool flag = true;
    pmix_status_t rc;

    if (collect) {
        PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &flag, PMIX_BOOL);
        rc = PMIx_Fence(NULL, 0, &info, 1);
        PMIX_INFO_DESTRUCT(&info);
    } else {
        rc = PMIx_Fence(NULL, 0, NULL, 0);
    }
    if (rc != PMIX_SUCCESS)
        return pmix_fail(b->err, sizeof b->err, "PMIx_Fence", rc);
    return BOOT_OK;
}

static int pmix_allgather(struct boot *b, const void *in, void *out, size_t len) {
    struct boot_pmix *p = b->impl;
    char key[64];
    pmix_status_t rc;

    snprintf(key, sizeof key, "shmemi.boot.ag.%u", p->seq++);
    if (len > 0) {
        pmix_value_t v;
        PMIX_VALUE_CONSTRUCT(&v);
        v.type = PMIX_BYTE_OBJECT;
        v.data.bo.bytes = (char *)in; /* PMIx_Put copies it */
        v.data.bo.size = len;
        rc = PMIx_Put(PMIX_GLOBAL, key, &v);
        if (rc != PMIX_SUCCESS)
            return pmix_fail(b->err, sizeof b->err, "PMIx_Put", rc);
        rc = PMIx_Commit();
        if (rc != PMIX_SUCCESS)
            return pmix_fail(b->err, sizeof b->err, "PMIx_Commit", rc);
    }
    int st = fence(b, len > 0);
    if (st || len == 0)
        return st;

    for (int r = 0; r < b->size; r++) {
        pmix_proc_t peer;
        pmix_value_t *v = NULL;
        PMIX_LOAD_PROCID(&peer, p->me.nspace, (pmix_rank_t)r);
        rc = PMIx_Get(&peer, key, NULL, 0, &v);
        if (rc != PMIX_SUCCESS) {
            char what[96];
            snprintf(what, sizeof what, "PMIx_Get(%s) of rank %d", key, r);
            return pmix_fail(b->err, sizeof b->err, what, rc);
        }
        if (v->type != PMIX_BYTE_OBJECT || v->data.bo.size != len) {
            size_t got = v->type == PMIX_BYTE_OBJECT ? v->data.bo.size : 0;
            PMIX_VALUE_RELEASE(v);
            return boot_fail(b->err, sizeof b->err, BOOT_ERR_PMIX,
                             "bootstrap: allgather: rank %d contributed %zu bytes, rank %d "
                             "expected %zu",
                             r, got, b->rank, len);
        }
        memcpy((char *)out + (size_t)r * len, v->data.bo.bytes, len);
        PMIX_VALUE_RELEASE(v);
    }
    b->err[0] = '\0';
    return BOOT_OK;
}

static int pmix_barrier(struct boot *b) { return fence(b, 0); }

/* A non-zero status: exit with it, without finalizing PMIx. The launcher
 * sees a process of the job fail and ends the others (Open MPI's mpirun: "one
 * or more processes exited with non-zero status"), and its exit status is
 * ours. PMIx_Abort is not used for that: with Open MPI 4.1's mpirun and PMIx
 * 4.2 (Debian 12), an abort request that arrives while other processes of the
 * job wait in a PMIx fence (shmem_init's exchanges, a bootstrap barrier)
 * leaves mpirun's PMIx server with freed memory in its list of collectives,
 * and mpirun hangs in PMIx_server_finalize (its progress thread blocked on a
 * lock in freed memory) or crashes there, after every process has ended: in
 * about a third of such jobs here, never when the process exits instead.
 * Status 0 cannot end a job that way (the launcher takes a process that exits
 * 0 without finalizing as a failure), so only it asks the launcher. */
static void pmix_abort(struct boot *b, int status, const char *msg) {
    (void)b;
    fflush(NULL);
    if (boot_exit_code(status) != 0)
        _exit(boot_exit_code(status));
    /* Asks the launcher to end every process of the job; returns once the
     * request is delivered (or failed). Exit ourselves if still alive. */
    PMIx_Abort(status, msg ? msg : "shmem job aborted", NULL, 0);
    boot_exit_after_grace(-1, status, PMIX_ABORT_GRACE_MS);
}

static int pmix_finalize(struct boot *b) {
    pmix_status_t rc = PMIx_Finalize(NULL, 0);
    int st = BOOT_OK;
    if (rc != PMIX_SUCCESS)
        st = pmix_fail(b->err, sizeof b->err, "PMIx_Finalize", rc);
    free(b->impl);
    free(b);
    return st;
}

int boot_pmix_open(struct boot **out, char *err, size_t errlen) {
    struct boot *b = calloc(1, sizeof *b);
    struct boot_pmix *p = calloc(1, sizeof *p);
    pmix_proc_t wild;
    uint32_t size, lrank, lsize;
    pmix_status_t prc;
    int rc;

    if (!b || !p) {
        rc = boot_fail(err, errlen, BOOT_ERR_NOMEM, "bootstrap: out of memory");
        goto err_free;
    }
    prc = PMIx_Init(&p->me, NULL, 0);
    if (prc != PMIX_SUCCESS) {
        rc = pmix_fail(err, errlen, "PMIx_Init", prc);
        goto err_free;
    }
    PMIX_LOAD_PROCID(&wild, p->me.nspace, PMIX_RANK_WILDCARD);
    if ((rc = get_u32(&wild, PMIX_JOB_SIZE, &size, err, errlen)) ||
        (rc = get_u32(&p->me, PMIX_LOCAL_RANK, &lrank, err, errlen)) ||
        (rc = get_u32(&wild, PMIX_LOCAL_SIZE, &lsize, err, errlen)))
        goto err_fini;
    if (size == 0 || size > INT32_MAX || p->me.rank >= size || lsize == 0 || lrank >= lsize) {
        rc = boot_fail(err, errlen, BOOT_ERR_PMIX,
                       "bootstrap: PMIx gave rank %u of %u, local rank %u of %u", p->me.rank, size,
                       lrank, lsize);
        goto err_fini;
    }

    b->name = "pmix";
    b->rank = (int)p->me.rank;
    b->size = (int)size;
    b->local_rank = (int)lrank;
    b->local_size = (int)lsize;
    b->allgather = pmix_allgather;
    b->barrier = pmix_barrier;
    b->abort = pmix_abort;
    b->finalize = pmix_finalize;
    b->impl = p;
    *out = b;
    return BOOT_OK;

err_fini:
    PMIx_Finalize(NULL, 0);
err_free:
    free(p);
    free(b);
    return rc;
}

#else /* !BOOT_HAVE_PMIX */

int boot_pmix_open(struct boot **out, char *err, size_t errlen) {
    (void)out;
    return boot_fail(err, errlen, BOOT_ERR_UNSUPPORTED,
                     "bootstrap: started by a PMIx launcher (PMIX_RANK is set) but this library "
                     "was not built with PMIx (configure with SHMEM_WITH_PMIX=ON and libpmix "
                     "installed, or start the program with oshrun)");
}

#endif
