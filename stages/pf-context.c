/*
 * pf-context — write a run's settings, RUN/context.json (search/artifact.h),
 * from make's variables: the one writer of that file, which every other
 * stage reads.
 *
 *   pf-context --run RUN --pde P --method M --number R --budget B --llm L --eval E [--time-budget T]
 *              [--backbone NAME]
 *   pf-context --check-backbones "NAME ..."
 *
 * The file is rewritten only when the settings differ from what it holds,
 * so that make redoes a run exactly when they change; it then says so on
 * stderr, with both. A .pde file's SHA-256 and its data files' digest are
 * part of the settings (pdefile/fingerprint.h). --check-backbones is what
 * make runs as it reads BACKBONE and BACKBONES: each name must be the
 * backbones file's (llm/backbones.h) or offline.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/parse.h"
#include "llm/backbones.h"
#include "pdefile/pdefile.h"
#include "search/artifact.h"
#include "search/time_budget.h"
#include "search/time_budget_file.h"

static void usage(FILE *to)
{
    fprintf(to, "usage: pf-context --run RUN --pde P --method M --number R --budget paper|quick|smoke\n"
                "                  --llm offline|http|replay|auto --eval paper|heldout [--time-budget T]\n"
                "                  [--backbone NAME] [--llm-max-tokens N] [--llm-max-cost C] [--same-session]\n"
                "       pf-context --check-backbones \"NAME ...\"\n"
                "Writes RUN/context.json, the settings every stage of the run reads: P a built-in PDE\n"
                "or a .pde file (its SHA-256 and its data files' are recorded, so editing either\n"
                "changes the settings), M the method, R the run number (it seeds the run). The file\n"
                "is left alone when it holds these settings already; when it held others, both are\n"
                "printed: make then redoes everything after it.\n"
                "--time-budget T (45m, 2h, 90s, 300): the run's wall-clock budget (TIME_BUDGET), part of the\n"
                "settings; RUN/time_budget.json starts its clock (when the settings change, again; a change to\n"
                "--llm replay alone keeps the steps recorded there, so a replay trains the same steps).\n"
                "--backbone NAME: the LLM backbone (BACKBONE) of the backbones file ($LLMS_FILE, else\n"
                "data/llms.json), part of the settings; the run's folder is then <pde>/<method>@NAME/run<R>.\n"
                "A mixture mix:a,b,c (or mix+a+b+c) draws each proposal's backbone among a, b, c; its folder\n"
                "is <method>@mix+a+b+c and context.json records \"mix:a,b,c\".\n"
                "Only a method that asks an LLM has one, with --llm http or replay; offline (or \"\") is\n"
                "the offline proposer, a run without a backbone.\n"
                "--check-backbones \"NAME ...\": writes nothing; checks that each NAME is offline, a\n"
                "backbone of the backbones file or a mixture of them, and says which are not, listing the\n"
                "file's names.\n"
                "--llm-max-tokens N, --llm-max-cost C (LLM_MAX_TOKENS, LLM_MAX_COST; empty: none): the run's LLM\n"
                "budget, in tokens and in the backbones file's currency, part of the settings. A change to it\n"
                "alone keeps the file's time (make redoes nothing through it) and removes the proposals the\n"
                "budget stopped, so that make asks them again and redoes what follows them.\n"
                "--same-session: this make has started the budget's session already (pf-context ran before\n"
                "the run's own make, under its lock): unchanged settings start no second one.\n"
                "Exit codes: 0 written or unchanged, 1 I/O failure, 2 bad usage or an unknown name.\n");
}

/* --check-backbones: each word of names is offline or in the backbones file. */
static int check_backbones(const char *list)
{
    char *names = strdup(list);
    if (!names) return fprintf(stderr, "pf-context: out of memory\n"), 1;
    pf_llm_backbones *t = NULL;
    int rc = 0;
    for (char *w = strtok(names, " \t\n"); w && !rc; w = strtok(NULL, " \t\n")) {
        const pf_llm_backbone *b;
        if (!strcmp(w, "offline")) continue;
        if ((!t && pf_llm_backbones_load(NULL, &t) != PF_OK) || pf_llm_backbones_first(t, w, &b) != PF_OK)
            rc = 2, fprintf(stderr, "pf-context: backbone '%s': %s\n", w, pf_errmsg());
    }
    pf_llm_backbones_free(t);
    free(names);
    return rc;
}

/* text as a finite number > 0. */
static bool positive(const char *text, double *v)
{
    char *end;
    errno = 0;
    double x = strtod(text, &end);
    if (end == text || *end || errno || !isfinite(x) || x <= 0) return false;
    *v = x;
    return true;
}

/* The LLM budget in words, for the message above. */
static const char *budget_words(const pf_run_context *c)
{
    static char buf[128];
    if (c->llm_max_tokens > 0 && c->llm_max_cost > 0)
        snprintf(buf, sizeof buf, "LLM_MAX_TOKENS=%ld, LLM_MAX_COST=%g", c->llm_max_tokens, c->llm_max_cost);
    else if (c->llm_max_tokens > 0) snprintf(buf, sizeof buf, "LLM_MAX_TOKENS=%ld", c->llm_max_tokens);
    else if (c->llm_max_cost > 0) snprintf(buf, sizeof buf, "LLM_MAX_COST=%g", c->llm_max_cost);
    else snprintf(buf, sizeof buf, "no cap");
    return buf;
}

