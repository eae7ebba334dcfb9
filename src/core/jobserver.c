/*
 * GNU make's jobserver, client side: take free tokens without waiting,
 * give them back at exit or on a fatal signal.
 */
#define _GNU_SOURCE
#include "core/jobserver.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { MAX_TOKENS = 1024 };

static char tokens[MAX_TOKENS]; /* the bytes read, written back as they were */
static volatile sig_atomic_t held;
static int back_fd = -1; /* where tokens go back */
static bool taken_once;

int pf_jobserver_parse(const char *makeflags, int *rfd, int *wfd, char *fifo, size_t cap)
{
    static const char *const keys[] = {"--jobserver-auth=", "--jobserver-fds="};
    const char *last = NULL;
    if (!makeflags) return 0;
    /* MAKEFLAGS' words; the options follow a first word of single letters */
    for (const char *p = makeflags; *p;) {
        while (*p == ' ') p++;
        for (size_t k = 0; k < 2; k++)
            if (!strncmp(p, keys[k], strlen(keys[k]))) last = p + strlen(keys[k]);
        while (*p && *p != ' ') p++;
    }
    if (!last) return 0;
    size_t len = strcspn(last, " ");
    if (!strncmp(last, "fifo:", 5)) {
        if (len <= 5 || len - 5 >= cap) return -1;
        memcpy(fifo, last + 5, len - 5);
        fifo[len - 5] = 0;
        return 2;
    }
    int r, w, n = 0;
    if (sscanf(last, "%d,%d%n", &r, &w, &n) != 2 || (size_t)n != len || r < 0 || w < 0) return -1;
    *rfd = r, *wfd = w;
    return 1;
}

int pf_jobserver_held(void)
{
    return (int)held;
}

void pf_jobserver_release(void)
{
    int n = (int)held;
    held = 0;
    for (int off = 0; off < n && back_fd >= 0;) {
        ssize_t w = write(back_fd, tokens + off, (size_t)(n - off));
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) break;
        off += (int)w;
    }
}

static void on_exit_release(void)
{
    pf_jobserver_release();
}

static void on_signal(int sig)
{
    int saved = errno;
    pf_jobserver_release();
    signal(sig, SIG_DFL);
    raise(sig);
    errno = saved;
}

/* A pipe end open in the access mode acc; its inode in *ino. */
static bool pipe_end(int fd, int acc, struct stat *st)
{
    int fl = fcntl(fd, F_GETFL);
    return fl >= 0 && (fl & O_ACCMODE) == acc && fstat(fd, st) == 0 && S_ISFIFO(st->st_mode);
}

int pf_jobserver_take(int want, char *why, size_t cap)
{
    int rfd = -1, wfd = -1;
    char fifo[4096];
    if (cap) why[0] = 0;
    if (taken_once || want <= 0) return 0;
    taken_once = true;
    const char *mf = getenv("MAKEFLAGS");
    int kind = pf_jobserver_parse(mf, &rfd, &wfd, fifo, sizeof fifo);
    if (kind == 0) return 0;
    if (kind < 0) {
        snprintf(why, cap, "MAKEFLAGS names a jobserver in a form not understood: '%s'", mf);
        return -1;
    }
    int rd;
    if (kind == 1) {
        struct stat rs, ws;
        if (!pipe_end(rfd, O_RDONLY, &rs) || !pipe_end(wfd, O_WRONLY, &ws) || rs.st_ino != ws.st_ino ||
            rs.st_dev != ws.st_dev)
        {
            snprintf(why, cap,
                     "MAKEFLAGS names make's jobserver (fds %d,%d), but this process did not inherit it: "
                     "make passes it only to a recipe marked '+'",
                     rfd, wfd);
            return -1;
        }
        char path[64];
        snprintf(path, sizeof path, "/proc/self/fd/%d", rfd);
        rd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC); /* a description of our own */
        if (rd < 0) {
            snprintf(why, cap, "cannot open make's jobserver through %s: %s", path, strerror(errno));
            return -1;
        }
        back_fd = wfd;
    } else {
        rd = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        if (rd >= 0) back_fd = open(fifo, O_WRONLY | O_CLOEXEC);
        if (rd < 0 || back_fd < 0) {
            int e = errno;
            if (rd >= 0) close(rd);
            snprintf(why, cap, "cannot open make's jobserver fifo %s: %s", fifo, strerror(e));
            return -1;
        }
    }
    if (want > MAX_TOKENS) want = MAX_TOKENS;
    /* the handlers first: a signal between a read and the count's update loses nothing */
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL};
    atexit(on_exit_release);
    for (size_t k = 0; k < sizeof sigs / sizeof sigs[0]; k++) {
        struct sigaction sa = {.sa_handler = on_signal}, old;
        sigemptyset(&sa.sa_mask);
        if (sigaction(sigs[k], NULL, &old) == 0 && old.sa_handler == SIG_DFL) sigaction(sigs[k], &sa, NULL);
    }
    sigset_t all, prev;
    sigfillset(&all);
    while ((int)held < want) {
        char c;
        sigprocmask(SIG_BLOCK, &all, &prev);
        ssize_t r = read(rd, &c, 1);
        if (r == 1) tokens[held] = c, held = held + 1;
        sigprocmask(SIG_SETMASK, &prev, NULL);
        if (r == 1) continue;
        if (r < 0 && errno == EINTR) continue;
        break; /* EAGAIN: no free slot now; 0: make has gone */
    }
    close(rd);
    return (int)held;
}
