/*
 * The PDE library: every analytic problem's exact solution, written in jet
 * ops, satisfies its residual equations, whichever jet layout carries the
 * derivatives.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "geom/exact_check.h"
#include "geom/geometry.h"
#include "geom/sample.h"
#include "io/coef_field.h"
#include "data_fixture.h"
#include "registry.h"

/* Whether the files p's hooks read are in PF_DATA_DIR; when not, p is a
 * gap in g: the caller leaves p out, and the test ends in data_gaps_skip
 * (data_fixture.h), as the tests never fake data. A file that is there but
 * damaged is read, and fails the test. */
static bool data_present(const pf_pde *p, data_gaps *g)
{
    if (!pde_data_files_absent(p)) return true;
    data_gap(g, p->name);
    return false;
}

/* Every analytic problem's exact solution, in place of the network, makes
 * every residual and constraint vanish: the check `pf-pde check FILE` runs
 * on a .pde file's exact solution (geom/exact_check.h: RMS of the residual
 * over the scale of u* and its derivative streams, on interior points and
 * each constraint's points), with each jet layout the problem can have.
 * Its verdict (at most PF_EXACT_CHECK_TOL) and a stricter bound here:
 * these solutions are exact, so only rounding is left. */
Test(pdes, exact_solutions_satisfy_the_residuals_and_constraints)
{
    int equations = 0, constraints = 0;
    for (int i = 0; i < pf_pdes_count(); i++) {
        const pf_pde *p = pf_pdes_at(i);
        if (p->ref != PF_REF_ANALYTIC) continue;
        for (int collapse = 0; collapse <= (p->laplacian_only ? 1 : 0); collapse++) {
            const char *layout = collapse ? "collapsed" : "per-input";
            pf_exact_check r;
            pf_exact_check_opts o = {.collapse_lap = collapse, .seed = 42};
            cr_expect_eq(pf_pde_exact_check(p, &o, &r), PF_OK, "%s (%s layout): %s", p->name, layout, pf_errmsg());
            for (int e = 0; e < p->neq; e++, equations++)
                cr_expect_lt(r.eq[e].ratio, 1e-4, "%s (%s layout): residual %d is %.2e of the terms' size", p->name,
                             layout, e, r.eq[e].ratio);
            for (int k = 0; k < p->ncon; k++) {
                if (!r.con[k].checked) continue; /* observations: data, not u* */
                cr_expect_lt(r.con[k].ratio, 1e-4, "%s: constraint %s is %.2e of the solution's size", p->name,
                             p->con[k].name, r.con[k].ratio);
                constraints += !collapse;
            }
        }
    }
    cr_expect_geq(equations, 4, "only %d analytic residuals checked", equations);
    cr_expect_geq(constraints, 8, "only %d constraints checked", constraints);
}

/* The check refuses what is not a solution: a built-in's exact solution
 * against a copy of the problem whose residual has another source term
 * (f + 1 in place of f), or whose first constraint another value, is
 * refused naming the equation or constraint and the worst point. */
static const pf_pde *shifted_of;
static pf_node *shifted_residual(pf_pde_ctx *c, int eq)
{
    return pf_add_const(c->g, shifted_of->residual(c, eq), 1);
}
static pf_node *shifted_constraint(pf_pde_ctx *c)
{
    return pf_add_const(c->g, shifted_of->con[0].residual(c), 1);
}

Test(pdes, the_exact_check_names_what_u_star_does_not_satisfy)
{
    const pf_pde *p = NULL;
    for (int i = 0; i < pf_pdes_count() && !p; i++)
        if (pf_pdes_at(i)->ref == PF_REF_ANALYTIC && pf_pdes_at(i)->ncon && !pf_pdes_at(i)->con[0].observe)
            p = pf_pdes_at(i);
    cr_assert(p);
    shifted_of = p;
    pf_pde q = *p;
    q.residual = shifted_residual;
    pf_exact_check r;
    cr_assert_eq(pf_pde_exact_check(&q, NULL, &r), PF_ERR_INVALID, "%s with f + 1 passed", p->name);
    cr_expect_eq(r.failed_eq, 0);
    cr_expect_gt(r.eq[0].ratio, PF_EXACT_CHECK_TOL);
    cr_expect(strstr(pf_errmsg(), "does not satisfy equation 1") && strstr(pf_errmsg(), "the worst"), "%s",
              pf_errmsg());

    q = *p;
    q.con[0].residual = shifted_constraint;
    cr_assert_eq(pf_pde_exact_check(&q, NULL, &r), PF_ERR_INVALID, "%s with constraint %s + 1 passed", p->name,
                 p->con[0].name);
    cr_expect_eq(r.failed_eq, -1);
    cr_expect_eq(r.failed_con, 0);
    char want[128];
    snprintf(want, sizeof want, "does not satisfy constraint %s", p->con[0].name);
    cr_expect(strstr(pf_errmsg(), want), "%s", pf_errmsg());
}

/* RMS of u* over random points of the bounding box (double, p->exact);
 * 1 for problems without an analytic solution (their fields are O(1)). */
static double solution_scale(const pf_pde *p)
{
    if (!p->exact) return 1;
    pf_rng *r = pf_rng_alloc(3);
    double x[PF_PDE_MAX_IN], u[PF_PDE_MAX_OUT], s = 0;
    for (int i = 0; i < 1000; i++) {
        for (int j = 0; j < p->d_in; j++) x[j] = pf_rng_uniform_in(r, p->lo[j], p->hi[j]);
        p->exact(p, x, u);
        for (int k = 0; k < p->d_out; k++) s += u[k] * u[k];
    }
    pf_rng_free(r);
    return sqrt(s / (1000.0 * p->d_out));
}

/* A smooth stand-in for a network's output: channel k is
 * sin(0.7 sum_i x_i + 0.3 k + 0.2), a jet with x's layout. */
static pf_node *some_field(pf_pde_ctx *c)
{
    pf_node *s = pf_pde_xj(c, 0), *ch[PF_PDE_MAX_OUT];
    for (int i = 1; i < c->pde->d_in; i++) s = pf_add(c->g, s, pf_pde_xj(c, i));
    for (int k = 0; k < c->pde->d_out; k++)
        ch[k] = pf_unary(c->g, PF_UNARY_SIN, pf_add_const(c->g, pf_scale(c->g, s, 0.7f), 0.3f * k + 0.2f), 0);
    return c->pde->d_out == 1 ? ch[0] : pf_concat(c->g, c->pde->d_out, ch);
}

/* The points where constraint k holds, into *x (n x d_in, caller frees)
 * and ps (released by the caller): sampled on the initial slice or the
 * boundary parts (a periodic constraint's parts are its <input>_lo face), or
 * the fixed points, or the observation points (their values, noisy, are
 * dropped here: the tests put noise-free targets in their place). */
static int constraint_points(const pf_pde *p, const pf_geom *geo, const pf_constraint *k, uint64_t seed,
                             pf_point_set *ps, pf_real **x)
{
    pf_status st = PF_OK;
    int n = 0;
    if (k->kind == PF_CON_INITIAL)
        st = pf_sample_initial(geo, PF_SAMPLE_UNIFORM, 199, seed, PF_SAMPLE_NORMALS, ps);
    else if (k->kind != PF_CON_POINTS)
        st = pf_sample_boundary(geo, PF_SAMPLE_UNIFORM, k->parts, 199, seed, PF_SAMPLE_NORMALS, ps);
    cr_assert_eq(st, PF_OK, "%s/%s: %s", p->name, k->name, pf_errmsg());
    if (k->observe) {
        pf_real *v;
        cr_assert_eq(k->observe(p, 1, &n, x, &v), PF_OK, "%s/%s: %s", p->name, k->name, pf_errmsg());
        free(v);
        return n;
    }
    n = k->kind == PF_CON_POINTS ? k->npoints : ps->n;
    *x = malloc(sizeof(pf_real) * (size_t)(n * p->d_in));
    for (int i = 0; i < n * p->d_in; i++) (*x)[i] = k->kind == PF_CON_POINTS ? (pf_real)k->points[i] : ps->x[i];
    return n;
}

/* The image of each point of a periodic constraint: the same point with
 * the periodic input moved from the lo face to the hi face. */
static pf_real *periodic_images(const pf_pde *p, const pf_constraint *k, int n, const pf_real *x)
{
    pf_real *xi = malloc(sizeof(pf_real) * (size_t)(n * p->d_in));
    memcpy(xi, x, sizeof(pf_real) * (size_t)(n * p->d_in));
    for (int i = 0; i < n; i++) {
        cr_assert_lt(fabs((double)x[i * p->d_in + k->periodic_input] - p->lo[k->periodic_input]), 1e-6,
                     "%s/%s: a point off the %s_lo face", p->name, k->name, p->inputs[k->periodic_input]);
        xi[i * p->d_in + k->periodic_input] = (pf_real)p->hi[k->periodic_input];
    }
    return xi;
}

/* Constraint residual RMS over the size of the solution: the largest of the
 * RMS of u* over the domain and of the fields and their first derivatives
 * (when the constraint takes them) on points sampled where the constraint
 * holds. The fields are u* (hard NULL) or a hard transform of some_field.
 * Observations get the noise-free targets u*_0 at their points; periodic
 * constraints the same fields at the image points. */
