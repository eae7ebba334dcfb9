/*
 * pf-study — how far a study has come (study.mk: make study-status), one
 * line per PDE x method (src/stats/progress.h). Reads, never writes.
 *
 *   pf-study --pdes "P ..." --methods "M ..." --run-numbers "R ..." [--runs
 * DIR]
 *            [--budget paper|quick|smoke] [--llm L] [--eval E] [--time-budget T] [--watch SECONDS]
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "registry.h"
#include "search/time_budget.h"
#include "stats/progress.h"

#define MAX_WORDS 256

static void usage(FILE *to)
{
    fprintf(to,
            "usage: pf-study --pdes \"P ...\" --methods \"M ...\" --run-numbers \"R ...\" [--runs DIR]\n"
            "                [--budget paper|quick|smoke] [--llm L] [--eval E] [--time-budget T] [--watch SECONDS]\n"
            "Prints a study's progress (make study-status): per PDE x method, the runs done,\n"
            "running and failed (a training's launch.txt, scripts/launch.sh), the best and\n"
            "mean final MSE so far, the optimizer steps trained and planned at the budget\n"
            "(default paper); then the totals, the measured steps per second of one\n"
            "training and the time left at the number of trainings running now.\n"
            "A run made with other settings than these (its context.json: the budget, --llm,\n"
            "--eval, a .pde file's SHA-256 or its data's) is stale: make study would redo it,\n"
            "so it is not counted done; a line says what differs. --llm, --eval: make's LLM\n"
            "and EVAL (default: not compared). --time-budget: make's TIME_BUDGET (default: none;\n"
            "a run made with another time budget, or with one where none is asked, is stale).\n"
            "--runs: the runs folder (default runs). --watch S: on a terminal, redraw every\n"
            "S seconds until every run is done or failed (Ctrl-C stops it).\n"
            "Exit codes: 0 printed, 1 a run folder could not be read, 2 usage error.\n");
}

/* Splits s (modified) on spaces into w[]; the count, or -1 when too many. */
static int split(char *s, char **w)
{
    int n = 0;
    for (char *t = strtok(s, " \t\n"); t; t = strtok(NULL, " \t\n")) {
        if (n == MAX_WORDS) return -1;
        w[n++] = t;
    }
    return n;
}

int main(int argc, char **argv)
{
    static const struct option lo[] = {
        {"runs", 1, 0, 'r'},   {"pdes", 1, 0, 'p'},  {"methods", 1, 0, 'm'}, {"run-numbers", 1, 0, 'n'},
        {"budget", 1, 0, 'b'}, {"watch", 1, 0, 'w'}, {"help", 0, 0, 'h'},    {"llm", 1, 0, 'l'},
        {"eval", 1, 0, 'e'},   {"time-budget", 1, 0, 't'}, {0, 0, 0, 0},
    };
    char *pdes = NULL, *methods = NULL, *numbers = NULL;
    const char *root = "runs", *budget = "paper";
    pf_study s = {0};
    double watch = 0;
    int ch;
    while ((ch = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
        char *end;
        switch (ch) {
        case 'r': root = optarg; break;
        case 'p': pdes = optarg; break;
        case 'm': methods = optarg; break;
        case 'n': numbers = optarg; break;
        case 'b': budget = optarg; break;
        case 'l': s.llm = optarg; break;
        case 'e': s.eval = optarg; break;
        case 't':
            if (pf_time_budget_parse(optarg, &s.time_budget_s) != PF_OK)
                return fprintf(stderr, "pf-study: --time-budget: %s\n", pf_errmsg()), 2;
            break;
        case 'w':
            errno = 0;
            watch = strtod(optarg, &end);
            if (errno || end == optarg || *end || !(watch > 0))
                return fprintf(stderr, "pf-study: --watch wants seconds > 0, not '%s'\n", optarg), 2;
            break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind != argc) return fprintf(stderr, "pf-study: unexpected argument '%s' (see --help)\n", argv[optind]), 2;
    if (!pdes || !methods || !numbers)
        return fprintf(stderr, "pf-study: --pdes, --methods and --run-numbers are "
                               "required (see --help)\n"),
               2;

    char *pw[MAX_WORDS], *mw[MAX_WORDS], *rw[MAX_WORDS];
    const char *names[MAX_WORDS];
    int runs[MAX_WORDS];
    s.root = root;
    s.npdes = split(pdes, pw), s.nmethods = split(methods, mw), s.nruns = split(numbers, rw);
    if (s.npdes < 1 || s.nmethods < 1 || s.nruns < 1)
        return fprintf(stderr,
                       "pf-study: --pdes, --methods and --run-numbers want 1 to %d "
                       "names each\n",
                       MAX_WORDS),
               2;
    const pf_pde *p;
    for (int i = 0; i < s.npdes; i++) {
        if (pf_pdes_lookup(pw[i], &p) != PF_OK) return fprintf(stderr, "pf-study: %s\n", pf_errmsg()), 2;
        names[i] = p->name; /* a .pde file's runs are under its declared name */
    }
    for (int i = 0; i < s.nruns; i++) {
        char *end;
        errno = 0;
        long r = strtol(rw[i], &end, 10);
        if (errno || end == rw[i] || *end || r < 0 || r > 9999)
            return fprintf(stderr, "pf-study: run number '%s' is not 0..9999\n", rw[i]), 2;
        runs[i] = (int)r;
    }
    s.pdes = names, s.pde_args = (const char *const *)pw, s.methods = (const char *const *)mw, s.runs = runs;
    if (pf_budget_lookup(budget, &s.budget) != PF_OK) return fprintf(stderr, "pf-study: %s\n", pf_errmsg()), 2;

    int redraw = watch > 0 && isatty(STDOUT_FILENO);
    if (watch > 0 && !redraw) fprintf(stderr, "pf-study: --watch: stdout is not a terminal; printing once\n");
    for (;;) {
        pf_cell_progress *cells;
        if (pf_study_progress(&s, &cells) != PF_OK) return fprintf(stderr, "pf-study: %s\n", pf_errmsg()), 1;
        if (redraw) fputs("\033[H\033[2J", stdout);
        pf_study_print(stdout, &s, cells);
        int settled = pf_study_settled(&s, cells);
        free(cells);
        fflush(stdout);
        if (!redraw || settled) return 0;
        struct timespec ts = {(time_t)watch, (long)((watch - (double)(time_t)watch) * 1e9)};
        nanosleep(&ts, NULL);
    }
}
