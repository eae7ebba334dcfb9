/*
 * jobserver.h — a client of GNU make's jobserver: a program that make
 * started (a recipe marked '+') takes free job slots without waiting, to
 * run that many more threads, gives some back while it runs when it wants,
 * and gives the rest back when it ends.
 *
 *     char why[256];
 *     int extra = pf_jobserver_take(pf_cpus_available() - 1, why, sizeof why);
 *     if (extra < 0) fprintf(stderr, "%s\n", why);  // named but unusable
 *     threads = 1 + (extra > 0 ? extra : 0);        // the recipe's own slot + the tokens
 *     ...
 *     pf_jobserver_give(pf_jobserver_held());       // later: all back for a moment,
 *     extra = pf_jobserver_take(cpus - 1, ...);     // then what is free again
 *
 * make names its jobserver in MAKEFLAGS: --jobserver-auth=R,W (a pipe
 * inherited as fds R and W; make 4.2-4.3, --jobserver-fds before 4.2) or
 * --jobserver-auth=fifo:PATH (make 4.4). Tokens are read from a file
 * description of our own opened O_NONBLOCK (/proc/self/fd/R or the fifo),
 * so make's own descriptor keeps its blocking mode and a read never waits;
 * that description stays open (close-on-exec) for the later takes.
 * The bytes read are written back, by pf_jobserver_give() or
 * pf_jobserver_release(), at exit
 * (atexit) and on a fatal signal (INT, TERM, HUP, QUIT, ABRT, SEGV, BUS,
 * FPE, ILL: the handler writes them back, then the signal takes its usual
 * course). Only SIGKILL loses them, and make then runs fewer jobs at once.
 * docs/building.md, "Threads".
 */
#ifndef PF_CORE_JOBSERVER_H
#define PF_CORE_JOBSERVER_H

#include <stddef.h>

/* What MAKEFLAGS says of the jobserver: 1 with *rfd, *wfd (pipe), 2 with
 * fifo (its path, NUL-terminated, cap bytes), 0 when it names none, -1 when
 * its text is malformed. The last --jobserver-auth/--jobserver-fds wins, as
 * in make. */
int pf_jobserver_parse(const char *makeflags, int *rfd, int *wfd, char *fifo, size_t cap);

/* Take free tokens from $MAKEFLAGS's jobserver without waiting until this
 * process holds want (>= 0) of them, or none is free; return how many it
 * holds then (0 also when there is no jobserver; a held count above want
 * stays as it is). -1, with the reason in why, when MAKEFLAGS names a
 * jobserver this process cannot use (fds not inherited: the recipe lacks
 * '+'; a fifo that cannot be opened); the first call decides, and later
 * calls say the same. After pf_jobserver_release() it takes nothing more. */
int pf_jobserver_take(int want, char *why, size_t cap);

/* Write n of the held tokens back (the last taken first; all when n >
 * held), so make may start a job with them; return how many are held then.
 * Signals are held off meanwhile, so a fatal one gives back each token
 * exactly once. */
int pf_jobserver_give(int n);

/* Lend make the job slot of this process's own recipe while the process
 * only waits (for a lock another recipe holds): one token written that was
 * never taken, so make, or a training growing its threads, uses the core
 * meanwhile. 1 when lent, 0 when there is no jobserver (or one is lent
 * already), -1 with why as pf_jobserver_take. pf_jobserver_reclaim() takes
 * it back before the process goes on, waiting until one is free; at exit
 * or on a fatal signal a lent token is taken back if one is free at once,
 * else make runs one job more than -j N until it ends. */
int pf_jobserver_lend(char *why, size_t cap);

/* Take back the token pf_jobserver_lend() lent (waits for a free one; none
 * lent: returns at once). 0, or -1 when make has gone (nothing to take). */
int pf_jobserver_reclaim(void);

/* Tokens held now. */
int pf_jobserver_held(void);

/* Write every held token back, for good (async-signal-safe; later calls,
 * and takes, do nothing). */
void pf_jobserver_release(void);

#endif