static double constraint_ratio(const pf_pde *p, const pf_geom *geo, const pf_constraint *k,
                               const pf_hard_transform *hard)
{
    pf_point_set ps;
    pf_point_set_init(&ps);
    pf_real *x;
    int n = constraint_points(p, geo, k, 7, &ps, &x);
    pf_real *nrm = ps.normal ? ps.normal : calloc((size_t)(n * p->d_in), sizeof(pf_real));

    pf_graph *g = pf_graph_alloc(pf_backend_cpu());
    int orders[PF_PDE_MAX_IN];
    for (int i = 0; i < p->d_in; i++) orders[i] = k->order;
    pf_pde_ctx c;
    pf_pde_ctx_init(&c, p, g, orders, false, n);
    c.normal = pf_input(g, "normal", n, p->d_in, NULL, NULL);
    pf_pde_ctx_add_aux(&c, n);
    if (k->observe) c.target = pf_input(g, "target", n, 1, NULL, NULL);
    pf_pde_ctx ci;
    pf_real *xi = NULL;
    if (k->kind == PF_CON_PERIODIC) {
        xi = periodic_images(p, k, n, x);
        pf_pde_ctx_init(&ci, p, g, orders, false, n); /* the image points */
        c.u_pair = hard ? hard->apply(&ci, some_field(&ci)) : p->exact_fields(&ci);
    }
    c.u = hard ? hard->apply(&c, some_field(&c)) : p->exact_fields(&c);
    pf_loss(g, "con", pf_mean_square(g, k->residual(&c), NULL));
    pf_loss(g, "u", pf_mean_square(g, pf_deriv(g, c.u, 0, 0), NULL));
    for (int d = 0; d < pf_node_layout(c.x)->ndir; d++)
        pf_loss(g, "du", pf_mean_square(g, pf_deriv(g, c.u, d, 1), NULL));
    cr_assert_eq(pf_graph_compile(g, 1), PF_OK, "%s", pf_errmsg());
    pf_graph_set_input(g, c.x, x);
    pf_graph_set_input(g, c.normal, nrm); /* fixed points have none: zeros */
    pf_real *work = malloc(sizeof(pf_real) * (size_t)n);
    cr_assert_eq(pf_pde_ctx_set_aux(&c, x, n, work), PF_OK, "%s: %s", p->name, pf_errmsg());
    if (xi) pf_graph_set_input(g, ci.x, xi);
    if (k->observe) { /* noise-free targets: u*_0 (both inverse problems observe output 0) */
        for (int i = 0; i < n; i++) {
            double xd[PF_PDE_MAX_IN], u[PF_PDE_MAX_OUT];
            for (int j = 0; j < p->d_in; j++) xd[j] = x[i * p->d_in + j];
            p->exact(p, xd, u);
            work[i] = (pf_real)u[0];
        }
        pf_graph_set_input(g, c.target, work);
    }
    pf_graph_forward(g);
    double big = solution_scale(p);
    for (int t = 1; t < pf_graph_nloss(g); t++) big = fmax(big, sqrt(pf_graph_loss_value(g, t)));
    double ratio = sqrt(pf_graph_loss_value(g, 0)) / big;
    pf_graph_free(g);
    if (nrm != ps.normal) free(nrm);
    free(work);
    free(xi);
    free(x);
    pf_point_set_release(&ps);
    return ratio;
}

Test(pdes, hard_transforms_satisfy_their_constraints)
{
    int checked = 0;
    for (int i = 0; i < pf_pdes_count(); i++) {
        const pf_pde *p = pf_pdes_at(i);
        if (!p->nhard) continue;
        pf_geom *geo;
        cr_assert_eq(p->geometry(p, &geo), PF_OK, "%s: %s", p->name, pf_errmsg());
        for (int h = 0; h < p->nhard; h++) {
            int found = 0;
            for (int k = 0; k < p->ncon; k++) {
                if (!pf_hard_satisfies(&p->hard[h], p->con[k].name)) continue;
                double r = constraint_ratio(p, geo, &p->con[k], &p->hard[h]);
                cr_expect_lt(r, 1e-4, "%s: transform %s leaves constraint %s at %.2e", p->name,
                             p->hard[h].name, p->con[k].name, r);
                found++, checked++;
            }
            cr_expect_gt(found, 0, "%s: transform %s names no constraint of the PDE", p->name,
                         p->hard[h].name);
        }
        pf_geom_free(geo);
    }
    cr_expect_geq(checked, 10, "only %d transform/constraint pairs checked", checked);
}

/* ------------------------------------------------- lifts from boundary data
 *
 * A hard transform's lift (the transform of a zero network) may use the
 * Dirichlet and initial data only where they are given (geom/lift.h). Where
 * it still equals the exact solution inside, that must be a property of the
 * PDE, listed here with the reason and recorded in the descriptor
 * (pf_hard_transform.lift_exact), so that pf-pde show can say so. */
static const struct {
    const char *pde, *transform;
    unsigned outputs; /* bit k: output k's lift is u*_k */
} exact_lifts[] = {
    /* u* = sum_i sin(pi x_i / 2) is a sum of one-variable terms: the Coons
     * lift reproduces any such sum from its face traces (test_lifts.c) */
    {"poisson_5d", "box_bubble", 1},
    /* the front tanh(x / (sqrt2 eps)) is stationary: u* is its initial data
     * at every t, which the lift carries along t */
    {"allen_cahn_1d", "front_and_walls", 1},
    /* p* = (1 - e^{2 lambda x}) / 2 depends on x alone (u*, v* do not lift) */
    {"kovasznay_flow_2d", "walls", 1u << 2},
    /* the solution is the uniform initial state for all t */
    {"shallow_water_2d", "initial", 7},
    {"shallow_water_2d", "initial_positive", 7},
};

static unsigned listed_exact(const pf_pde *p, const pf_hard_transform *h)
{
    for (size_t i = 0; i < sizeof exact_lifts / sizeof exact_lifts[0]; i++)
        if (!strcmp(exact_lifts[i].pde, p->name) && !strcmp(exact_lifts[i].transform, h->name))
            return exact_lifts[i].outputs;
    return 0;
}

Test(pdes, exact_lifts_are_the_documented_ones)
{
    int found = 0;
    for (int i = 0; i < pf_pdes_count(); i++) {
        const pf_pde *p = pf_pdes_at(i);
        for (int h = 0; h < p->nhard; h++) {
            const pf_hard_transform *t = &p->hard[h];
            unsigned want = listed_exact(p, t);
            found += want != 0;
            cr_expect_eq(t->lift_exact, want, "%s/%s: lift_exact is %#x, the documented list says %#x",
                         p->name, t->name, t->lift_exact, want);
            cr_expect_eq(t->lift_exact_why != NULL, t->lift_exact != 0,
                         "%s/%s: a reason goes with lift_exact, and only with it", p->name, t->name);
            cr_expect(strstr(t->what, "boundary data only") || strstr(t->what, "lift 0"),
                      "%s/%s: the description does not say where its lift comes from: %s", p->name,
                      t->name, t->what);
        }
    }
    cr_expect_eq(found, (int)(sizeof exact_lifts / sizeof exact_lifts[0]), "a listed pair is not in the registry");
}

/* Transform h of p with a zero network at n interior points: the lift's
 * largest error against u* per output (err[k], double u* from p->exact) and
 * the RMS of the residuals over the RMS of u* (*res). */
static void lift_errors(const pf_pde *p, const pf_geom *geo, const pf_hard_transform *h, double *err,
                        double *res)
{
    enum { n = 400 };
    pf_point_set ps;
    pf_point_set_init(&ps);
    cr_assert_eq(pf_sample_interior(geo, PF_SAMPLE_UNIFORM, n, 17, &ps), PF_OK, "%s", pf_errmsg());
    pf_graph *g = pf_graph_alloc(pf_backend_cpu());
    pf_pde_ctx c;
    pf_pde_ctx_init(&c, p, g, p->orders, false, n);
    pf_pde_ctx_add_aux(&c, n);
    pf_node *zero[PF_PDE_MAX_OUT];
    for (int k = 0; k < p->d_out; k++) zero[k] = pf_scale(g, pf_pde_xj(&c, 0), 0);
    c.u = h->apply(&c, p->d_out == 1 ? zero[0] : pf_concat(g, p->d_out, zero));
    pf_node *u = pf_deriv(g, c.u, 0, 0);
    for (int e = 0; e < p->neq; e++) pf_loss(g, "res", pf_mean_square(g, p->residual(&c, e), NULL));
    cr_assert_eq(pf_graph_compile(g, 1), PF_OK, "%s", pf_errmsg());
    pf_graph_set_input(g, c.x, ps.x);
    pf_real work[n], *lift = malloc(sizeof(pf_real) * n * (size_t)p->d_out);
    cr_assert_eq(pf_pde_ctx_set_aux(&c, ps.x, n, work), PF_OK, "%s", pf_errmsg());
    pf_graph_forward(g);
    pf_graph_read(g, u, lift);
    for (int k = 0; k < p->d_out; k++) err[k] = 0;
    for (int i = 0; i < n; i++) {
        double x[PF_PDE_MAX_IN], us[PF_PDE_MAX_OUT];
        for (int j = 0; j < p->d_in; j++) x[j] = ps.x[i * p->d_in + j];
        p->exact(p, x, us);
        for (int k = 0; k < p->d_out; k++) err[k] = fmax(err[k], fabs(lift[i * p->d_out + k] - us[k]));
    }
    *res = 0;
    for (int e = 0; e < p->neq; e++) *res = fmax(*res, sqrt(pf_graph_loss_value(g, e)));
    *res /= solution_scale(p);
    free(lift);
    pf_graph_free(g);
    pf_point_set_release(&ps);
}

