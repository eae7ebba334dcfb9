/*
 * plot.h — per-run plots with gnuplot (issue 7): the search trajectory, the
 * final design's training curves and its fields against the reference.
 *
 *     pf_run r;
 *     PF_TRY(pf_run_open("runs/burgers_1d/pinnforge/run0", &r));
 *     pf_plot_opts o = pf_plot_opts_default("reports/burgers_1d/run0");
 *     pf_plot_report rep;
 *     PF_TRY(pf_plot_run(&r, &o, &rep));
 *     for (int i = 0; i < rep.n; i++)
 *         printf("%s: %s\n", rep.item[i].name, rep.item[i].note);
 *
 * ------------------------------------------------------------- files
 *
 * Every figure is three files in the output folder, all written atomically
 * (temp + rename), so neither a half PNG nor a half script is ever left:
 *
 *   STEM.dat   the numbers plotted, whitespace-separated columns named in a
 *              "#" header; "NaN" marks a gap (missing, non-finite, or not
 *              positive on a log axis); data blocks separated by two blank
 *              lines (gnuplot's `index`)
 *   STEM.gp    the gnuplot script; rerun it by hand in that folder with
 *              `gnuplot STEM.gp` (or `gnuplot -e "outfile='x.png'" STEM.gp`)
 *   STEM.png   pngcairo, opts.width x opts.height pixels (fields: see below)
 *
 * The stems are a contract (pf-stats links them from reports/<pde>/index.md):
 *
 *   trajectory   x = generation 0..G, then "HF" at G+1; per generation the
 *                best low-fidelity candidate (status ok, finite y): its MSE,
 *                its final training loss (evidence.loss_final) and its mean
 *                |PDE residual| (evidence.residual.mean); stars: the
 *                high-fidelity MSEs of the final Top-3 (final.msgpack
 *                top3[].y_high). Log y.
 *                trajectory.dat block 0: generation lf_mse loss_final
 *                residual_mean index (the candidate's index, -1 none);
 *                block 1: x y_high k (one row per Top-3 entry, k its
 *                position in top3 = hifi/topK).
 *   curves       the final design (RUN/hifi/topK/result.h5, K the Top-3
 *                entry with the lowest y_high among status ok): every loss
 *                term's unweighted value and the weighted total against the
 *                optimizer step, and the evaluation MSE as points. Log y.
 *                A term that is identically 0 (a hard constraint) is not
 *                drawn; the key names it "NAME (hard: 0)".
 *                curves.dat block 0: step total TERM... (/loss/step,
 *                /loss/total, /loss/terms/TERM in name order); block 1:
 *                step mse (/eval/step, /eval/mse).
 *   fields_OUT   one per output component OUT of the PDE (u, v, p, ...),
 *                only when the PDE has 1 or 2 spatial inputs (inputs other
 *                than time), from /predictions/{x,u,u_ref} of the same
 *                result.h5:
 *                - 1 spatial input + time: x-t heatmaps over every
 *                  evaluation point, panels reference | prediction | |error|;
 *                - 2 spatial inputs (+ time): x-y heatmaps at one time slice
 *                  (the last time level, or the level nearest opts.time),
 *                  named in the title; steady: all the points;
 *                - 1 spatial input, steady: reference and prediction against
 *                  x, and |error| against x (log y) beside it.
 *                Heatmaps share one colour range between reference and
 *                prediction; each panel has its colour bar. When the points
 *                (of the slice) form a full, evenly spaced tensor grid they
 *                are drawn `with image`, else as square points coloured by
 *                the palette. fields_OUT.dat columns: the spatial inputs
 *                (and time), ref pred abs_err; a grid is written row by row
 *                with a blank line between rows.
 *                3+ spatial inputs: no field plot; the report says so.
 *
 * ------------------------------------------------------------- outcomes
 *
 * A plot the run cannot have yet is skipped, not an error: no select.msgpack
 * (trajectory), no final.msgpack or no hifi result.h5 (curves, fields), no
 * reference so no /predictions (fields), no finite positive value at all.
 * The report says why. Errors: PF_ERR_IO for an unreadable or corrupt
 * artifact (naming the file) or a gnuplot failure (naming the script, with
 * gnuplot's last message); PF_ERR_EXTERNAL when `gnuplot` is not on PATH
 * (the message says to install gnuplot-nox, which scripts/install-deps.sh
 * installs). Files written before a failure stay (each one is complete).
 *
 * The library prints nothing; gnuplot's own stderr is kept only to quote
 * it in an error. gnuplot runs in the output folder, one process per figure
 * (about 0.1 s each), waited for before the next.
 */
