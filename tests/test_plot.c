/*
 * test_plot.c — per-run plots (src/stats/plot.h).
 *
 * Each test builds a synthetic run folder in a fresh mkdtemp() folder with
 * KNOWN numbers (context.json, genGG/select.msgpack, the evidence of the
 * candidates, final.msgpack, hifi/topK/result.h5), draws it with gnuplot and
 * reads the .dat files back: the trajectory picks each generation's minimum
 * and carries its loss and residual, the HF stars are the Top-3's y_high,
 * the curves are the datasets, the fields' |error| and time slice are right.
 * The PNGs are checked by their signature and the IHDR size. Then the
 * skips (no final.msgpack, a 5-D PDE, no reference) and the failures (no
 * gnuplot, a gnuplot error, a corrupt artifact).
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/real.h"
#include "io/h5.h"
#include "io/msgpack_json.h"
#include "stats/plot.h"
#include "select_fixture.h"

/* ---------------------------------------------------------------- helpers --- */

static char dir[64];     /* the test's folder */
static char run[128];    /* dir/run: the run folder */
static char out[128];    /* dir/out: the plots */

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/pf_test_plot_XXXXXX");
    cr_assert_not_null(mkdtemp(dir), "mkdtemp failed");
    snprintf(run, sizeof run, "%s/run", dir);
    snprintf(out, sizeof out, "%s/out", dir);
}

static void remove_tree(const char *p)
{
    struct stat st;
    if (lstat(p, &st) != 0) return;
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(p);
        struct dirent *e;
        char c[1024];
        while (d && (e = readdir(d)))
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
                snprintf(c, sizeof c, "%s/%s", p, e->d_name);
                remove_tree(c);
            }
        if (d) closedir(d);
        rmdir(p);
    } else {
        unlink(p);
    }
}

/* PF_TEST_PLOT_KEEP=1 keeps the folders, to look at the PNGs. */
static void teardown(void)
{
    if (getenv("PF_TEST_PLOT_KEEP")) cr_log_info("kept %s", dir);
    else remove_tree(dir);
}

TestSuite(plot, .init = setup, .fini = teardown, .timeout = 30);

#define OK(call) cr_assert_eq((call), PF_OK, "%s: %s", #call, pf_errmsg())

