/*
 * The CPU backend's threads: passive waiting, the auto count, one level.
 */
#include "tensor/threads.h"

#include <errno.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/cpus.h"
#include "core/jobserver.h"

extern void openblas_set_num_threads(int);

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
    return 1 + extra;
}

void pf_threads_set(int n)
{
    omp_set_max_active_levels(1);
    omp_set_num_threads(n);
    openblas_set_num_threads(n);
}