Test(pdes, boundary_lifts_differ_from_the_exact_solution_unless_the_pde_makes_them_equal)
{
    int checked = 0, exact = 0;
    for (int i = 0; i < pf_pdes_count(); i++) {
        const pf_pde *p = pf_pdes_at(i);
        if (p->ref != PF_REF_ANALYTIC || !p->nhard) continue;
        pf_geom *geo;
        cr_assert_eq(p->geometry(p, &geo), PF_OK, "%s: %s", p->name, pf_errmsg());
        double scale = solution_scale(p);
        for (int h = 0; h < p->nhard; h++) {
            const pf_hard_transform *t = &p->hard[h];
            unsigned listed = listed_exact(p, t);
            double err[PF_PDE_MAX_OUT], res;
            lift_errors(p, geo, t, err, &res);
            for (int k = 0; k < p->d_out; k++, checked++) {
                if (listed & (1u << k)) {
                    exact++;
                    cr_expect_lt(err[k], 1e-4 * scale, "%s/%s: the lift of %s is listed as exact, but is "
                                 "off by %.2e", p->name, t->name, p->outputs[k], err[k]);
                } else {
                    cr_expect_gt(err[k], 1e-2 * scale, "%s/%s: the lift of %s equals the exact solution "
                                 "inside (to %.2e): it uses more than the boundary data, or the pair "
                                 "belongs in exact_lifts with its reason", p->name, t->name,
                                 p->outputs[k], err[k]);
                }
            }
            if (listed == (1u << p->d_out) - 1) /* the lift alone solves the PDE */
                cr_expect_lt(res, 1e-4, "%s/%s: the exact lift leaves residual %.2e", p->name, t->name, res);
        }
        pf_geom_free(geo);
    }
    cr_expect_geq(checked, 8, "only %d (transform, output) pairs checked", checked);
    cr_expect_eq(exact, 9, "%d exact (transform, output) pairs, the list has 9", exact);
}

Test(pdes, registry_names_are_unique_and_found)
{
    for (int i = 0; i < pf_pdes_count(); i++) {
        const pf_pde *p;
        cr_expect_eq(pf_pdes_lookup(pf_pdes_at(i)->name, &p), PF_OK);
        cr_expect_eq(p, pf_pdes_at(i));
        cr_expect(p->d_in > 0 && p->d_in <= PF_PDE_MAX_IN && p->d_out > 0 && p->d_out <= PF_PDE_MAX_OUT);
        cr_expect(p->residual && p->neq > 0 && p->geometry, "%s is incomplete", p->name);
        cr_expect(p->ref != PF_REF_ANALYTIC || (p->exact && p->exact_fields), "%s: no exact solution",
                  p->name);
        cr_expect(p->ref != PF_REF_DATA || p->ref_file, "%s: no reference file", p->name);
        /* a generated reference lives in generated/ (make refs) */
        cr_expect(p->ref != PF_REF_GENERATED || (p->ref_file && !strncmp(p->ref_file, "generated/", 10)),
                  "%s: a generated reference outside generated/", p->name);
    }
    const pf_pde *p;
    cr_expect_eq(pf_pdes_lookup("poisson_6d", &p), PF_ERR_USAGE);
    cr_expect(strstr(pf_errmsg(), "poisson_5d") != NULL, "the message lists the valid names: %s",
              pf_errmsg());
}

/* Every PDE's geometry builds, has the PDE's dimension and bounding box, and
 * knows every part its constraints name (PF_CON_POINTS constraints sit at
 * fixed points and name none). */
Test(pdes, geometries_build_and_name_the_constraint_parts)
{
    for (int i = 0; i < pf_pdes_count(); i++) {
        const pf_pde *p = pf_pdes_at(i);
        pf_geom *geo;
        cr_assert_eq(p->geometry(p, &geo), PF_OK, "%s: %s", p->name, pf_errmsg());
        cr_expect_eq(pf_geom_dim(geo), p->d_in, "%s: geometry of dimension %d", p->name, pf_geom_dim(geo));
        double lo[PF_GEOM_MAX_DIM], hi[PF_GEOM_MAX_DIM];
        pf_geom_bbox(geo, lo, hi);
        for (int j = 0; j < p->d_in; j++)
            cr_expect(fabs(lo[j] - p->lo[j]) < 1e-12 && fabs(hi[j] - p->hi[j]) < 1e-12,
                      "%s: the geometry spans [%g, %g] in %s, the PDE [%g, %g]", p->name, lo[j], hi[j],
                      p->inputs[j], p->lo[j], p->hi[j]);
        bool sel[64];
        cr_assert_leq(pf_geom_part_count(geo), 64);
        for (int k = 0; k < p->ncon; k++) {
            const pf_constraint *con = &p->con[k];
            if (con->kind == PF_CON_POINTS) {
                bool fixed = con->npoints > 0 && con->points && !con->observe;
                bool observed = con->npoints == 0 && !con->points && con->observe;
                cr_expect(con->parts == NULL && (fixed || observed),
                          "%s/%s: a point constraint has fixed points or observations, and no parts",
                          p->name, con->name);
                continue;
            }
            if (con->kind == PF_CON_PERIODIC) {
                int q = con->periodic_input;
                char face[64];
                snprintf(face, sizeof face, "%s_lo", q >= 0 && q < p->d_in ? p->inputs[q] : "?");
                cr_expect(q >= 0 && q < p->d_in && q != p->time_input && con->parts && !strcmp(con->parts, face),
                          "%s/%s: a periodic constraint sits on the lo face of a spatial input", p->name,
                          con->name);
                cr_expect(q >= 0 && q < p->d_in && fabs(p->period[q] - (p->hi[q] - p->lo[q])) < 1e-12,
                          "%s/%s: the period is not the box's side", p->name, con->name);
            }
            cr_expect_eq(pf_geom_parts_select(geo, con->parts, sel), PF_OK, "%s/%s: %s", p->name, con->name,
                         pf_errmsg());
            int nsel = 0;
            for (int q = 0; q < pf_geom_part_count(geo); q++) nsel += sel[q];
            cr_expect_gt(nsel, 0, "%s/%s selects no part", p->name, con->name);
        }
        pf_geom_free(geo);
    }
}

/* ------------------------------------------------ manufactured residuals
 * The residuals of the problems without an analytic solution, checked on a
 * smooth field against the formulas of docs/pdes.md written out again in double:
 * channel k is u_k = a_k + sin(phi_k), phi_k = sum_i w_i x_i + 0.3 k + 0.2,
 * so d^m u_k / dx_i^m = w_i^m sin^(m)(phi_k). The frequencies differ per
 * input and the offsets per output, so a swapped derivative or channel
 * shows. */
#define PI 3.14159265358979323846
static const double mf_w[PF_PDE_MAX_IN] = {0.7, 0.45, 0.3, 0.55, 0.35, 0.25, 0.6, 0.4};
static const double mf_a[PF_PDE_MAX_OUT] = {2, 1.5, 1, 0.5};

typedef struct mfield {
    const pf_pde *p;
    double phi[PF_PDE_MAX_OUT];
    double aux[PF_PDE_MAX_AUX]; /* the auxiliary fields at the point (p->aux) */
} mfield;

static double mf_u(const mfield *f, int k) { return mf_a[k] + sin(f->phi[k]); }

/* d^m u_k / dx_i^m, m >= 1 */
static double mf_d(const mfield *f, int k, int i, int m)
{
    static const double s[4][2] = {{0, 1}, {-1, 0}, {0, -1}, {1, 0}}; /* sin^(m) = a sin + b cos */
    double wm = pow(mf_w[i], m);
    return wm * (s[(m - 1) % 4][0] * sin(f->phi[k]) + s[(m - 1) % 4][1] * cos(f->phi[k]));
}

static double mf_lap(const mfield *f, int k)
{
    double s = 0;
    for (int i = 0; i < f->p->d_in; i++)
        if (i != f->p->time_input) s += mf_d(f, k, i, 2);
    return s;
}

#define MU(k) mf_u(f, k)
#define MD(k, i, m) mf_d(f, k, i, m)
#define MLAP(k) mf_lap(f, k)

static void ex_burgers_1d(const double *x, const mfield *f, double *r)
{
    (void)x;
    r[0] = MD(0, 1, 1) + MU(0) * MD(0, 0, 1) - 0.01 / PI * MD(0, 0, 2);
}

static void ex_gray_scott_2d(const double *x, const mfield *f, double *r)
{
    (void)x;
    double u = MU(0), v = MU(1);
    r[0] = MD(0, 2, 1) - (1e-5 * MLAP(0) + 0.04 * (1 - u) - u * v * v);
    r[1] = MD(1, 2, 1) - (5e-6 * MLAP(1) - 0.1 * v + u * v * v);
}

static void ex_heat_2d_complex_geometry(const double *x, const mfield *f, double *r)
{
    (void)x;
    r[0] = MD(0, 2, 1) - MD(0, 0, 2) - MD(0, 1, 2);
}