static void write_msgpack(json_t *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void write_msgpack(json_t *v, const char *fmt, ...)
{
    char p[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p, sizeof p, fmt, ap);
    va_end(ap);
    char *slash = strrchr(p, '/');
    *slash = 0;
    OK(pf_mkdirs(p));
    *slash = '/';
    OK(pf_msgpack_write_file(p, v));
    json_decref(v);
}

static void write_context(const char *pde)
{
    OK(pf_mkdirs(run));
    char p[256];
    snprintf(p, sizeof p, "%s/context.json", run);
    FILE *f = fopen(p, "w");
    cr_assert_not_null(f);
    fprintf(f, "{\"pde\": \"%s\", \"method\": \"pinnforge\", \"run\": 0, \"budget\": \"quick\", \"llm\": \"offline\"}\n",
            pde);
    fclose(f);
}

static void write_evidence(int g, int k, double y, double loss_final, double res_mean)
{
    write_msgpack(json_pack("{s:s, s:i, s:f, s:s, s:s, s:{s:f, s:{s:f, s:f, s:f}}}", "format", "pinnforge.evidence",
                            "version", 1, "y", y, "status", "ok", "pde", "burgers_1d", "evidence", "loss_final", loss_final, "residual",
                            "mean", res_mean, "p95", 2 * res_mean, "max", 3 * res_mean),
                  "%s/gen%02d/cand%d/evidence.msgpack", run, g, k);
}

/*
 * The search: generation 0 (best: candidate 1, y 0.2; candidate 2 has a
 * lower y but status nan; candidate 3 no y), 1 (best: candidate 1, 0.05),
 * 2 (nothing ok: a gap), 3 (best: candidate 0, 0.04, loss_final 0 -> a
 * gap), then generation 4 skipped after the stop: its copy of generation
 * 3's selection must not count as a generation.
 */
static void write_search(void)
{
    static const fixture_cand c[] = {{0, 0, "ok", 0.5},       {0, 1, "ok", 0.2},  {0, 2, "nan", 0.01},
                                     {0, 3, "ok", -1},        {1, 0, "ok", 0.3},  {1, 1, "ok", 0.05},
                                     {2, 0, "diverged", 0.001}, {3, 0, "ok", 0.04}, {3, 1, "ok", 0.07}};
    write_evidence(0, 0, 0.5, 9.0, 9.0);
    write_evidence(0, 1, 0.2, 0.125, 0.75);
    write_evidence(1, 0, 0.3, 9.0, 9.0);
    write_evidence(1, 1, 0.05, 0.0625, 0.375);
    write_evidence(3, 0, 0.04, 0.0, 0.25);
    write_evidence(3, 1, 0.07, 9.0, 9.0);
    write_selections(run, c, 9, 4, 4); /* generation 3 is the last (stop); gen04 a skipped copy */
}

/* final.msgpack: y_high 3e-3, 1e-3 (the final design, hifi/top1), 2e-3. */
static void write_final(void)
{
    json_t *top = json_array();
    const double yh[3] = {3e-3, 1e-3, 2e-3};
    for (int k = 0; k < 3; k++) {
        char h[PF_SPEC_HASH_HEX];
        snprintf(h, sizeof h, "abcdef%02d%056d", k, 0); /* the spec of hifi/topK/result.h5 */
        json_array_append_new(top, json_pack("{s:s, s:f, s:f, s:s, s:i}", "spec_hash", h, "y_low", 0.1, "y_high",
                                             yh[k], "status", "ok", "seed", 9900 + k));
    }
    write_msgpack(json_pack("{s:s, s:i, s:f, s:o}", "format", "pinnforge.final", "version", 1, "hf_mse", 1e-3, "top3",
                            top),
                  "%s/final.msgpack", run);
}

/* The loss curves of every result.h5 here. */
static const double STEP[3] = {0, 10, 20}, TOTAL[3] = {1, 0.1, 0.01};
static const double BC[3] = {0.5, 0.05, 0}, IC[3] = {0, 0, 0}, PDE[3] = {2, 0.2, 0.02};
static const double ESTEP[2] = {0, 20}, EMSE[2] = {0.3, 0.003};

/* hifi/topK/result.h5 with the curves above and, when n > 0, n points x
 * (n x d_in), u and u_ref (n x d_out). */
static void write_result(int k, const double *x, const double *u, const double *ref, int n, int d_in, int d_out)
{
    char p[256];
    snprintf(p, sizeof p, "%s/hifi/top%d", run, k);
    OK(pf_mkdirs(p));
    snprintf(p, sizeof p, "%s/hifi/top%d/result.h5", run, k);
    pf_h5 *f;
    OK(pf_h5_create(p, &f));
    pf_h5_attr_str(f, "/", "format", "pinnforge.result");
    pf_h5_attr_i64(f, "/", "version", 1);
    pf_h5_attr_str(f, "/", "pde", "test_pde");
    pf_h5_attr_str(f, "/", "fidelity", "high");
    char h[PF_SPEC_HASH_HEX];
    snprintf(h, sizeof h, "abcdef%02d%056d", k, 0); /* as final.msgpack's top3[k] */
    pf_h5_attr_str(f, "/", "spec_hash", h);
    pf_h5_attr_str(f, "/", "status", "ok");
    pf_h5_write_f64(f, "/loss/step", STEP, 3);
    pf_h5_write_f64(f, "/loss/total", TOTAL, 3);
    pf_h5_write_f64(f, "/loss/terms/pde", PDE, 3);
    pf_h5_write_f64(f, "/loss/terms/ic", IC, 3);
    pf_h5_write_f64(f, "/loss/terms/bc", BC, 3);
    pf_h5_write_f64(f, "/eval/step", ESTEP, 2);
    pf_h5_write_f64(f, "/eval/mse", EMSE, 2);
    pf_h5_group(f, "/predictions");
    if (n > 0) {
        pf_real *rx = malloc(sizeof *rx * (size_t)(n * d_in)), *ru = malloc(sizeof *ru * (size_t)(n * d_out)),
                *rr = malloc(sizeof *rr * (size_t)(n * d_out));
        for (int i = 0; i < n * d_in; i++) rx[i] = (pf_real)x[i];
        for (int i = 0; i < n * d_out; i++) ru[i] = (pf_real)u[i], rr[i] = (pf_real)ref[i];
        pf_h5_write_real(f, "/predictions/x", rx, (size_t)n, (size_t)d_in);
        pf_h5_write_real(f, "/predictions/u", ru, (size_t)n, (size_t)d_out);
        pf_h5_write_real(f, "/predictions/u_ref", rr, (size_t)n, (size_t)d_out);
        free(rx), free(ru), free(rr);
    }
    OK(pf_h5_close(f));
}

/* Rows of block `index` of a .dat (comments and single blank lines
 * skipped; two blank lines end a block): up to cap rows of up to 8 numbers. */
typedef struct rows {
    double v[256][8];
    int ncol[256];
    int n;
} rows;

static void read_dat(const char *name, int index, rows *r)
{
    char p[256], line[1024];
    snprintf(p, sizeof p, "%s/%s", out, name);
    FILE *f = fopen(p, "r");
    cr_assert_not_null(f, "%s is missing", p);
    memset(r, 0, sizeof *r);
    int block = 0, blank = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '\n') {
            if (++blank == 2) block++;
            continue;
        }
        blank = 0;
        if (line[0] == '#' || block != index) continue;
        cr_assert_lt(r->n, 256);
        char *s = line, *end;
        int c = 0;
        for (double x; c < 8 && (x = strtod(s, &end), end != s); s = end) r->v[r->n][c++] = x;
        r->ncol[r->n++] = c;
    }
    fclose(f);
}

