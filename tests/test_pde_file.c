/*
 * test_pde_file.c — .pde files compiled into the PDE contract
 * (src/pdefile/compile.h): the three built-ins written as files
 * (examples/pdes/burgers_1d, wave_1d, poisson_2d_classic) give their C
 * versions' residuals, constraint values, sampled points and evaluation
 * points; every example's exact solution makes its residuals and
 * constraints vanish, and its hard transforms meet the constraints they
 * name; a path goes through pf_pdes_lookup like a name; `where` parts give
 * their points (observations: test_pde_data.c).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "data_fixture.h"
#include "geom/exact_check.h"
#include "geom/geometry.h"
#include "geom/sample.h"
#include "io/asset_dir.h"
#include "pdefile/compile.h"
#include "pdefile/eval.h"
#include "pdefile/exact_report.h"
#include "pdefile/pdefile.h"
#include "registry.h"

/* relative agreement of a file with its C version, in float (issue 21) */
#define PARITY_TOL 1e-6
/* float rounding of the terms, or double's, against the largest of them */
#ifdef PF_DOUBLE
#define VANISH_TOL 1e-10
#else
#define VANISH_TOL 1e-4
#endif
#define NPTS 199

static const pf_pde *example(const char *name)
{
    char rel[128], path[PF_ASSET_PATH_MAX];
    snprintf(rel, sizeof rel, "pdes/%s.pde", name);
    cr_assert_eq(pf_asset_path("examples", rel, NULL, path, sizeof path), PF_OK, "%s", pf_errmsg());
    const pf_pde *p;
    cr_assert_eq(pf_pdes_lookup(path, &p), PF_OK, "%s", pf_errmsg());
    cr_assert_str_eq(p->name, name);
    return p;
}

/* What stands in for the network: a smooth field with every derivative
 * non-zero (channel k: 1 + 0.5 k + sin(0.9 x0 + 0.6 x1 + ... + 0.3 k + 0.2)),
 * the exact solution, or hard transform h of the smooth field. */
typedef enum field_kind { SMOOTH, EXACT, HARD } field_kind;

static pf_node *smooth(pf_pde_ctx *c)
{
    static const double w[PF_PDE_MAX_IN] = {0.9, 0.6, 0.45, 0.3, 0.55, 0.35, 0.25, 0.4};
    pf_node *s = NULL, *ch[PF_PDE_MAX_OUT];
    for (int i = 0; i < c->pde->d_in; i++) {
        pf_node *t = pf_scale(c->g, pf_pde_xj(c, i), (pf_real)w[i]);
        s = s ? pf_add(c->g, s, t) : t;
    }
    for (int k = 0; k < c->pde->d_out; k++) {
        pf_node *sk = pf_unary(c->g, PF_UNARY_SIN, pf_add_const(c->g, s, (pf_real)(0.3 * k + 0.2)), 0);
        ch[k] = pf_add_const(c->g, sk, (pf_real)(1 + 0.5 * k));
    }
    return c->pde->d_out == 1 ? ch[0] : pf_concat(c->g, c->pde->d_out, ch);
}

static pf_node *field(pf_pde_ctx *c, field_kind fk, int h)
{
    if (fk == EXACT) return c->pde->exact_fields(c);
    if (fk == HARD) return c->pde->hard[h].apply(c, smooth(c));
    return smooth(c);
}

/* The largest |u*| over 1000 random points of the bounding box (1 without
 * an exact solution): the size of the solution, against which a residual
 * that should vanish is measured (on a wall where u* = 0, |u| there is no
 * scale). */
static double solution_scale(const pf_pde *p)
{
    if (!p->exact) return 1;
    pf_rng *r = pf_rng_alloc(3);
    double x[PF_PDE_MAX_IN], u[PF_PDE_MAX_OUT], s = 0;
    for (int i = 0; i < 1000; i++) {
        for (int j = 0; j < p->d_in; j++) x[j] = pf_rng_uniform_in(r, p->lo[j], p->hi[j]);
        p->exact(p, x, u);
        for (int k = 0; k < p->d_out; k++) s = fmax(s, fabs(u[k]));
    }
    pf_rng_free(r);
    return s;
}

/* The values at n points x (n x d_in; normals nrm or NULL) of equation
 * -1 - which (which < 0) or constraint `which` of p, on the fields fk, into
 * out[0..n); *scale (when not NULL) is the size the residual is made of:
 * the largest magnitude of any stream of the fields there, or of the
 * solution over the domain. */
static void values(const pf_pde *p, int which, field_kind fk, int h, bool collapse, int n, const pf_real *x,
                   const pf_real *nrm, pf_real *out, double *scale)
{
    pf_graph *g = pf_graph_alloc(pf_backend_cpu());
    pf_graph_set_chunk_bytes(g, 0); /* every node stays readable */
    const pf_constraint *k = which >= 0 ? &p->con[which] : NULL;
    int orders[PF_PDE_MAX_IN];
    for (int i = 0; i < p->d_in; i++) orders[i] = k ? k->order : p->orders[i];
    pf_pde_ctx c, ci;
    pf_pde_ctx_init(&c, p, g, orders, collapse, n);
    if (nrm) c.normal = pf_input(g, "normal", n, p->d_in, NULL, NULL);
    pf_real *xi = NULL;
    if (k && k->kind == PF_CON_PERIODIC) {
        xi = pf_pde_periodic_images(p, k, n, x);
        pf_pde_ctx_init(&ci, p, g, orders, false, n);
        c.u_pair = field(&ci, fk, h);
    }
    c.u = field(&c, fk, h);
    pf_node *r = k ? k->residual(&c) : p->residual(&c, -1 - which);
    pf_loss(g, "r", pf_mean_square(g, r, NULL));
    cr_assert_eq(pf_graph_compile(g, 1), PF_OK, "%s", pf_errmsg());
    pf_graph_set_input(g, c.x, x);
    if (nrm) pf_graph_set_input(g, c.normal, nrm);
    if (xi) pf_graph_set_input(g, ci.x, xi);
    pf_graph_forward(g);
    pf_graph_read(g, r, out);
    if (scale) {
        size_t len = (size_t)pf_node_nstreams(c.u) * (size_t)n * (size_t)p->d_out;
        pf_real *u = malloc(sizeof(pf_real) * len);
        pf_graph_read(g, c.u, u);
        *scale = solution_scale(p);
        for (size_t i = 0; i < len; i++) *scale = fmax(*scale, fabs((double)u[i]));
        free(u);
    }
    free(xi);
    pf_graph_free(g);
}

