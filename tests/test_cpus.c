/*
 * test_cpus.c — core/cpus.h and core/jobserver.h: the CPUs a process may
 * use (affinity mask, cgroup quota texts), and make's jobserver: tokens
 * taken without waiting from a real pipe, some given back while running and
 * taken again, all given back at exit and when a signal ends the process, a
 * jobserver that was not inherited refused; and tensor/threads.h's regrant,
 * which grows the thread count into slots that come free and yields them
 * to a reader waiting on the jobserver, as make waits to start a job.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/cpus.h"
#include "core/jobserver.h"
#include "tensor/threads.h"

Test(cpus, cpu_max_texts)
{
    cr_assert_eq(pf_cpus_parse_cpu_max("max 100000\n"), 0);
    cr_assert_eq(pf_cpus_parse_cpu_max("150000 100000\n"), 2); /* 1.5 CPUs: rounded up */
    cr_assert_eq(pf_cpus_parse_cpu_max("50000 100000"), 1);
    cr_assert_eq(pf_cpus_parse_cpu_max("400000 100000"), 4);
    cr_assert_eq(pf_cpus_parse_cpu_max("1000 100000"), 1); /* a sliver is still one CPU */
    cr_assert_eq(pf_cpus_parse_cpu_max(""), -1);
    cr_assert_eq(pf_cpus_parse_cpu_max("max"), -1);
    cr_assert_eq(pf_cpus_parse_cpu_max("100000 0"), -1);
    cr_assert_eq(pf_cpus_parse_cpu_max("-5 100000"), -1);
    cr_assert_eq(pf_cpus_parse_cpu_max("12x 100000"), -1);
    cr_assert_eq(pf_cpus_parse_cpu_max("200000 100000 7"), -1);
}

Test(cpus, cfs_pairs)
{
    cr_assert_eq(pf_cpus_from_cfs(-1, 100000), 0); /* cgroup v1: no quota */
    cr_assert_eq(pf_cpus_from_cfs(250000, 100000), 3);
    cr_assert_eq(pf_cpus_from_cfs(100000, 100000), 1);
    cr_assert_eq(pf_cpus_from_cfs(100000, 0), -1);
}

Test(cpus, affinity_is_the_mask)
{
    cpu_set_t set;
    cr_assert_eq(sched_getaffinity(0, sizeof set, &set), 0);
    cr_assert_eq(pf_cpus_affinity(), CPU_COUNT(&set));
    /* pin this test's process to its first CPU: one CPU is all it may use */
    int first = 0;
    while (!CPU_ISSET(first, &set)) first++;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    cr_assert_eq(sched_setaffinity(0, sizeof one, &one), 0);
    cr_assert_eq(pf_cpus_affinity(), 1);
    cr_assert_eq(pf_cpus_available(), 1);
}

Test(cpus, available_within_the_mask)
{
    int a = pf_cpus_available(), q = pf_cpus_quota();
    cr_assert(a >= 1 && a <= pf_cpus_affinity());
    cr_assert(q >= 0);
    if (q > 0) cr_assert_leq(a, q);
}

Test(jobserver, makeflags)
{
    int r = -1, w = -1;
    char fifo[64];
    cr_assert_eq(pf_jobserver_parse(NULL, &r, &w, fifo, sizeof fifo), 0);
    cr_assert_eq(pf_jobserver_parse("", &r, &w, fifo, sizeof fifo), 0);
    cr_assert_eq(pf_jobserver_parse("-j", &r, &w, fifo, sizeof fifo), 0); /* -j without a number: no jobserver */
    cr_assert_eq(pf_jobserver_parse(" -j2 --jobserver-auth=3,4", &r, &w, fifo, sizeof fifo), 1);
    cr_assert(r == 3 && w == 4);
    cr_assert_eq(pf_jobserver_parse("s -j8 --jobserver-fds=5,6 -- X=1", &r, &w, fifo, sizeof fifo), 1);
    cr_assert(r == 5 && w == 6);
    /* the last one wins, as in make */
    cr_assert_eq(pf_jobserver_parse("-j2 --jobserver-auth=3,4 --jobserver-auth=fifo:/tmp/GMfifo7", &r, &w, fifo,
                                    sizeof fifo),
                 2);
    cr_assert_str_eq(fifo, "/tmp/GMfifo7");
    cr_assert_eq(pf_jobserver_parse("--jobserver-auth=3", &r, &w, fifo, sizeof fifo), -1);
    cr_assert_eq(pf_jobserver_parse("--jobserver-auth=3,4x", &r, &w, fifo, sizeof fifo), -1);
    cr_assert_eq(pf_jobserver_parse("--jobserver-auth=fifo:", &r, &w, fifo, sizeof fifo), -1);
    cr_assert_eq(pf_jobserver_parse("--jobserver-auth=fifo:/a/path/longer/than/the/buffer/we/gave/it/here/xyz", &r,
                                    &w, fifo, 16),
                 -1);
}