static int is_nan(double x) { return isnan(x); }

/* The PNG's signature and IHDR width and height. */
static void check_png(const char *name, unsigned w, unsigned h)
{
    char p[256];
    snprintf(p, sizeof p, "%s/%s", out, name);
    FILE *f = fopen(p, "rb");
    cr_assert_not_null(f, "%s is missing", p);
    unsigned char b[24];
    size_t got = fread(b, 1, sizeof b, f);
    fclose(f);
    cr_assert_eq(got, sizeof b, "%s is too short", p);
    static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    cr_assert(!memcmp(b, sig, 8), "%s lacks the PNG signature", p);
    cr_assert(!memcmp(b + 12, "IHDR", 4), "%s: no IHDR first", p);
    unsigned pw = (unsigned)b[16] << 24 | (unsigned)b[17] << 16 | (unsigned)b[18] << 8 | b[19];
    unsigned ph = (unsigned)b[20] << 24 | (unsigned)b[21] << 16 | (unsigned)b[22] << 8 | b[23];
    cr_assert_eq(pw, w, "%s: width %u, asked %u", p, pw, w);
    cr_assert_eq(ph, h, "%s: height %u, asked %u", p, ph, h);
}

static int file_exists(const char *name)
{
    char p[256];
    snprintf(p, sizeof p, "%s/%s", out, name);
    return access(p, F_OK) == 0;
}

/* Only the expected names in out/ (no temp file, no gnuplot log). */
static void check_only(const char *const *names, int n)
{
    DIR *d = opendir(out);
    cr_assert_not_null(d);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        int known = 0;
        for (int i = 0; i < n; i++) known |= !strcmp(e->d_name, names[i]);
        cr_expect(known, "unexpected file '%s' in the output folder", e->d_name);
    }
    closedir(d);
}

static const pf_plot_item *item(const pf_plot_report *rep, const char *name)
{
    for (int i = 0; i < rep->n; i++)
        if (!strcmp(rep->item[i].name, name)) return &rep->item[i];
    cr_assert_fail("no report item '%s'", name);
    return NULL;
}

static pf_plot_opts small_opts(void)
{
    pf_plot_opts o = pf_plot_opts_default(out);
    o.width = 640, o.height = 400, o.fields_width = 900, o.fields_height = 300;
    return o;
}

/* Draw the run in `run` into `out`. */
static pf_status plot_all(const pf_plot_opts *o, pf_plot_report *rep)
{
    pf_run r;
    OK(pf_run_open(run, &r));
    pf_plot_report_init(rep);
    return pf_plot_run(&r, o, rep);
}

/* heat_2d_multiscale's layout (x, y, t -> u) on the grid x in {0, .5, 1},
 * y in {0, 1}, t in {0, .5, 1} (18 points, t outermost): ref = x + 10 y +
 * 100 t, u = ref + e with e = i / 8 for point i. */
#define NXYT 18
static void xyt_points(double *x, double *u, double *ref)
{
    int i = 0;
    for (int it = 0; it < 3; it++)
        for (int iy = 0; iy < 2; iy++)
            for (int ix = 0; ix < 3; ix++, i++) {
                x[3 * i] = 0.5 * ix, x[3 * i + 1] = iy, x[3 * i + 2] = 0.5 * it;
                ref[i] = x[3 * i] + 10 * x[3 * i + 1] + 100 * x[3 * i + 2];
                u[i] = ref[i] + i / 8.0;
            }
}

/* ---------------------------------------------------------------- tests --- */