/* n random points of p's bounding box */
static pf_real *box_points(const pf_pde *p, int n, uint64_t seed)
{
    pf_rng *r = pf_rng_alloc(seed);
    pf_real *x = malloc(sizeof(pf_real) * (size_t)(n * p->d_in));
    for (int i = 0; i < n * p->d_in; i++) x[i] = (pf_real)pf_rng_uniform_in(r, p->lo[i % p->d_in], p->hi[i % p->d_in]);
    pf_rng_free(r);
    return x;
}

/* max |a - b| / max |b| over n values (0 when both vanish) */
static double rel_diff(const pf_real *a, const pf_real *b, int n)
{
    double d = 0, s = 0;
    for (int i = 0; i < n; i++) d = fmax(d, fabs((double)a[i] - b[i])), s = fmax(s, fabs((double)b[i]));
    return s > 0 ? d / s : d;
}

static double max_abs_diff(const pf_real *a, const pf_real *b, size_t n)
{
    double d = 0;
    for (size_t i = 0; i < n; i++) d = fmax(d, fabs((double)a[i] - b[i]));
    return d;
}

/* ------------------------------------------------------------------ parity */

static const char *const rewrites[] = {"burgers_1d", "wave_1d", "poisson_2d_classic"};

Test(pde_file, rewrites_describe_the_same_problem)
{
    for (size_t r = 0; r < sizeof rewrites / sizeof *rewrites; r++) {
        const pf_pde *c, *f = example(rewrites[r]);
        cr_assert_eq(pf_pdes_lookup(rewrites[r], &c), PF_OK);
        const char *n = c->name;
        cr_expect_str_eq(f->title, c->title, "%s", n);
        cr_expect_str_eq(f->statement, c->statement, "%s", n);
        cr_expect_eq(f->tags, c->tags, "%s: tags %#x, C %#x", n, f->tags, c->tags);
        cr_assert_eq(f->d_in, c->d_in, "%s", n);
        cr_assert_eq(f->d_out, c->d_out, "%s", n);
        cr_expect_eq(f->time_input, c->time_input, "%s", n);
        for (int i = 0; i < c->d_in; i++) {
            cr_expect_str_eq(f->inputs[i], c->inputs[i], "%s", n);
            cr_expect_eq(f->lo[i], c->lo[i], "%s: lo[%d]", n, i);
            cr_expect_eq(f->hi[i], c->hi[i], "%s: hi[%d]", n, i);
            cr_expect_eq(f->orders[i], c->orders[i], "%s: orders[%d]", n, i);
            cr_expect_eq(f->period[i], c->period[i], "%s: period[%d]", n, i);
        }
        cr_expect_eq(f->laplacian_only, c->laplacian_only, "%s", n);
        cr_expect_eq(f->neq, c->neq, "%s", n);
        cr_assert_eq(f->ncon, c->ncon, "%s", n);
        for (int k = 0; k < c->ncon; k++) {
            cr_expect_str_eq(f->con[k].name, c->con[k].name, "%s", n);
            cr_expect_eq(f->con[k].kind, c->con[k].kind, "%s/%s", n, c->con[k].name);
            cr_expect_str_eq(f->con[k].parts, c->con[k].parts, "%s/%s", n, c->con[k].name);
            cr_expect_eq(f->con[k].order, c->con[k].order, "%s/%s", n, c->con[k].name);
        }
        cr_expect_eq(f->nhard, c->nhard, "%s", n);
        for (int h = 0; h < c->nhard; h++) {
            cr_expect_str_eq(f->hard[h].name, c->hard[h].name, "%s", n);
            cr_expect_str_eq(f->hard[h].satisfies, c->hard[h].satisfies, "%s", n);
        }
        cr_expect_eq(f->ref, c->ref, "%s", n);
        if (c->ref == PF_REF_DATA) {
            cr_expect_str_eq(f->ref_file, c->ref_file, "%s", n);
            cr_expect_eq(f->ref_layout, c->ref_layout, "%s", n);
        }
    }
}

Test(pde_file, rewrites_give_the_c_residuals)
{
    for (size_t r = 0; r < sizeof rewrites / sizeof *rewrites; r++) {
        const pf_pde *c, *f = example(rewrites[r]);
        cr_assert_eq(pf_pdes_lookup(rewrites[r], &c), PF_OK);
        pf_real *x = box_points(c, NPTS, 5), a[NPTS], b[NPTS];
        for (int collapse = 0; collapse <= (c->laplacian_only ? 1 : 0); collapse++)
            for (int e = 0; e < c->neq; e++) {
                values(f, -1 - e, SMOOTH, 0, collapse, NPTS, x, NULL, a, NULL);
                values(c, -1 - e, SMOOTH, 0, collapse, NPTS, x, NULL, b, NULL);
                double d = rel_diff(a, b, NPTS);
                cr_log_info("%s: residual %d (%s layout): max relative difference %.3g", c->name, e,
                            collapse ? "collapsed" : "per-input", d);
                cr_expect_leq(d, PARITY_TOL, "%s: residual %d differs by %.3g", c->name, e, d);
            }
        free(x);
    }
}