static void ex_heat_2d_long_time(const double *x, const mfield *f, double *r)
{
    double u = MU(0);
    r[0] = MD(0, 2, 1) - 0.001 * MLAP(0) -
           5 * sin(u * u) * (1 + 2 * sin(PI * x[2] / 4)) * sin(4 * PI * x[0]) * sin(2 * PI * x[1]);
}

static void ex_kuramoto_sivashinsky_1d(const double *x, const mfield *f, double *r)
{
    (void)x;
    r[0] = MD(0, 1, 1) + 100.0 / 16 * MU(0) * MD(0, 0, 1) + 100.0 / 256 * MD(0, 0, 2) +
           100.0 / 65536 * MD(0, 0, 4);
}

/* steady (t < 0) or unsteady (t = index of time) Navier-Stokes, nu = 0.01 */
static void ns(const mfield *f, int t, double *r)
{
    for (int e = 0; e < 2; e++)
        r[e] = (t >= 0 ? MD(e, t, 1) : 0) + MU(0) * MD(e, 0, 1) + MU(1) * MD(e, 1, 1) + MD(2, e, 1) -
               0.01 * MLAP(e);
    r[2] = MD(0, 0, 1) + MD(1, 1, 1);
}

static void ex_ns_steady(const double *x, const mfield *f, double *r)
{
    (void)x;
    ns(f, -1, r);
}

static void ex_navier_stokes_2d_long_time(const double *x, const mfield *f, double *r)
{
    ns(f, 2, r);
    r[1] += sin(PI * x[0]) * sin(PI * x[1]) * sin(PI * x[2]);
}

static void ex_poisson_2d_classic(const double *x, const mfield *f, double *r)
{
    (void)x;
    r[0] = MD(0, 0, 2) + MD(0, 1, 2);
}

static void ex_poisson_boltzmann_2d(const double *x, const mfield *f, double *r)
{
    double fx = 10 * (1 + 16 + x[0] * x[0] + x[1] * x[1]) * sin(PI * x[0]) * sin(4 * PI * x[1]);
    r[0] = -MLAP(0) + 64 * MU(0) - fx;
}

static void ex_poisson_3d_complex_geometry(const double *x, const mfield *f, double *r)
{
    double r2 = x[0] * x[0] + x[1] * x[1] + x[2] * x[2], kappa = x[2] < 0.5 ? 64 : 100;
    double s = sin(PI * x[0]), sy = sin(10 * PI * x[1]), sz = sin(5 * PI * x[2]);
    double fx = 20 * exp(s + sy + sz) * (r2 - 1) / (r2 + 1) + 100 * s * sy * sz;
    r[0] = -MLAP(0) + kappa * MU(0) - fx;
}

static void ex_shallow_water_2d(const double *x, const mfield *f, double *r)
{
    (void)x;
    const double g = 9.81;
    double h = MU(0), qx = MU(1), qy = MU(2);
    double hx = MD(0, 0, 1), hy = MD(0, 1, 1), qxx = MD(1, 0, 1), qxy = MD(1, 1, 1);
    double qyx = MD(2, 0, 1), qyy = MD(2, 1, 1);
    r[0] = MD(0, 2, 1) + qxx + qyy;
    r[1] = MD(1, 2, 1) + (2 * qx * qxx / h - qx * qx * hx / (h * h) + g * h * hx) +
           ((qxy * qy + qx * qyy) / h - qx * qy * hy / (h * h));
    r[2] = MD(2, 2, 1) + ((qxx * qy + qx * qyx) / h - qx * qy * hx / (h * h)) +
           (2 * qy * qyy / h - qy * qy * hy / (h * h) + g * h * hy);
}

static void ex_burgers_2d(const double *x, const mfield *f, double *r)
{
    (void)x;
    for (int e = 0; e < 2; e++)
        r[e] = MD(e, 2, 1) + MU(0) * MD(e, 0, 1) + MU(1) * MD(e, 1, 1) - 1e-3 * MLAP(e);
}

static void ex_heat_2d_varying_coefficient(const double *x, const mfield *f, double *r)
{
    r[0] = MD(0, 2, 1) - f->aux[0] * MLAP(0) - 200 * sin(PI * x[0]) * sin(5 * PI * x[1]) * sin(PI * x[2]);
}

static void ex_wave_2d_heterogeneous(const double *x, const mfield *f, double *r)
{
    (void)x;
    r[0] = MLAP(0) - MD(0, 2, 2) / f->aux[0];
}

static void ex_poisson_2d_many_area(const double *x, const mfield *f, double *r)
{
    (void)x;
    r[0] = f->aux[0] * MLAP(0) + f->aux[1];
}

/* The field above in jet ops on the context's points. */
static pf_node *mf_field(pf_pde_ctx *c)
{
    pf_node *s = NULL, *ch[PF_PDE_MAX_OUT];
    for (int i = 0; i < c->pde->d_in; i++) {
        pf_node *t = pf_scale(c->g, pf_pde_xj(c, i), (pf_real)mf_w[i]);
        s = s ? pf_add(c->g, s, t) : t;
    }
    for (int k = 0; k < c->pde->d_out; k++) {
        pf_node *sk = pf_unary(c->g, PF_UNARY_SIN, pf_add_const(c->g, s, (pf_real)(0.3 * k + 0.2)), 0);
        ch[k] = pf_add_const(c->g, sk, (pf_real)mf_a[k]);
    }
    return c->pde->d_out == 1 ? ch[0] : pf_concat(c->g, c->pde->d_out, ch);
}

/* RMS of (graph residual - expected) over max(1, RMS of expected), per
 * equation, on n points xs (NULL: random points of the bounding box). */
static void manufactured_ratios(const pf_pde *p, bool collapse, int n, const double *xs,
                                void (*expect)(const double *, const mfield *, double *), double *ratio)
{
    pf_graph *g = pf_graph_alloc(pf_backend_cpu());
    pf_pde_ctx c;
    pf_pde_ctx_init(&c, p, g, p->orders, collapse, n);
    pf_pde_ctx_add_aux(&c, n);
    c.u = mf_field(&c);
    pf_node *want[PF_PDE_MAX_EQ];
    for (int e = 0; e < p->neq; e++) {
        want[e] = pf_input(g, "want", n, 1, NULL, NULL);
        pf_loss(g, "diff", pf_mean_square(g, pf_sub(g, p->residual(&c, e), want[e]), NULL));
        pf_loss(g, "size", pf_mean_square(g, want[e], NULL));
    }
    cr_assert_eq(pf_graph_compile(g, 1), PF_OK, "%s", pf_errmsg());
    pf_rng *r = pf_rng_alloc(11);
    pf_real *x = malloc(sizeof(pf_real) * (size_t)(n * p->d_in));
    pf_real *w = malloc(sizeof(pf_real) * (size_t)(n * p->neq));
    pf_real *av = malloc(sizeof(pf_real) * (size_t)(n * (p->naux + 1)));
    for (int i = 0; i < n * p->d_in; i++)
        x[i] = (pf_real)(xs ? xs[i] : pf_rng_uniform_in(r, p->lo[i % p->d_in], p->hi[i % p->d_in]));
    for (int a = 0; a < p->naux; a++)
        cr_assert_eq(p->aux(p, a, x, n, av + a * n), PF_OK, "%s: %s", p->name, pf_errmsg());
    for (int i = 0; i < n; i++) {
        double xd[PF_PDE_MAX_IN], rd[PF_PDE_MAX_EQ] = {0};
        mfield f = {.p = p};
        double s = 0;
        for (int j = 0; j < p->d_in; j++) {
            xd[j] = x[i * p->d_in + j]; /* the rounded point the graph sees */
            s += mf_w[j] * xd[j];
        }
        for (int k = 0; k < p->d_out; k++) f.phi[k] = s + 0.3 * k + 0.2;
        for (int a = 0; a < p->naux; a++) f.aux[a] = av[a * n + i];
        expect(xd, &f, rd);
        for (int e = 0; e < p->neq; e++) w[e * n + i] = (pf_real)rd[e];
    }
    pf_graph_set_input(g, c.x, x);
    cr_assert_eq(pf_pde_ctx_set_aux(&c, x, n, av + p->naux * n), PF_OK, "%s: %s", p->name, pf_errmsg());
    for (int e = 0; e < p->neq; e++) pf_graph_set_input(g, want[e], w + e * n);
    pf_graph_forward(g);
    for (int e = 0; e < p->neq; e++)
        ratio[e] = sqrt(pf_graph_loss_value(g, 2 * e)) / fmax(1, sqrt(pf_graph_loss_value(g, 2 * e + 1)));
    free(av);
    free(w);
    free(x);
    pf_rng_free(r);
    pf_graph_free(g);
}

/* float rounding of the terms, or double's: small enough that in double even
 * gray_scott's eps1 = 1e-5 term must be right */
#ifdef PF_DOUBLE
#define MF_TOL 1e-9
#else
#define MF_TOL 1e-4
#endif