Test(plot, trajectory_picks_each_generations_best)
{
    write_context("heat_2d_multiscale");
    write_search();
    write_final();
    double x[3 * NXYT], u[NXYT], ref[NXYT];
    xyt_points(x, u, ref);
    write_result(1, x, u, ref, NXYT, 3, 1);
    pf_plot_opts o = small_opts();
    pf_plot_report rep;
    OK(plot_all(&o, &rep));
    cr_assert(item(&rep, "trajectory")->written, "%s", item(&rep, "trajectory")->note);

    rows r;
    read_dat("trajectory.dat", 0, &r);
    cr_assert_eq(r.n, 4, "generations 0..3 (the skipped gen04 copy ignored), got %d rows", r.n);
    /* generation, lf_mse, loss_final, residual_mean, index */
    const double want[4][5] = {{0, 0.2, 0.125, 0.75, 1}, {1, 0.05, 0.0625, 0.375, 1}, {2, NAN, NAN, NAN, -1},
                               {3, 0.04, NAN, 0.25, 0}};
    for (int g = 0; g < 4; g++) {
        cr_assert_eq(r.ncol[g], 5);
        for (int c = 0; c < 5; c++)
            if (isnan(want[g][c])) cr_expect(is_nan(r.v[g][c]), "gen %d col %d: want a gap, got %g", g, c, r.v[g][c]);
            else cr_expect_float_eq(r.v[g][c], want[g][c], 1e-12, "gen %d col %d: %g != %g", g, c, r.v[g][c],
                                    want[g][c]);
    }
    read_dat("trajectory.dat", 1, &r);
    cr_assert_eq(r.n, 3, "three HF stars");
    const double yh[3] = {3e-3, 1e-3, 2e-3};
    for (int k = 0; k < 3; k++) {
        cr_expect_eq(r.v[k][0], 4.0, "stars at generation last+1");
        cr_expect_float_eq(r.v[k][1], yh[k], 1e-15);
        cr_expect_eq(r.v[k][2], (double)k);
    }
    check_png("trajectory.png", 640, 400);
    /* the script names the HF tick and reads the .dat beside it */
    char p[256], *gp;
    size_t len;
    snprintf(p, sizeof p, "%s/trajectory.gp", out);
    OK(pf_file_read(p, &gp, &len));
    cr_expect(strstr(gp, "set xtics add (\"HF\" 4)") != NULL);
    cr_expect(strstr(gp, "\"trajectory.dat\"") != NULL);
    free(gp);
}

Test(plot, curves_match_the_datasets)
{
    write_context("heat_2d_multiscale");
    write_search();
    write_final();
    double x[3 * NXYT], u[NXYT], ref[NXYT];
    xyt_points(x, u, ref);
    write_result(1, x, u, ref, NXYT, 3, 1);
    pf_plot_opts o = small_opts();
    pf_plot_report rep;
    OK(plot_all(&o, &rep));
    const pf_plot_item *it = item(&rep, "curves");
    cr_assert(it->written, "%s", it->note);
    cr_expect(strstr(it->note, "hifi/top1/result.h5") != NULL, "the final design is top1: %s", it->note);

    rows r;
    read_dat("curves.dat", 0, &r);
    cr_assert_eq(r.n, 3);
    for (int i = 0; i < 3; i++) {
        /* step total bc ic pde (terms in name order) */
        cr_assert_eq(r.ncol[i], 5);
        cr_expect_eq(r.v[i][0], STEP[i]);
        cr_expect_float_eq(r.v[i][1], TOTAL[i], 1e-15);
        if (BC[i] > 0) cr_expect_float_eq(r.v[i][2], BC[i], 1e-15);
        else cr_expect(is_nan(r.v[i][2]), "a 0 on a log axis is a gap");
        cr_expect(is_nan(r.v[i][3]), "ic is identically 0");
        cr_expect_float_eq(r.v[i][4], PDE[i], 1e-15);
    }
    read_dat("curves.dat", 1, &r);
    cr_assert_eq(r.n, 2);
    for (int i = 0; i < 2; i++) {
        cr_expect_eq(r.v[i][0], ESTEP[i]);
        cr_expect_float_eq(r.v[i][1], EMSE[i], 1e-15);
    }
    char p[256], *gp;
    size_t len;
    snprintf(p, sizeof p, "%s/curves.gp", out);
    OK(pf_file_read(p, &gp, &len));
    cr_expect(strstr(gp, "\"ic (hard: 0)\"") != NULL, "the zero term is named in the key");
    cr_expect(strstr(gp, "using 1:4") == NULL, "the zero term is not drawn");
    cr_expect(strstr(gp, "test_pde, high fidelity, spec abcdef01, status ok") != NULL, "the title");
    free(gp);
    check_png("curves.png", 640, 400);
}

