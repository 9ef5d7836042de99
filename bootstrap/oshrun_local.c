/* oshrun's built-in launcher: on one host it forks the PEs itself (no
 * daemons) and serves their bootstrap requests over one Unix socket pair per
 * PE (launch_proto.h).
 *
 * Job rules: the exit status is the first failing PE's (exit code, 128+signal
 * for a PE killed by a signal, the status of an abort); after the first
 * failure every other PE gets SIGTERM, then SIGKILL 300 ms later; SIGINT,
 * SIGTERM and SIGHUP are forwarded the same way; PEs die with oshrun
 * (PR_SET_PDEATHSIG) so none is orphaned.
 */
#include "bootstrap/launch_proto.h"
#include "bootstrap/oshrun.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* After the first failure: SIGTERM, then SIGKILL this much later. */
#define KILL_GRACE_MS 300
/* After SIGKILL, stop waiting for PEs that still have not been reaped. */
#define REAP_GIVE_UP_MS 5000
/* A PE whose connection closed without FINALIZE, while others wait in a
 * collective, gets this long to be reaped (its exit status says more) before
 * the job is aborted in its name. */
#define STRANDED_GRACE_MS 500
/* Bound on sending one answer to a PE (it is waiting for it). */
#define SEND_TIMEOUT_MS 10000

struct pe {
    int rank;
    pid_t pid;
    int fd; /* -1 once closed */
    struct boot_proto_rx rx;
    int hello, finalized, reaped, in_coll;
    int64_t closed_at;      /* when the connection closed without FINALIZE; -1 if not */
    unsigned char *contrib; /* allgather contribution */
};

struct job {
    int np;
    struct pe *pes;
    int sigfd;
    int alive;          /* PEs not reaped yet */
    int ending;         /* a failure or signal is ending the job */
    int status;         /* exit status of oshrun */
    int aborter;        /* rank that sent ABORT, or -1 */
    int64_t deadline;   /* --timeout, or -1 */
    int64_t kill_at;    /* when to send SIGKILL, or -1 */
    int64_t give_up_at; /* when to stop waiting for PEs, or -1 */
    double timeout_s;
    /* The collective in progress: coll_count PEs have entered it. */
    int coll_count, coll_type, coll_first;
    uint32_t coll_len;
};

