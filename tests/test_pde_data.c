/*
 * test_pde_data.c — the data files a .pde file names (src/pdefile/table.h):
 * observations and a reference from .csv, .h5 and .dat files beside it,
 * with their columns in any order, give the same points and values; a time
 * input declared first becomes the last input, and its data and formulas
 * follow it by name; what is wrong with a file is said with its name.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "geom/geometry.h"
#include "geom/pde.h"
#include "geom/sample.h"
#include "io/h5.h"
#include "pdefile/compile.h"
#include "pdefile/pdefile.h"
#include "registry.h"

#define NROWS 7
#define PI 3.14159265358979323846

static void write_file(const char *dir, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    cr_assert(f, "cannot write %s", path);
    fputs(text, f);
    fclose(f);
}

/* Columns as HDF5 datasets at the root, one per name. */
static void write_h5(const char *dir, const char *name, int ncol, const char *const *names, const double *cols,
                     const int *len)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    pf_h5 *h;
    cr_assert_eq(pf_h5_create(path, &h), PF_OK, "%s", pf_errmsg());
    for (int j = 0; j < ncol; j++) {
        char ds[64];
        snprintf(ds, sizeof ds, "/%s", names[j]);
        cr_assert_eq(pf_h5_write_f64(h, ds, cols + (size_t)j * NROWS, (size_t)len[j]), PF_OK, "%s", pf_errmsg());
    }
    cr_assert_eq(pf_h5_close(h), PF_OK, "%s", pf_errmsg());
}

static pf_status compile_file(const char *dir, const char *name, const char *text, pf_pde **p)
{
    char path[512];
    write_file(dir, name, text);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    pf_pdefile *f;
    cr_assert_eq(pf_pdefile_load_text(path, text, strlen(text), &f), PF_OK, "%s: %s", name,
                 f ? f->errors : pf_errmsg());
    return pf_pdefile_compile(f, p); /* frees f on failure */
}

static void remove_dir(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -r '%s'", dir);
    cr_expect_eq(system(cmd), 0);
}

/* ------------------------------------------------------------ observations */

static const char obs_pde[] = "pde observed_1d\nstatement \"s\"\ninputs x\noutputs u\ndomain interval(0, 1)\n"
                              "equation u_xx = -pi^2*sin(pi*x)\nobserve data: u from \"%s\"\n"
                              "exact u = sin(pi*x)\n";

/* The points and values of the observation constraint of obs_pde with F. */
static void observations(const char *dir, const char *file, pf_real *x, pf_real *v)
{
    char text[512];
    snprintf(text, sizeof text, obs_pde, file);
    pf_pde *p;
    cr_assert_eq(compile_file(dir, "o.pde", text, &p), PF_OK, "%s: %s", file, pf_errmsg());
    pf_geom *g;
    cr_assert_eq(p->geometry(p, &g), PF_OK, "%s", pf_errmsg());
    pf_point_set ps;
    pf_real *obs;
    pf_point_set_init(&ps);
    cr_assert_eq(pf_pde_constraint_points(p, g, &p->con[0], PF_SAMPLE_UNIFORM, 8, 1, &ps, &obs), PF_OK, "%s",
                 pf_errmsg());
    cr_assert_eq(ps.n, NROWS, "%s: %d observations", file, ps.n);
    memcpy(x, ps.x, sizeof *x * NROWS);
    memcpy(v, obs, sizeof *v * NROWS);
    free(obs);
    pf_point_set_release(&ps);
    pf_geom_free(g);
    pf_pdefile_pde_free(p);
}