Test(plot, fields_xy_slice_and_error)
{
    write_context("heat_2d_multiscale");
    write_search();
    write_final();
    double x[3 * NXYT], u[NXYT], ref[NXYT];
    xyt_points(x, u, ref);
    write_result(1, x, u, ref, NXYT, 3, 1);
    pf_plot_opts o = small_opts();
    pf_plot_report rep;
    OK(plot_all(&o, &rep));
    const pf_plot_item *it = item(&rep, "fields_u");
    cr_assert(it->written, "%s", it->note);
    cr_expect(strstr(it->note, "t = 1 (time level 3 of 3") != NULL, "the last level: %s", it->note);
    cr_expect(strstr(it->note, "on a grid") != NULL, "%s", it->note);

    rows r;
    read_dat("fields_u.dat", 0, &r);
    cr_assert_eq(r.n, 6, "the t = 1 slice has 6 points");
    for (int i = 0; i < 6; i++) {
        /* x y t ref pred abs_err, row by row (y outer): point 12 + i */
        cr_assert_eq(r.ncol[i], 6);
        cr_expect_eq(r.v[i][2], 1.0);
        cr_expect_eq(r.v[i][0], 0.5 * (i % 3));
        cr_expect_eq(r.v[i][1], (double)(i / 3));
        cr_expect_float_eq(r.v[i][3], ref[12 + i], 1e-4);
        cr_expect_float_eq(r.v[i][5], (12 + i) / 8.0, 1e-4, "|u - u_ref| at point %d: %g", 12 + i, r.v[i][5]);
    }
    check_png("fields_u.png", 900, 300);
    const char *names[] = {"trajectory.png", "trajectory.dat", "trajectory.gp", "curves.png", "curves.dat",
                           "curves.gp",      "fields_u.png",   "fields_u.dat",  "fields_u.gp"};
    check_only(names, 9);

    /* --time 0.4: the nearest level is t = 0.5, points 6..11 */
    char p[256];
    snprintf(p, sizeof p, "%s/hifi/top1/result.h5", run);
    pf_run rr;
    OK(pf_run_open(run, &rr));
    o.has_time = 1, o.time = 0.4;
    pf_plot_report_init(&rep);
    OK(pf_plot_fields(p, rr.pde, &o, &rep));
    cr_expect(strstr(item(&rep, "fields_u")->note, "t = 0.5 (time level 2 of 3") != NULL, "%s",
              item(&rep, "fields_u")->note);
    read_dat("fields_u.dat", 0, &r);
    cr_assert_eq(r.n, 6);
    for (int i = 0; i < 6; i++) {
        cr_expect_eq(r.v[i][2], 0.5);
        cr_expect_float_eq(r.v[i][5], (6 + i) / 8.0, 1e-4);
    }
}

/* burgers_1d (x, t -> u): an x-t heatmap over every point; the points are
 * scattered (no full grid), given in random order. */
Test(plot, fields_xt_scattered)
{
    write_context("burgers_1d");
    write_final();
    enum { N = 7 };
    const double xt[N][2] = {{-1, 0}, {0.3, 0.1}, {0.5, 0.9}, {-0.25, 0.5}, {1, 1}, {0, 0.25}, {0.75, 0}};
    double x[2 * N], u[N], ref[N];
    for (int i = 0; i < N; i++) {
        x[2 * i] = xt[i][0], x[2 * i + 1] = xt[i][1];
        ref[i] = 0.25 * i;
        u[i] = ref[i] - 0.5 * (i % 3);
    }
    write_result(1, x, u, ref, N, 2, 1);
    pf_plot_opts o = small_opts();
    pf_plot_report rep;
    OK(plot_all(&o, &rep));
    cr_expect(!item(&rep, "trajectory")->written, "no selection yet");
    const pf_plot_item *it = item(&rep, "fields_u");
    cr_assert(it->written, "%s", it->note);
    cr_expect(strstr(it->note, "all 7 evaluation points (scattered)") != NULL, "%s", it->note);
    rows r;
    read_dat("fields_u.dat", 0, &r);
    cr_assert_eq(r.n, N);
    for (int i = 0; i < N; i++) {
        cr_expect_float_eq(r.v[i][0], xt[i][0], 1e-6);
        cr_expect_float_eq(r.v[i][1], xt[i][1], 1e-6);
        cr_expect_float_eq(r.v[i][4], 0.5 * (i % 3), 1e-6, "|error| at %d", i);
    }
    char p[256], *gp;
    size_t len;
    snprintf(p, sizeof p, "%s/fields_u.gp", out);
    OK(pf_file_read(p, &gp, &len));
    cr_expect(strstr(gp, "lc palette") != NULL && strstr(gp, "with image") == NULL, "square points, not an image");
    free(gp);
    check_png("fields_u.png", 900, 300);
}