#ifndef PF_STATS_PLOT_H
#define PF_STATS_PLOT_H

#include <stddef.h>

#include "core/status.h"
#include "geom/pde.h"
#include "search/run.h"

#define PF_PLOT_WIDTH 1000          /* trajectory, curves: default PNG size */
#define PF_PLOT_HEIGHT 640
#define PF_PLOT_FIELDS_WIDTH 1500   /* fields: three panels side by side */
#define PF_PLOT_FIELDS_HEIGHT 480
#define PF_PLOT_MAX_ITEMS (3 + PF_PDE_MAX_OUT)

typedef struct pf_plot_opts {
    const char *out_dir;      /* the output folder; created (with parents) if missing */
    int width, height;        /* trajectory and curves PNGs, pixels */
    int fields_width, fields_height; /* field PNGs (the whole row of panels), pixels */
    int has_time;             /* 1: the x-y field slice is the level nearest `time` */
    double time;              /*    (else the last time level present) */
} pf_plot_opts;

/* Defaults: the sizes above, the last time level. */
pf_plot_opts pf_plot_opts_default(const char *out_dir);

/* One figure, written or skipped. */
typedef struct pf_plot_item {
    char name[64];    /* the stem: "trajectory", "curves", "fields_u"; "fields" when none applies */
    int written;      /* 1: STEM.png, .dat, .gp written in out_dir; 0: skipped */
    char note[512];   /* what it shows (written) or why not (skipped), one line */
} pf_plot_item;

typedef struct pf_plot_report {
    int n;
    pf_plot_item item[PF_PLOT_MAX_ITEMS];
} pf_plot_report;

/* Clear rep (n = 0). Every function below appends to a report. */
void pf_plot_report_init(pf_plot_report *rep);

/* Everything for the run r: trajectory, then curves and fields of the final
 * design. Checks for gnuplot first, so nothing is written without it.
 * Stops at the first error (see "outcomes"). */
pf_status pf_plot_run(const pf_run *r, const pf_plot_opts *o, pf_plot_report *rep);

/* trajectory.{dat,gp,png} from r's selections (the last genGG/select.msgpack
 * that is not "skipped"), the evidence of each generation's best candidate
 * and final.msgpack when present (the HF stars). */
pf_status pf_plot_trajectory(const pf_run *r, const pf_plot_opts *o, pf_plot_report *rep);

/* The final design of the run in `run_dir`: the result.h5 that
 * final.msgpack names ("result": a baseline's candidate, or a search's
 * high-fidelity retraining; *k = 0), else, in files written before that
 * key, the best ok entry of its Top-3 (*k 0..2); its path in path[cap],
 * checked to hold the final spec, and *found = 1; *found = 0 with the reason in why[why_cap]
 * when there is none yet (no final.msgpack, no ok entry, no result.h5).
 * PF_ERR_IO for an unreadable final.msgpack. */
pf_status pf_plot_final_result(const char *run_dir, int *k, char *path, size_t cap, int *found,
                               char *why, size_t why_cap);

/* curves.{dat,gp,png} from any result.h5 (pf-train's layout above); its
 * root attributes pde, fidelity, spec_hash and status name it in the title
 * when present. */
pf_status pf_plot_curves(const char *result_h5, const pf_plot_opts *o, pf_plot_report *rep);

/* fields_OUT.{dat,gp,png} for every output of `pde` from result.h5's
 * /predictions (n x pde->d_in points; n x pde->d_out prediction and
 * reference), or one skipped item "fields" saying why not. */
pf_status pf_plot_fields(const char *result_h5, const pf_pde *pde, const pf_plot_opts *o,
                         pf_plot_report *rep);

/* ------------------------------------------------------------- gnuplot */

/* PF_OK when an executable `gnuplot` is on PATH, else PF_ERR_EXTERNAL with
 * the install hint. */
pf_status pf_plot_gnuplot_check(void);

/* The driver under every figure: writes out_dir/STEM.dat (data[0..data_len))
 * and out_dir/STEM.gp (a header choosing pngcairo at width x height and
 * `set output outfile`, outfile defaulting to "STEM.png", then `script`),
 * runs `gnuplot STEM.gp` in out_dir with outfile set to a temp name, waits,
 * and renames the temp PNG to STEM.png when gnuplot exits 0 and the PNG is
 * not empty. The temp PNG and gnuplot's captured stderr are removed in every
 * case. `stem` is [A-Za-z0-9_.-] only. */
pf_status pf_plot_render(const char *out_dir, const char *stem, const char *data, size_t data_len,
                         const char *script, int width, int height);

#endif