Test(pde_data, observations_read_the_same_from_csv_h5_and_dat)
{
    char dir[] = "/tmp/pf_pde_data_XXXXXX";
    cr_assert(mkdtemp(dir));
    double col[3][NROWS]; /* u, x, an unused column */
    char csv[1024] = "# sin(pi x)\nu, x, other\n", dat[1024] = "% x u\n";
    for (int i = 0; i < NROWS; i++) {
        double xi = (i + 0.5) / NROWS;
        col[0][i] = sin(PI * xi), col[1][i] = xi, col[2][i] = -i;
        snprintf(csv + strlen(csv), sizeof csv - strlen(csv), "%.17g, %.17g, %d\n", col[0][i], xi, -i);
        snprintf(dat + strlen(dat), sizeof dat - strlen(dat), "%.17g\t%.17g\n", xi, col[0][i]);
    }
    write_file(dir, "obs.csv", csv);
    write_file(dir, "obs.dat", dat);
    static const char *const names[] = {"u", "x", "other"};
    const int len[] = {NROWS, NROWS, NROWS};
    write_h5(dir, "obs.h5", 3, names, &col[0][0], len);

    pf_real x[3][NROWS], v[3][NROWS];
    observations(dir, "obs.csv", x[0], v[0]);
    observations(dir, "obs.h5", x[1], v[1]);
    observations(dir, "obs.dat", x[2], v[2]);
    for (int i = 0; i < NROWS; i++) {
        cr_expect_eq(x[0][i], (pf_real)col[1][i]);
        cr_expect_eq(v[0][i], (pf_real)col[0][i]);
        cr_expect_eq(x[1][i], x[0][i], "h5 row %d", i);
        cr_expect_eq(v[1][i], v[0][i], "h5 row %d", i);
        /* PINNacle's .dat reader rounds to float32 */
        cr_expect_eq(x[2][i], (pf_real)(float)col[1][i], "dat row %d", i);
        cr_expect_eq(v[2][i], (pf_real)(float)col[0][i], "dat row %d", i);
    }
    remove_dir(dir);
}

/* The file's rows, beside the .pde, in any column order with other columns
 * and comments: the points and values of a PF_CON_POINTS constraint whose
 * residual is u - the value, 0 for the exact solution. */
Test(pde_file, observations_come_from_a_csv_beside_the_file)
{
    char dir[] = "/tmp/pf_observe_XXXXXX", path[512], text[512];
    cr_assert(mkdtemp(dir));
    write_file(dir, "obs.csv",
               "# sin(pi x) at three points\nu, source, x\n0.7071067811865476, a, 0.25\n\n"
               "1, b, 0.5\n0.7071067811865476, c, 0.75\n");
    snprintf(text, sizeof text, obs_pde, "obs.csv");
    write_file(dir, "observed_1d.pde", text);
    snprintf(path, sizeof path, "%s/observed_1d.pde", dir);
    const pf_pde *p;
    cr_assert_eq(pf_pdes_lookup(path, &p), PF_OK, "%s", pf_errmsg());
    const pf_constraint *k = &p->con[0];
    cr_assert_eq(k->kind, PF_CON_POINTS);
    cr_assert(k->observe && !k->parts);

    pf_geom *geo;
    cr_assert_eq(p->geometry(p, &geo), PF_OK, "%s", pf_errmsg());
    pf_point_set ps;
    pf_real *v;
    pf_point_set_init(&ps);
    cr_assert_eq(pf_pde_constraint_points(p, geo, k, PF_SAMPLE_UNIFORM, 8, 1, &ps, &v), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(ps.n, 3);
    const pf_real want_x[3] = {0.25, 0.5, 0.75},
                  want_v[3] = {(pf_real)0.7071067811865476, 1, (pf_real)0.7071067811865476};
    for (int i = 0; i < 3; i++) {
        cr_expect_eq(ps.x[i], want_x[i], "point %d", i);
        cr_expect_eq(v[i], want_v[i], "value %d", i);
    }

    pf_graph *g = pf_graph_alloc(pf_backend_cpu());
    pf_graph_set_chunk_bytes(g, 0);
    pf_pde_ctx c;
    int orders[PF_PDE_MAX_IN] = {0};
    pf_pde_ctx_init(&c, p, g, orders, false, ps.n);
    c.target = pf_input(g, "target", ps.n, 1, NULL, NULL);
    c.u = p->exact_fields(&c);
    pf_node *r = k->residual(&c);
    pf_loss(g, "r", pf_mean_square(g, r, NULL));
    cr_assert_eq(pf_graph_compile(g, 1), PF_OK, "%s", pf_errmsg());
    pf_graph_set_input(g, c.x, ps.x);
    pf_graph_set_input(g, c.target, v);
    pf_graph_forward(g);
    pf_real res[3];
    pf_graph_read(g, r, res);
    for (int i = 0; i < 3; i++) cr_expect_lt(fabs((double)res[i]), 1e-6, "residual %d: %g", i, (double)res[i]);
    pf_graph_free(g);
    free(v);
    pf_point_set_release(&ps);
    pf_geom_free(geo);
    snprintf(path, sizeof path, "rm -r '%s'", dir);
    cr_expect_eq(system(path), 0);
}

/* What is wrong with the file, at its line. */
Test(pde_file, bad_observations_say_where)
{
    static const struct {
        const char *csv, *error;
    } cases[] = {
        {"u, y\n1, 2\n", "obs.csv:1: no column 'x' (the header must name x, u)"},
        {"x, u\n0.5, 1\n0.25, one\n", "obs.csv:3: 'one' is not a number"},
        {"x, u\n0.5\n", "obs.csv:2: 1 fields where the header names 2"},
        {"# nothing\nx, u\n", "obs.csv: no rows"},
    };
    char dir[] = "/tmp/pf_observe_XXXXXX", pde[512], text[512];
    cr_assert(mkdtemp(dir));
    snprintf(pde, sizeof pde, "%s/o.pde", dir);
    snprintf(text, sizeof text, obs_pde, "obs.csv");
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        write_file(dir, "obs.csv", cases[i].csv);
        pf_pdefile *f;
        cr_assert_eq(pf_pdefile_load_text(pde, text, strlen(text), &f), PF_OK, "%s", pf_errmsg());
        pf_pde *p;
        cr_expect_eq(pf_pdefile_compile(f, &p), PF_ERR_INVALID);
        cr_expect(strstr(pf_errmsg(), cases[i].error), "case %zu: %s", i, pf_errmsg());
    }
    pf_pdefile *f;
    pf_pde *p;
    snprintf(text, sizeof text, obs_pde, "missing.csv");
    cr_assert_eq(pf_pdefile_load_text(pde, text, strlen(text), &f), PF_OK, "%s", pf_errmsg());
    cr_expect_eq(pf_pdefile_compile(f, &p), PF_ERR_IO);
    cr_expect(strstr(pf_errmsg(), "o.pde:7:22: cannot read the observations: cannot open"), "%s", pf_errmsg());
    snprintf(text, sizeof text, "rm -r '%s'", dir);
    cr_expect_eq(system(text), 0);
}

