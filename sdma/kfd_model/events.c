/* The KFD model: events, and how a GPU VM fault reaches the process.
 *
 * As KFD does it (Linux amdkfd/kfd_int_process_v9.c event_interrupt_wq_v9 on a VM fault:
 * kfd_dqm_evict_pasid, then kfd_events.c kfd_signal_vm_fault_event): the process's queues on
 * the faulting GPU stop, and every HSA_EVENTTYPE_MEMORY event of the process is set with
 * the fault's data (the GPU, the page address, NotPresent), which libhsakmt hands back in
 * HsaEvent.EventData.EventData.MemoryAccessFault when a wait returns (src/events.c). ROCr
 * reports it from there: "Memory access fault by GPU node-%u ... on address %p%s. Reason:
 * %s." (runtime.cpp). Without such an event nobody in the process hears of it: the queue just
 * stops. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sdma/kfd_model/model.h"

/* Called by the engine thread (kfdm.q_lock held). */
void kfdm_vm_fault(HSAuint32 node, uint64_t addr, int atomic) {
    struct kfdm_queue *q;
    struct kfdm_event *ev;
    HsaMemoryAccessFault f;
    memset(&f, 0, sizeof f);
    f.NodeId = node;
    f.VirtualAddress = atomic ? addr : addr & ~(KFDM_PAGE - 1);
    f.Failure.NotPresent = atomic ? 0 : 1;
    f.Failure.Imprecise = atomic ? 1 : 0;
    f.Flags = HSA_EVENTID_MEMORY_FATAL_PROCESS;
    for (q = kfdm.queues; q; q = q->next)
        if (q->node == node)
            kfdm_stop_queue(q, "evicted after a GPU VM fault at 0x%llx on node %u%s",
                            (unsigned long long)f.VirtualAddress, (unsigned)node,
                            atomic ? " (a PCIe atomic the link lacks)" : "");
    pthread_mutex_lock(&kfdm.lock);
    kfdm.stats.faults++;
    for (ev = kfdm.events; ev; ev = ev->next)
        if (ev->pub.EventData.EventType == HSA_EVENTTYPE_MEMORY) {
            ev->fault = f;
            ev->signaled = 1;
        }
    pthread_cond_broadcast(&kfdm.ev_cond);
    pthread_mutex_unlock(&kfdm.lock);
    if (getenv("KFD_MODEL_VERBOSE"))
        fprintf(stderr, "kfd-model: GPU VM fault on node %u at 0x%llx\n", (unsigned)node,
                (unsigned long long)addr);
}

HSAKMT_STATUS HSAKMTAPI hsaKmtCreateEvent(HsaEventDescriptor *desc, bool manual, bool signaled,
                                          HsaEvent **out) {
    static HSA_EVENTID next_id = 1;
    struct kfdm_event *ev;
    KFDM_CHECK_OPEN();
    if (!desc || !out)
        return HSAKMT_STATUS_INVALID_PARAMETER;
    if (desc->EventType != HSA_EVENTTYPE_MEMORY && desc->EventType != HSA_EVENTTYPE_SIGNAL)
        return HSAKMT_STATUS_NOT_SUPPORTED;
    ev = calloc(1, sizeof *ev);
    if (!ev)
        return HSAKMT_STATUS_NO_MEMORY;
    ev->manual = manual;
    ev->signaled = signaled;
    ev->pub.EventData.EventType = desc->EventType;
    pthread_mutex_lock(&kfdm.lock);
    if (desc->EventType == HSA_EVENTTYPE_MEMORY && !kfdm_valid_node(desc->NodeId)) {
        pthread_mutex_unlock(&kfdm.lock);
        free(ev);
        return HSAKMT_STATUS_INVALID_NODE_UNIT;
    }
    ev->pub.EventId = next_id++;
    ev->next = kfdm.events;
    kfdm.events = ev;
    pthread_mutex_unlock(&kfdm.lock);
    *out = &ev->pub;
    return HSAKMT_STATUS_SUCCESS;
}

static struct kfdm_event *find(HsaEvent *e) {
    struct kfdm_event *ev;
    for (ev = kfdm.events; ev; ev = ev->next)
        if (&ev->pub == e)
            return ev;
    return NULL;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtDestroyEvent(HsaEvent *e) {
    struct kfdm_event **pp, *ev = NULL;
    KFDM_CHECK_OPEN();
    pthread_mutex_lock(&kfdm.lock);
    for (pp = &kfdm.events; *pp; pp = &(*pp)->next)
        if (&(*pp)->pub == e) {
            ev = *pp;
            *pp = ev->next;
            break;
        }
    pthread_mutex_unlock(&kfdm.lock);
    if (!ev)
        return HSAKMT_STATUS_INVALID_HANDLE;
    free(ev);
    return HSAKMT_STATUS_SUCCESS;
}

static HSAKMT_STATUS set(HsaEvent *e, int on) {
    struct kfdm_event *ev;
    KFDM_CHECK_OPEN();
    pthread_mutex_lock(&kfdm.lock);
    ev = find(e);
    if (ev) {
        ev->signaled = on;
        pthread_cond_broadcast(&kfdm.ev_cond);
    }
    pthread_mutex_unlock(&kfdm.lock);
    return ev ? HSAKMT_STATUS_SUCCESS : HSAKMT_STATUS_INVALID_HANDLE;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtSetEvent(HsaEvent *e) { return set(e, 1); }

HSAKMT_STATUS HSAKMTAPI hsaKmtResetEvent(HsaEvent *e) { return set(e, 0); }

HSAKMT_STATUS HSAKMTAPI hsaKmtWaitOnEvent(HsaEvent *e, HSAuint32 ms) {
    struct kfdm_event *ev;
    struct timespec until;
    HSAKMT_STATUS st = HSAKMT_STATUS_SUCCESS;
    KFDM_CHECK_OPEN();
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += ms / 1000;
    until.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&kfdm.lock);
    ev = find(e);
    if (!ev) {
        pthread_mutex_unlock(&kfdm.lock);
        return HSAKMT_STATUS_INVALID_HANDLE;
    }
    while (!ev->signaled && st == HSAKMT_STATUS_SUCCESS) {
        if (ms == 0)
            st = HSAKMT_STATUS_WAIT_TIMEOUT;
        else if (ms == HSA_EVENTTIMEOUT_INFINITE)
            pthread_cond_wait(&kfdm.ev_cond, &kfdm.lock);
        else if (pthread_cond_timedwait(&kfdm.ev_cond, &kfdm.lock, &until) == ETIMEDOUT)
            st = ev->signaled ? HSAKMT_STATUS_SUCCESS : HSAKMT_STATUS_WAIT_TIMEOUT;
    }
    if (st == HSAKMT_STATUS_SUCCESS) {
        if (ev->pub.EventData.EventType == HSA_EVENTTYPE_MEMORY)
            ev->pub.EventData.EventData.MemoryAccessFault = ev->fault;
        if (!ev->manual)
            ev->signaled = 0;
    }
    pthread_mutex_unlock(&kfdm.lock);
    return st;
}
