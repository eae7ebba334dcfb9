/*
 * pf-stats — the paper's tables and statistics from cached runs, or from a
 * table of means (src/stats/). Nothing is ever re-run.
 *
 *   pf-stats [--runs DIR] [--out DIR] [--pde P] [--reference M] [--backbone B] [--quiet]
 *       collects DIR/<pde>/<method>[@<backbone>]/run<R>/ (default runs/)
 *       and writes main, ablation, trajectory and budget tables (md, tex,
 *       csv), the cross-backbone tables when the runs have several
 *       backbones, and statistics.json into --out (default reports/, or
 *       reports/<P> with --pde P, which also writes index.md linking the
 *       tables and plots)
 *   pf-stats --from-table CSV [--reference M] [--json]
 *       the statistics of a table of means (columns pde, method, mean, std):
 *       lines for people, or one JSON object (src/stats/compare.h)
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "stats/collect.h"
#include "stats/compare.h"
#include "stats/means.h"
#include "stats/report.h"

static void usage(FILE *to)
{
    fprintf(to,
            "usage: pf-stats [--runs DIR] [--out DIR] [--pde P] [--reference M] [--backbone B] [--metric M] [--quiet]\n"
            "       pf-stats --from-table CSV [--reference M] [--json]\n"
            "From runs: reads every DIR/<pde>/<method>/run<R>/ and DIR/<pde>/<method>@<backbone>/run<R>/\n"
            "(final.msgpack, the last\n"
            "genGG/select.msgpack, context.json; nothing is re-run) and writes into --out:\n"
            "  main.{md,tex,csv}        mean ± std of the final MSE per PDE and method, best in\n"
            "                           bold, Friedman average ranks, Wilcoxon verdicts against\n"
            "                           the reference (Holm), median CV (the paper's Table 1)\n"
            "  ablation.{md,tex,csv}    ablation methods vs the reference, median error ratio\n"
            "                           (Table B.7; only when ablation runs exist)\n"
            "  trajectory.{md,tex,csv}  per run: Generation-0 best, best LF, final HF, ratios (C.1)\n"
            "  budget.{md,tex,csv}      optimizer steps, wall time, LLM calls and tokens\n"
            "  statistics.json          the statistics behind main and ablation\n"
            "With finished runs of 2 or more backbones (an LLM-driven method's runs in\n"
            "<method>@<backbone>; a plain <method> folder is the backbone 'offline'; the\n"
            "methods that ask no LLM are shared by all), main and ablation hold one\n"
            "backbone's runs (--backbone) and these are added:\n"
            "  table1@B.{md,tex,csv}    main's table for each backbone B\n"
            "  backbones_friedman.*     per LLM-driven method, Friedman across backbones\n"
            "                           (blocks: the PDEs where every backbone has runs)\n"
            "  backbones_kendall.*      the methods' mean ranks per backbone, Kendall's W\n"
            "  backbones_wtl.*          the reference's wins / ties / losses against each\n"
            "                           baseline per backbone (Welch's t on log10 MSE over\n"
            "                           runs, a tie at p >= 0.05)\n"
            "Runs without final.msgpack are listed and left out of the means.\n"
            "  --runs DIR        the runs folder (default runs)\n"
            "  --out DIR         where to write (default reports, or reports/P with --pde)\n"
            "  --pde P           only P's runs; also writes index.md linking the tables and\n"
            "                    the PNGs pf-plot wrote into OUT/<method>/run<R>/\n"
            "  --reference M     the method the others are compared with (default pinnforge)\n"
            "  --backbone B      the backbone of main and ablation (default: offline when it\n"
            "                    has finished runs, else the first by name)\n"
            "  --metric M        hf_mse (default: the MSE that steered each run) or report_mse\n"
            "                    (under EVAL=heldout, the held-out half); the main table notes\n"
            "                    the optimism gap, median report_mse / hf_mse of heldout runs\n"
            "  --from-table CSV  statistics from a CSV of means instead (columns pde, method,\n"
            "                    mean, std >= 0; more columns are ignored; '#' lines are\n"
            "                    comments):\n"
            "                    Friedman, Wilcoxon + Holm against the reference, median CV,\n"
            "                    median ratio to the reference, best-other-method summary\n"
            "  --json            with --from-table: one JSON object {friedman, wilcoxon,\n"
            "                    median_cv, median_ratio, best_other, ...}\n"
            "  --quiet           no 'wrote' lines\n"
            "Exit codes: 0 ok, 1 unreadable runs or table, or a write failure, 2 usage error.\n");
}

static int from_table(const char *csv, const char *reference, int json)
{
    pf_means m;
    json_t *c = NULL;
    if (pf_means_read_csv(csv, &m) != PF_OK || pf_compare(&m, reference, &c) != PF_OK) {
        fprintf(stderr, "pf-stats: %s\n", pf_errmsg());
        pf_means_release(&m);
        return 1;
    }
    pf_means_release(&m);
    char *text = json ? json_dumps(c, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) : pf_compare_text(c);
    json_decref(c);
    if (!text) return fprintf(stderr, "pf-stats: out of memory\n"), 1;
    fputs(text, stdout);
    if (json) fputc('\n', stdout);
    free(text);
    return 0;
}

/* The library's messages ("wrote PATH") as pf-stats lines. */
static void log_line(pf_log_level level, const char *msg, void *user)
{
    (void)user;
    static const char *const tag[] = {"debug: ", "", "warning: ", "error: "};
    fprintf(stderr, "pf-stats: %s%s\n", tag[level], msg);
}