/* One steady spatial input: a line plot, points sorted by x. */
Test(plot, fields_line_1d_steady)
{
    OK(pf_mkdirs(out));
    pf_pde line = {.name = "line_1d", .d_in = 1, .d_out = 2, .inputs = {"x"}, .outputs = {"u", "v"}, .time_input = -1};
    enum { N = 5 };
    const double xs[N] = {0.5, 0, 1, 0.25, 0.75};
    double u[2 * N], ref[2 * N];
    for (int i = 0; i < N; i++) {
        ref[2 * i] = xs[i], u[2 * i] = xs[i] + 0.125;
        ref[2 * i + 1] = 1, u[2 * i + 1] = 1; /* v exact: no log axis */
    }
    write_result(0, xs, u, ref, N, 1, 2);
    char p[256];
    snprintf(p, sizeof p, "%s/hifi/top0/result.h5", run);
    pf_plot_opts o = small_opts();
    pf_plot_report rep;
    pf_plot_report_init(&rep);
    OK(pf_plot_fields(p, &line, &o, &rep));
    cr_assert_eq(rep.n, 2);
    cr_assert(item(&rep, "fields_u")->written && item(&rep, "fields_v")->written);
    rows r;
    read_dat("fields_u.dat", 0, &r);
    cr_assert_eq(r.n, N);
    for (int i = 0; i < N; i++) {
        cr_assert_eq(r.ncol[i], 4);
        cr_expect_eq(r.v[i][0], 0.25 * i, "sorted by x");
        cr_expect_float_eq(r.v[i][3], 0.125, 1e-6);
    }
    check_png("fields_u.png", 900 * 4 / 5, 300);
    check_png("fields_v.png", 900 * 4 / 5, 300);
}

Test(plot, no_final_trajectory_only)
{
    write_context("heat_2d_multiscale");
    write_search();
    pf_plot_opts o = small_opts();
    pf_plot_report rep;
    OK(plot_all(&o, &rep));
    cr_assert_eq(rep.n, 3);
    cr_expect(item(&rep, "trajectory")->written);
    cr_expect(!item(&rep, "curves")->written);
    cr_expect(!item(&rep, "fields")->written);
    cr_expect(strstr(item(&rep, "curves")->note, "no final.msgpack") != NULL, "%s", item(&rep, "curves")->note);
    rows r;
    read_dat("trajectory.dat", 1, &r);
    cr_expect_eq(r.n, 0, "no HF stars");
    check_png("trajectory.png", 640, 400);
    cr_expect(!file_exists("curves.png") && !file_exists("curves.dat"));
    cr_log_info("skip note: %s", item(&rep, "curves")->note);
}

Test(plot, five_d_has_no_field_plot)
{
    write_context("poisson_5d");
    write_search();
    write_final();
    double x[5] = {0.1, 0.2, 0.3, 0.4, 0.5}, u[1] = {1}, ref[1] = {1};
    write_result(1, x, u, ref, 1, 5, 1);
    pf_plot_opts o = small_opts();
    pf_plot_report rep;
    OK(plot_all(&o, &rep));
    const pf_plot_item *it = item(&rep, "fields");
    cr_expect(!it->written);
    cr_expect(strstr(it->note, "5 spatial inputs") != NULL, "%s", it->note);
    cr_expect(item(&rep, "curves")->written);
    cr_expect(!file_exists("fields_u.png"));
}

Test(plot, no_reference_skips_fields)
{
    write_context("heat_2d_multiscale");
    write_final();
    write_result(1, NULL, NULL, NULL, 0, 3, 1);
    pf_plot_opts o = small_opts();
    pf_plot_report rep;
    OK(plot_all(&o, &rep));
    cr_expect(!item(&rep, "fields")->written);
    cr_expect(strstr(item(&rep, "fields")->note, "no /predictions") != NULL, "%s", item(&rep, "fields")->note);
    cr_expect(item(&rep, "curves")->written);
}

Test(plot, corrupt_final_is_an_io_error)
{
    write_context("heat_2d_multiscale");
    write_search();
    char p[256];
    snprintf(p, sizeof p, "%s/final.msgpack", run);
    FILE *f = fopen(p, "w");
    fputs("\x93\x01", f); /* an array of 3 with one element */
    fclose(f);
    pf_plot_opts o = small_opts();
    pf_plot_report rep;
    cr_assert_eq(plot_all(&o, &rep), PF_ERR_IO);
    cr_expect(strstr(pf_errmsg(), "final.msgpack") != NULL, "%s", pf_errmsg());
}

Test(plot, a_result_of_another_spec_is_refused)
{
    write_context("heat_2d_multiscale");
    write_search();
    write_final();
    write_result(2, NULL, NULL, NULL, 0, 3, 1); /* top2's training ... */
    char a[256], b[256];
    snprintf(a, sizeof a, "%s/hifi/top2/result.h5", run);
    snprintf(b, sizeof b, "%s/hifi/top1", run);
    OK(pf_mkdirs(b));
    snprintf(b, sizeof b, "%s/hifi/top1/result.h5", run);
    cr_assert_eq(rename(a, b), 0); /* ... where the final design's should be */
    pf_plot_opts o = small_opts();
    pf_plot_report rep;
    cr_assert_eq(plot_all(&o, &rep), PF_ERR_IO);
    cr_expect(strstr(pf_errmsg(), "do not belong together") && strstr(pf_errmsg(), b), "%s", pf_errmsg());
}

