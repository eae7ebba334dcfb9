/*
 * pf-bench-search — time one whole search (or study) and say where its wall
 * time went: one case of `make bench-search` (the Makefile lists the cases).
 *
 * It runs COMMAND (a make of a search into a fresh runs folder) as a make of
 * its own (MAKEFLAGS, MFLAGS and MAKELEVEL removed, so its -j is its own),
 * times it on the monotonic clock, then reads the evidence of every training
 * under the runs folder (search/search_time.h) and appends one JSON line:
 *
 *   case       the case's name
 *   wall_s     the command's wall time
 *   train_s    the sum of its trainings' wall times
 *   cpu_use    the trainings' CPU seconds / (wall_s x cores), cores = jobs x threads
 *              (threads auto: cores = jobs, the job slots the trainings share)
 *   outside_s  the wall time during which no training was running: make, stage
 *              start-up, proposals, selection, tables, waiting
 *   cpu_s, busy_s (wall_s - outside_s), trainings, jobs, threads (a number or
 *              "auto"), cores, profile,
 *   earlier (trainings found under the folder that started before the case:
 *   left out of every figure)
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/parse.h"
#include "search/search_time.h"

static void usage(FILE *to)
{
    fprintf(to,
            "usage: pf-bench-search --case NAME --runs DIR --out FILE [--jobs N] [--threads T|auto]\n"
            "                       [--profile P] [--log FILE] -- COMMAND [ARG...]\n"
            "Runs COMMAND (a search or study made into the runs folder DIR, which should be\n"
            "fresh) as a make of its own, times it, and appends to FILE one JSON line:\n"
            "case, wall_s, train_s (the sum of its trainings' wall times, from the\n"
            "evidence.msgpack files under DIR), cpu_use (their CPU seconds / (wall_s x\n"
            "cores), cores = N x T: the -j and training threads COMMAND uses, default 2\n"
            "and 1; with T auto, N: the trainings share make's N job slots), outside_s (the wall time during which no training ran: make, stage\n"
            "start-up, proposals, selection), cpu_s, busy_s, trainings, earlier (trainings\n"
            "that started before COMMAND: left out), jobs, threads, cores and profile (P,\n"
            "a label). COMMAND's output goes to --log (default: here).\n"
            "Prints one line per case on stderr. Exit 1 when COMMAND fails or the\n"
            "evidence does not read (nothing is appended then), 2 on bad arguments.\n");
}

static double clock_s(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* COMMAND as a make of its own, its output to log (NULL: ours); its exit status. */
static int run(char **cmd, const char *log)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        unsetenv("MAKEFLAGS");
        unsetenv("MFLAGS");
        unsetenv("MAKELEVEL");
        if (log && (!freopen(log, "w", stdout) || dup2(fileno(stdout), 2) < 0)) {
            perror(log);
            _exit(127);
        }
        execvp(cmd[0], cmd);
        perror(cmd[0]);
        _exit(127);
    }
    int ws;
    while (waitpid(pid, &ws, 0) < 0)
        if (errno != EINTR) return -1;
    return WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
}

static int opt_int(const char *name, const char *arg, int *v)
{
    long x;
    if (pf_parse_long(arg, 1, 4096, &x) != PF_OK) {
        fprintf(stderr, "pf-bench-search: %s: %s\n", name, pf_errmsg());
        return 0;
    }
    *v = (int)x;
    return 1;
}

int main(int argc, char **argv)
{
    const char *name = NULL, *runs = NULL, *out = NULL, *profile = "", *log = NULL;
    int jobs = 2, threads = 1, ch;
    static const struct option opts[] = {
        {"case", required_argument, 0, 'c'},    {"runs", required_argument, 0, 'r'},
        {"out", required_argument, 0, 'o'},     {"jobs", required_argument, 0, 'j'},
        {"threads", required_argument, 0, 't'}, {"profile", required_argument, 0, 'p'},
        {"log", required_argument, 0, 'l'},     {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    while ((ch = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
        switch (ch) {
        case 'c': name = optarg; break;
        case 'r': runs = optarg; break;
        case 'o': out = optarg; break;
        case 'j': if (!opt_int("--jobs", optarg, &jobs)) return 2; break;
        case 't': if (strcmp(optarg, "auto") && !opt_int("--threads", optarg, &threads)) return 2;
                  threads = strcmp(optarg, "auto") ? threads : 0; /* 0: auto */
                  break;
        case 'p': profile = optarg; break;
        case 'l': log = optarg; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (!name || !runs || !out || optind >= argc) {
        fprintf(stderr, "pf-bench-search: %s\n", optind >= argc ? "no COMMAND after --" : "--case, --runs and --out are needed");
        usage(stderr);
        return 2;
    }
    if (log) fprintf(stderr, "bench-search: %s: running %s (output in %s)\n", name, argv[optind], log);
    else fprintf(stderr, "bench-search: %s: running %s\n", name, argv[optind]);
    double from = clock_s(CLOCK_REALTIME), t0 = clock_s(CLOCK_MONOTONIC);
    int rc = run(argv + optind, log);
    double wall = clock_s(CLOCK_MONOTONIC) - t0, to = clock_s(CLOCK_REALTIME);
    if (rc != 0) {
        fprintf(stderr, "bench-search: %s: %s failed (exit %d) after %.1f s%s%s\n", name, argv[optind], rc, wall,
                log ? "; see " : "", log ? log : "");
        return 1;
    }
    pf_search_time t;
    if (pf_search_time_collect(runs, from, to, &t) != PF_OK) {
        fprintf(stderr, "bench-search: %s: %s\n", name, pf_errmsg());
        return 1;
    }
    int cores = jobs * (threads ? threads : 1); /* auto: the trainings share the N slots */
    double use = wall > 0 ? t.cpu_s / (wall * cores) : 0, outside = wall - t.busy_s;
    if (outside < 0) outside = 0; /* the realtime and monotonic clocks may differ by a hair */
    json_t *o = json_pack("{s:s, s:f, s:f, s:f, s:f, s:f, s:f, s:i, s:i, s:i, s:o, s:i, s:s}", "case", name, "wall_s",
                          wall, "train_s", t.train_s, "cpu_use", use, "outside_s", outside, "cpu_s", t.cpu_s, "busy_s",
                          wall - outside, "trainings", t.trainings, "earlier", t.earlier, "jobs", jobs, "threads",
                          threads ? json_integer(threads) : json_string("auto"), "cores", cores, "profile", profile);
    char *line = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6)) : NULL;
    FILE *f = line ? fopen(out, "a") : NULL;
    int bad = !f || fprintf(f, "%s\n", line) < 0;
    if (f && fclose(f) != 0) bad = 1;
    free(line);
    json_decref(o);
    if (bad) {
        fprintf(stderr, "bench-search: %s: cannot append to '%s'\n", name, out);
        return 1;
    }
    fprintf(stderr,
            "bench-search: %s: wall %.1f s, %d trainings %.1f s (CPU %.1f s, use %.2f of %d cores), "
            "outside training %.1f s\n",
            name, wall, t.trainings, t.train_s, t.cpu_s, use, cores, outside);
    if (t.earlier)
        fprintf(stderr, "bench-search: %s: %d trainings under %s started before this case and are left out\n", name,
                t.earlier, runs);
    return 0;
}