static int64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Check that execvp() can find and run prog; print why not. */
static int check_program(const char *prog) {
    struct stat st;

    if (strchr(prog, '/')) {
        if (stat(prog, &st) != 0) {
            oshrun_msg("cannot run '%s': %s", prog, strerror(errno));
            return -1;
        }
        if (S_ISDIR(st.st_mode) || access(prog, X_OK) != 0) {
            oshrun_msg("cannot run '%s': %s", prog,
                       S_ISDIR(st.st_mode) ? "is a directory" : strerror(errno));
            return -1;
        }
        return 0;
    }
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/bin:/usr/bin";
    char *copy = strdup(path), *save = NULL, *dir;
    char buf[PATH_MAX];
    int found = 0;
    for (dir = strtok_r(copy, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
        snprintf(buf, sizeof buf, "%s/%s", *dir ? dir : ".", prog);
        if (stat(buf, &st) == 0 && S_ISREG(st.st_mode) && access(buf, X_OK) == 0)
            found = 1;
    }
    free(copy);
    if (!found)
        oshrun_msg("cannot find program '%s' in PATH", prog);
    return found ? 0 : -1;
}

static int count_alive(const struct job *j) { return j->alive; }

/* "PE" or "PEs" after a count. */
static const char *pes(int n) { return n == 1 ? "PE" : "PEs"; }

/* Signal every PE that is still running (except the one that aborted the
 * job: it exits by itself once its connection closes). */
static void signal_pes(struct job *j, int sig, int include_aborter) {
    for (int r = 0; r < j->np; r++) {
        struct pe *p = &j->pes[r];
        if (p->pid > 0 && !p->reaped && (include_aborter || r != j->aborter))
            kill(p->pid, sig);
    }
}

static void close_pe(struct pe *p) {
    if (p->fd >= 0) {
        close(p->fd);
        p->fd = -1;
    }
    boot_proto_rx_fini(&p->rx);
}

/* The first failure decides the exit status and ends the job; later ones
 * are consequences and stay quiet. */
static void job_fail(struct job *j, int status, int sig, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void job_fail(struct job *j, int status, int sig, const char *fmt, ...) {
    char line[1024];
    va_list ap;

    if (j->ending)
        return;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    oshrun_msg("%s", line);
    j->ending = 1;
    j->status = status;
    signal_pes(j, sig, 0);
    j->kill_at = now_ms() + KILL_GRACE_MS;
    j->give_up_at = j->kill_at + REAP_GIVE_UP_MS;
}

/* "an allgather", "a barrier": the collective a PE waits in, for messages. */
static const char *coll_name(unsigned type) {
    switch (type) {
    case BOOT_MSG_ALLGATHER: return "an allgather";
    case BOOT_MSG_BARRIER: return "a barrier";
    default: return boot_msg_type_name(type);
    }
}

static void coll_reset(struct job *j) {
    for (int r = 0; r < j->np; r++) {
        j->pes[r].in_coll = 0;
        free(j->pes[r].contrib);
        j->pes[r].contrib = NULL;
    }
    j->coll_count = 0;
}

/* Every PE has entered: answer all of them. */
static void coll_complete(struct job *j) {
    unsigned char *all = NULL;
    uint64_t total = (uint64_t)j->coll_len * (uint64_t)j->np;

    if (j->coll_type == BOOT_MSG_ALLGATHER) {
        if (total > BOOT_PROTO_MAX_LEN) {
            job_fail(j, 1, SIGTERM, "allgather of %u bytes from %d PEs is above the %u-byte limit",
                     j->coll_len, j->np, BOOT_PROTO_MAX_LEN);
            return;
        }
        all = malloc(total ? total : 1);
        if (!all) {
            job_fail(j, 1, SIGTERM, "out of memory for an allgather of %llu bytes",
                     (unsigned long long)total);
            return;
        }
        for (int r = 0; r < j->np; r++)
            if (j->coll_len)
                memcpy(all + (size_t)r * j->coll_len, j->pes[r].contrib, j->coll_len);
    } else {
        total = 0;
    }
    for (int r = 0; r < j->np; r++) {
        struct pe *p = &j->pes[r];
        if (p->fd < 0)
            continue;
        /* A PE that cannot take its answer has died or is stuck; its exit or
         * the closed connection is reported by the loop. */
        if (boot_proto_send(p->fd, (uint16_t)j->coll_type, 0, all, (uint32_t)total,
                            SEND_TIMEOUT_MS) == BOOT_PROTO_ERR_TIMEOUT)
            job_fail(j, 1, SIGTERM, "PE %d (pid %d) did not take its %s answer within %d s", r,
                     (int)p->pid, boot_msg_type_name((unsigned)j->coll_type),
                     SEND_TIMEOUT_MS / 1000);
    }
    free(all);
    coll_reset(j);
}

static void handle_msg(struct job *j, struct pe *p, const struct boot_msg_hdr *h,
                       unsigned char **payload) {
    if (j->ending)
        return;
    switch (h->type) {
    case BOOT_MSG_HELLO:
        if (p->hello || h->arg != (uint32_t)p->rank)
            job_fail(j, 1, SIGTERM, "PE %d (pid %d) sent a wrong hello (rank %u)", p->rank,
                     (int)p->pid, h->arg);
        p->hello = 1;
        return;
    case BOOT_MSG_ALLGATHER:
    case BOOT_MSG_BARRIER:
        if (p->in_coll || p->finalized) {
            job_fail(j, 1, SIGTERM, "PE %d (pid %d) entered %s %s", p->rank, (int)p->pid,
                     coll_name(h->type), p->finalized ? "after finalizing" : "twice");
            return;
        }
        if (j->coll_count == 0) {
            j->coll_type = h->type;
            j->coll_len = h->len;
            j->coll_first = p->rank;
        } else if (h->type != j->coll_type) {
            job_fail(j, 1, SIGTERM, "PE %d (pid %d) entered %s while PE %d is in %s", p->rank,
                     (int)p->pid, coll_name(h->type), j->coll_first,
                     coll_name((unsigned)j->coll_type));
            return;
        } else if (h->len != j->coll_len) {
            job_fail(j, 1, SIGTERM,
                     "PE %d (pid %d) gave %u bytes to an allgather where PE %d gave %u", p->rank,
                     (int)p->pid, h->len, j->coll_first, j->coll_len);
            return;
        }
        p->in_coll = 1;
        p->contrib = *payload;
        *payload = NULL;
        if (++j->coll_count == j->np)
            coll_complete(j);
        return;
    case BOOT_MSG_ABORT: {
        int status = (int)h->arg;
        j->aborter = p->rank;
        job_fail(j, boot_exit_code(status), SIGTERM, "PE %d aborted the job with status %d",
                 p->rank, status);
        /* Closing its connection lets the aborting PE exit with the status. */
        close_pe(p);
        return;
    }
    case BOOT_MSG_FINALIZE:
        if (p->in_coll)
            job_fail(j, 1, SIGTERM, "PE %d (pid %d) finalized inside %s", p->rank, (int)p->pid,
                     coll_name((unsigned)j->coll_type));
        p->finalized = 1;
        return;
    default:
        job_fail(j, 1, SIGTERM, "PE %d (pid %d) sent an unknown message (type %u)", p->rank,
                 (int)p->pid, h->type);
    }
}

/* Read whatever the PE has sent. */
static void pe_read(struct job *j, struct pe *p) {
    while (p->fd >= 0) {
        int rc = boot_proto_rx_step(&p->rx, p->fd, BOOT_PROTO_MAX_LEN);
        if (rc == 0)
            return;
        if (rc == 1) {
            handle_msg(j, p, &p->rx.hdr, &p->rx.payload);
            continue;
        }
        /* Connection over. A clean close after FINALIZE is the normal end;
         * otherwise the PE's exit status (reaped soon) normally explains it,
         * and the stranded-collective check covers the rest. */
        if ((rc == BOOT_PROTO_ERR_BADHDR || rc == BOOT_PROTO_ERR_TOOBIG) && !j->ending)
            job_fail(j, 1, SIGTERM, "PE %d (pid %d) sent a bad message: %s", p->rank, (int)p->pid,
                     boot_proto_strerror(rc));
        if (!p->finalized)
            p->closed_at = now_ms();
        close_pe(p);
    }
}

static void pe_reaped(struct job *j, struct pe *p, int wstatus) {
    p->reaped = 1;
    j->alive--;
    /* Messages it sent before exiting (an ABORT) come first. */
    pe_read(j, p);
    if (p->fd >= 0) {
        /* Still open: a child of the PE holds it. The PE is gone, so is its
         * connection. */
        if (!p->finalized)
            p->closed_at = now_ms();
        close_pe(p);
    }
    if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) != 0) {
        job_fail(j, WEXITSTATUS(wstatus), SIGTERM, "PE %d (pid %d) exited with status %d", p->rank,
                 (int)p->pid, WEXITSTATUS(wstatus));
    } else if (WIFSIGNALED(wstatus)) {
        int sig = WTERMSIG(wstatus);
        job_fail(j, 128 + sig, SIGTERM, "PE %d (pid %d) was killed by signal %d (%s)", p->rank,
                 (int)p->pid, sig, strsignal(sig));
    } else if (p->hello && !p->finalized && j->coll_count == 0) {
        /* Status 0 without finalizing (a PE in a collective is reported by
         * the stranded check): the PEs still running would wait for it. */
        int running = 0;
        for (int r = 0; r < j->np; r++)
            running += !j->pes[r].reaped && !j->pes[r].finalized;
        if (running)
            job_fail(j, 1, SIGTERM,
                     "PE %d (pid %d) exited without finalizing while %d other %s still %s", p->rank,
                     (int)p->pid, running, pes(running), running == 1 ? "runs" : "run");
    }
}