int main(int argc, char **argv)
{
    static const struct option lo[] = {{"run", 1, 0, 'r'},    {"pde", 1, 0, 'p'},    {"method", 1, 0, 'm'},
                                       {"number", 1, 0, 'n'}, {"budget", 1, 0, 'b'}, {"llm", 1, 0, 'l'},
                                       {"eval", 1, 0, 'e'},   {"help", 0, 0, 'h'},   /* the required ones end here */
                                       {"time-budget", 1, 0, 't'}, {"backbone", 1, 0, 'B'},
                                       {"check-backbones", 1, 0, 'C'}, {"llm-max-tokens", 1, 0, 'T'},
                                       {"llm-max-cost", 1, 0, 'c'}, {"same-session", 0, 0, 'S'}, {0, 0, 0, 0}};
    const char *v[128] = {0};
    int ch;
    bool same_session = false;
    while ((ch = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
        if (ch == 'h') return usage(stdout), 0;
        if (ch == 'S') {
            same_session = true;
            continue;
        }
        if (ch == '?' || ch == ':') return usage(stderr), 2;
        v[ch] = optarg;
    }
    if (optind < argc) return fprintf(stderr, "pf-context: unexpected argument '%s'\n", argv[optind]), 2;
    if (v['C']) return check_backbones(v['C']);
    for (const struct option *o = lo; o->has_arg; o++)
        if (!v[o->val]) return fprintf(stderr, "pf-context: --%s is required (see --help)\n", o->name), 2;
    long run;
    if (pf_parse_long(v['n'], 0, INT_MAX, &run) != PF_OK)
        return fprintf(stderr, "pf-context: --number wants a run number 0..%d, not '%s'\n", INT_MAX, v['n']), 2;
    pf_run_context c, old;
    pf_status st = pf_run_context_init(&c, v['p'], v['m'], (int)run, v['b'], v['l'], v['e']);
    if (st == PF_OK && v['t'] && *v['t']) st = pf_time_budget_parse(v['t'], &c.time_budget_s);
    if (st == PF_OK) st = pf_run_context_set_backbone(&c, v['B']);
    pf_llm_backbones *t = NULL;
    const pf_llm_backbone *b;
    if (st == PF_OK && c.backbone[0]) st = pf_llm_backbones_load(NULL, &t); /* the file must have it (or them) */
    if (st == PF_OK && t) st = pf_llm_backbones_first(t, c.backbone, &b);
    pf_llm_backbones_free(t);
    if (st == PF_OK) /* the folder make lays out for these settings, <pde>/<method>[@<backbone>]/run<R> */
        st = pf_run_context_check_folder(v['r'], pf_pdefile_is_path(c.pde) ? NULL : c.pde, c.method, c.backbone, c.run);
    if (st == PF_OK && v['T'] && *v['T'] && pf_parse_long(v['T'], 1, LONG_MAX, &c.llm_max_tokens) != PF_OK)
        st = pf_fail(PF_ERR_USAGE, "--llm-max-tokens (LLM_MAX_TOKENS) wants a whole number of tokens, 1 or more, not '%s'",
                     v['T']);
    if (st == PF_OK && v['c'] && *v['c'] && !positive(v['c'], &c.llm_max_cost))
        st = pf_fail(PF_ERR_USAGE, "--llm-max-cost (LLM_MAX_COST) wants a number > 0 (in the backbones file's "
                     "currency), not '%s'", v['c']);
    if (st != PF_OK) return fprintf(stderr, "pf-context: %s\n", pf_errmsg()), st == PF_ERR_IO ? 1 : 2;
    bool had = pf_run_context_read(v['r'], &old) == PF_OK;
    char *was;
    bool budget_changed;
    if (pf_run_context_write(v['r'], &c, &was, &budget_changed) != PF_OK)
        return fprintf(stderr, "pf-context: %s\n", pf_errmsg()), 1;
    int forgot = 0;
    if (budget_changed && pf_run_forget_stopped(v['r'], &forgot) != PF_OK)
        return free(was), fprintf(stderr, "pf-context: %s\n", pf_errmsg()), 1;
    if (budget_changed)
        fprintf(stderr, "%s: its LLM budget changed (now %s): %d proposal%s it had stopped will be asked again, and "
                "what follows them redone; nothing trained before them is\n", v['r'], budget_words(&c), forgot,
                forgot == 1 ? "" : "s");
    /* the budget's clock starts with the run; a change to LLM=replay alone
     * (a replay of a copied run) keeps the steps the trainings stopped at */
    if (had) memcpy(old.llm, c.llm, sizeof old.llm);
    bool keep = had && !strcmp(c.llm, "replay") && !pf_run_context_settings_differ(&old, &c, NULL, 0);
    if (!(same_session && !was) && pf_time_budget_start(v['r'], c.time_budget_s, was != NULL, keep) != PF_OK)
        return free(was), fprintf(stderr, "pf-context: %s\n", pf_errmsg()), 1;
    char *now = was ? pf_run_context_text(&c) : NULL;
    if (was)
        fprintf(stderr, "%s: its settings changed, so the run starts again from the beginning (its files are "
                "replaced as they are remade; copy the folder first to keep them):\n  was: %s\n  now: %.*s\n",
                v['r'], was, now ? (int)strcspn(now, "\n") : 0, now ? now : "");
    free(was);
    free(now);
    return 0;
}