/* The sampled points of constraint k: the same from both geometries (same
 * seed), and the constraint's values there the same. */
Test(pde_file, rewrites_give_the_c_constraints_and_their_points)
{
    for (size_t r = 0; r < sizeof rewrites / sizeof *rewrites; r++) {
        const pf_pde *c, *f = example(rewrites[r]);
        cr_assert_eq(pf_pdes_lookup(rewrites[r], &c), PF_OK);
        pf_geom *gc, *gf;
        cr_assert_eq(c->geometry(c, &gc), PF_OK, "%s", pf_errmsg());
        cr_assert_eq(f->geometry(f, &gf), PF_OK, "%s", pf_errmsg());
        cr_expect_eq(pf_geom_part_count(gf), pf_geom_part_count(gc), "%s", c->name);
        for (int i = 0; i < pf_geom_part_count(gc); i++)
            cr_expect_str_eq(pf_geom_part_name(gf, i), pf_geom_part_name(gc, i), "%s", c->name);
        pf_point_set ic, iff;
        pf_point_set_init(&ic), pf_point_set_init(&iff);
        cr_assert_eq(pf_sample_interior(gc, PF_SAMPLE_UNIFORM, NPTS, 3, &ic), PF_OK);
        cr_assert_eq(pf_sample_interior(gf, PF_SAMPLE_UNIFORM, NPTS, 3, &iff), PF_OK);
        cr_assert_eq(iff.n, ic.n, "%s", c->name);
        cr_expect_eq(max_abs_diff(iff.x, ic.x, (size_t)ic.n * c->d_in), 0, "%s: interior points differ", c->name);
        for (int k = 0; k < c->ncon; k++) {
            pf_point_set pc, pff;
            pf_real *vc, *vf, a[NPTS], b[NPTS];
            pf_point_set_init(&pc), pf_point_set_init(&pff);
            cr_assert_eq(pf_pde_constraint_points(c, gc, &c->con[k], PF_SAMPLE_UNIFORM, NPTS, 9, &pc, &vc), PF_OK);
            cr_assert_eq(pf_pde_constraint_points(f, gf, &f->con[k], PF_SAMPLE_UNIFORM, NPTS, 9, &pff, &vf), PF_OK);
            cr_assert_eq(pff.n, pc.n, "%s/%s", c->name, c->con[k].name);
            size_t len = (size_t)pc.n * c->d_in;
            cr_expect_eq(max_abs_diff(pff.x, pc.x, len), 0, "%s/%s: points differ", c->name, c->con[k].name);
            cr_expect_eq(max_abs_diff(pff.normal, pc.normal, len), 0, "%s/%s: normals differ", c->name, c->con[k].name);
            values(f, k, SMOOTH, 0, false, pc.n, pc.x, pc.normal, a, NULL);
            values(c, k, SMOOTH, 0, false, pc.n, pc.x, pc.normal, b, NULL);
            double d = rel_diff(a, b, pc.n);
            cr_log_info("%s: constraint %s: max relative difference %.3g", c->name, c->con[k].name, d);
            cr_expect_leq(d, PARITY_TOL, "%s: constraint %s differs by %.3g", c->name, c->con[k].name, d);
            free(vc), free(vf);
            pf_point_set_release(&pc), pf_point_set_release(&pff);
        }
        pf_point_set_release(&ic), pf_point_set_release(&iff);
        pf_geom_free(gc), pf_geom_free(gf);
    }
}

Test(pde_file, rewrites_give_the_c_evaluation_points)
{
    int compared = 0;
    data_gaps gaps = {0};
    for (size_t r = 0; r < sizeof rewrites / sizeof *rewrites; r++) {
        const pf_pde *c, *f = example(rewrites[r]);
        cr_assert_eq(pf_pdes_lookup(rewrites[r], &c), PF_OK);
        if (pde_data_absent(c)) { /* a PINNacle file not in PF_DATA_DIR: never faked */
            data_gap(&gaps, c->name);
            continue;
        }
        pf_reference rc, rf;
        if (pf_pde_reference(c, &rc) != PF_OK) { /* a generated one not made (make refs) */
            cr_log_info("%s skipped: %s", c->name, pf_errmsg());
            pf_reference_release(&rc);
            continue;
        }
        cr_assert_eq(pf_pde_reference(f, &rf), PF_OK, "%s", pf_errmsg());
        cr_assert_eq(rf.n, rc.n, "%s", c->name);
        double dx = max_abs_diff(rf.x, rc.x, (size_t)rc.n * c->d_in);
        double du = rel_diff(rf.u, rc.u, rc.n * c->d_out);
        cr_log_info("%s: %d evaluation points, max |x difference| %.3g, relative u difference %.3g", c->name, rc.n, dx,
                    du);
        cr_expect_eq(dx, 0, "%s: evaluation points differ by %.3g", c->name, dx);
        cr_expect_leq(du, PARITY_TOL, "%s: reference values differ by %.3g", c->name, du);
        pf_reference_release(&rc), pf_reference_release(&rf);
        compared++;
    }
    cr_expect_geq(compared, 1, "no reference compared");
    data_gaps_skip(&gaps, "PDEs");
}