static void reap_children(struct job *j) {
    for (;;) {
        int ws;
        pid_t pid = waitpid(-1, &ws, WNOHANG);
        if (pid <= 0)
            return;
        for (int r = 0; r < j->np; r++)
            if (j->pes[r].pid == pid && !j->pes[r].reaped) {
                pe_reaped(j, &j->pes[r], ws);
                break;
            }
    }
}

static void handle_signals(struct job *j) {
    struct signalfd_siginfo si;
    while (read(j->sigfd, &si, sizeof si) == (ssize_t)sizeof si) {
        int sig = (int)si.ssi_signo;
        if (sig == SIGCHLD) {
            reap_children(j);
        } else if (!j->ending) {
            job_fail(j, 128 + sig, sig, "received signal %d (%s), ending %d %s", sig,
                     strsignal(sig), count_alive(j), pes(count_alive(j)));
        } else {
            /* Asked again: no more grace. */
            signal_pes(j, SIGKILL, 1);
            j->kill_at = -1;
        }
    }
}

/* A collective cannot complete if a PE that has not entered it can no
 * longer do so. */
static int64_t check_stranded(struct job *j, int64_t now) {
    int64_t next = -1;

    if (j->ending || j->coll_count == 0)
        return -1;
    const char *what = coll_name((unsigned)j->coll_type);
    for (int r = 0; r < j->np; r++) {
        struct pe *p = &j->pes[r];
        if (p->in_coll)
            continue;
        if (p->finalized) {
            job_fail(j, 1, SIGTERM, "PE %d (pid %d) finalized while PE %d waits in %s", r,
                     (int)p->pid, j->coll_first, what);
            return -1;
        }
        if (p->closed_at >= 0) {
            if (p->reaped || now >= p->closed_at + STRANDED_GRACE_MS) {
                job_fail(j, 1, SIGTERM,
                         "PE %d (pid %d) %s without finalizing while PE %d waits in %s", r,
                         (int)p->pid, p->reaped ? "exited" : "closed its connection to oshrun",
                         j->coll_first, what);
                return -1;
            }
            int64_t t = p->closed_at + STRANDED_GRACE_MS;
            if (next < 0 || t < next)
                next = t;
        }
    }
    return next;
}

