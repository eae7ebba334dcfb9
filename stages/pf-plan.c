/*
 * pf-plan — the order a group of a run's trainings starts in: the longest
 * predicted first (search/train_order.h; docs/search.md, "Longest first").
 *
 *   pf-plan --run RUN --generation G|hifi                writes RUN/genGG/plan.json
 *   pf-plan --run RUN --generation G|hifi --rank R       prints the slot at rank R
 *   pf-plan --run RUN --generation G|hifi (--rank R | --slot K) -- COMMAND...
 *
 * The last form is pipeline.mk's training recipe: under the slot's lock it
 * execs COMMAND (each %K in it replaced by the slot) when the slot's
 * outputs are missing or older than its proposal, and does nothing else.
 */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/jobserver.h"
#include "core/lock.h"
#include "core/parse.h"
#include "search/run.h"
#include "search/train_order.h"

static void usage(FILE *to)
{
    fprintf(to,
            "usage: pf-plan --run RUN --generation G|hifi [--quiet]\n"
            "       pf-plan --run RUN --generation G|hifi --rank R\n"
            "       pf-plan --run RUN --generation G|hifi (--rank R | --slot K) [--not-failed-since EPOCH] -- COMMAND...\n"
            "Writes RUN/genGG/plan.json (hifi/plan.json for the high-fidelity Top-3): the group's slots by\n"
            "decreasing predicted training time, from the cost model (seconds/step = c x parameters x points x\n"
            "(1 + derivative orders) + overhead, fitted to the run's trainings of the earlier generations;\n"
            "docs/search.md, \"Longest first\"). make starts rank 0 first.\n"
            "--rank R: print the slot at rank R of the plan.\n"
            "-- COMMAND: take the slot's lock (genGG/candK/.train.lock; waiting while another recipe trains\n"
            "it, lending make this recipe's job slot meanwhile), then, when its evidence.msgpack or result.h5\n"
            "is missing or older than its proposal, exec COMMAND with every %%K in its arguments replaced by the\n"
            "slot; else exit 0 doing nothing.\n"
            "--not-failed-since EPOCH: with -- COMMAND, exit 1 instead when the slot's launch.txt records a failure\n"
            "at EPOCH or later (pipeline.mk: its make's start: a slot's own rule does not retry, in the make\n"
            "-k that saw it, a training that failed under its rank's rule; the next make does).\n"
            "Exit codes: 0 done (or nothing to do), 1 failure (a file missing or unreadable, named), 2 bad\n"
            "usage, 127 COMMAND cannot be run; else COMMAND's.\n");
}

static int bad(const char *what)
{
    fprintf(stderr, "pf-plan: %s\n", what);
    return 2;
}

/* argv with each %K replaced by slot k (the strings leak into the exec) */
static char **with_slot(char **argv, int n, int k)
{
    char **out = calloc((size_t)n + 1, sizeof *out);
    for (int i = 0; out && i < n; i++) {
        size_t len = strlen(argv[i]) + 1, at = 0;
        for (const char *p = argv[i]; (p = strstr(p, "%K")); p += 2) len += 10;
        if (!(out[i] = malloc(len))) return NULL;
        for (const char *p = argv[i]; *p;)
            if (!strncmp(p, "%K", 2)) at += (size_t)snprintf(out[i] + at, len - at, "%d", k), p += 2;
            else out[i][at++] = *p++;
        out[i][at] = '\0';
    }
    return out;
}

/* Exec cmd for training (g, k) under its lock when it is to be done (and
 * did not fail at `since` or later, when since > 0). */