Test(plot, missing_gnuplot_says_to_install_it)
{
    write_context("heat_2d_multiscale");
    write_search();
    setenv("PATH", "/nonexistent", 1); /* this test's own process */
    pf_plot_opts o = small_opts();
    pf_plot_report rep;
    cr_assert_eq(plot_all(&o, &rep), PF_ERR_EXTERNAL);
    cr_expect(strstr(pf_errmsg(), "gnuplot-nox") != NULL, "%s", pf_errmsg());
    cr_expect(access(out, F_OK) != 0, "nothing written");
}

Test(plot, gnuplot_failure_leaves_no_png)
{
    OK(pf_mkdirs(out));
    const char data[] = "1 2\n";
    pf_status st = pf_plot_render(out, "broken", data, sizeof data - 1, "plot \"broken.dat\" using 1:2 with nonsense\n",
                                  300, 200);
    cr_assert_eq(st, PF_ERR_IO);
    cr_expect(strstr(pf_errmsg(), "broken.gp") != NULL, "names the script: %s", pf_errmsg());
    cr_log_info("gnuplot failure: %s", pf_errmsg());
    const char *names[] = {"broken.dat", "broken.gp"};
    check_only(names, 2);
    OK(pf_plot_render(out, "fine", data, sizeof data - 1, "plot \"fine.dat\" using 1:2 with points\n", 300, 200));
    check_png("fine.png", 300, 200);
}

/* ------------------------------------------------------------ damaged result.h5 --- */

/* Flip byte `at` of file p (issue 24: one changed byte could crash HDF5). */
static void flip_byte(const char *p, long at)
{
    FILE *f = fopen(p, "r+b");
    cr_assert_not_null(f, "cannot open %s", p);
    cr_assert_eq(fseek(f, at, SEEK_SET), 0);
    int c = fgetc(f);
    cr_assert_neq(c, EOF, "%s is shorter than %ld bytes", p, at + 1);
    cr_assert_eq(fseek(f, at, SEEK_SET), 0);
    fputc(c ^ 0xFB, f);
    cr_assert_eq(fclose(f), 0);
}

/* A result.h5 with one byte changed is refused by every reader, by name,
 * before HDF5 opens it: in the header or in HDF5's metadata. */
Test(plot, corrupt_result_is_an_io_error)
{
    write_context("heat_2d_multiscale");
    write_search();
    write_final();
    double x[3 * NXYT], u[NXYT], ref[NXYT];
    xyt_points(x, u, ref);
    const long at[3] = {40, 600, 4000}; /* the digest, the superblock, an object header */
    for (int i = 0; i < 3; i++) {
        write_result(1, x, u, ref, NXYT, 3, 1);
        char p[256];
        snprintf(p, sizeof p, "%s/hifi/top1/result.h5", run);
        flip_byte(p, at[i]);
        pf_plot_opts o = small_opts();
        pf_plot_report rep;
        cr_assert_eq(plot_all(&o, &rep), PF_ERR_IO, "byte %ld", at[i]);
        cr_expect(strstr(pf_errmsg(), p) && strstr(pf_errmsg(), "is corrupt"), "%s", pf_errmsg());
        pf_plot_report_init(&rep);
        cr_assert_eq(pf_plot_curves(p, &o, &rep), PF_ERR_IO);
        cr_expect(strstr(pf_errmsg(), p) && strstr(pf_errmsg(), "is corrupt"), "%s", pf_errmsg());
        pf_run r;
        OK(pf_run_open(run, &r));
        cr_assert_eq(pf_plot_fields(p, r.pde, &o, &rep), PF_ERR_IO);
        cr_expect(strstr(pf_errmsg(), p) && strstr(pf_errmsg(), "is corrupt"), "%s", pf_errmsg());
        cr_expect_eq(rep.n, 0, "nothing drawn");
    }
}

/* A result.h5 whose datasets disagree with each other or with the PDE:
 * refused with the dataset and the file named, nothing read past a buffer.
 * Each case starts from a consistent file (heat_2d_multiscale: x, y, t ->
 * u; 3 loss records, 2 evaluations, NXYT points) and breaks one thing. */
typedef enum {
    BREAK_STEP_SHAPE,   /* /loss/step a matrix */
    BREAK_TERM_LENGTH,  /* /loss/terms/bc shorter than /loss/step */
    BREAK_TOTAL_SHAPE,  /* /loss/total a matrix */
    BREAK_EVAL_LENGTH,  /* /eval/mse longer than /eval/step */
    BREAK_U_ROWS,       /* /predictions/u a row short of /predictions/x */
    BREAK_U_COLS,       /* /predictions/u two columns for one output */
    BREAK_REF_ROWS,     /* /predictions/u_ref a row short */
    BREAK_X_COLS,       /* /predictions/x two columns for three inputs */
    BREAK_COUNT
} break_kind;