/* `evaluate box grid` lays PINNacle's grid rule on the plain box of all
 * inputs, time one more axis (wave_1d's 50 x 50 at k/51 in (x, t)); without
 * it, a time-dependent file's exact solution takes the rule's space-time
 * levels, and `grid N` sets the size. */
Test(pde_file, evaluate_box_grid_is_the_rule_on_the_box_of_all_inputs)
{
    static const char *const tails[] = {"", "evaluate box grid\n", "evaluate box grid 400\n", "evaluate grid\n"};
    int n[4];
    double t0[4]; /* the time of the first point */
    for (int v = 0; v < 4; v++) {
        char text[512];
        snprintf(text, sizeof text,
                 "pde box\nstatement \"s\"\ninputs x, t\noutputs u\ntime t in [0, 2]\ndomain interval(-1, 1)\n"
                 "equation u_t + u_x\nexact u = sin(x - t)\n%s",
                 tails[v]);
        pf_pdefile *f;
        cr_assert_eq(pf_pdefile_load_text("box.pde", text, strlen(text), &f), PF_OK, "%s", f ? f->errors : pf_errmsg());
        pf_pde *p;
        cr_assert_eq(pf_pdefile_compile(f, &p), PF_OK, "%s", pf_errmsg()); /* p owns f */
        pf_geom *g;
        cr_assert_eq(p->geometry(p, &g), PF_OK, "%s", pf_errmsg());
        pf_point_set s;
        pf_point_set_init(&s);
        cr_assert_eq(p->eval_points(p, g, &s), PF_OK, "%s", pf_errmsg());
        n[v] = s.n;
        t0[v] = (double)s.x[1];
        if (v == 1 || v == 2) { /* k/(m+1) on both axes of [-1,1] x [0,2], x-major */
            int m = v == 1 ? 50 : 20;
            cr_assert_eq(s.n, m * m, "%d points", s.n);
            for (int i = 0; i < m; i++)
                for (int j = 0; j < m; j++) {
                    const pf_real *x = &s.x[2 * (i * m + j)];
                    cr_expect_float_eq((double)x[0], -1 + 2.0 * (i + 1) / (m + 1), 1e-6, "point %d,%d", i, j);
                    cr_expect_float_eq((double)x[1], 2.0 * (j + 1) / (m + 1), 1e-6, "point %d,%d", i, j);
                }
        }
        pf_point_set_release(&s);
        pf_geom_free(g);
        pf_pdefile_pde_free(p);
    }
    cr_expect(n[0] == n[3] && t0[0] == t0[3], "`evaluate grid` alone is the default rule");
    cr_expect_gt(fabs(t0[0] - t0[1]), 0.01, "the space-time levels are not the box grid (first t %g and %g)", t0[0],
                 t0[1]);
}

/* -------------------------------------------------------- exact solutions */

static const char *const examples[] = {"advection_1d",    "burgers_1d",         "helmholtz_2d",
                                       "klein_gordon_1d", "poisson_2d_classic", "wave_1d"};

Test(pde_file, exact_solutions_make_residuals_and_constraints_vanish)
{
    int checked = 0;
    for (size_t e = 0; e < sizeof examples / sizeof *examples; e++) {
        const pf_pde *p = example(examples[e]);
        if (p->ref != PF_REF_ANALYTIC) continue;
        pf_real *x = box_points(p, NPTS, 17), v[NPTS];
        for (int collapse = 0; collapse <= (p->laplacian_only ? 1 : 0); collapse++)
            for (int q = 0; q < p->neq; q++) {
                double scale;
                values(p, -1 - q, EXACT, 0, collapse, NPTS, x, NULL, v, &scale);
                double m = 0;
                for (int i = 0; i < NPTS; i++) m = fmax(m, fabs((double)v[i]));
                cr_expect_lt(m / scale, VANISH_TOL, "%s: residual %d is %.2e of the solution's size", p->name, q,
                             m / scale);
                checked++;
            }
        free(x);
        pf_geom *geo;
        cr_assert_eq(p->geometry(p, &geo), PF_OK, "%s", pf_errmsg());
        for (int k = 0; k < p->ncon; k++, checked++) {
            pf_point_set ps;
            pf_real *obs, w[NPTS];
            pf_point_set_init(&ps);
            cr_assert_eq(pf_pde_constraint_points(p, geo, &p->con[k], PF_SAMPLE_UNIFORM, NPTS, 4, &ps, &obs), PF_OK);
            double scale, m = 0;
            values(p, k, EXACT, 0, false, ps.n, ps.x, ps.normal, w, &scale);
            for (int i = 0; i < ps.n; i++) m = fmax(m, fabs((double)w[i]));
            cr_expect_lt(m / scale, VANISH_TOL, "%s: constraint %s is %.2e of the solution's size", p->name,
                         p->con[k].name, m / scale);
            free(obs);
            pf_point_set_release(&ps);
        }
        pf_geom_free(geo);
    }
    cr_expect_geq(checked, 12, "only %d residuals and constraints checked", checked);
}

