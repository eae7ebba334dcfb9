/*
 * pf-select — complete one generation of the search: the global distinct
 * Top-3, b_g, B_g, m_g, A_g, the stagnation tests and the next decision of
 * appendix B.5 (src/search/select.h has the rules).
 *
 *   pf-select --run RUN --generation G [--max-generations N] [--quiet]
 *
 * reads RUN/genGG/candK.proposal.msgpack (K = 0, 1, ... up to the first
 * missing one), RUN/genGG/candK/evidence.msgpack for each, and
 * RUN/gen(G-1)/select.msgpack when G > 0; writes RUN/genGG/select.msgpack
 * atomically. A proposal the run's LLM budget stopped stops the search after
 * G. Exit 0 ok, 1 a missing / unreadable / inconsistent input or a
 * write failure, 2 usage.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/parse.h"
#include "core/status.h"
#include "search/artifact.h"
#include "search/select.h"
#include "search/time_budget_file.h"

#define PATH_CAP 4096
#define RUN_MAX 2048 /* longest --run: every path in it then fits in PATH_CAP */

/* A file of the run (search/run.h's layout); it fits, --run being short. */
#define RUN_PATH(run, what, g, k, buf) ((void)pf_run_path((run), (what), (g), (k), (buf), sizeof(buf)))

typedef struct opts {
    const char *run;
    int generation, max_generations, quiet;
} opts;

static void usage(FILE *to)
{
    fprintf(to,
            "usage: pf-select --run RUN --generation G [--max-generations N] [--quiet]\n"
            "Completes generation G of a search run (appendix B.5): reads every\n"
            "RUN/genGG/candK.proposal.msgpack (K = 0, 1, ... up to the first missing one) with\n"
            "its RUN/genGG/candK/evidence.msgpack, and RUN/gen(G-1)/select.msgpack when G > 0;\n"
            "computes the history, the global distinct Top-3, b, B, m, A, the stagnation tests\n"
            "and the next decision (normal, escape or stop), and writes RUN/genGG/select.msgpack\n"
            "atomically. A candidate is ranked when its proposal validated, its training status\n"
            "is ok and it has a finite y; an invalid proposal needs no evidence file.\n"
            "  --run RUN            the run folder (runs/<pde>/<method>/run<R>)\n"
            "  --generation G       0..%d, written as genGG\n"
            "  --max-generations N  the generation limit (default: the previous selection's,\n"
            "                       else %d); generation N-1 always stops\n"
            "  --quiet              no progress lines on stderr\n"
            "A proposal stopped by the run's LLM budget (LLM_MAX_TOKENS, LLM_MAX_COST) stops\n"
            "the search after G (cause \"%s\").\n"
            "A generation after a stop decision is a no-op: its select.msgpack repeats the\n"
            "last one with \"skipped\": true (and \"skipped_generation\": G).\n"
            "Exit codes: 0 ok, 1 missing, unreadable or inconsistent input or write\n"
            "failure, 2 usage error.\n",
            PF_RUN_MAX_GENERATION, PF_SELECT_DEFAULT_MAX_GENERATIONS, PF_SELECT_CAUSE_LLM);
}

static int parse_int(const char *opt, const char *arg, int lo, int hi, int *v)
{
    long x;
    if (pf_parse_long(arg, lo, hi, &x) != PF_OK) {
        fprintf(stderr, "pf-select: %s must be an integer in %d..%d, not '%s'\n", opt, lo, hi, arg);
        return 2;
    }
    *v = (int)x;
    return 0;
}