static void write_broken(const char *p, break_kind b)
{
    double x[3 * NXYT], u[2 * NXYT], ref[NXYT];
    xyt_points(x, u, ref);
    for (int i = 0; i < NXYT; i++) u[NXYT + i] = u[i];
    pf_real rx[3 * NXYT], ru[2 * NXYT], rr[NXYT];
    for (int i = 0; i < 3 * NXYT; i++) rx[i] = (pf_real)x[i];
    for (int i = 0; i < 2 * NXYT; i++) ru[i] = (pf_real)u[i];
    for (int i = 0; i < NXYT; i++) rr[i] = (pf_real)ref[i];
    pf_h5 *f;
    OK(pf_h5_create(p, &f));
    OK(pf_h5_attr_str(f, "/", "format", "pinnforge.result"));
    OK(pf_h5_attr_i64(f, "/", "version", 1));
    OK(pf_h5_attr_str(f, "/", "status", "ok"));
    const pf_real m[6] = {1, 2, 3, 4, 5, 6};
    if (b == BREAK_STEP_SHAPE) OK(pf_h5_write_real(f, "/loss/step", m, 3, 2));
    else OK(pf_h5_write_f64(f, "/loss/step", STEP, 3));
    if (b == BREAK_TOTAL_SHAPE) {
        OK(pf_h5_write_real(f, "/loss/total", m, 3, 2));
    } else {
        OK(pf_h5_write_f64(f, "/loss/total", TOTAL, 3));
    }
    OK(pf_h5_write_f64(f, "/loss/terms/bc", BC, b == BREAK_TERM_LENGTH ? 2 : 3));
    OK(pf_h5_write_f64(f, "/loss/terms/pde", PDE, 3));
    const double emse[3] = {0.3, 0.003, 0.0003};
    OK(pf_h5_write_f64(f, "/eval/step", ESTEP, 2));
    OK(pf_h5_write_f64(f, "/eval/mse", emse, b == BREAK_EVAL_LENGTH ? 3 : 2));
    OK(pf_h5_write_real(f, "/predictions/x", rx, b == BREAK_X_COLS ? 27 : NXYT, b == BREAK_X_COLS ? 2 : 3));
    if (b == BREAK_U_COLS) OK(pf_h5_write_real(f, "/predictions/u", ru, NXYT, 2));
    else OK(pf_h5_write_real(f, "/predictions/u", ru, b == BREAK_U_ROWS ? NXYT - 1 : NXYT, 1));
    OK(pf_h5_write_real(f, "/predictions/u_ref", rr, b == BREAK_REF_ROWS ? NXYT - 1 : NXYT, 1));
    OK(pf_h5_close(f));
}

Test(plot, inconsistent_datasets_are_refused_by_name)
{
    write_context("heat_2d_multiscale");
    pf_run r;
    OK(pf_run_open(run, &r));
    static const char *const named[BREAK_COUNT] = {
        [BREAK_STEP_SHAPE] = "'/loss/step'",      [BREAK_TERM_LENGTH] = "'/loss/terms/bc'", [BREAK_TOTAL_SHAPE] = "'/loss/total'",
        [BREAK_EVAL_LENGTH] = "'/eval/mse'",      [BREAK_U_ROWS] = "'/predictions/u'",
        [BREAK_U_COLS] = "'/predictions/u'",      [BREAK_REF_ROWS] = "'/predictions/u_ref'",
        [BREAK_X_COLS] = "'/predictions/x'",
    };
    char p[256];
    snprintf(p, sizeof p, "%s/result.h5", dir);
    pf_plot_opts o = small_opts();
    for (int b = 0; b < BREAK_COUNT; b++) {
        write_broken(p, (break_kind)b);
        pf_plot_report rep;
        pf_plot_report_init(&rep);
        int curves = b <= BREAK_EVAL_LENGTH; /* which reader meets the flaw */
        pf_status st = curves ? pf_plot_curves(p, &o, &rep) : pf_plot_fields(p, r.pde, &o, &rep);
        cr_assert_eq(st, PF_ERR_IO, "case %d: %s", b, pf_errmsg());
        cr_expect(strstr(pf_errmsg(), named[b]) && strstr(pf_errmsg(), p), "case %d: %s", b, pf_errmsg());
        cr_log_info("case %d: %s", b, pf_errmsg());
        cr_expect_eq(rep.n, 0, "case %d: nothing drawn", b);
    }
}
