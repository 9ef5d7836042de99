/* The library's threads as /proc/self/task shows them: their names and
 * context-switch counters (shared by the tests that count wakeups). */
#ifndef FUNC_TASKS_H
#define FUNC_TASKS_H

#include "check.h"

#include <dirent.h>

#define MAXT 64

struct task {
    long tid;
    long vol, invol;
    char name[32];
};

/* Read a task's name and switch counters; 0 on success. */
static int read_task(long tid, struct task *t) {
    char path[96], line[256];
    snprintf(path, sizeof(path), "/proc/self/task/%ld/status", tid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    t->tid = tid;
    t->vol = t->invol = -1;
    t->name[0] = '\0';
    while (fgets(line, sizeof(line), f)) {
        if (!strncmp(line, "Name:", 5))
            sscanf(line + 5, " %31s", t->name);
        else if (!strncmp(line, "voluntary_ctxt_switches:", 24))
            t->vol = atol(line + 24);
        else if (!strncmp(line, "nonvoluntary_ctxt_switches:", 27))
            t->invol = atol(line + 27);
    }
    fclose(f);
    return t->vol < 0 || t->invol < 0 ? -1 : 0;
}

/* Threads of the GPU runtime, which any program that uses the GPU has, with
 * or without this library: CUDA's event handler (cuda-EvtHandlr) wakes ten
 * times a second from the context's creation on. */
static int runtime_task(const char *name) { return !strncmp(name, "cuda", 4); }

/* Every thread but main_tid (the program's) and the GPU runtime's: the
 * library's threads. */
static int library_tasks(long main_tid, struct task *t) {
    DIR *d = opendir("/proc/self/task");
    CHECK(d != NULL, "opendir /proc/self/task");
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < MAXT) {
        long tid = atol(e->d_name);
        if (tid <= 0 || tid == main_tid)
            continue;
        if (!read_task(tid, &t[n]) && !runtime_task(t[n].name))
            n++;
    }
    closedir(d);
    return n;
}

#endif /* FUNC_TASKS_H */