/* 0 ok, -1 --help, 2 usage */
static int parse(int argc, char **argv, opts *o)
{
    *o = (opts){.generation = -1, .max_generations = 0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return -1;
        } else if (!strcmp(a, "--run") && i + 1 < argc)
            o->run = argv[++i];
        else if (!strcmp(a, "--generation") && i + 1 < argc) {
            if (parse_int(a, argv[++i], 0, PF_RUN_MAX_GENERATION, &o->generation)) return 2;
        } else if (!strcmp(a, "--max-generations") && i + 1 < argc) {
            if (parse_int(a, argv[++i], 1, PF_RUN_MAX_GENERATION + 1, &o->max_generations)) return 2;
        } else if (!strcmp(a, "--quiet") || !strcmp(a, "-q"))
            o->quiet = 1;
        else if (a[0] != '-') {
            fprintf(stderr, "pf-select: unexpected argument '%s'\n", a);
            return 2;
        } else {
            fprintf(stderr, "pf-select: unknown option '%s' (or it lacks its value); see --help\n", a);
            return 2;
        }
    }
    if (!o->run || !*o->run) {
        fprintf(stderr, "pf-select: --run RUN is required; see --help\n");
        return 2;
    }
    if (strlen(o->run) >= RUN_MAX) {
        fprintf(stderr, "pf-select: --run is longer than %d characters\n", RUN_MAX - 1);
        return 2;
    }
    if (o->generation < 0) {
        fprintf(stderr, "pf-select: --generation G is required; see --help\n");
        return 2;
    }
    if (o->max_generations && o->generation >= o->max_generations) {
        fprintf(stderr, "pf-select: generation %d is past the last generation %d of --max-generations %d\n",
                o->generation, o->max_generations - 1, o->max_generations);
        return 2;
    }
    return 0;
}

/* ------------------------------------------------------------ output */

static void fmt_y(char *buf, size_t cap, double v)
{
    if (isfinite(v)) snprintf(buf, cap, "%.2e", v);
    else snprintf(buf, cap, "none");
}

static void summary(const pf_select *s)
{
    int g = s->generation;
    char b[32], B[32], top[128] = "";
    fmt_y(b, sizeof b, s->b[g]);
    fmt_y(B, sizeof B, s->B[g]);
    size_t len = 0;
    for (int k = 0; k < s->ntop3; k++)
        len += (size_t)snprintf(top + len, sizeof top - len, " %.2e", s->cand[s->top3[k]].y);
    fprintf(stderr, "pf-select: gen%02d: best %s (all-time %s), top-3%s, next %s (%s)\n", g, b, B,
            s->ntop3 ? top : " empty", pf_select_next_name(s->next), s->cause);
}

/* When the previous selection decided to stop, generation g is a no-op:
 * its select.msgpack is a copy of prev marked skipped (so the pipeline's
 * fixed ten generations stay a static DAG). */
static int follow_stop(pf_select *prev, int g, const opts *o)
{
    char out[PATH_CAP];
    RUN_PATH(o->run, PF_RUN_SELECT, g, 0, out);
    prev->skipped = true;
    prev->skipped_generation = g;
    if (pf_select_write(out, prev) != PF_OK) {
        fprintf(stderr, "pf-select: %s\n", pf_errmsg());
        return 1;
    }
    if (!o->quiet) fprintf(stderr, "pf-select: gen%02d: skipped (the search stopped: %s)\n", g, prev->reason);
    return 0;
}

/* The selection of generation g - 1 (NULL for g = 0); 1 on failure. */
static int previous(const opts *o, pf_select **prev)
{
    *prev = NULL;
    int g = o->generation;
    if (g == 0) return 0;
    char path[PATH_CAP];
    RUN_PATH(o->run, PF_RUN_SELECT, g - 1, 0, path);
    if (access(path, F_OK) != 0) {
        fprintf(stderr, "pf-select: generation %d needs the selection of generation %d: %s missing\n", g, g - 1, path);
        return 1;
    }
    if (pf_select_read(path, prev) != PF_OK) {
        fprintf(stderr, "pf-select: %s\n", pf_errmsg());
        return 1;
    }
    if ((*prev)->generation != g - 1 && !(*prev)->skipped) {
        fprintf(stderr, "pf-select: %s is the selection of generation %d, not %d\n", path, (*prev)->generation, g - 1);
        pf_select_free(*prev);
        *prev = NULL;
        return 1;
    }
    return 0;
}

/* A run with a time budget stops when the time is spent (search/time_budget.h).
 * Its settings say whether it has one; a folder of candidates without
 * settings (pf-select run by hand) has none. */
static pf_status time_stop(const char *dir, int g, pf_select *s)
{
    pf_run r;
    bool stop;
    char why[256], path[PATH_CAP];
    RUN_PATH(dir, PF_RUN_CONTEXT, 0, 0, path);
    if (access(path, F_OK) != 0) return PF_OK;
    PF_TRY(pf_run_open(dir, &r));
    PF_TRY(pf_time_budget_stop(&r, g, &stop, why, sizeof why));
    if (stop) {
        s->next = PF_SELECT_STOP;
        snprintf(s->cause, sizeof s->cause, "%s", PF_SELECT_CAUSE_TIME);
        snprintf(s->reason, sizeof s->reason, "%s", why);
    }
    return PF_OK;
}

