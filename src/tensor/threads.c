/*
 * The CPU backend's threads: passive waiting, the auto count and its
 * regrants, one level.
 */
#include "tensor/threads.h"

#include <errno.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/cpus.h"
#include "core/jobserver.h"

extern void openblas_set_num_threads(int);

static int regrant_cap; /* auto under a usable jobserver: the most slots held besides our own; 0: fixed */

void pf_threads_passive_wait(char **argv, const char *prog)
{
    if (getenv("OMP_WAIT_POLICY") || getenv("GOMP_SPINCOUNT")) return;
    if (setenv("OMP_WAIT_POLICY", "passive", 1) == 0) execv("/proc/self/exe", argv);
    fprintf(stderr, "%s: cannot re-execute /proc/self/exe with OMP_WAIT_POLICY=passive (%s): idle OpenMP threads spin\n",
            prog, strerror(errno));
}

int pf_threads_auto(const char *prog)
{
    int cpus = pf_cpus_available(), rfd, wfd;
    char why[512], fifo[4096];
    if (pf_jobserver_parse(getenv("MAKEFLAGS"), &rfd, &wfd, fifo, sizeof fifo) == 0) return cpus;
    int extra = pf_jobserver_take(cpus - 1, why, sizeof why);
    if (extra < 0) {
        fprintf(stderr, "%s: threads auto: %s; using 1 thread\n", prog, why);
        return 1;
    }
    regrant_cap = cpus - 1;
    return 1 + extra;
}

int pf_threads_regrant(void)
{
    if (regrant_cap <= 0) return pf_threads_count();
    char why[512];
    int gave = pf_jobserver_held();
    if (gave > 0) {
        pf_jobserver_give(gave);
        struct timespec ts = {0, PF_THREADS_HANDBACK_US * 1000L};
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {}
    }
    int held = pf_jobserver_take(regrant_cap, why, sizeof why); /* usable: pf_threads_auto opened it */
    int n = 1 + (held > 0 ? held : 0);
    if (n != pf_threads_count()) pf_threads_set(n);
    return n;
}

void pf_threads_set(int n)
{
    omp_set_max_active_levels(1);
    omp_set_num_threads(n);
    openblas_set_num_threads(n);
}

int pf_threads_count(void)
{
    return omp_get_max_threads();
}
