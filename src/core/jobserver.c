/*
 * GNU make's jobserver, client side: take free tokens without waiting,
 * give them back at exit or on a fatal signal; lend the recipe's own slot
 * while waiting.
 */
#define _GNU_SOURCE
#include "core/jobserver.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
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
static volatile sig_atomic_t released; /* pf_jobserver_release ran: no more takes */
static volatile sig_atomic_t lent;     /* a token written by pf_jobserver_lend, not yet taken back */
static int read_fd = -1;                /* our own O_NONBLOCK description of make's read end */
static int back_fd = -1;                /* where tokens go back */
static enum { UNOPENED, OPEN, NONE, UNUSABLE } state;
static char unusable[512];              /* why, for every later take */

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

/* Write tokens[from, from + n) back (async-signal-safe). */
static void write_back(int from, int n)
{
    for (int off = 0; off < n && back_fd >= 0;) {
        ssize_t w = write(back_fd, tokens + from + off, (size_t)(n - off));
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) break;
        off += (int)w;
    }
}

void pf_jobserver_release(void)
{
    int n = (int)held;
    released = 1;
    held = 0;
    write_back(0, n);
    if (lent && read_fd >= 0) { /* the lent one back if one is free now (non-blocking read) */
        char c;
        if (read(read_fd, &c, 1) == 1) lent = 0;
    }
}

int pf_jobserver_give(int n)
{
    sigset_t all, prev;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, &prev); /* a fatal signal's handler sees the count after the write */
    int h = (int)held;
    if (n > h) n = h;
    if (n > 0) {
        write_back(h - n, n);
        held = h - n;
    }
    sigprocmask(SIG_SETMASK, &prev, NULL);
    return (int)held;
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

/* Open $MAKEFLAGS's jobserver once: read_fd and back_fd, the handlers
 * that give the tokens back; state says how it went. */
static void open_jobserver(void)
{
    int rfd = -1, wfd = -1;
    char fifo[4096];
    const char *mf = getenv("MAKEFLAGS");
    int kind = pf_jobserver_parse(mf, &rfd, &wfd, fifo, sizeof fifo);
    state = UNUSABLE;
    if (kind == 0) {
        state = NONE;
        return;
    }
    if (kind < 0) {
        snprintf(unusable, sizeof unusable, "MAKEFLAGS names a jobserver in a form not understood: '%s'", mf);
        return;
    }
    if (kind == 1) {
        struct stat rs, ws;
        if (!pipe_end(rfd, O_RDONLY, &rs) || !pipe_end(wfd, O_WRONLY, &ws) || rs.st_ino != ws.st_ino ||
            rs.st_dev != ws.st_dev)
        {
            snprintf(unusable, sizeof unusable,
                     "MAKEFLAGS names make's jobserver (fds %d,%d), but this process did not inherit it: "
                     "make passes it only to a recipe marked '+'",
                     rfd, wfd);
            return;
        }
        char path[64];
        snprintf(path, sizeof path, "/proc/self/fd/%d", rfd);
        read_fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC); /* a description of our own */
        if (read_fd < 0) {
            snprintf(unusable, sizeof unusable, "cannot open make's jobserver through %s: %s", path, strerror(errno));
            return;
        }
        back_fd = wfd;
    } else {
        read_fd = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        if (read_fd >= 0) back_fd = open(fifo, O_WRONLY | O_CLOEXEC);
        if (read_fd < 0 || back_fd < 0) {
            int e = errno;
            if (read_fd >= 0) close(read_fd);
            read_fd = -1;
            snprintf(unusable, sizeof unusable, "cannot open make's jobserver fifo %.400s: %s", fifo, strerror(e));
            return;
        }
    }
    /* the handlers before any read: a signal between a read and the count's update loses nothing */
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL};
    atexit(on_exit_release);
    for (size_t k = 0; k < sizeof sigs / sizeof sigs[0]; k++) {
        struct sigaction sa = {.sa_handler = on_signal}, old;
        sigemptyset(&sa.sa_mask);
        if (sigaction(sigs[k], NULL, &old) == 0 && old.sa_handler == SIG_DFL) sigaction(sigs[k], &sa, NULL);
    }
    state = OPEN;
}

int pf_jobserver_take(int want, char *why, size_t cap)
{
    if (cap) why[0] = 0;
    if (state == UNOPENED && want > 0) open_jobserver();
    if (state == UNUSABLE) {
        snprintf(why, cap, "%s", unusable);
        return -1;
    }
    if (state != OPEN || released) return 0;
    if (want > MAX_TOKENS) want = MAX_TOKENS;
    sigset_t all, prev;
    sigfillset(&all);
    while ((int)held < want) {
        char c;
        sigprocmask(SIG_BLOCK, &all, &prev);
        ssize_t r = read(read_fd, &c, 1);
        if (r == 1) tokens[held] = c, held = held + 1;
        sigprocmask(SIG_SETMASK, &prev, NULL);
        if (r == 1) continue;
        if (r < 0 && errno == EINTR) continue;
        break; /* EAGAIN: no free slot now; 0: make has gone */
    }
    return (int)held;
}

int pf_jobserver_lend(char *why, size_t cap)
{
    if (cap) why[0] = 0;
    if (state == UNOPENED) open_jobserver();
    if (state == UNUSABLE) {
        snprintf(why, cap, "%s", unusable);
        return -1;
    }
    if (state != OPEN || released || lent) return 0;
    sigset_t all, prev;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, &prev); /* a fatal signal's handler sees lent with the byte written */
    ssize_t w;
    do w = write(back_fd, "+", 1); /* make's own token byte */
    while (w < 0 && errno == EINTR);
    if (w == 1) lent = 1;
    sigprocmask(SIG_SETMASK, &prev, NULL);
    if (w != 1) snprintf(why, cap, "cannot write a token to make's jobserver: %s", strerror(errno));
    return w == 1 ? 1 : -1;
}

int pf_jobserver_reclaim(void)
{
    sigset_t all, prev;
    sigfillset(&all);
    while (lent) {
        struct pollfd pfd = {.fd = read_fd, .events = POLLIN};
        if (poll(&pfd, 1, -1) < 0 && errno != EINTR) return -1;
        char c;
        sigprocmask(SIG_BLOCK, &all, &prev);
        ssize_t r = read(read_fd, &c, 1); /* another reader may have been first: poll again */
        if (r == 1) lent = 0;
        sigprocmask(SIG_SETMASK, &prev, NULL);
        if (r == 0) return -1; /* make has gone */
    }
    return 0;
}
