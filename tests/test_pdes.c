/*
 * The PDE library: every analytic problem's exact solution, written in jet
 * ops, satisfies its residual equations, whichever jet layout carries the
 * derivatives.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "geom/geometry.h"
#include "geom/sample.h"
#include "registry.h"

/* Residual RMS over the RMS of u* and every derivative stream of u* on n
 * random points of the bounding box; one value per equation. */
static void residual_ratios(const pf_pde *p, bool collapse, double *ratio)
{
    enum { N = 257 };
    pf_graph *g = pf_graph_alloc(pf_backend_cpu());
    pf_pde_ctx c;
    memset(&c, 0, sizeof c);
    c.pde = p;
    c.g = g;
    pf_jet_layout L;
    pf_real dirs[PF_JET_MAX_DIRS * PF_PDE_MAX_IN] = {0};
    pf_pde_layout(p, p->orders, collapse, &L, dirs, &c);
    c.x = pf_input(g, "x", N, p->d_in, &L, dirs);
    c.u = p->exact_fields(&c);
    for (int e = 0; e < p->neq; e++) pf_loss(g, "res", pf_mean_square(g, p->residual(&c, e), NULL));
    /* the size of every term the residuals are made of: u* and each stream */
    int S = 0;
    pf_loss(g, "u", pf_mean_square(g, pf_deriv(g, c.u, 0, 0), NULL)), S++;
    for (int d = 0; d < L.ndir; d++)
        for (int k = 1; k <= L.order[d]; k++, S++)
            pf_loss(g, "d", pf_mean_square(g, pf_deriv(g, c.u, d, k), NULL));
    for (int cc = 0; cc < L.ncoll; cc++, S++)
        pf_loss(g, "lap", pf_mean_square(g, pf_deriv_collapsed(g, c.u, cc), NULL));
    cr_assert_eq(pf_graph_compile(g, 1), PF_OK, "%s", pf_errmsg());
    pf_rng *r = pf_rng_alloc(42);
    pf_real *x = malloc(sizeof(pf_real) * N * (size_t)p->d_in);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < p->d_in; j++)
            x[i * p->d_in + j] = (pf_real)pf_rng_uniform_in(r, p->lo[j], p->hi[j]);
    pf_graph_set_input(g, c.x, x);
    pf_graph_forward(g);
    double big = 0;
    for (int s = 0; s < S; s++) big = fmax(big, sqrt(pf_graph_loss_value(g, p->neq + s)));
    for (int e = 0; e < p->neq; e++) ratio[e] = sqrt(pf_graph_loss_value(g, e)) / big;
    free(x);
    pf_rng_free(r);
    pf_graph_free(g);
}