/* A run whose LLM budget stopped a proposal of generation g stops after
 * it (docs/search.md, "LLM budget"): the Top-3 so far go to high fidelity. */
static void llm_stop(const pf_run_candidate *c, int n, pf_select *s)
{
    for (int k = 0; k < n; k++) {
        const pf_proposal *p = &c[k].proposal.call;
        if (!p->stopped) continue;
        s->next = PF_SELECT_STOP;
        snprintf(s->cause, sizeof s->cause, "%s", PF_SELECT_CAUSE_LLM);
        const char *why = p->reasons && !strncmp(p->reasons, "- ", 2) ? p->reasons + 2 : p->reasons ? p->reasons : "";
        snprintf(s->reason, sizeof s->reason, "slot %s: %.*s", c[k].proposal.slot, (int)strcspn(why, "\n"), why);
        return;
    }
}

int main(int argc, char **argv)
{
    opts o;
    int rc = parse(argc, argv, &o);
    if (rc) return rc < 0 ? 0 : rc;
    int g = o.generation;
    char path[PATH_CAP];
    pf_select *prev;
    if (previous(&o, &prev)) return 1;
    if (prev && prev->next == PF_SELECT_STOP) {
        rc = follow_stop(prev, g, &o);
        pf_select_free(prev);
        return rc;
    }
    int maxg = o.max_generations ? o.max_generations : prev ? prev->max_generations : PF_SELECT_DEFAULT_MAX_GENERATIONS;
    if (g >= maxg) {
        fprintf(stderr, "pf-select: generation %d is past the last generation %d of %d\n", g, maxg - 1, maxg);
        pf_select_free(prev);
        return 1;
    }
    pf_run_candidate *rc_cand = NULL;
    int n = 0;
    if (pf_run_generation_read(o.run, g, &rc_cand, &n) != PF_OK) {
        fprintf(stderr, "pf-select: %s\n", pf_errmsg());
        pf_select_free(prev);
        return 1;
    }
    const char *pde = rc_cand[0].proposal.pde, *method = rc_cand[0].proposal.method[0] ? rc_cand[0].proposal.method : NULL;
    if (prev && prev->pde && strcmp(prev->pde, pde)) {
        RUN_PATH(o.run, PF_RUN_PROPOSAL, g, 0, path);
        fprintf(stderr, "pf-select: %s is for PDE '%s', but the selection of generation %d is for '%s'\n", path, pde,
                g - 1, prev->pde);
        pf_run_generation_free(rc_cand, n);
        pf_select_free(prev);
        return 1;
    }
    if (!o.quiet)
        fprintf(stderr, "pf-select: gen%02d: %d candidate%s in %s/gen%02d%s\n", g, n, n == 1 ? "" : "s", o.run, g,
                prev ? ", after the selection of the previous generation" : "");
    pf_candidate *c = calloc((size_t)n, sizeof *c);
    pf_select *s = NULL;
    pf_status st = c ? PF_OK : pf_fail(PF_ERR_NOMEM, "out of memory");
    for (int k = 0; c && k < n; k++) c[k] = rc_cand[k].cand; /* views: the files keep the references */
    if (st == PF_OK) st = pf_select_step(prev, c, n, g, maxg, pde, method, &s);
    if (st == PF_OK) llm_stop(rc_cand, n, s);
    if (st == PF_OK && s->next != PF_SELECT_STOP) st = time_stop(o.run, g, s);
    free(c);
    pf_run_generation_free(rc_cand, n);
    pf_select_free(prev);
    if (st == PF_OK) {
        RUN_PATH(o.run, PF_RUN_SELECT, g, 0, path);
        st = pf_select_write(path, s);
    }
    if (st != PF_OK) {
        fprintf(stderr, "pf-select: %s\n", pf_errmsg());
        pf_select_free(s);
        return 1;
    }
    if (!o.quiet) summary(s);
    pf_select_free(s);
    return 0;
}
