/*
 * pf-plot — per-run plots with gnuplot (src/stats/plot.h has the figures).
 *
 *   pf-plot --run RUN --out DIR [--time T] [--quiet]
 *
 * writes DIR/trajectory.{png,dat,gp}, DIR/curves.{png,dat,gp} and
 * DIR/fields_<output>.{png,dat,gp} for the run folder RUN; a plot the run
 * cannot have yet is skipped with a line saying why. Exit 0 ok (also when
 * plots were skipped), 1 an unreadable artifact, a gnuplot failure or no
 * gnuplot, 2 usage.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/status.h"
#include "llm/method.h"
#include "search/run.h"
#include "stats/plot.h"

static void usage(FILE *to)
{
    fprintf(to,
            "usage: pf-plot --run RUN --out DIR [--time T] [--quiet]\n"
            "Draws a search run's plots with gnuplot (pngcairo) into DIR, each as STEM.png with\n"
            "the data (STEM.dat) and the script (STEM.gp) beside it; rerun a script by hand in\n"
            "DIR with `gnuplot STEM.gp` to restyle it:\n"
            "  trajectory      per generation, the best low-fidelity MSE with that candidate's\n"
            "                  final training loss and mean |PDE residual|; stars: the final\n"
            "                  Top-3's high-fidelity MSEs at \"HF\"\n"
            "  curves          the final design's training curves (RUN/hifi/topK/result.h5):\n"
            "                  each loss term, the total and the evaluation MSE per step\n"
            "  fields_<out>    reference | prediction | |error| per output, for PDEs with 1 or\n"
            "                  2 spatial inputs (x-t heatmap, x-y heatmap at a time slice, or a\n"
            "                  line plot for one steady input)\n"
            "  --run RUN       the run folder (runs/<pde>/<method>/run<R>, with context.json)\n"
            "  --out DIR       the output folder (created if missing)\n"
            "  --time T        x-y fields: the time level nearest T (default: the last)\n"
            "  --quiet         no progress lines on stderr\n"
            "A plot whose inputs do not exist yet (no final.msgpack, no reference) is skipped\n"
            "with a line saying why. Needs gnuplot on PATH (Debian: gnuplot-nox).\n"
            "Exit codes: 0 ok, 1 unreadable artifact, gnuplot failure or no gnuplot, 2 usage.\n");
}

/* 0 ok, -1 --help, 2 usage */
static int parse(int argc, char **argv, const char **run, pf_plot_opts *o, int *quiet)
{
    *run = NULL;
    *quiet = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return -1;
        } else if (!strcmp(a, "--run") && i + 1 < argc)
            *run = argv[++i];
        else if (!strcmp(a, "--out") && i + 1 < argc)
            o->out_dir = argv[++i];
        else if (!strcmp(a, "--time") && i + 1 < argc) {
            char *end;
            errno = 0;
            o->time = strtod(argv[++i], &end);
            if (errno || end == argv[i] || *end || !isfinite(o->time)) {
                fprintf(stderr, "pf-plot: --time must be a finite number, not '%s'\n", argv[i]);
                return 2;
            }
            o->has_time = 1;
        } else if (!strcmp(a, "--quiet") || !strcmp(a, "-q"))
            *quiet = 1;
        else if (a[0] != '-') {
            fprintf(stderr, "pf-plot: unexpected argument '%s'\n", a);
            return 2;
        } else {
            fprintf(stderr, "pf-plot: unknown option '%s' (or it lacks its value); see --help\n", a);
            return 2;
        }
    }
    if (!*run || !**run) {
        fprintf(stderr, "pf-plot: --run RUN is required; see --help\n");
        return 2;
    }
    if (!o->out_dir || !*o->out_dir) {
        fprintf(stderr, "pf-plot: --out DIR is required; see --help\n");
        return 2;
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *run_dir;
    pf_plot_opts o = pf_plot_opts_default(NULL);
    int quiet;
    int rc = parse(argc, argv, &run_dir, &o, &quiet);
    if (rc) return rc < 0 ? 0 : rc;

    pf_run r;
    pf_status st = pf_run_open(run_dir, &r);
    if (st != PF_OK) {
        fprintf(stderr, "pf-plot: %s\n", pf_errmsg());
        return 1;
    }
    if (!quiet)
        fprintf(stderr, "pf-plot: plotting %s (%s, %s run %d) into %s\n", run_dir, r.pde->name,
                pf_method_name(r.method), r.run, o.out_dir);
    pf_plot_report rep;
    pf_plot_report_init(&rep);
    st = pf_plot_run(&r, &o, &rep);
    if (!quiet)
        for (int i = 0; i < rep.n; i++) {
            const pf_plot_item *it = &rep.item[i];
            if (it->written)
                fprintf(stderr, "pf-plot: wrote %s/%s.png (.dat, .gp): %s\n", o.out_dir, it->name, it->note);
            else
                fprintf(stderr, "pf-plot: %s: %s\n", it->name, it->note);
        }
    if (st != PF_OK) {
        fprintf(stderr, "pf-plot: %s\n", pf_errmsg());
        return pf_status_exit_code(st) == 2 ? 1 : pf_status_exit_code(st);
    }
    return 0;
}