static int64_t earliest(int64_t a, int64_t b) {
    if (a < 0)
        return b;
    if (b < 0)
        return a;
    return a < b ? a : b;
}

static void event_loop(struct job *j) {
    struct pollfd *pfd = calloc((size_t)j->np + 1, sizeof *pfd);
    int *who = calloc((size_t)j->np + 1, sizeof *who);

    if (!pfd || !who) {
        job_fail(j, 1, SIGKILL, "out of memory");
        j->kill_at = now_ms();
    }
    while (j->alive > 0) {
        int64_t now = now_ms();

        if (j->deadline >= 0 && now >= j->deadline && !j->ending) {
            job_fail(j, EXIT_TIMEOUT, SIGTERM, "timeout after %g s, ending %d %s", j->timeout_s,
                     count_alive(j), pes(count_alive(j)));
            j->deadline = -1;
        }
        if (j->kill_at >= 0 && now >= j->kill_at) {
            signal_pes(j, SIGKILL, 1);
            j->kill_at = -1;
        }
        if (j->give_up_at >= 0 && now >= j->give_up_at) {
            oshrun_msg("%d %s still running after SIGKILL; not waiting for them", j->alive,
                       pes(j->alive));
            break;
        }
        int64_t wake = check_stranded(j, now);
        if (!pfd || !who) {
            /* Out of memory: wait for the children without serving them. */
            usleep(10000);
            reap_children(j);
            continue;
        }
        wake = earliest(wake, j->ending ? -1 : j->deadline);
        wake = earliest(wake, j->kill_at);
        wake = earliest(wake, j->give_up_at);

        int n = 0;
        pfd[n].fd = j->sigfd;
        pfd[n].events = POLLIN;
        who[n++] = -1;
        for (int r = 0; r < j->np; r++) {
            if (j->pes[r].fd < 0)
                continue;
            pfd[n].fd = j->pes[r].fd;
            pfd[n].events = POLLIN;
            who[n++] = r;
        }
        int t = wake < 0 ? -1 : (int)(wake > now ? wake - now : 0);
        int ready = poll(pfd, (nfds_t)n, t);
        if (ready < 0 && errno != EINTR) {
            job_fail(j, 1, SIGKILL, "poll failed: %s", strerror(errno));
            j->kill_at = now_ms();
            continue;
        }
        if (ready <= 0)
            continue;
        /* PE messages first: an ABORT sent just before exiting must be seen
         * before that exit. */
        for (int k = 1; k < n; k++)
            if (pfd[k].revents)
                pe_read(j, &j->pes[who[k]]);
        if (pfd[0].revents)
            handle_signals(j);
    }
    free(pfd);
    free(who);
}