/* A jobserver pipe holding n tokens (distinct bytes), named in MAKEFLAGS. */
static void jobserver_with(int n, int p[2])
{
    cr_assert_eq(pipe(p), 0);
    for (int i = 0; i < n; i++) cr_assert_eq(write(p[1], &"abcdefgh"[i], 1), 1);
    char mf[64];
    snprintf(mf, sizeof mf, "-j%d --jobserver-auth=%d,%d", n + 1, p[0], p[1]);
    setenv("MAKEFLAGS", mf, 1);
}

/* What the pipe holds now (non-blocking), as a string. */
static void drain(int fd, char *out, size_t cap)
{
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    ssize_t n = read(fd, out, cap - 1);
    out[n > 0 ? n : 0] = 0;
}

Test(jobserver, takes_what_is_free_and_gives_it_back)
{
    int p[2];
    char why[256], left[16];
    jobserver_with(3, p);
    cr_assert_eq(pf_jobserver_take(2, why, sizeof why), 2, "%s", why);
    cr_assert_eq(pf_jobserver_held(), 2);
    cr_assert_eq(pf_jobserver_take(2, why, sizeof why), 2); /* holds 2 already: reads nothing */
    pf_jobserver_release();
    cr_assert_eq(pf_jobserver_held(), 0);
    pf_jobserver_release(); /* nothing twice */
    cr_assert_eq(pf_jobserver_take(2, why, sizeof why), 0); /* released for good */
    drain(p[0], left, sizeof left);
    cr_assert_str_eq(left, "cab"); /* the one left, then the two back, the same bytes */
}

Test(jobserver, gives_some_back_and_takes_again)
{
    int p[2];
    char why[256], left[16];
    jobserver_with(3, p);
    cr_assert_eq(pf_jobserver_take(2, why, sizeof why), 2, "%s", why); /* a, b; c left */
    cr_assert_eq(pf_jobserver_give(1), 1);                             /* b back: c b */
    cr_assert_eq(pf_jobserver_give(0), 1);
    cr_assert_eq(pf_jobserver_take(3, why, sizeof why), 3, "%s", why); /* a c b */
    cr_assert_eq(pf_jobserver_give(5), 0);                             /* all, no more: a c b */
    cr_assert_eq(pf_jobserver_held(), 0);
    cr_assert_eq(pf_jobserver_take(1, why, sizeof why), 1, "%s", why); /* a; c b left */
    pf_jobserver_release();
    drain(p[0], left, sizeof left);
    cr_assert_str_eq(left, "cba"); /* every byte back once, as it was */
}

Test(jobserver, never_waits)
{
    int p[2];
    char why[256], left[16];
    jobserver_with(2, p);
    cr_assert_eq(pf_jobserver_take(7, why, sizeof why), 2); /* only 2 free: no blocking read */
    /* make's own descriptor keeps its blocking mode */
    cr_assert_eq(fcntl(p[0], F_GETFL) & O_NONBLOCK, 0);
    pf_jobserver_release();
    drain(p[0], left, sizeof left);
    cr_assert_str_eq(left, "ab");
}

Test(jobserver, lends_its_slot_while_waiting_and_takes_one_back)
{
    int p[2];
    char why[256], left[16];
    jobserver_with(1, p);
    cr_assert_eq(pf_jobserver_lend(why, sizeof why), 1, "%s", why);
    cr_assert_eq(pf_jobserver_lend(why, sizeof why), 0); /* one at a time */
    drain(p[0], left, sizeof left);
    cr_assert_str_eq(left, "a+"); /* the free one and the lent one: another job may take both */
    fflush(NULL);
    pid_t pid = fork(); /* that job ends later and gives one back */
    cr_assert(pid >= 0);
    if (pid == 0) {
        usleep(100000);
        _exit(write(p[1], "a", 1) == 1 ? 0 : 1);
    }
    cr_assert_eq(pf_jobserver_reclaim(), 0); /* waits for it */
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    cr_assert_eq(pf_jobserver_reclaim(), 0); /* nothing lent: at once */
    pf_jobserver_release();
    drain(p[0], left, sizeof left);
    cr_assert_str_eq(left, ""); /* the balance is as before the lend, less what the test drained */
}

Test(jobserver, a_lent_slot_free_at_exit_is_taken_back)
{
    int p[2];
    char why[256], left[16];
    jobserver_with(2, p);
    fflush(NULL);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        if (pf_jobserver_take(1, why, sizeof why) != 1 || pf_jobserver_lend(why, sizeof why) != 1) _exit(9);
        exit(0); /* atexit: the token held back, the lent one taken */
    }
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d", st);
    drain(p[0], left, sizeof left);
    cr_assert_eq(strlen(left), 2, "'%s': as many tokens as before", left);
}