Test(pde_file, hard_transforms_meet_the_constraints_they_name)
{
    int checked = 0;
    for (size_t e = 0; e < sizeof examples / sizeof *examples; e++) {
        const pf_pde *p = example(examples[e]);
        pf_geom *geo;
        cr_assert_eq(p->geometry(p, &geo), PF_OK, "%s", pf_errmsg());
        for (int h = 0; h < p->nhard; h++)
            for (int k = 0; k < p->ncon; k++) {
                if (!pf_hard_satisfies(&p->hard[h], p->con[k].name)) continue;
                pf_point_set ps;
                pf_real *obs, w[NPTS];
                pf_point_set_init(&ps);
                cr_assert_eq(pf_pde_constraint_points(p, geo, &p->con[k], PF_SAMPLE_UNIFORM, NPTS, 6, &ps, &obs),
                             PF_OK);
                double scale, m = 0;
                values(p, k, HARD, h, false, ps.n, ps.x, ps.normal, w, &scale);
                for (int i = 0; i < ps.n; i++) m = fmax(m, fabs((double)w[i]));
                cr_expect_lt(m / scale, VANISH_TOL, "%s: transform %s leaves %s at %.2e", p->name, p->hard[h].name,
                             p->con[k].name, m / scale);
                free(obs);
                pf_point_set_release(&ps);
                checked++;
            }
        pf_geom_free(geo);
    }
    cr_expect_geq(checked, 6, "only %d transform/constraint pairs checked", checked);
}

/* u* in double (exact) and in jet ops (exact_fields) agree. */
Test(pde_file, both_exact_forms_agree)
{
    for (size_t e = 0; e < sizeof examples / sizeof *examples; e++) {
        const pf_pde *p = example(examples[e]);
        if (p->ref != PF_REF_ANALYTIC) continue;
        pf_real *x = box_points(p, NPTS, 23);
        pf_graph *g = pf_graph_alloc(pf_backend_cpu());
        pf_graph_set_chunk_bytes(g, 0);
        pf_pde_ctx c;
        pf_pde_ctx_init(&c, p, g, NULL, false, NPTS);
        pf_node *u = p->exact_fields(&c);
        pf_loss(g, "u", pf_mean_square(g, u, NULL));
        cr_assert_eq(pf_graph_compile(g, 1), PF_OK, "%s", pf_errmsg());
        pf_graph_set_input(g, c.x, x);
        pf_graph_forward(g);
        pf_real *got = malloc(sizeof(pf_real) * NPTS * (size_t)p->d_out);
        pf_graph_read(g, u, got);
        for (int i = 0; i < NPTS; i++) {
            double xd[PF_PDE_MAX_IN], ud[PF_PDE_MAX_OUT];
            for (int j = 0; j < p->d_in; j++) xd[j] = x[i * p->d_in + j];
            p->exact(p, xd, ud);
            for (int k = 0; k < p->d_out; k++)
                cr_expect_leq(fabs(got[i * p->d_out + k] - ud[k]), 1e-5 * fmax(1, fabs(ud[k])), "%s: u* %g vs %g",
                              p->name, (double)got[i * p->d_out + k], ud[k]);
        }
        free(got);
        free(x);
        pf_graph_free(g);
    }
}

/* ------------------------------------------------------------------ lookup */