static const struct {
    const char *name;
    void (*expect)(const double *, const mfield *, double *);
} manufactured[] = {
    {"burgers_1d", ex_burgers_1d},
    {"gray_scott_2d", ex_gray_scott_2d},
    {"heat_2d_complex_geometry", ex_heat_2d_complex_geometry},
    {"heat_2d_long_time", ex_heat_2d_long_time},
    {"kuramoto_sivashinsky_1d", ex_kuramoto_sivashinsky_1d},
    {"navier_stokes_2d_backstep", ex_ns_steady},
    {"navier_stokes_2d_classic", ex_ns_steady},
    {"navier_stokes_2d_long_time", ex_navier_stokes_2d_long_time},
    {"poisson_2d_classic", ex_poisson_2d_classic},
    {"poisson_boltzmann_2d", ex_poisson_boltzmann_2d},
    {"poisson_3d_complex_geometry", ex_poisson_3d_complex_geometry},
    {"shallow_water_2d", ex_shallow_water_2d},
    {"burgers_2d", ex_burgers_2d},
    {"heat_2d_varying_coefficient", ex_heat_2d_varying_coefficient},
    {"wave_2d_heterogeneous", ex_wave_2d_heterogeneous},
    {"poisson_2d_many_area", ex_poisson_2d_many_area},
};

Test(pdes, residuals_match_the_formulas_on_a_manufactured_field)
{
    data_gaps gaps = {0};
    for (size_t m = 0; m < sizeof manufactured / sizeof manufactured[0]; m++) {
        const pf_pde *p;
        cr_assert_eq(pf_pdes_lookup(manufactured[m].name, &p), PF_OK, "%s", pf_errmsg());
        if (!data_present(p, &gaps)) continue;
        for (int collapse = 0; collapse <= (p->laplacian_only ? 1 : 0); collapse++) {
            double ratio[PF_PDE_MAX_EQ];
            manufactured_ratios(p, collapse, 257, NULL, manufactured[m].expect, ratio);
            for (int e = 0; e < p->neq; e++)
                cr_expect_lt(ratio[e], MF_TOL, "%s (%s layout): residual %d is off by %.2e", p->name,
                             collapse ? "collapsed" : "per-input", e, ratio[e]);
        }
    }
    data_gaps_skip(&gaps, "PDEs");
}

/* kappa of poisson_3d_complex_geometry jumps from 64 to 100 exactly at
 * z = 0.5 (z >= 0.5 is 100), with no op of its own (pf_pde_step). */
Test(pdes, poisson_3d_coefficient_jumps_exactly_at_half)
{
    const pf_pde *p;
    cr_assert_eq(pf_pdes_lookup("poisson_3d_complex_geometry", &p), PF_OK);
#ifdef PF_DOUBLE
    double below = nextafter(0.5, 0), above = nextafter(0.5, 1);
#else
    double below = nextafterf(0.5f, 0), above = nextafterf(0.5f, 1);
#endif
    const double xs[] = {0.3, 0.4, 0.5, 0.3, 0.4, below, 0.3, 0.4, above, 0.3, 0.4, 0.49, 0.3, 0.4, 0.51,
                         0.1, 0.9, 0.0, 0.1, 0.9, 1.0};
    double ratio[1];
    manufactured_ratios(p, false, 7, xs, ex_poisson_3d_complex_geometry, ratio);
    cr_expect_lt(ratio[0], 1e-5, "the jump is off by %.2e", ratio[0]);
}

/* The positivity constraint of shallow_water_2d is max(0, h_min - h) on
 * values of h on both sides of h_min, h_min itself and beyond. */
Test(pdes, shallow_water_positivity_is_max_of_zero_and_the_deficit)
{
    const pf_pde *p;
    cr_assert_eq(pf_pdes_lookup("shallow_water_2d", &p), PF_OK);
    const pf_constraint *con = NULL;
    for (int k = 0; k < p->ncon; k++)
        if (p->con[k].kind == PF_CON_INEQUALITY) con = &p->con[k];
    cr_assert(con != NULL && con->order == 0);
    enum { N = 10 };
    const double h[N] = {2, 1, 1.001e-3, 1e-3, 0.999e-3, 5e-4, 1e-9, 0, -1e-9, -3};
    pf_graph *g = pf_graph_alloc(pf_backend_cpu());
    pf_pde_ctx c;
    pf_pde_ctx_init(&c, p, g, NULL, false, N);
    c.u = pf_input(g, "u", N, p->d_out, NULL, NULL);
    pf_node *want = pf_input(g, "want", N, 1, NULL, NULL);
    pf_loss(g, "diff", pf_mean_square(g, pf_sub(g, con->residual(&c), want), NULL));
    cr_assert_eq(pf_graph_compile(g, 1), PF_OK, "%s", pf_errmsg());
    pf_real x[N * 3] = {0}, u[N * 3] = {0}, w[N];
    for (int i = 0; i < N; i++) {
        u[3 * i] = (pf_real)h[i];
        w[i] = (pf_real)fmax(0, (double)(pf_real)1e-3 - (double)(pf_real)h[i]);
    }
    pf_graph_set_input(g, c.x, x);
    pf_graph_set_input(g, c.u, u);
    pf_graph_set_input(g, want, w);
    pf_graph_forward(g);
    double d = sqrt(pf_graph_loss_value(g, 0));
    cr_expect(d < 1e-9, "positivity residual off by %.3e (RMS)", d);
    pf_graph_free(g);
}

/* ------------------------------------------------ manufactured constraints
 * The same field on points sampled where each constraint of those problems
 * holds, against docs/pdes.md's formulas: u_k - c - g(x), or for the normal-
 * derivative kinds the formula itself (mc_* below). Every constraint of a
 * listed problem must have its line. */
typedef double (*mc_fn)(const double *x, const double *n, const mfield *f);

static double mf_dn(const double *n, const mfield *f, int k)
{
    double s = 0;
    for (int i = 0; i < f->p->d_in; i++)
        if (i != f->p->time_input) s += n[i] * mf_d(f, k, i, 1);
    return s;
}

static double mc_lid(const double *x, const double *n, const mfield *f)
{
    (void)n, (void)f;
    return 4 * x[0] * (1 - x[0]);
}
static double mc_step_inlet(const double *x, const double *n, const mfield *f)
{
    (void)n, (void)f;
    return 4 * x[1] * (1 - x[1]);
}
static double mc_ns_inlet(const double *x, const double *n, const mfield *f)
{
    (void)n, (void)f;
    return sin(PI * x[1]) * (sin(PI * x[2]) + sin(3 * PI * x[2]) + sin(5 * PI * x[2]));
}
static double mc_ks(const double *x, const double *n, const mfield *f)
{
    (void)n, (void)f;
    return cos(x[0]) * (1 + sin(x[0]));
}
static double mc_gs_u(const double *x, const double *n, const mfield *f)
{
    (void)n, (void)f;
    return 1 - exp(-80 * ((x[0] + 0.05) * (x[0] + 0.05) + (x[1] + 0.02) * (x[1] + 0.02)));
}
static double mc_gs_v(const double *x, const double *n, const mfield *f)
{
    (void)n, (void)f;
    return exp(-80 * ((x[0] - 0.05) * (x[0] - 0.05) + (x[1] - 0.02) * (x[1] - 0.02)));
}
/* Robin du/dn = g - u, written du/dn - (g - u); here as "u - c - fn" with
 * k = 0, c = 0: fn = u - (du/dn - g + u) = g - du/dn */
#define MC_ROBIN(name, g)                                                                          \
    static double name(const double *x, const double *n, const mfield *f)                          \
    {                                                                                              \
        (void)x;                                                                                   \
        return (g) - mf_dn(n, f, 0);                                                               \
    }
MC_ROBIN(mc_robin5, 5)
MC_ROBIN(mc_robin1, 1)
MC_ROBIN(mc_robin01, 0.1)
/* Neumann du/dn = 0 as u - (u - du/dn) */
static double mc_neumann(const double *x, const double *n, const mfield *f)
{
    (void)x;
    return mf_u(f, 0) - mf_dn(n, f, 0);
}
/* max(0, h_min - h) as h - (h - max(0, h_min - h)) */
static double mc_hmin(const double *x, const double *n, const mfield *f)
{
    (void)x, (void)n;
    return mf_u(f, 0) - fmax(0, 1e-3 - mf_u(f, 0));
}

/* Burgers-2D's initial fields (the closed form of docs/pdes.md R.2) */
static double mc_burgers(const double *x, int comp)
{
    static pf_burgers2d_ic ic;
    static bool ready;
    if (!ready) pf_burgers2d_ic_init(&ic), ready = true;
    double v[2];
    pf_burgers2d_ic_eval(&ic, x[0], x[1], v, NULL, NULL);
    return v[comp];
}
static double mc_burgers_u0(const double *x, const double *n, const mfield *f)
{
    (void)n, (void)f;
    return mc_burgers(x, 0);
}
static double mc_burgers_v0(const double *x, const double *n, const mfield *f)
{
    (void)n, (void)f;
    return mc_burgers(x, 1);
}
static double mc_wave_pulse(const double *x, const double *n, const mfield *f)
{
    (void)n, (void)f;
    return exp(-((x[0] + 0.5) * (x[0] + 0.5) + x[1] * x[1]) / (2 * 0.3 * 0.3));
}
/* u_t = 0 as u - (u - u_t) (t is the last input) */
static double mc_rate(const double *x, const double *n, const mfield *f)
{
    (void)x, (void)n;
    return mf_u(f, 0) - mf_d(f, 0, f->p->d_in - 1, 1);
}
/* Robin du/dn = -u as u - (u - (du/dn + u)) */
static double mc_robin_minus_u(const double *x, const double *n, const mfield *f)
{
    (void)x;
    return -mf_dn(n, f, 0);
}