int main(int argc, char **argv)
{
    static const struct option lo[] = {{"runs", 1, 0, 'r'},       {"out", 1, 0, 'o'},  {"pde", 1, 0, 'p'},
                                       {"reference", 1, 0, 'R'},  {"from-table", 1, 0, 't'},
                                       {"json", 0, 0, 'j'},       {"quiet", 0, 0, 'q'}, {"help", 0, 0, 'h'},
                                       {"metric", 1, 0, 'm'},    {"backbone", 1, 0, 'b'},
                                       {0, 0, 0, 0}};
    const char *runs = "runs", *out = NULL, *pde = NULL, *reference = "pinnforge", *table = NULL, *backbone = NULL;
    int json = 0, quiet = 0, ch;
    pf_metric metric = PF_METRIC_HF;
    pf_log_set(log_line, NULL);
    while ((ch = getopt_long(argc, argv, "hq", lo, NULL)) != -1) {
        switch (ch) {
        case 'r': runs = optarg; break;
        case 'o': out = optarg; break;
        case 'p': pde = optarg; break;
        case 'R': reference = optarg; break;
        case 'b': backbone = optarg; break;
        case 't': table = optarg; break;
        case 'j': json = 1; break;
        case 'm':
            if (!strcmp(optarg, "hf_mse")) metric = PF_METRIC_HF;
            else if (!strcmp(optarg, "report_mse")) metric = PF_METRIC_REPORT;
            else return fprintf(stderr, "pf-stats: --metric wants hf_mse or report_mse, not '%s'\n", optarg), 2;
            break;
        case 'q': quiet = 1; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind != argc) return fprintf(stderr, "pf-stats: unexpected argument '%s' (see --help)\n", argv[optind]), 2;
    if (table) {
        if (out || pde || backbone) return fprintf(stderr, "pf-stats: --from-table takes no --out, --pde or --backbone\n"), 2;
        return from_table(table, reference, json);
    }
    if (json) return fprintf(stderr, "pf-stats: --json goes with --from-table\n"), 2;
    char outbuf[4096];
    if (!out) {
        snprintf(outbuf, sizeof outbuf, "reports%s%s", pde ? "/" : "", pde ? pde : "");
        out = outbuf;
    }
    pf_collection c;
    if (pf_collect(runs, pde, &c) != PF_OK) return fprintf(stderr, "pf-stats: %s\n", pf_errmsg()), 1;
    c.metric = metric;
    int finished = 0;
    for (int i = 0; i < c.n; i++) finished += c.run[i].final;
    if (!quiet) {
        fprintf(stderr, "pf-stats: %d run%s under %s%s%s, %d finished\n", c.n, c.n == 1 ? "" : "s", runs,
                pde ? " for " : "", pde ? pde : "", finished);
        for (int i = 0; i < c.n; i++)
            if (!c.run[i].final)
                fprintf(stderr, "pf-stats: left out of the means (no final.msgpack yet): %s\n", c.run[i].dir);
    }
    pf_report_options o = {out, reference, quiet, backbone};
    int written = 0;
    pf_status st = pf_report_tables(&c, &o, &written);
    if (st == PF_OK && pde) st = pf_report_index(&c, &o, pde);
    pf_collection_release(&c);
    if (st != PF_OK) return fprintf(stderr, "pf-stats: %s\n", pf_errmsg()), 1;
    if (!quiet) fprintf(stderr, "pf-stats: done, %d file%s in %s\n", written + (pde != NULL), written + (pde != NULL) == 1 ? "" : "s", out);
    return 0;
}