/* In the child, between fork and exec. Never returns. */
static void start_pe(const struct opts *o, int rank, int fd, pid_t parent,
                     const sigset_t *orig_mask) {
    char num[32];

    /* Die with oshrun; if it already died, do not start at all. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(1);
    sigprocmask(SIG_SETMASK, orig_mask, NULL);

    /* Our end of the connection survives exec; every other one is CLOEXEC. */
    if (fcntl(fd, F_SETFD, 0) != 0)
        _exit(1);
    snprintf(num, sizeof num, "%d", fd);
    setenv(BOOT_ENV_FD, num, 1);
    snprintf(num, sizeof num, "%d", rank);
    setenv(BOOT_ENV_RANK, num, 1);
    snprintf(num, sizeof num, "%d", o->np);
    setenv(BOOT_ENV_SIZE, num, 1);
    for (int k = 0; k < o->nx; k++) {
        /* -x VAR alone passes this environment's value on: nothing to do. */
        const char *eq = strchr(o->xvars[k], '=');
        if (eq) {
            char *name = strndup(o->xvars[k], (size_t)(eq - o->xvars[k]));
            if (name)
                setenv(name, eq + 1, 1);
            free(name);
        }
    }
    for (size_t k = 0; k < oshrun_n_default_env; k++)
        setenv(oshrun_default_env[k][0], oshrun_default_env[k][1], 0);

    execvp(o->prog_argv[0], o->prog_argv);
    fprintf(stderr, "oshrun: PE %d: cannot run '%s': %s\n", rank, o->prog_argv[0], strerror(errno));
    _exit(EXIT_NOT_FOUND);
}

static void raise_fd_limit(int need) {
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < (rlim_t)need + 64) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
}

int oshrun_run_local(const struct opts *o) {
    struct job j;
    sigset_t mask, orig;
    pid_t self = getpid();
    int *child_fd = NULL;

    if (check_program(o->prog_argv[0]))
        return EXIT_NOT_FOUND;

    memset(&j, 0, sizeof j);
    j.np = o->np;
    j.status = 1; /* until the job has run */
    j.sigfd = -1;
    j.aborter = -1;
    j.kill_at = j.give_up_at = -1;
    j.timeout_s = o->timeout_s;
    j.pes = calloc((size_t)o->np, sizeof *j.pes);
    child_fd = calloc((size_t)o->np, sizeof *child_fd);
    if (!j.pes || !child_fd) {
        oshrun_msg("out of memory for %d PEs", o->np);
        goto out;
    }
    for (int r = 0; r < o->np; r++) {
        j.pes[r].rank = r;
        j.pes[r].fd = child_fd[r] = -1;
        j.pes[r].closed_at = -1;
        boot_proto_rx_init(&j.pes[r].rx);
    }
    raise_fd_limit(2 * o->np);

    /* Signals are read from a signalfd in the loop; the PEs get the original
     * mask back before exec. */
    sigemptyset(&mask);
    sigaddset(&mask, SIGCHLD);
    sigaddset(&mask, SIGINT);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGHUP);
    sigprocmask(SIG_BLOCK, &mask, &orig);
    j.sigfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
    if (j.sigfd < 0) {
        oshrun_msg("signalfd failed: %s", strerror(errno));
        goto out;
    }

    for (int r = 0; r < o->np; r++) {
        int sv[2];
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
            oshrun_msg("cannot create the connection for PE %d: %s%s", r, strerror(errno),
                       errno == EMFILE ? " (raise the open-files limit: ulimit -n)" : "");
            goto out;
        }
        fcntl(sv[0], F_SETFL, O_NONBLOCK);
        j.pes[r].fd = sv[0];
        child_fd[r] = sv[1];
    }

    fflush(NULL);
    j.status = 0;
    for (int r = 0; r < o->np; r++) {
        pid_t pid = fork();
        if (pid == 0)
            start_pe(o, r, child_fd[r], self, &orig);
        if (pid < 0) {
            /* End the PEs already started. */
            j.np = r;
            job_fail(&j, 1, SIGKILL, "cannot start PE %d: %s", r, strerror(errno));
            break;
        }
        j.pes[r].pid = pid;
        j.alive++;
        close(child_fd[r]);
        child_fd[r] = -1;
    }

    j.deadline = o->timeout_s > 0 ? now_ms() + (int64_t)(o->timeout_s * 1000.0) : -1;
    event_loop(&j);

out:
    for (int r = 0; j.pes && child_fd && r < o->np; r++) {
        if (child_fd[r] >= 0)
            close(child_fd[r]);
        close_pe(&j.pes[r]);
        free(j.pes[r].contrib);
    }
    free(child_fd);
    free(j.pes);
    if (j.sigfd >= 0)
        close(j.sigfd);
    return j.status;
}