static const struct {
    const char *pde, *con;
    int k;       /* the residual is u_k - c - fn(x, n, field) */
    double c;
    mc_fn fn;
} mc_table[] = {
    {"gray_scott_2d", "ic_u", 0, 0, mc_gs_u},
    {"gray_scott_2d", "ic_v", 1, 0, mc_gs_v},
    {"heat_2d_complex_geometry", "ic", 0, 0, NULL},
    {"heat_2d_complex_geometry", "robin_r1", 0, 0, mc_robin5},
    {"heat_2d_complex_geometry", "robin_r04", 0, 0, mc_robin1},
    {"heat_2d_complex_geometry", "robin_rect", 0, 0, mc_robin01},
    {"kuramoto_sivashinsky_1d", "ic", 0, 0, mc_ks},
    {"navier_stokes_2d_backstep", "inlet_u", 0, 0, mc_step_inlet},
    {"navier_stokes_2d_backstep", "inlet_v", 1, 0, NULL},
    {"navier_stokes_2d_backstep", "outlet_p", 2, 0, NULL},
    {"navier_stokes_2d_backstep", "walls_u", 0, 0, NULL},
    {"navier_stokes_2d_backstep", "walls_v", 1, 0, NULL},
    {"navier_stokes_2d_classic", "lid_u", 0, 0, mc_lid},
    {"navier_stokes_2d_classic", "lid_v", 1, 0, NULL},
    {"navier_stokes_2d_classic", "walls_u", 0, 0, NULL},
    {"navier_stokes_2d_classic", "walls_v", 1, 0, NULL},
    {"navier_stokes_2d_classic", "gauge", 2, 0, NULL},
    {"navier_stokes_2d_long_time", "ic_u", 0, 0, NULL},
    {"navier_stokes_2d_long_time", "ic_v", 1, 0, NULL},
    {"navier_stokes_2d_long_time", "ic_p", 2, 0, NULL},
    {"navier_stokes_2d_long_time", "inlet_u", 0, 0, mc_ns_inlet},
    {"navier_stokes_2d_long_time", "inlet_v", 1, 0, NULL},
    {"navier_stokes_2d_long_time", "outlet_p", 2, 0, NULL},
    {"navier_stokes_2d_long_time", "walls_u", 0, 0, NULL},
    {"navier_stokes_2d_long_time", "walls_v", 1, 0, NULL},
    {"poisson_2d_classic", "bc_outer", 0, 1, NULL},
    {"poisson_2d_classic", "bc_holes", 0, 0, NULL},
    {"poisson_boltzmann_2d", "bc_outer", 0, 0.2, NULL},
    {"poisson_boltzmann_2d", "bc_holes", 0, 1, NULL},
    {"poisson_3d_complex_geometry", "neumann", 0, 0, mc_neumann},
    {"shallow_water_2d", "ic_h", 0, 1, NULL},
    {"shallow_water_2d", "ic_qx", 1, 0.1, NULL},
    {"shallow_water_2d", "ic_qy", 2, -0.05, NULL},
    {"shallow_water_2d", "h_min", 0, 0, mc_hmin},
    {"burgers_2d", "ic_u", 0, 0, mc_burgers_u0},
    {"burgers_2d", "ic_v", 1, 0, mc_burgers_v0},
    {"heat_2d_varying_coefficient", "ic", 0, 0, NULL},
    {"heat_2d_varying_coefficient", "bc", 0, 0, NULL},
    {"wave_2d_heterogeneous", "ic", 0, 0, mc_wave_pulse},
    {"wave_2d_heterogeneous", "ic_rate", 0, 0, mc_rate},
    {"wave_2d_heterogeneous", "walls", 0, 0, mc_neumann},
    {"poisson_2d_many_area", "robin", 0, 0, mc_robin_minus_u},
};

/* RMS of (constraint residual - expected) over max(1, RMS of expected), on
 * points sampled as the generic constraint test samples them. */
static double mc_ratio(const pf_pde *p, const pf_geom *geo, const pf_constraint *k, int row)
{
    pf_point_set ps;
    pf_point_set_init(&ps);
    pf_status st = PF_OK;
    if (k->kind == PF_CON_INITIAL)
        st = pf_sample_initial(geo, PF_SAMPLE_UNIFORM, 199, 5, PF_SAMPLE_NORMALS, &ps);
    else if (k->kind != PF_CON_POINTS)
        st = pf_sample_boundary(geo, PF_SAMPLE_UNIFORM, k->parts, 199, 5, PF_SAMPLE_NORMALS, &ps);
    cr_assert_eq(st, PF_OK, "%s/%s: %s", p->name, k->name, pf_errmsg());
    int n = k->kind == PF_CON_POINTS ? k->npoints : ps.n, d = p->d_in;
    pf_real *x = malloc(sizeof(pf_real) * (size_t)(n * d)), *nrm = calloc((size_t)(n * d), sizeof(pf_real));
    pf_real *w = malloc(sizeof(pf_real) * (size_t)n);
    for (int i = 0; i < n; i++) {
        double xd[PF_PDE_MAX_IN], nd[PF_PDE_MAX_IN], s = 0;
        for (int j = 0; j < d; j++) {
            x[i * d + j] = k->kind == PF_CON_POINTS ? (pf_real)k->points[i * d + j] : ps.x[i * d + j];
            nrm[i * d + j] = ps.normal ? ps.normal[i * d + j] : 0;
            xd[j] = x[i * d + j], nd[j] = nrm[i * d + j];
            s += mf_w[j] * xd[j];
        }
        mfield f = {.p = p};
        for (int q = 0; q < p->d_out; q++) f.phi[q] = s + 0.3 * q + 0.2;
        w[i] = (pf_real)(mf_u(&f, mc_table[row].k) - mc_table[row].c -
                         (mc_table[row].fn ? mc_table[row].fn(xd, nd, &f) : 0));
    }
    pf_graph *g = pf_graph_alloc(pf_backend_cpu());
    int orders[PF_PDE_MAX_IN];
    for (int i = 0; i < d; i++) orders[i] = k->order;
    pf_pde_ctx c;
    pf_pde_ctx_init(&c, p, g, orders, false, n);
    c.normal = pf_input(g, "normal", n, d, NULL, NULL);
    pf_pde_ctx_add_aux(&c, n);
    c.u = mf_field(&c);
    pf_node *want = pf_input(g, "want", n, 1, NULL, NULL);
    pf_loss(g, "diff", pf_mean_square(g, pf_sub(g, k->residual(&c), want), NULL));
    pf_loss(g, "size", pf_mean_square(g, want, NULL));
    cr_assert_eq(pf_graph_compile(g, 1), PF_OK, "%s", pf_errmsg());
    pf_graph_set_input(g, c.x, x);
    pf_graph_set_input(g, c.normal, nrm);
    pf_real *work = malloc(sizeof(pf_real) * (size_t)n);
    cr_assert_eq(pf_pde_ctx_set_aux(&c, x, n, work), PF_OK, "%s: %s", p->name, pf_errmsg());
    free(work);
    pf_graph_set_input(g, want, w);
    pf_graph_forward(g);
    double ratio = sqrt(pf_graph_loss_value(g, 0)) / fmax(1, sqrt(pf_graph_loss_value(g, 1)));
    pf_graph_free(g);
    free(w);
    free(nrm);
    free(x);
    pf_point_set_release(&ps);
    return ratio;
}

Test(pdes, constraints_match_the_formulas_on_a_manufactured_field)
{
    data_gaps gaps = {0};
    int nrows = (int)(sizeof mc_table / sizeof mc_table[0]);
    for (int i = 0; i < pf_pdes_count(); i++) {
        const pf_pde *p = pf_pdes_at(i);
        bool listed_pde = false;
        for (int r = 0; r < nrows; r++) listed_pde |= !strcmp(mc_table[r].pde, p->name);
        if (!listed_pde || !data_present(p, &gaps)) continue;
        pf_geom *geo;
        cr_assert_eq(p->geometry(p, &geo), PF_OK, "%s: %s", p->name, pf_errmsg());
        for (int k = 0; k < p->ncon; k++) {
            if (p->con[k].kind == PF_CON_PERIODIC || p->con[k].observe) continue; /* tests of their own */
            int row = -1;
            for (int r = 0; r < nrows; r++)
                if (!strcmp(mc_table[r].pde, p->name) && !strcmp(mc_table[r].con, p->con[k].name)) row = r;
            cr_expect_geq(row, 0, "%s: constraint %s has no formula here", p->name, p->con[k].name);
            if (row < 0) continue;
            double ratio = mc_ratio(p, geo, &p->con[k], row);
            cr_expect_lt(ratio, MF_TOL, "%s: constraint %s is off by %.2e", p->name, p->con[k].name, ratio);
        }
        pf_geom_free(geo);
    }
    data_gaps_skip(&gaps, "PDEs");
}

/* ---------------------------------------------------------------- references */