static int train(const pf_run *r, int g, int k, long since, char **cmd, int ncmd)
{
    int fd;
    bool stale;
    char what[4200] = "a slot";
    pf_run_path(r->dir, PF_RUN_CANDIDATE, g, k, what, sizeof what);
    if (pf_training_lock_open(r, g, k, &fd) != PF_OK) return fprintf(stderr, "pf-plan: %s\n", pf_errmsg()), 1;
    if (!pf_lock_try(fd)) {
        fprintf(stderr, "pf-plan: %s is being trained by another recipe; waiting for it\n", what);
        char why[512]; /* unusable: a recipe without '+' (TRAIN_THREADS fixed) has no slot to lend, as expected */
        pf_jobserver_lend(why, sizeof why);
        int waited = pf_lock_wait(fd);
        pf_jobserver_reclaim();
        if (waited != PF_OK) return fprintf(stderr, "pf-plan: %s\n", pf_errmsg()), 1;
    }
    if (pf_training_stale(r, g, k, &stale) != PF_OK) return fprintf(stderr, "pf-plan: %s\n", pf_errmsg()), 1;
    if (!stale) return 0;
    long failed;
    if (since > 0 && pf_training_failed_at(r, g, k, &failed) != PF_OK) return fprintf(stderr, "pf-plan: %s\n", pf_errmsg()), 1;
    if (since > 0 && failed >= since) {
        fprintf(stderr, "pf-plan: %s failed in this make (its launch.txt); the next make retries it\n", what);
        return 1;
    }
    char **argv = with_slot(cmd, ncmd, k);
    if (!argv) return fprintf(stderr, "pf-plan: out of memory\n"), 1;
    execvp(argv[0], argv); /* the lock stays held by the command (fd is inherited) */
    perror("pf-plan: cannot run the command");
    fprintf(stderr, "pf-plan: the command was '%s'\n", argv[0]);
    return 127;
}

int main(int argc, char **argv)
{
    static const struct option lo[] = {{"run", 1, 0, 'r'},   {"generation", 1, 0, 'g'}, {"rank", 1, 0, 'R'},
                                       {"slot", 1, 0, 'k'},  {"quiet", 0, 0, 'q'},      {"help", 0, 0, 'h'},
                                       {"not-failed-since", 1, 0, 'F'}, {0, 0, 0, 0}};
    const char *dir = NULL, *gen = NULL;
    long rank = -1, slot = -1, since = 0;
    int quiet = 0, ch, g;
    while ((ch = getopt_long(argc, argv, "+hq", lo, NULL)) != -1) {
        switch (ch) {
        case 'r': dir = optarg; break;
        case 'g': gen = optarg; break;
        case 'R':
        case 'k':
            if (pf_parse_long(optarg, 0, PF_RUN_MAX_SLOTS - 1, ch == 'R' ? &rank : &slot) != PF_OK)
                return fprintf(stderr, "pf-plan: --%s wants 0..%d, not '%s'\n", ch == 'R' ? "rank" : "slot",
                               PF_RUN_MAX_SLOTS - 1, optarg), 2;
            break;
        case 'F':
            if (pf_parse_long(optarg, 1, LONG_MAX, &since) != PF_OK)
                return fprintf(stderr, "pf-plan: --not-failed-since wants seconds since the epoch, not '%s'\n", optarg), 2;
            break;
        case 'q': quiet = 1; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    bool exec = optind < argc && !strcmp(argv[optind - 1], "--");
    if (optind < argc && !exec) return bad("takes no arguments but a COMMAND after -- (see --help)");
    if (!dir || !gen) return bad("--run and --generation are required (see --help)");
    if (pf_run_generation_parse(gen, &g) != PF_OK) return bad(pf_errmsg());
    if (rank >= 0 && slot >= 0) return bad("--rank or --slot, not both");
    if (slot >= 0 && !exec) return bad("--slot goes with -- COMMAND");
    if (exec && rank < 0 && slot < 0) return bad("-- COMMAND goes with --rank or --slot");
    pf_run r;
    if (pf_run_open(dir, &r) != PF_OK) return fprintf(stderr, "pf-plan: %s\n", pf_errmsg()), 1;
    pf_status st = PF_OK;
    int k = (int)slot;
    if (rank < 0 && slot < 0) {
        char say[1024];
        if (!quiet) fprintf(stderr, "pf-plan: start %s generation %s\n", r.dir, gen);
        st = pf_train_plan_write(&r, g, say, sizeof say);
        if (st == PF_OK && !quiet) fprintf(stderr, "pf-plan: %s: %s\n", gen, say);
    } else if (rank >= 0) {
        st = pf_train_plan_slot(&r, g, (int)rank, &k);
        if (st == PF_OK && !exec) printf("%d\n", k);
    }
    if (st != PF_OK) return fprintf(stderr, "pf-plan: %s\n", pf_errmsg()), 1;
    return exec ? train(&r, g, k, since, argv + optind, argc - optind) : 0;
}