Test(pde_file, a_path_is_compiled_once_and_bad_files_say_why)
{
    char path[PF_ASSET_PATH_MAX];
    cr_assert_eq(pf_asset_path("examples", "pdes/helmholtz_2d.pde", NULL, path, sizeof path), PF_OK);
    const pf_pde *a, *b;
    cr_assert_eq(pf_pdes_lookup(path, &a), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(pf_pdes_lookup(path, &b), PF_OK);
    cr_expect_eq(a, b, "the same path compiles once");
    cr_expect_eq(pf_pdefile_of(a) != NULL, true);
    const pf_pde *c;
    cr_assert_eq(pf_pdes_lookup("helmholtz_2d_missing.pde", &c), PF_ERR_IO);
    cr_expect(strstr(pf_errmsg(), "helmholtz_2d_missing.pde"), "%s", pf_errmsg());
    cr_assert_eq(pf_pdes_lookup("poisson_2d_classic", &c), PF_OK);
    cr_expect_eq(pf_pdefile_of(c), NULL);
}

/* ------------------------------------------------------------ where parts */

static pf_status compile_text(const char *text, pf_pde **p)
{
    pf_pdefile *f;
    cr_assert_eq(pf_pdefile_load_text("w.pde", text, strlen(text), &f), PF_OK, "%s", pf_errmsg());
    return pf_pdefile_compile(f, p);
}

/* A constraint on a `where` part gets points of the part's parts where the
 * condition holds, n of them, with their normals; among other parts, the
 * others whole; a condition that never holds says so; a `where` part in
 * another, or of the initial slice, is not compiled yet. */
Test(pde_file, where_parts_keep_the_points_where_the_condition_holds)
{
    static const char head[] = "pde w\nstatement \"s\"\ninputs x, y\noutputs u\ndomain box([0, 1], [0, 1])\n";
    char text[512];
    snprintf(text, sizeof text,
             "%spart lower = x_lo, x_hi where y < 0.25\nequation lap(u)\n"
             "dirichlet bc on lower: u = 0\n",
             head);
    pf_pde *p;
    cr_assert_eq(compile_text(text, &p), PF_OK, "%s", pf_errmsg());
    cr_assert(p->con[0].where);
    cr_expect_str_eq(p->con[0].parts, "x_lo,x_hi");
    pf_geom *geo;
    cr_assert_eq(p->geometry(p, &geo), PF_OK, "%s", pf_errmsg());
    pf_point_set ps;
    pf_real *v;
    pf_point_set_init(&ps);
    cr_assert_eq(pf_pde_constraint_points(p, geo, &p->con[0], PF_SAMPLE_UNIFORM, 100, 5, &ps, &v), PF_OK, "%s",
                 pf_errmsg());
    cr_assert_eq(ps.n, 100);
    int lo = 0;
    for (int i = 0; i < ps.n; i++) {
        pf_real x = ps.x[2 * i], y = ps.x[2 * i + 1];
        cr_expect(y < 0.25 && (x == 0 || x == 1), "point %d: (%g, %g)", i, (double)x, (double)y);
        cr_expect_eq(ps.normal[2 * i], x == 0 ? -1 : 1, "point %d's normal", i);
        lo += x == 0;
    }
    cr_expect(lo > 20 && lo < 80, "%d of 100 points on x_lo", lo);
    /* Hammersley: the smallest set with enough, thinned evenly by index, so
     * both faces keep about half and y spreads over [0, 0.25) */
    cr_assert_eq(pf_pde_constraint_points(p, geo, &p->con[0], PF_SAMPLE_HAMMERSLEY, 100, 5, &ps, &v), PF_OK, "%s",
                 pf_errmsg());
    cr_assert_eq(ps.n, 100);
    int strata[2][10] = {{0}};
    lo = 0;
    for (int i = 0; i < ps.n; i++) {
        pf_real x = ps.x[2 * i], y = ps.x[2 * i + 1];
        cr_expect(y < 0.25 && (x == 0 || x == 1), "hammersley point %d: (%g, %g)", i, (double)x, (double)y);
        cr_expect_eq(ps.normal[2 * i], x == 0 ? -1 : 1, "hammersley point %d's normal", i);
        lo += x == 0;
        strata[x == 1][(int)(y * 40)]++;
    }
    cr_expect(lo >= 45 && lo <= 55, "hammersley: %d of 100 points on x_lo", lo);
    for (int e = 0; e < 2; e++)
        for (int k = 0; k < 10; k++) cr_expect(strata[e][k] >= 3, "face %d, y stratum %d: %d points", e, k, strata[e][k]);
    pf_point_set_release(&ps);
    pf_geom_free(geo);
    pf_pdefile_pde_free(p);

    snprintf(text, sizeof text,
             "%spart nowhere = x_lo where y > 2\nequation lap(u)\n"
             "dirichlet bc on nowhere: u = 0\n",
             head);
    cr_assert_eq(compile_text(text, &p), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(p->geometry(p, &geo), PF_OK, "%s", pf_errmsg());
    cr_expect_eq(pf_pde_constraint_points(p, geo, &p->con[0], PF_SAMPLE_UNIFORM, 10, 5, &ps, &v), PF_ERR_INVALID);
    cr_expect(strstr(pf_errmsg(), "w: constraint bc's condition holds at 0 of 10000 points of x_lo"), "%s",
              pf_errmsg());
    cr_expect_eq(pf_pde_constraint_points(p, geo, &p->con[0], PF_SAMPLE_HAMMERSLEY, 10, 5, &ps, &v), PF_ERR_INVALID);
    cr_expect(strstr(pf_errmsg(), "w: constraint bc's condition holds at 0 of 10000 points of x_lo"), "%s",
              pf_errmsg());
    pf_point_set_release(&ps);
    pf_geom_free(geo);
    pf_pdefile_pde_free(p);

    /* among other parts, directly or inside a part: those parts whole */
    static const char *const among[] = {"dirichlet bc on lower, x_hi: u = 0\n",
                                        "part both = x_hi, lower\ndirichlet bc on both: u = 0\n"};
    for (int a = 0; a < 2; a++) {
        snprintf(text, sizeof text, "%spart lower = x_lo where y < 0.5\nequation lap(u)\n%s", head, among[a]);
        cr_assert_eq(compile_text(text, &p), PF_OK, "%s", pf_errmsg());
        cr_assert(p->con[0].where);
        cr_assert_eq(p->geometry(p, &geo), PF_OK, "%s", pf_errmsg());
        cr_assert_eq(pf_pde_constraint_points(p, geo, &p->con[0], PF_SAMPLE_UNIFORM, 300, 5, &ps, &v), PF_OK, "%s",
                     pf_errmsg());
        int hi = 0, lo_low = 0;
        for (int i = 0; i < ps.n; i++) {
            pf_real x = ps.x[2 * i], y = ps.x[2 * i + 1];
            cr_expect(x == 1 || (x == 0 && y < 0.5), "%d: point %d: (%g, %g)", a, i, (double)x, (double)y);
            hi += x == 1, lo_low += x == 0 && y < 0.5;
        }
        /* uniform by length over x_hi (1) and the lower half of x_lo (0.5) */
        cr_expect(hi > 150 && hi < 250 && lo_low == ps.n - hi, "%d: %d on x_hi, %d on x_lo", a, hi, lo_low);
        pf_point_set_release(&ps);
        pf_geom_free(geo);
        pf_pdefile_pde_free(p);
    }
    snprintf(text, sizeof text,
             "%spart lower = x_lo where y < 0.5\npart left = lower where x < 0.5\nequation lap(u)\n"
             "dirichlet bc on left: u = 0\n",
             head);
    cr_expect_eq(compile_text(text, &p), PF_ERR_UNSUPPORTED);
    cr_expect(strstr(pf_errmsg(), "w.pde:6:6: a part with a `where` condition inside another one"), "%s",
              pf_errmsg());
    snprintf(text, sizeof text,
             "pde w\nstatement \"s\"\ninputs x, t\noutputs u\ntime t in [0, 1]\n"
             "domain interval(0, 1)\npart early = initial where x < 0.5\nequation u_t - u_xx\n"
             "dirichlet d on early: u = 0\n");
    cr_expect_eq(compile_text(text, &p), PF_ERR_UNSUPPORTED);
    cr_expect(strstr(pf_errmsg(), "w.pde:7:6: a `where` part of the initial or final slice"), "%s", pf_errmsg());
}

/* ------------------------------------------------------------- deep input */

/* `first` then n / 2 pairs `a`, `b` (text after head; malloc'ed) */
static char *pairs(const char *head, const char *first, const char *a, const char *b, int n, const char *tail)
{
    size_t len = strlen(head) + strlen(first) + (size_t)n * (strlen(a) + strlen(b)) + strlen(tail) + 1;
    char *s = malloc(len), *p = s;
    cr_assert(s);
    p += sprintf(p, "%s%s", head, first);
    for (int i = 0; i < n / 2; i++) p += sprintf(p, "%s%s", a, b);
    strcpy(p, tail);
    return s;
}

/* text + more, reallocated */
static char *append_text(char *text, char *more)
{
    char *s = malloc(strlen(text) + strlen(more) + 1);
    cr_assert(s);
    strcpy(s, text);
    strcat(s, more);
    free(text);
    free(more);
    return s;
}

/* Compile text and check its exact solution with the jet engine: the
 * compiler builds every residual, constraint and u* from the file's
 * expressions, and the graph runs them. */
static void exact_check_passes(const char *name, const char *text)
{
    pf_pdefile *f;
    cr_assert_eq(pf_pdefile_load_text(name, text, strlen(text), &f), PF_OK, "%s", f ? f->errors : pf_errmsg());
    char *described = pf_pdefile_describe(f);
    cr_assert(described && strstr(described, "statement: s"));
    free(described);
    pf_pde *p;
    cr_assert_eq(pf_pdefile_compile(f, &p), PF_OK, "%s", pf_errmsg());
    pf_exact_check r;
    pf_exact_check_opts o = {.equation_terms = pf_pdefile_equation_terms,
                             .constraint_terms = pf_pdefile_constraint_terms};
    cr_expect_eq(pf_pde_exact_check(p, &o, &r), PF_OK, "%s: %s", name, pf_errmsg());
    pf_pdefile_pde_free(p);
}

/* Expressions as deep as the language allows — chains of
 * PF_PDEFILE_MAX_EXPR_DEPTH (256) operations in a parameter, a `where`
 * condition, an equation, a constraint, a hard transform and an exact
 * solution, and right-nested parentheses to the parser's limit — go
 * through every pass that recurses over them: the checker with its
 * constant folding, the printer (describe), the evaluator (u*, the
 * transform, the condition at boundary points), the compiler and the
 * graph it builds. */
Test(pde_file, expressions_as_deep_as_allowed_go_through_every_pass)
{
    /* u_xx + x = 0 with u* = -x^3/6, every chain adding zero: x - x + ... */
    char *t = pairs("pde deep\nstatement \"s\"\ninputs x\noutputs u\ndomain interval(0, 1)\nparam a = ", "1", " + 1",
                    " + 1", 254, " + 1\n");
    t = append_text(t, pairs("part p = x_lo where ", "x < 1", " and x < 1", " and x < 1", 254, "\n"));
    t = append_text(t, pairs("equation ", "u_xx + x", " - x", " + x", 254, "\n"));
    t = append_text(t, pairs("dirichlet bc on p: u = ", "0", " + x", " - x", 254, "\n"));
    t = append_text(t, pairs("hard h satisfies bc: u = ", "x*net(u)", " + x", " - x", 252, "\n"));
    t = append_text(t, pairs("exact u = ", "-x^3/6", " + x", " - x", 252, "\n"));
    pf_pdefile *f;
    cr_assert_eq(pf_pdefile_load_text("deep.pde", t, strlen(t), &f), PF_OK, "%s", f ? f->errors : pf_errmsg());
    cr_expect_eq(f->param[0]->depth, PF_PDEFILE_MAX_EXPR_DEPTH);
    cr_expect_eq(f->param[0]->value, 256);
    cr_expect_eq(f->parts[0].where->depth, PF_PDEFILE_MAX_EXPR_DEPTH);
    cr_expect_eq(f->eq[0].e->depth, PF_PDEFILE_MAX_EXPR_DEPTH);
    cr_expect_eq(f->con[0].e->depth, PF_PDEFILE_MAX_EXPR_DEPTH);
    cr_expect_eq(f->ref.exact[0].e->depth, PF_PDEFILE_MAX_EXPR_DEPTH);
    double x = 0.5, u, net = 2;
    cr_assert_eq(pf_pdefile_eval(f, f->ref.exact[0].e, &x, NULL, &u), PF_OK, "%s", pf_errmsg());
    cr_expect_float_eq(u, -0.125 / 6, 1e-15);
    cr_assert_eq(pf_pdefile_eval(f, f->hard[0].set[0].e, &x, &net, &u), PF_OK, "%s", pf_errmsg());
    cr_expect_float_eq(u, 1, 1e-15);
    pf_pdefile_free(f);
    exact_check_passes("deep.pde", t);

    /* one more operation anywhere is refused */
    char *over = pairs("pde deep\nstatement \"s\"\ninputs x\noutputs u\ndomain interval(0, 1)\nequation ", "u_xx + x",
                       " - x", " + x", 256, "\n");
    cr_assert_eq(pf_pdefile_load_text("over.pde", over, strlen(over), &f), PF_ERR_INVALID);
    cr_expect(strstr(f->errors, "over.pde:6:"), "%s", f->errors);
    pf_pdefile_free(f);
    free(over);

    /* the hard transform, built as a graph with net(u) = x: u = x^2 */
    pf_pde *p;
    cr_assert_eq(pf_pdefile_load_text("deep.pde", t, strlen(t), &f), PF_OK);
    cr_assert_eq(pf_pdefile_compile(f, &p), PF_OK, "%s", pf_errmsg());
    pf_graph *g = pf_graph_alloc(pf_backend_cpu());
    pf_graph_set_chunk_bytes(g, 0);
    pf_pde_ctx c;
    int orders[PF_PDE_MAX_IN] = {2};
    pf_pde_ctx_init(&c, p, g, orders, false, 3);
    pf_node *h = pf_deriv(g, p->hard[0].apply(&c, pf_pde_xj(&c, 0)), 0, 0);
    pf_loss(g, "h", pf_mean_square(g, h, NULL));
    cr_assert_eq(pf_graph_compile(g, 1), PF_OK, "%s", pf_errmsg());
    const pf_real xs[3] = {0.25, 0.5, 0.75};
    pf_real hv[3];
    pf_graph_set_input(g, c.x, xs);
    pf_graph_forward(g);
    pf_graph_read(g, h, hv);
    for (int i = 0; i < 3; i++) cr_expect_float_eq((double)hv[i], (double)(xs[i] * xs[i]), 1e-6, "point %d", i);
    pf_graph_free(g);
    pf_pdefile_pde_free(p);
    free(t);

    /* right-nested: x*(1 + x*(1 + ...)) as deep as the parser takes it */
    char *deepest = NULL;
    int levels = 0;
    for (int k = 1; k < 64; k++) {
        char core[64], *nested;
        size_t len = 96 + (size_t)k * 12;
        nested = malloc(2 * len + 256);
        cr_assert(nested);
        char *q = nested;
        for (int i = 0; i < k; i++) q += sprintf(q, "x*(1 + ");
        snprintf(core, sizeof core, "x");
        q += sprintf(q, "%s", core);
        for (int i = 0; i < k; i++) *q++ = ')';
        *q = 0;
        char *text = malloc(2 * strlen(nested) + 256);
        cr_assert(text);
        sprintf(text,
                "pde nested\nstatement \"s\"\ninputs x\noutputs u\ndomain interval(0, 1)\nequation u = %s\n"
                "exact u = %s\n",
                nested, nested);
        free(nested);
        pf_status st = pf_pdefile_load_text("n.pde", text, strlen(text), &f);
        pf_pdefile_free(f);
        if (st != PF_OK) {
            free(text);
            break;
        }
        free(deepest);
        deepest = text, levels = k;
    }
    cr_assert_geq(levels, 25, "only %d levels of parentheses", levels);
    exact_check_passes("n.pde", deepest);
    free(deepest);
}

/* ----------------------------------------------------------- exact report */

/* The report of pf_pdefile_exact_report on text (bcw's file below, lines
 * edited): its status, and msg. */
static pf_status exact_report(const char *text, char *msg, size_t cap)
{
    pf_pdefile *f;
    cr_assert_eq(pf_pdefile_load_text("bc.pde", text, strlen(text), &f), PF_OK, "%s", f ? f->errors : pf_errmsg());
    pf_pde *p;
    cr_assert_eq(pf_pdefile_compile(f, &p), PF_OK, "%s", pf_errmsg());
    pf_status st = pf_pdefile_exact_report(p, msg, cap);
    pf_pdefile_pde_free(p);
    return st;
}

static bool starts(const char *s, const char *prefix)
{
    return !strncmp(s, prefix, strlen(prefix));
}

/* `pf-pde check FILE`'s verdict on an exact solution points at the line at
 * fault: the constraint it does not meet, the equation it does not solve,
 * or the `exact` formula where it is not finite. */
Test(pde_file, the_exact_report_names_the_line_at_fault)
{
    static const char head[] = "pde bcw\nstatement \"s\"\ninputs x\noutputs u\ndomain interval(0, 1)\n";
    char text[512], msg[PF_EXACT_REPORT_MAX];
    snprintf(text, sizeof text, "%sequation u_xx = 0\ndirichlet bc on x_lo, x_hi: u = x\nexact u = x\n", head);
    cr_assert_eq(exact_report(text, msg, sizeof msg), PF_OK, "%s", msg);
    cr_expect(starts(msg, "exact solution: satisfies every equation and constraint (largest residual "), "%s",
              msg);
    cr_expect(strstr(msg, " of the terms' scale, at most 0.001)") && !strchr(msg, '\n'), "%s", msg);

    snprintf(text, sizeof text, "%sequation u_xx = 0\ndirichlet bc on x_lo, x_hi: u = 1\nexact u = x\n", head);
    cr_assert_eq(exact_report(text, msg, sizeof msg), PF_ERR_INVALID);
    cr_expect(starts(msg, "bc.pde:7:1: bcw: the exact solution does not satisfy constraint bc: "), "%s", msg);

    snprintf(text, sizeof text, "%sequation u_xx = 1\ndirichlet bc on x_lo, x_hi: u = x\nexact u = x\n", head);
    cr_assert_eq(exact_report(text, msg, sizeof msg), PF_ERR_INVALID);
    cr_expect(starts(msg, "bc.pde:6:1: bcw: the exact solution does not satisfy equation 1: "), "%s", msg);

    snprintf(text, sizeof text, "%sequation u_xx = 0\ndirichlet bc on x_lo, x_hi: u = 0\nexact u = sqrt(-1 - x)\n",
             head);
    cr_assert_eq(exact_report(text, msg, sizeof msg), PF_ERR_INVALID);
    cr_expect(starts(msg, "bc.pde:8:7: exact u = sqrt(((-1) - x)) is not finite (NaN) at x = "), "%s", msg);
    cr_expect(strstr(msg, ", a point of the domain") && !strchr(msg, '\n'), "%s", msg);
}