/* Evaluation-set sizes from docs/pdes.md (0 = not documented: only n > 0). */
static int documented_size(const char *name)
{
    static const struct { const char *name; int n; } t[] = {
        {"burgers_1d", 1111},           {"heat_2d_long_time", 96192},
        {"heat_2d_multiscale", 20032},  {"heat_5d", 20000},
        {"poisson_5d", 32768},          {"wave_1d", 2500},
        {"navier_stokes_2d_classic", 10201}, {"navier_stokes_2d_backstep", 12910},
        {"poisson_2d_classic", 1246},   {"poisson_boltzmann_2d", 3236},
        {"heat_inverse_2d", 20519},     {"poisson_inverse_2d", 2500},
        {"heat_2d_varying_coefficient", 50133},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (!strcmp(t[i].name, name)) return t[i].n;
    return 0;
}

/* exact_fields (jet ops, the engine's precision) at the reference points
 * against exact() (double): two independent writings of u*. */
static double exact_forms_disagree(const pf_pde *p, const pf_reference *r)
{
    pf_graph *g = pf_graph_alloc(pf_backend_cpu());
    pf_pde_ctx c;
    pf_pde_ctx_init(&c, p, g, NULL, false, r->n);
    pf_node *u = p->exact_fields(&c);
    cr_assert_eq(pf_graph_compile(g, 1), PF_OK, "%s", pf_errmsg());
    pf_graph_set_input(g, c.x, r->x);
    pf_graph_forward(g);
    pf_real *v = malloc(sizeof(pf_real) * (size_t)r->n * p->d_out);
    pf_graph_read(g, u, v);
    double worst = 0, scale = 1e-30;
    for (int i = 0; i < r->n * p->d_out; i++) scale = fmax(scale, fabs((double)r->u[i]));
    for (int i = 0; i < r->n * p->d_out; i++) worst = fmax(worst, fabs((double)v[i] - r->u[i]) / scale);
    free(v);
    pf_graph_free(g);
    return worst;
}

Test(pdes, analytic_references_match_both_exact_forms)
{
    for (int i = 0; i < pf_pdes_count(); i++) {
        const pf_pde *p = pf_pdes_at(i);
        if (p->ref != PF_REF_ANALYTIC) continue;
        pf_reference r;
        cr_assert_eq(pf_pde_reference(p, &r), PF_OK, "%s: %s", p->name, pf_errmsg());
        int want = documented_size(p->name);
        if (want) cr_expect_eq(r.n, want, "%s: %d evaluation points, docs/pdes.md says %d", p->name, r.n, want);
        else cr_expect_gt(r.n, 0, "%s: no evaluation points", p->name);
        double e = exact_forms_disagree(p, &r);
        cr_expect_lt(e, 1e-5, "%s: exact_fields and exact differ by %.2e (relative to max |u*|)",
                     p->name, e);
        pf_reference_release(&r);
    }
}

/* Every PINNacle reference there is checked, and every generated one made
 * (make refs); then the test skips, "data missing:", when a PINNacle one
 * was absent (data_fixture.h): the ones there were checked all the same. */
Test(pdes, data_references_load_and_lie_in_their_domains)
{
    data_gaps gaps = {0};
    for (int i = 0; i < pf_pdes_count(); i++) {
        const pf_pde *p = pf_pdes_at(i);
        if (p->ref != PF_REF_DATA && p->ref != PF_REF_GENERATED) continue;
        if (p->ref == PF_REF_DATA && pde_data_absent(p)) {
            data_gap(&gaps, p->name);
            continue;
        }
        pf_reference r;
        if (pf_pde_reference(p, &r) != PF_OK) { /* not generated: say so, check nothing */
            cr_assert_eq(p->ref, PF_REF_GENERATED, "%s: %s", p->name, pf_errmsg());
            cr_log_info("%s: %s", p->name, pf_errmsg());
            pf_reference_release(&r);
            continue;
        }
        int want = documented_size(p->name);
        if (want) cr_expect_eq(r.n, want, "%s: %d rows, docs/pdes.md says %d", p->name, r.n, want);
        pf_geom *geo;
        cr_assert_eq(p->geometry(p, &geo), PF_OK, "%s: %s", p->name, pf_errmsg());
        int outside = 0, first = -1;
        for (int k = 0; k < r.n; k++) {
            double x[PF_PDE_MAX_IN];
            for (int j = 0; j < p->d_in; j++) x[j] = r.x[k * p->d_in + j];
            if (!pf_geom_inside(geo, x, 1e-4)) outside += first < 0 ? (first = k, 1) : 1;
        }
        cr_expect_eq(outside, 0, "%s: %d of %d reference points lie outside the geometry (first: row %d)",
                     p->name, outside, r.n, first);
        pf_geom_free(geo);
        pf_reference_release(&r);
    }
    data_gaps_skip(&gaps, "PINNacle references");
}

/* ------------------------------------------------ observations (inverse problems)
 * observe() gives points in the domain and values u*_0 + N(0, 0.1^2): the
 * deviations from u* have mean ~0 and sample std 0.1 (within 10%), the same
 * seed gives the same values and another seed other values. (That the
 * residual vanishes with noise-free targets is in the generic constraint
 * test.) */
Test(pdes, observations_are_u_star_plus_gaussian_noise)
{
    data_gaps gaps = {0};
    int checked = 0;
    for (int i = 0; i < pf_pdes_count(); i++) {
        const pf_pde *p = pf_pdes_at(i);
        for (int k = 0; k < p->ncon; k++) {
            const pf_constraint *con = &p->con[k];
            if (!con->observe || !data_present(p, &gaps)) continue;
            cr_assert_eq(p->ref, PF_REF_ANALYTIC, "%s: observations need u*", p->name);
            int n, n2;
            pf_real *x, *v, *x2, *v2;
            cr_assert_eq(con->observe(p, 1, &n, &x, &v), PF_OK, "%s: %s", p->name, pf_errmsg());
            cr_assert_eq(con->observe(p, 1, &n2, &x2, &v2), PF_OK, "%s: %s", p->name, pf_errmsg());
            cr_expect(n == n2 && !memcmp(x, x2, sizeof(pf_real) * (size_t)(n * p->d_in)) &&
                      !memcmp(v, v2, sizeof(pf_real) * (size_t)n), "%s: the same seed draws differently",
                      p->name);
            free(x2), free(v2);
            cr_assert_eq(con->observe(p, 2, &n2, &x2, &v2), PF_OK, "%s: %s", p->name, pf_errmsg());
            cr_expect(n == n2 && memcmp(v, v2, sizeof(pf_real) * (size_t)n), "%s: another seed, same noise",
                      p->name);
            free(x2), free(v2);
            pf_geom *geo;
            cr_assert_eq(p->geometry(p, &geo), PF_OK, "%s: %s", p->name, pf_errmsg());
            double sum = 0, sq = 0;
            int outside = 0;
            for (int q = 0; q < n; q++) {
                double xd[PF_PDE_MAX_IN], u[PF_PDE_MAX_OUT];
                for (int j = 0; j < p->d_in; j++) xd[j] = x[q * p->d_in + j];
                outside += !pf_geom_inside(geo, xd, 1e-6);
                p->exact(p, xd, u);
                double e = (double)v[q] - u[0];
                sum += e, sq += e * e;
            }
            double mean = sum / n, sd = sqrt((sq - n * mean * mean) / (n - 1));
            cr_expect_eq(outside, 0, "%s: %d observation points outside the domain", p->name, outside);
            cr_expect(fabs(sd - 0.1) < 0.01, "%s: noise std %.4f, want 0.1 (within 10%%)", p->name, sd);
            cr_expect(fabs(mean) < 4 * 0.1 / sqrt(n), "%s: noise mean %.4f over %d points", p->name, mean, n);
            pf_geom_free(geo);
            free(x), free(v);
            checked++;
        }
    }
    /* heat_inverse_2d's points come from a file; poisson_inverse_2d's are a grid */
    const pf_pde *hi;
    cr_assert_eq(pf_pdes_lookup("heat_inverse_2d", &hi), PF_OK);
    int want = pde_data_files_absent(hi) ? 1 : 2;
    cr_expect_eq(checked, want, "observation constraints checked: %d of %d", checked, want);
    data_gaps_skip(&gaps, "PDEs");
}

/* ------------------------------------------------ periodic constraints
 * On a field periodic by construction (channel k: sin(2 pi x_i / L_i + ...)
 * products over the periodic inputs, plus a term in the others) each
 * periodic constraint's residual, u(x) - u(x') with x' the image of x on the
 * hi face, vanishes; adding s x_i along the constraint's input makes it
 * s L_i, so the test can tell. */
static pf_node *periodic_field(pf_pde_ctx *c, int tilt_input, double tilt)
{
    const pf_pde *p = c->pde;
    pf_node *ch[PF_PDE_MAX_OUT];
    for (int k = 0; k < p->d_out; k++) {
        pf_node *f = NULL;
        for (int i = 0; i < p->d_in; i++) {
            pf_node *xi = pf_pde_xj(c, i), *t;
            if (p->period[i] > 0)
                t = pf_unary(c->g, PF_UNARY_SIN,
                             pf_add_const(c->g, pf_scale(c->g, xi, (pf_real)(2 * PI * (i + 1) / p->period[i])),
                                          (pf_real)(0.3 * k + 0.7 * i + 0.2)), 0);
            else
                t = pf_add_const(c->g, pf_scale(c->g, xi, (pf_real)(0.5 + 0.1 * k)), 1.5f);
            f = f ? pf_mul(c->g, f, t) : t;
        }
        if (tilt) f = pf_add(c->g, f, pf_scale(c->g, pf_pde_xj(c, tilt_input), (pf_real)tilt));
        ch[k] = f;
    }
    return p->d_out == 1 ? ch[0] : pf_concat(c->g, p->d_out, ch);
}

/* RMS of the periodic constraint's residual on the field above (tilted by
 * `tilt` along its input). */
static double periodic_rms(const pf_pde *p, const pf_geom *geo, const pf_constraint *k, double tilt)
{
    pf_point_set ps;
    pf_point_set_init(&ps);
    pf_real *x;
    int n = constraint_points(p, geo, k, 9, &ps, &x);
    pf_real *xi = periodic_images(p, k, n, x);
    pf_graph *g = pf_graph_alloc(pf_backend_cpu());
    int orders[PF_PDE_MAX_IN];
    for (int i = 0; i < p->d_in; i++) orders[i] = k->order;
    pf_pde_ctx c;
    pf_pde_ctx_init(&c, p, g, orders, false, n);
    pf_pde_ctx ci;
    pf_pde_ctx_init(&ci, p, g, orders, false, n); /* the image points */
    c.u = periodic_field(&c, k->periodic_input, tilt);
    c.u_pair = periodic_field(&ci, k->periodic_input, tilt);
    pf_loss(g, "con", pf_mean_square(g, k->residual(&c), NULL));
    cr_assert_eq(pf_graph_compile(g, 1), PF_OK, "%s", pf_errmsg());
    pf_graph_set_input(g, c.x, x);
    pf_graph_set_input(g, ci.x, xi);
    pf_graph_forward(g);
    double rms = sqrt(pf_graph_loss_value(g, 0));
    pf_graph_free(g);
    free(xi);
    free(x);
    pf_point_set_release(&ps);
    return rms;
}

Test(pdes, periodic_constraints_vanish_on_a_periodic_field)
{
    int checked = 0;
    for (int i = 0; i < pf_pdes_count(); i++) {
        const pf_pde *p = pf_pdes_at(i);
        pf_geom *geo = NULL;
        for (int k = 0; k < p->ncon; k++) {
            const pf_constraint *con = &p->con[k];
            if (con->kind != PF_CON_PERIODIC) continue;
            if (!geo) cr_assert_eq(p->geometry(p, &geo), PF_OK, "%s: %s", p->name, pf_errmsg());
            double r = periodic_rms(p, geo, con, 0);
            cr_expect_lt(r, 1e-5, "%s/%s: %.2e on a periodic field", p->name, con->name, r);
            double L = p->hi[con->periodic_input] - p->lo[con->periodic_input];
            double t = periodic_rms(p, geo, con, 0.1);
            cr_expect(fabs(t - 0.1 * L) < 1e-4 * L, "%s/%s: %.4e on a field tilted by 0.1 x, want %.4e",
                      p->name, con->name, t, 0.1 * L);
            checked++;
        }
        pf_geom_free(geo);
    }
    cr_expect_eq(checked, 10, "periodic constraints checked: %d (burgers_2d 4, shallow_water_2d 6)", checked);
}

/* ------------------------------------------------ auxiliary fields
 * Values pinned by docs/pdes.md: heat's kappa at node (0,0) (first row of
 * heat_2d_coef_256.dat), darcy's c = 12 at node (0,0), i.e. (x,y) = (-1,-1)
 * for wave_2d_heterogeneous; Burgers' u0(0,0), v0(0,0) (section R.2) and
 * their 4-periodicity; poisson_2d_many_area's a = A[ix][iy] (rows are
 * x-blocks) and f = C00 + C11 at a block's centre (sin(pi/2)^2 = 1). */
static void aux_at(const char *name, int k, int n, const double *pts, double *out)
{
    const pf_pde *p;
    cr_assert_eq(pf_pdes_lookup(name, &p), PF_OK);
    cr_assert(k < p->naux && p->aux, "%s has no auxiliary field %d", name, k);
    pf_real x[4 * PF_PDE_MAX_IN] = {0}, v[4];
    for (int i = 0; i < n; i++)
        for (int j = 0; j < p->d_in; j++) x[i * p->d_in + j] = (pf_real)(j < 2 ? pts[2 * i + j] : 0.5);
    cr_assert_eq(p->aux(p, k, x, n, v), PF_OK, "%s: %s", name, pf_errmsg());
    for (int i = 0; i < n; i++) out[i] = v[i];
}

Test(pdes, auxiliary_fields_match_documented_values)
{
    double v[4];
    aux_at("heat_2d_varying_coefficient", 0, 1, (const double[]){0, 0}, v);
    cr_expect(fabs(v[0] - 2.644895188888257) < 1e-6 * 2.65, "kappa(0,0) = %.9g", v[0]);
    aux_at("wave_2d_heterogeneous", 0, 1, (const double[]){-1, -1}, v);
    cr_expect(fabs(v[0] - 12) < 1e-6, "c(-1,-1) = %.9g", v[0]);
    aux_at("burgers_2d", 0, 2, (const double[]){0, 0, 4, 4}, v);
    cr_expect(fabs(v[0] - 0.6093427685800314) < 1e-6 && fabs(v[1] - v[0]) < 1e-5, "u0(0,0) = %.9g, u0(4,4) = %.9g",
              v[0], v[1]);
    aux_at("burgers_2d", 1, 1, (const double[]){0, 0}, v);
    cr_expect(fabs(v[0] - 1.3944564496783616) < 1e-6, "v0(0,0) = %.9g", v[0]);

    const pf_pde *ma;
    cr_assert_eq(pf_pdes_lookup("poisson_2d_many_area", &ma), PF_OK);
    if (pde_data_files_absent(ma)) /* the coefficient files are PINNacle's: the rest is checked */
        cr_skip_test(PF_DATA_MISSING "%s: %s", ma->name, pf_errmsg());
    pf_dat *A, *C;
    cr_assert_eq(pf_dat_load("poisson_a_coef.dat", 0, PF_DAT_REST, PF_DAT_LAYOUT_STEADY, &A), PF_OK, "%s",
                 pf_errmsg());
    cr_assert_eq(pf_dat_load("poisson_f_coef.dat", 0, PF_DAT_REST, PF_DAT_LAYOUT_STEADY, &C), PF_OK, "%s",
                 pf_errmsg());
    const double h = (20 + 2e-5) / 5;
    const int blocks[3][2] = {{0, 0}, {1, 3}, {4, 2}};
    for (int b = 0; b < 3; b++) {
        int ix = blocks[b][0], iy = blocks[b][1];
        double centre[2] = {-10 - 1e-5 + (ix + 0.5) * h, -10 - 1e-5 + (iy + 0.5) * h};
        aux_at("poisson_2d_many_area", 0, 1, centre, v);
        cr_expect(fabs(v[0] - A->outputs[ix * 5 + iy]) < 1e-6 * fabs(v[0]), "a in block (%d,%d) is %g, A[%d][%d] = %g",
                  ix, iy, v[0], ix, iy, (double)A->outputs[ix * 5 + iy]);
        aux_at("poisson_2d_many_area", 1, 1, centre, v);
        double want = (double)C->outputs[4 * (5 * ix + iy)] + (double)C->outputs[4 * (5 * ix + iy) + 3];
        cr_expect(fabs(v[0] - want) < 1e-5 * fmax(1, fabs(want)), "f at the centre of block (%d,%d) is %g, want %g",
                  ix, iy, v[0], want);
    }
    pf_dat_free(A);
    pf_dat_free(C);
}

/* EVAL=heldout's split (pf_reference_split): deterministic, about half
 * and half, and stratified: each of the 2^d regions of the box keeps a
 * report share within 5 points of one half. */
Test(pdes, the_heldout_split_is_fixed_half_and_half_and_stratified)
{
    const char *names[] = {"wave_1d", "heat_2d_multiscale", "poisson_5d"};
    for (int q = 0; q < 3; q++) {
        const pf_pde *p;
        cr_assert_eq(pf_pdes_lookup(names[q], &p), PF_OK);
        pf_reference r;
        cr_assert_eq(pf_pde_reference(p, &r), PF_OK, "%s", pf_errmsg());
        unsigned char *a = malloc((size_t)r.n), *b = malloc((size_t)r.n);
        cr_assert_eq(pf_reference_split(p, &r, a), PF_OK);
        cr_assert_eq(pf_reference_split(p, &r, b), PF_OK);
        cr_assert_eq(memcmp(a, b, (size_t)r.n), 0, "%s: the split is fixed", p->name);
        long nrep = 0, in[64] = {0}, rep[64] = {0};
        for (int i = 0; i < r.n; i++) {
            cr_assert(a[i] <= 1);
            nrep += a[i];
            int region = 0;
            for (int j = 0; j < r.d_in; j++) /* halves of each input's range */
                region = 2 * region + ((double)r.x[(size_t)i * (size_t)r.d_in + (size_t)j] >= 0.5 * (p->lo[j] + p->hi[j]));
            in[region]++;
            rep[region] += a[i];
        }
        cr_assert_leq(labs(2 * nrep - r.n), 1, "%s: %ld of %d points report", p->name, nrep, r.n);
        for (int g = 0; g < (1 << r.d_in) && g < 64; g++)
            if (in[g] >= 40)
                cr_assert_leq(fabs((double)rep[g] / (double)in[g] - 0.5), 0.05, "%s: region %d reports %ld of %ld",
                              p->name, g, rep[g], in[g]);
        free(a);
        free(b);
        pf_reference_release(&r);
    }
}