/* A child takes tokens and ends as said; the parent counts what came back. */
static void child_ends(int how, int expect_sig)
{
    int p[2];
    char why[256], left[16];
    jobserver_with(3, p);
    fflush(NULL);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        if (pf_jobserver_take(3, why, sizeof why) != 3) _exit(9);
        if (how == 0) exit(0); /* atexit */
        raise(how);            /* a fatal signal */
        _exit(8);
    }
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    if (expect_sig)
        cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == expect_sig, "status %d", st);
    else
        cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d", st);
    drain(p[0], left, sizeof left);
    cr_assert_str_eq(left, "abc");
}

Test(jobserver, given_back_at_exit)
{
    child_ends(0, 0);
}

Test(jobserver, given_back_on_sigterm)
{
    child_ends(SIGTERM, SIGTERM);
}

Test(jobserver, given_back_on_abort)
{
    child_ends(SIGABRT, SIGABRT);
}

/* pf_threads_auto under a jobserver with no free slot, then slots coming
 * free: the count grows up to the CPUs and no further; a reader blocked on
 * the jobserver (make waiting to start a job) gets a slot from a regrant. */
Test(jobserver, regrant_grows_into_free_slots_and_yields_them)
{
    int p[2], cpus = pf_cpus_available();
    if (cpus < 2) cr_skip_test("one CPU available: no thread count to grow");
    jobserver_with(0, p);
    cr_assert_eq(pf_threads_auto("test"), 1);
    pf_threads_set(1);
    cr_assert_eq(pf_threads_regrant(), 1); /* nothing free */
    for (int i = 0; i < cpus + 2; i++) cr_assert_eq(write(p[1], "t", 1), 1); /* jobs ended */
    cr_assert_eq(pf_threads_regrant(), cpus); /* its own slot and cpus - 1 more, not all */
    cr_assert_eq(pf_threads_count(), cpus);
    cr_assert_eq(pf_jobserver_held(), cpus - 1);
    char c[8];
    fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) | O_NONBLOCK); /* make starts jobs with the 3 left */
    cr_assert_eq(read(p[0], c, sizeof c), 3);
    fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) & ~O_NONBLOCK);
    fflush(NULL);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) _exit(read(p[0], c, 1) == 1 ? 0 : 1); /* waits for a slot, as make does */
    int n = cpus;
    for (int i = 0; i < 10000 && n == cpus; i++) n = pf_threads_regrant();
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d", st);
    cr_assert_eq(n, cpus - 1, "the waiting reader got no slot");
    cr_assert_eq(pf_threads_count(), cpus - 1);
    cr_assert_eq(pf_jobserver_held(), cpus - 2);
    cr_assert_eq(pf_threads_regrant(), cpus - 1); /* nothing more came free */
}

Test(jobserver, not_inherited)
{
    int p[2];
    char why[256];
    jobserver_with(1, p);
    close(p[0]), close(p[1]); /* as make 4.3 does for a recipe not marked '+' */
    cr_assert_eq(pf_jobserver_take(1, why, sizeof why), -1);
    cr_assert(strstr(why, "did not inherit") && strstr(why, "'+'"), "%s", why);
}

Test(jobserver, refuses_what_is_no_pipe)
{
    char why[256];
    int fd = open("/dev/null", O_RDWR);
    char mf[64];
    snprintf(mf, sizeof mf, "-j2 --jobserver-auth=%d,%d", fd, fd);
    setenv("MAKEFLAGS", mf, 1);
    cr_assert_eq(pf_jobserver_take(1, why, sizeof why), -1);
    cr_assert(strstr(why, "did not inherit"), "%s", why);
}

Test(jobserver, fifo)
{
    char path[] = "/tmp/pf_jobserver_XXXXXX", fifo[64], why[256], mf[128], left[16];
    cr_assert_not_null(mkdtemp(path));
    snprintf(fifo, sizeof fifo, "%s/fifo", path);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    int keep = open(fifo, O_RDWR); /* make holds it open */
    cr_assert(keep >= 0);
    cr_assert_eq(write(keep, "xy", 2), 2);
    snprintf(mf, sizeof mf, "-j3 --jobserver-auth=fifo:%s", fifo);
    setenv("MAKEFLAGS", mf, 1);
    cr_assert_eq(pf_jobserver_take(4, why, sizeof why), 2, "%s", why);
    pf_jobserver_release();
    drain(keep, left, sizeof left);
    cr_assert_str_eq(left, "xy");
    unlink(fifo);
    rmdir(path);
}