/* ------------------------------------------------------------ references */

/* The heat equation with its time input declared first. */
static const char heat_pde[] = "pde heat_tfirst\nstatement \"s\"\ninputs t, x\noutputs u\ntime t in [0, 0.5]\n"
                               "domain interval(0, 1)\nequation u_t = u_xx\ninitial ic: u = sin(pi*x)\n"
                               "dirichlet bc on x_lo, x_hi: u = 0\n%s\n";

static double heat(double x, double t)
{
    return exp(-PI * PI * t) * sin(PI * x);
}

/* Its reference from the .pde's last line: every row is (x, t) -> u(x, t). */
static void check_reference(const char *dir, const char *line, double tol)
{
    char text[1024];
    snprintf(text, sizeof text, heat_pde, line);
    pf_pde *p;
    cr_assert_eq(compile_file(dir, "h.pde", text, &p), PF_OK, "%s: %s", line, pf_errmsg());
    cr_assert_eq(p->d_in, 2);
    cr_expect_str_eq(p->inputs[0], "x");
    cr_expect_str_eq(p->inputs[1], "t");
    cr_expect_eq(p->time_input, 1);
    cr_expect_eq(p->lo[1], 0);
    cr_expect_eq(p->hi[1], 0.5);
    cr_expect_eq(p->ref, PF_REF_TABLE, "%s", line);
    pf_reference r;
    cr_assert_eq(pf_pde_reference(p, &r), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(r.n, NROWS, "%s", line);
    for (int i = 0; i < r.n; i++) {
        double x = (double)r.x[2 * i], t = (double)r.x[2 * i + 1];
        cr_expect_leq(fabs((double)r.u[i] - heat(x, t)), tol, "%s: row %d (%g, %g): %g vs %g", line, i, x, t,
                      (double)r.u[i], heat(x, t));
        cr_expect(t >= 0 && t <= 0.5 && x > 0 && x < 1, "%s: row %d is (%g, %g)", line, i, x, t);
    }
    pf_reference_release(&r);
    pf_pdefile_pde_free(p);
}

Test(pde_data, a_reference_reads_from_csv_h5_and_dat_with_time_first)
{
    char dir[] = "/tmp/pf_pde_data_XXXXXX";
    cr_assert(mkdtemp(dir));
    double col[3][NROWS]; /* t, u, x */
    char csv[1024] = "u,t,x\n", dat[1024] = "% t u x\n";
    for (int i = 0; i < NROWS; i++) {
        double x = (i + 0.5) / NROWS, t = 0.5 * i / NROWS;
        col[0][i] = t, col[1][i] = heat(x, t), col[2][i] = x;
        snprintf(csv + strlen(csv), sizeof csv - strlen(csv), "%.17g,%.17g,%.17g\n", col[1][i], t, x);
        snprintf(dat + strlen(dat), sizeof dat - strlen(dat), "%.17g %.17g %.17g\n", t, col[1][i], x);
    }
    write_file(dir, "ref.csv", csv);
    write_file(dir, "ref.dat", dat);
    static const char *const names[] = {"t", "u", "x"};
    const int len[] = {NROWS, NROWS, NROWS};
    write_h5(dir, "ref.h5", 3, names, &col[0][0], len);

#ifdef PF_DOUBLE
    double tol = 1e-15;
#else
    double tol = 1e-7;
#endif
    check_reference(dir, "reference \"ref.csv\"", tol);
    check_reference(dir, "reference \"ref.h5\" columns x, t, u", tol);
    check_reference(dir, "reference \"ref.dat\" columns t, u, x", 1e-7); /* float32, as PINNacle reads it */

    /* the exact solution written with t first agrees with the file */
    char text[1024];
    snprintf(text, sizeof text, heat_pde, "exact u = exp(-pi^2*t)*sin(pi*x)");
    pf_pde *p;
    cr_assert_eq(compile_file(dir, "e.pde", text, &p), PF_OK, "%s", pf_errmsg());
    for (int i = 0; i < NROWS; i++) {
        double xt[2] = {col[2][i], col[0][i]}, u;
        p->exact(p, xt, &u);
        cr_expect_leq(fabs(u - col[1][i]), 1e-15, "row %d: %g vs %g", i, u, col[1][i]);
    }
    pf_pdefile_pde_free(p);
    remove_dir(dir);
}

/* What is wrong with a data file, naming it. */
Test(pde_data, bad_data_files_say_what_and_where)
{
    char dir[] = "/tmp/pf_pde_data_XXXXXX";
    cr_assert(mkdtemp(dir));
    write_file(dir, "nou.csv", "t, x\n0, 0.5\n");
    write_file(dir, "short.dat", "0 0.5\n0.1 0.4\n");
    write_file(dir, "empty.csv", "u, t, x\n");
    static const char *const names[] = {"t", "u", "x"};
    const double cols[3][NROWS] = {{0}};
    const int len[] = {NROWS, NROWS - 1, NROWS};
    write_h5(dir, "ragged.h5", 3, names, &cols[0][0], len);
    static const struct {
        const char *line, *error;
        pf_status st;
    } cases[] = {
        {"reference \"nou.csv\"", "nou.csv:1: no column 'u' (the header must name x, t, u)", PF_ERR_INVALID},
        {"reference \"short.dat\" columns t, x, u", "short.dat: 2 columns where 3 are named", PF_ERR_INVALID},
        {"reference \"empty.csv\"", "empty.csv: no rows", PF_ERR_INVALID},
        {"reference \"ragged.h5\"", "ragged.h5: dataset '/u' has 6 values where '/x' has 7", PF_ERR_INVALID},
        {"reference \"ragged.h5\" columns t, u", "h.pde:10:11: the columns do not name input 'x'", PF_ERR_INVALID},
        {"reference \"none.csv\"", "h.pde:10:11: no reference file", PF_ERR_IO},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char text[1024], path[512];
        snprintf(text, sizeof text, heat_pde, cases[i].line);
        snprintf(path, sizeof path, "%s/h.pde", dir);
        pf_pdefile *f;
        pf_pde *p = NULL;
        char msg[1024] = "";
        pf_status st = pf_pdefile_load_text(path, text, strlen(text), &f);
        if (st != PF_OK) {
            snprintf(msg, sizeof msg, "%s", f ? f->errors : pf_errmsg());
            pf_pdefile_free(f);
        } else if ((st = pf_pdefile_compile(f, &p)) != PF_OK) {
            snprintf(msg, sizeof msg, "%s", pf_errmsg());
        }
        pf_pdefile_pde_free(p);
        cr_expect_eq(st, cases[i].st, "%s: status %d: %s", cases[i].line, st, msg);
        cr_expect(strstr(msg, cases[i].error), "%s: '%s'", cases[i].line, msg);
    }
    remove_dir(dir);
}

/* ------------------------------------------------------ values and points */

/* Compile obs_pde (observations of u from `file`, beside it in dir) or
 * heat_pde with `line`; the status, and the message in msg. */
static pf_status try_compile(const char *dir, const char *text, char *msg, size_t cap)
{
    char path[512];
    snprintf(path, sizeof path, "%s/t.pde", dir);
    pf_pdefile *f;
    pf_pde *p = NULL;
    msg[0] = 0;
    pf_status st = pf_pdefile_load_text(path, text, strlen(text), &f);
    if (st != PF_OK) {
        snprintf(msg, cap, "%s", f ? f->errors : pf_errmsg());
        pf_pdefile_free(f);
        return st;
    }
    if ((st = pf_pdefile_compile(f, &p)) != PF_OK) snprintf(msg, cap, "%s", pf_errmsg());
    pf_pdefile_pde_free(p);
    return st;
}

typedef struct data_case {
    const char *name, *content, *error; /* error NULL: accepted */
} data_case;

/* Each file as observations of u (obs_pde: x on [0, 1]) */
static void observe_cases(const data_case *cases, size_t n)
{
    char dir[] = "/tmp/pf_pde_data_XXXXXX";
    cr_assert(mkdtemp(dir));
    for (size_t i = 0; i < n; i++) {
        char text[512], msg[1024];
        write_file(dir, cases[i].name, cases[i].content);
        snprintf(text, sizeof text, obs_pde, cases[i].name);
        pf_status st = try_compile(dir, text, msg, sizeof msg);
        if (!cases[i].error) {
            cr_expect_eq(st, PF_OK, "case %zu (%s): %s", i, cases[i].name, msg);
            continue;
        }
        cr_expect_eq(st, PF_ERR_INVALID, "case %zu (%s) accepted", i, cases[i].name);
        cr_expect(strstr(msg, cases[i].error), "case %zu: got '%s', want '%s'", i, msg, cases[i].error);
    }
    remove_dir(dir);
}

/* inf, Infinity, -inf, 1e999 and 1e39 (beyond float32) in a .csv or .dat
 * file, and Inf in an .h5 dataset, are refused with the file, the row and
 * the column: kept, they trained to "ok" with infinite targets. */
Test(pde_data, values_that_are_not_finite_are_refused_naming_row_and_column)
{
    static const data_case cases[] = {
        {"a.csv", "x, u\n0.5, inf\n", "a.csv:2: column 'u': 'inf' is not a finite number"},
        {"b.csv", "x, u\n0.5, 1\n0.25, Infinity\n", "b.csv:3: column 'u': 'Infinity' is not a finite number"},
        {"c.csv", "# c\nx, u\n0.5, -inf\n", "c.csv:3: column 'u': '-inf' is not a finite number"},
        {"d.csv", "x, u\n0.5, 1e999\n", "d.csv:2: column 'u': '1e999' is not a finite number"},
        {"e.csv", "x, u\n0.5, 1e39\n", "e.csv:2: column 'u': '1e39' is beyond float32's range"},
        {"f.csv", "u, x\n1, inf\n", "f.csv:2: column 'x': 'inf' is not a finite number"},
        {"g.csv", "x, u, other\n0.5, 1, inf\n", NULL}, /* a column not read */
        {"a.dat", "% x u\n0.5 inf\n", "a.dat:2: column 'u': 'inf' is not a finite number"},
        {"b.dat", "% x u\n0.5 1\n\n0.25 1e999\n", "b.dat:4: column 'u': '1e999' is not a finite number"},
        {"c.dat", "% x u\n0.5 1\n0.25 1e39\n", "c.dat:3: column 'u': '1e39' is beyond float32's range"},
        {"d.dat", "% x u\nnan inf\n0.5 1\n-inf 2\n", "d.dat:4: column 'x': '-inf' is not a finite number"},
        {"e.dat", "% x u\n0.5 nan\n0.25 1\n", NULL}, /* a NaN row is dropped, as PINNacle does */
    };
    observe_cases(cases, sizeof cases / sizeof *cases);

    char dir[] = "/tmp/pf_pde_data_XXXXXX", text[512], msg[1024];
    cr_assert(mkdtemp(dir));
    static const char *const names[] = {"x", "u"};
    double cols[2][NROWS];
    for (int i = 0; i < NROWS; i++) cols[0][i] = (i + 0.5) / NROWS, cols[1][i] = i;
    cols[1][3] = INFINITY;
    const int len[] = {NROWS, NROWS};
    write_h5(dir, "inf.h5", 2, names, &cols[0][0], len);
    snprintf(text, sizeof text, obs_pde, "inf.h5");
    cr_expect_eq(try_compile(dir, text, msg, sizeof msg), PF_ERR_INVALID);
    cr_expect(strstr(msg, "inf.h5: dataset '/u' at row 4: inf is not a finite number"), "%s", msg);

    /* a reference table the same way */
    write_file(dir, "ref.csv", "x, t, u\n0.5, 0.25, 1\n0.5, 0.5, -Infinity\n");
    snprintf(text, sizeof text, heat_pde, "reference \"ref.csv\"");
    cr_expect_eq(try_compile(dir, text, msg, sizeof msg), PF_ERR_INVALID);
    cr_expect(strstr(msg, "ref.csv:3: column 'u': '-Infinity' is not a finite number"), "%s", msg);
    remove_dir(dir);
}

/* Points outside the domain (beyond PF_PDEFILE_DOMAIN_TOL of its scale),
 * a column named twice and one point with two different values are
 * refused, naming the row; points on the boundary, rounded, and a point
 * repeated with its value are not. */
Test(pde_data, points_outside_the_domain_repeated_columns_and_conflicting_points_are_refused)
{
    static const data_case cases[] = {
        {"out.csv", "x, u\n0.5, 1\n10, 1\n", "out.csv:3: the point x = 10 lies outside the domain (by 9"},
        {"below.csv", "x, u\n-0.001, 1\n", "below.csv:2: the point x = -0.001 lies outside the domain"},
        {"edge.csv", "x, u\n0, 0\n1, 0\n1.000005, 0\n-0.000005, 0\n", NULL}, /* within 1e-5 of the boundary */
        {"edge2.csv", "x, u\n1.00002, 0\n", "edge2.csv:2: the point x = 1.00002 lies outside the domain"},
        {"out.dat", "% x u\n0.5 1\n2 1\n", "out.dat:3: the point x = 2 lies outside the domain"},
        {"twice.csv", "x, x, u\n0.5, 0.5, 1\n", "twice.csv:1: column 'x' named twice (fields 1 and 2)"},
        {"twice2.csv", "u, other, x, other\n1, a, 0.5, b\n",
         "twice2.csv:1: column 'other' named twice (fields 2 and 4)"},
        {"clash.csv", "x, u\n0.5, 1\n0.25, 3\n0.5, 2\n",
         "clash.csv:4: the point x = 0.5 is also on line 2, with another value (u = 1 there, 2 here)"},
        {"same.csv", "x, u\n0.5, 1\n0.25, 3\n0.5, 1\n", NULL},
        {"clash.dat", "% x u\n0.5 1\n0.5 1.5\n",
         "clash.dat:3: the point x = 0.5 is also on line 2, with another value (u = 1 there, 1.5 here)"},
    };
    observe_cases(cases, sizeof cases / sizeof *cases);

    char dir[] = "/tmp/pf_pde_data_XXXXXX", text[512], msg[1024];
    cr_assert(mkdtemp(dir));
    /* an .h5 table's rows are named by number */
    static const char *const names[] = {"x", "u"};
    double cols[2][NROWS];
    for (int i = 0; i < NROWS; i++) cols[0][i] = (i + 0.5) / NROWS, cols[1][i] = i;
    cols[0][5] = cols[0][1];
    const int len[] = {NROWS, NROWS};
    write_h5(dir, "clash.h5", 2, names, &cols[0][0], len);
    snprintf(text, sizeof text, obs_pde, "clash.h5");
    cr_expect_eq(try_compile(dir, text, msg, sizeof msg), PF_ERR_INVALID);
    cr_expect(strstr(msg, "clash.h5: row 6: the point x = 0.2142857 is also on row 2, with another value "
                          "(u = 1 there, 5 here)"),
              "%s", msg);
    /* a reference: time outside [0, 0.5] */
    write_file(dir, "late.csv", "x, t, u\n0.5, 0.25, 1\n0.5, 0.75, 1\n");
    snprintf(text, sizeof text, heat_pde, "reference \"late.csv\"");
    cr_expect_eq(try_compile(dir, text, msg, sizeof msg), PF_ERR_INVALID);
    cr_expect(strstr(msg, "late.csv:3: the point x = 0.5, t = 0.75 lies outside the domain (by 0.25"), "%s", msg);
    /* a snapshot file's time comes from its header */
    write_file(dir, "snap.dat", "% x u @ t=0 u @ t=0.9\n0.5 1 2\n0.25 1 2\n");
    snprintf(text, sizeof text, heat_pde, "reference \"snap.dat\" snapshots");
    cr_expect_eq(try_compile(dir, text, msg, sizeof msg), PF_ERR_INVALID);
    cr_expect(strstr(msg, "snap.dat:2: the point x = 0.5, t = 0.9 lies outside the domain"), "%s", msg);
    write_file(dir, "snap.dat", "% x u @ t=0 u @ t=0.5\n0.5 1 2\n0.25 1 inf\n");
    cr_expect_eq(try_compile(dir, text, msg, sizeof msg), PF_ERR_INVALID);
    cr_expect(strstr(msg, "snap.dat:3: column 'u' at t = 0.5: 'inf' is not a finite number"), "%s", msg);
    write_file(dir, "snap.dat", "% x u @ t=0 u @ t=0.5\n0.5 1 2\n0.25 1 nan\n");
    cr_expect_eq(try_compile(dir, text, msg, sizeof msg), PF_OK, "%s", msg);
    /* on a disk: a point of the bounding box outside the circle */
    write_file(dir, "d.pde", "");
    write_file(dir, "disk.csv", "x, y, u\n0, 0, 1\n0.9, 0.9, 1\n");
    const char disk[] = "pde d\nstatement \"s\"\ninputs x, y\noutputs u\ndomain disk(0, 0, 1)\nequation lap(u)\n"
                        "observe o: u from \"disk.csv\"\n";
    cr_expect_eq(try_compile(dir, disk, msg, sizeof msg), PF_ERR_INVALID);
    cr_expect(strstr(msg, "disk.csv:3: the point x = 0.9, y = 0.9 lies outside the domain"), "%s", msg);
    remove_dir(dir);
}

/* The observed value at the one row of obs_pde's file `name` (content). */
static pf_real observed(const char *dir, const char *name, const char *content, double *x)
{
    char text[512];
    write_file(dir, name, content);
    snprintf(text, sizeof text, obs_pde, name);
    pf_pde *p;
    cr_assert_eq(compile_file(dir, "o.pde", text, &p), PF_OK, "%s: %s", name, pf_errmsg());
    int n;
    pf_real *xs, *v;
    cr_assert_eq(p->con[0].observe(p, 1, &n, &xs, &v), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(n, 1);
    pf_real out = v[0];
    *x = (double)xs[0];
    free(xs), free(v);
    pf_pdefile_pde_free(p);
    return out;
}

/* A .csv file may start with a UTF-8 byte-order mark; a subnormal value
 * (1e-310) is read as strtod rounds it, and stored as a float it becomes
 * the nearest float: 0 below 1.4e-45 (table.h). */
Test(pde_data, a_byte_order_mark_and_subnormal_values_are_read)
{
    char dir[] = "/tmp/pf_pde_data_XXXXXX";
    cr_assert(mkdtemp(dir));
    double x;
    pf_real v = observed(dir, "bom.csv", "\xEF\xBB\xBFx, u\n0.5, 2\n", &x);
    cr_expect_eq(v, 2);
    cr_expect_eq(x, 0.5);
    v = observed(dir, "sub.csv", "x, u\n1e-310, 1e-310\n", &x);
    cr_expect_eq(v, (pf_real)1e-310); /* 1e-310 in double, 0 in float */
    cr_expect_eq(x, (double)(pf_real)1e-310);
    v = observed(dir, "tiny.csv", "x, u\n0.5, -1e-400\n", &x);
    cr_expect_eq(v, 0);
    v = observed(dir, "fsub.csv", "x, u\n0.5, 1e-40\n", &x);
    cr_expect_eq(v, (pf_real)1e-40); /* a subnormal float in the float build */
    cr_expect_gt(v, 0);
    v = observed(dir, "sub.dat", "% x u\n0.5 1e-310\n", &x);
    cr_expect_eq(v, 0); /* float32, as PINNacle reads .dat files */
    remove_dir(dir);
}