Test(pdes, exact_solutions_satisfy_the_residuals)
{
    int checked = 0;
    for (int i = 0; i < pf_pdes_count(); i++) {
        const pf_pde *p = pf_pdes_at(i);
        if (p->ref != PF_REF_ANALYTIC) continue;
        for (int collapse = 0; collapse <= (p->laplacian_only ? 1 : 0); collapse++) {
            double ratio[PF_PDE_MAX_EQ];
            residual_ratios(p, collapse, ratio);
            for (int e = 0; e < p->neq; e++)
                cr_expect_lt(ratio[e], 1e-4, "%s (%s layout): residual %d is %.2e of the terms' size",
                             p->name, collapse ? "collapsed" : "per-input", e, ratio[e]);
        }
        checked++;
    }
    cr_expect_geq(checked, 4, "only %d analytic PDEs checked", checked);
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
        p->exact(x, u);
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

/* Constraint residual RMS over the size of the solution: the largest of the
 * RMS of u* over the domain and of the fields and their first derivatives
 * (when the constraint takes them) on points sampled where the constraint
 * holds. The fields are u* (hard NULL) or a hard transform of some_field. */
static double constraint_ratio(const pf_pde *p, const pf_geom *geo, const pf_constraint *k,
                               const pf_hard_transform *hard)
{
    pf_point_set ps;
    pf_point_set_init(&ps);
    pf_status st = PF_OK;
    if (k->kind == PF_CON_INITIAL)
        st = pf_sample_initial(geo, PF_SAMPLE_UNIFORM, 199, 7, PF_SAMPLE_NORMALS, &ps);
    else if (k->kind != PF_CON_POINTS)
        st = pf_sample_boundary(geo, k->parts, 199, 7, PF_SAMPLE_NORMALS, &ps);
    cr_assert_eq(st, PF_OK, "%s/%s: %s", p->name, k->name, pf_errmsg());
    int n = k->kind == PF_CON_POINTS ? k->npoints : ps.n;
    pf_real *x = malloc(sizeof(pf_real) * (size_t)(n * p->d_in));
    pf_real *nrm = ps.normal ? ps.normal : calloc((size_t)(n * p->d_in), sizeof(pf_real));
    for (int i = 0; i < n * p->d_in; i++)
        x[i] = k->kind == PF_CON_POINTS ? (pf_real)k->points[i] : ps.x[i];

    pf_graph *g = pf_graph_alloc(pf_backend_cpu());
    pf_pde_ctx c;
    memset(&c, 0, sizeof c);
    c.pde = p;
    c.g = g;
    int orders[PF_PDE_MAX_IN];
    for (int i = 0; i < p->d_in; i++) orders[i] = k->order;
    pf_jet_layout L;
    pf_real dirs[PF_JET_MAX_DIRS * PF_PDE_MAX_IN] = {0};
    pf_pde_layout(p, orders, false, &L, dirs, &c);
    c.x = pf_input(g, "x", n, p->d_in, &L, dirs);
    c.normal = pf_input(g, "normal", n, p->d_in, NULL, NULL);
    c.u = hard ? hard->apply(&c, some_field(&c)) : p->exact_fields(&c);
    pf_loss(g, "con", pf_mean_square(g, k->residual(&c), NULL));
    pf_loss(g, "u", pf_mean_square(g, pf_deriv(g, c.u, 0, 0), NULL));
    for (int d = 0; d < L.ndir; d++) pf_loss(g, "du", pf_mean_square(g, pf_deriv(g, c.u, d, 1), NULL));
    cr_assert_eq(pf_graph_compile(g, 1), PF_OK, "%s", pf_errmsg());
    pf_graph_set_input(g, c.x, x);
    pf_graph_set_input(g, c.normal, nrm); /* fixed points have none: zeros */
    pf_graph_forward(g);
    double big = solution_scale(p);
    for (int t = 1; t < pf_graph_nloss(g); t++) big = fmax(big, sqrt(pf_graph_loss_value(g, t)));
    double ratio = sqrt(pf_graph_loss_value(g, 0)) / big;
    pf_graph_free(g);
    if (nrm != ps.normal) free(nrm);
    free(x);
    pf_point_set_release(&ps);
    return ratio;
}

Test(pdes, exact_solutions_satisfy_the_constraints)
{
    int checked = 0;
    for (int i = 0; i < pf_pdes_count(); i++) {
        const pf_pde *p = pf_pdes_at(i);
        if (p->ref != PF_REF_ANALYTIC) continue;
        pf_geom *geo;
        cr_assert_eq(p->geometry(p, &geo), PF_OK, "%s: %s", p->name, pf_errmsg());
        for (int k = 0; k < p->ncon; k++, checked++) {
            double r = constraint_ratio(p, geo, &p->con[k], NULL);
            cr_expect_lt(r, 1e-4, "%s: constraint %s is %.2e of the solution's size", p->name,
                         p->con[k].name, r);
        }
        pf_geom_free(geo);
    }
    cr_expect_geq(checked, 8, "only %d constraints checked", checked);
}

/* Whether `name` is in the comma-separated `list`. */
static bool listed(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *q = list; (q = strstr(q, name)); q += n)
        if ((q == list || q[-1] == ',') && (q[n] == ',' || q[n] == 0)) return true;
    return false;
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
                if (!listed(p->hard[h].satisfies, p->con[k].name)) continue;
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
    }
    const pf_pde *p;
    cr_expect_eq(pf_pdes_lookup("poisson_6d", &p), PF_ERR_USAGE);
    cr_expect(strstr(pf_errmsg(), "poisson_5d") != NULL, "the message lists the valid names: %s",
              pf_errmsg());
}
