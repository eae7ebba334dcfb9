/* exact_check.c — the exact solution put in place of the network (exact_check.h). */
#include "geom/exact_check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "geom/geometry.h"
#include "geom/sample.h"
#include "tensor/backend.h"

#define SEED_INTERIOR 0x65786163u /* "exac" */

/* "x = 0.25, t = 0.5" */
static const char *point_str(const pf_pde *p, const double *x, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = 0;
    for (int i = 0; i < p->d_in && n < cap; i++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%s = %.6g", i ? ", " : "", p->inputs[i], x[i]);
    return buf;
}

static void to_double(const pf_pde *p, const pf_real *x, int i, double *xd)
{
    for (int j = 0; j < p->d_in; j++) xd[j] = (double)x[(size_t)i * (size_t)p->d_in + (size_t)j];
}

/* u* (in double) at the n points x: finite everywhere, else the first
 * output and point where it is not, in out. *ms (when not NULL) += the
 * sum of squares of u* over the points and outputs. */
static bool finite_at(const pf_pde *p, const pf_real *x, int n, pf_exact_check *out, double *ms)
{
    for (int i = 0; i < n; i++) {
        double xd[PF_PDE_MAX_IN], u[PF_PDE_MAX_OUT];
        to_double(p, x, i, xd);
        p->exact(p, xd, u);
        for (int k = 0; k < p->d_out; k++) {
            if (!isfinite(u[k])) {
                out->bad_output = k;
                memcpy(out->bad_x, xd, sizeof xd);
                return false;
            }
            if (ms) *ms += u[k] * u[k];
        }
    }
    return true;
}

static pf_status not_finite(const pf_pde *p, const pf_exact_check *out)
{
    char pt[512], value[32];
    double u[PF_PDE_MAX_OUT];
    p->exact(p, out->bad_x, u);
    if (isnan(u[out->bad_output]))
        snprintf(value, sizeof value, "NaN");
    else
        snprintf(value, sizeof value, "%g", u[out->bad_output]);
    return pf_fail(PF_ERR_INVALID, "%s: the exact solution's %s is not finite (%s) at %s", p->name,
                   p->outputs[out->bad_output], value, point_str(p, out->bad_x, pt, sizeof pt));
}

/* The nodes one graph evaluates: a residual, its terms' magnitude (or
 * NULL), and the streams of u* that measure the scale. */
enum { MAX_NODES = 2 + 1 + PF_PDE_MAX_IN * PF_JET_MAX_ORDER + 4 };
typedef struct probe {
    pf_node *r, *terms;
    int nscale;
    pf_node *scale[MAX_NODES];
} probe;

/* u* and each derivative stream of its layout */
static void scale_nodes(pf_graph *g, pf_node *u, probe *pr)
{
    const pf_jet_layout *L = pf_node_layout(u);
    pr->scale[pr->nscale++] = pf_deriv(g, u, 0, 0);
    for (int d = 0; d < L->ndir; d++)
        for (int k = 1; k <= L->order[d] && pr->nscale < MAX_NODES; k++) pr->scale[pr->nscale++] = pf_deriv(g, u, d, k);
    for (int cc = 0; cc < L->ncoll && pr->nscale < MAX_NODES; cc++)
        pr->scale[pr->nscale++] = pf_deriv_collapsed(g, u, cc);
}

static void keep(pf_graph *g, pf_node *x)
{
    if (x) pf_loss(g, "probe", pf_mean_square(g, x, NULL)); /* evaluated and readable */
}

/* The RMS of a node's values (stream 0: its value), in double. */
static double rms(const pf_graph *g, const pf_node *x, pf_real *buf)
{
    size_t len = (size_t)pf_node_n(x) * (size_t)pf_node_c(x);
    pf_graph_read(g, x, buf);
    double s = 0;
    for (size_t i = 0; i < len; i++) s += (double)buf[i] * (double)buf[i];
    return len ? sqrt(s / (double)len) : 0;
}

/* The item of one residual after forward: RMS, scale (at least `floor`),
 * ratio and worst point. */
static void measure(const pf_pde *p, const pf_graph *g, const probe *pr, const pf_real *x, double floor, pf_real *buf,
                    pf_exact_check_item *it)
{
    int n = pf_node_n(pr->r);
    pf_graph_read(g, pr->r, buf);
    double s = 0, worst = -1;
    for (int i = 0; i < n; i++) {
        double r = (double)buf[i];
        s += r * r;
        if (!(fabs(r) <= worst)) { /* NaN is the worst of all */
            worst = isnan(r) ? INFINITY : fabs(r);
            it->worst = r;
            to_double(p, x, i, it->x);
        }
    }
    it->checked = true;
    it->n = n;
    it->rms = n ? sqrt(s / n) : 0;
    double scale = floor;
    if (pr->terms) scale = fmax(scale, rms(g, pr->terms, buf));
    for (int j = 0; j < pr->nscale; j++) scale = fmax(scale, rms(g, pr->scale[j], buf));
    it->scale = scale;
    it->ratio = it->rms == 0 ? 0 : scale > 0 ? it->rms / scale : INFINITY;
    if (isnan(it->ratio)) it->ratio = INFINITY;
}

/* What pf_graph_read writes for x ([S][n][c]), in reals. */
static size_t node_len(const pf_node *x)
{
    return x ? (size_t)pf_node_nstreams(x) * (size_t)pf_node_n(x) * (size_t)pf_node_c(x) : 0;
}

/* The reals a buffer needs for every node of the probes (and n for the
 * auxiliary fields). */
static size_t buf_len(const probe *pr, int nprobe, int n)
{
    size_t len = (size_t)n;
    for (int q = 0; q < nprobe; q++) {
        len = len > node_len(pr[q].r) ? len : node_len(pr[q].r);
        len = len > node_len(pr[q].terms) ? len : node_len(pr[q].terms);
        for (int j = 0; j < pr[q].nscale; j++) len = len > node_len(pr[q].scale[j]) ? len : node_len(pr[q].scale[j]);
    }
    return len;
}

/* Every equation on the interior points x (n). */
static pf_status equations(const pf_pde *p, const pf_exact_check_opts *o, int n, const pf_real *x, double floor,
                           pf_exact_check *out)
{
    pf_graph *g = pf_graph_alloc(pf_backend_cpu());
    if (!g) return pf_fail(PF_ERR_NOMEM, "out of memory for a graph");
    pf_graph_set_chunk_bytes(g, 0);
    pf_pde_ctx c;
    pf_pde_ctx_init(&c, p, g, p->orders, o->collapse_lap, n);
    pf_pde_ctx_add_aux(&c, n);
    c.u = p->exact_fields(&c);
    probe pr[PF_PDE_MAX_EQ] = {{0}};
    for (int e = 0; e < p->neq; e++) {
        pr[e].r = p->residual(&c, e);
        pr[e].terms = o->equation_terms ? o->equation_terms(&c, e) : NULL;
        keep(g, pr[e].r), keep(g, pr[e].terms);
    }
    scale_nodes(g, c.u, &pr[0]);
    for (int j = 0; j < pr[0].nscale; j++) keep(g, pr[0].scale[j]);
    for (int e = 1; e < p->neq; e++) {
        pr[e].nscale = pr[0].nscale;
        memcpy(pr[e].scale, pr[0].scale, sizeof pr[0].scale);
    }
    pf_real *buf = malloc(sizeof *buf * buf_len(pr, p->neq, n));
    pf_status st = buf ? pf_graph_compile(g, 1) : pf_fail(PF_ERR_NOMEM, "out of memory for %d points", n);
    if (st == PF_OK) {
        pf_graph_set_input(g, c.x, x);
        st = pf_pde_ctx_set_aux(&c, x, n, buf);
    }
    if (st == PF_OK) {
        pf_graph_forward(g);
        for (int e = 0; e < p->neq; e++) measure(p, g, &pr[e], x, floor, buf, &out->eq[e]);
    }
    free(buf);
    pf_graph_free(g);
    return st;
}

/* Constraint k on n points x (normals nrm, or NULL). */
static pf_status constraint(const pf_pde *p, const pf_exact_check_opts *o, int k, int n, const pf_real *x,
                            const pf_real *nrm, double floor, pf_exact_check *out)
{
    const pf_constraint *con = &p->con[k];
    pf_graph *g = pf_graph_alloc(pf_backend_cpu());
    if (!g) return pf_fail(PF_ERR_NOMEM, "out of memory for a graph");
    pf_graph_set_chunk_bytes(g, 0);
    int orders[PF_PDE_MAX_IN];
    for (int i = 0; i < p->d_in; i++) orders[i] = con->order;
    pf_pde_ctx c, ci;
    pf_pde_ctx_init(&c, p, g, orders, false, n);
    c.normal = pf_input(g, "normal", n, p->d_in, NULL, NULL);
    pf_pde_ctx_add_aux(&c, n);
    pf_real *xi = NULL, *zeros = NULL;
    pf_status st = PF_OK;
    if (con->kind == PF_CON_PERIODIC) {
        if (!(xi = pf_pde_periodic_images(p, con, n, x))) st = PF_ERR_NOMEM;
        pf_pde_ctx_init(&ci, p, g, orders, false, n); /* the image points */
        c.u_pair = p->exact_fields(&ci);
    }
    c.u = p->exact_fields(&c);
    probe pr = {0};
    pr.r = con->residual(&c);
    pr.terms = o->constraint_terms ? o->constraint_terms(&c, k) : NULL;
    keep(g, pr.r), keep(g, pr.terms);
    scale_nodes(g, c.u, &pr);
    for (int j = 0; j < pr.nscale; j++) keep(g, pr.scale[j]);
    pf_real *buf = malloc(sizeof *buf * buf_len(&pr, 1, n));
    if (!nrm) nrm = zeros = calloc((size_t)n * (size_t)p->d_in + 1, sizeof *zeros); /* fixed points have none */
    if (st == PF_OK && (!buf || !nrm)) st = pf_fail(PF_ERR_NOMEM, "out of memory for %d points", n);
    if (st == PF_OK) st = pf_graph_compile(g, 1);
    if (st == PF_OK) {
        pf_graph_set_input(g, c.x, x);
        pf_graph_set_input(g, c.normal, nrm);
        if (xi) pf_graph_set_input(g, ci.x, xi);
        st = pf_pde_ctx_set_aux(&c, x, n, buf);
    }
    if (st == PF_OK) {
        pf_graph_forward(g);
        measure(p, g, &pr, x, floor, buf, &out->con[k]);
    }
    free(buf);
    free(zeros);
    free(xi);
    pf_graph_free(g);
    return st;
}

static pf_status failed(const pf_pde *p, const pf_exact_check_item *it, const char *what, const char *where)
{
    char pt[512];
    return pf_fail(PF_ERR_INVALID,
                   "%s: the exact solution does not satisfy %s: its residual is %.3g of the terms' scale %.3g "
                   "(RMS over %d %s; at most %g), the worst %.4g at %s",
                   p->name, what, it->ratio, it->scale, it->n, where, PF_EXACT_CHECK_TOL, it->worst,
                   point_str(p, it->x, pt, sizeof pt));
}

pf_status pf_pde_exact_check(const pf_pde *p, const pf_exact_check_opts *opts, pf_exact_check *out)
{
    memset(out, 0, sizeof *out);
    out->failed_eq = out->failed_con = out->bad_output = -1;
    if (p->ref != PF_REF_ANALYTIC || !p->exact || !p->exact_fields)
        return pf_fail(PF_ERR_USAGE, "%s: no exact solution to check", p->name);
    pf_exact_check_opts o = opts ? *opts : (pf_exact_check_opts){0};
    int ni = o.n_interior > 0 ? o.n_interior : PF_EXACT_CHECK_POINTS;
    int nc = o.n_constraint > 0 ? o.n_constraint : PF_EXACT_CHECK_CON_POINTS;
    pf_geom *geo = NULL;
    PF_TRY(p->geometry(p, &geo));
    pf_point_set in;
    pf_point_set_init(&in);
    pf_status st = pf_sample_interior(geo, PF_SAMPLE_UNIFORM, ni, o.seed ^ SEED_INTERIOR, &in);
    double ms = 0, floor = 0;
    if (st == PF_OK && !finite_at(p, in.x, in.n, out, &ms)) st = not_finite(p, out);
    if (st == PF_OK) floor = in.n ? sqrt(ms / ((double)in.n * p->d_out)) : 0; /* the solution's size */
    if (st == PF_OK) st = equations(p, &o, in.n, in.x, floor, out);
    for (int k = 0; st == PF_OK && k < p->ncon; k++) {
        const pf_constraint *con = &p->con[k];
        if (con->kind == PF_CON_POINTS && con->observe) continue; /* data, maybe noisy */
        pf_point_set ps;
        pf_real *v = NULL;
        pf_point_set_init(&ps);
        st = pf_pde_constraint_points(p, geo, con, PF_SAMPLE_UNIFORM, nc, o.seed + 1 + (uint64_t)k, &ps, &v);
        free(v);
        if (st == PF_OK && ps.n > 0 && !finite_at(p, ps.x, ps.n, out, NULL)) st = not_finite(p, out);
        if (st == PF_OK && con->kind == PF_CON_PERIODIC && ps.n > 0) {
            pf_real *xi = pf_pde_periodic_images(p, con, ps.n, ps.x);
            if (!xi)
                st = PF_ERR_NOMEM;
            else if (!finite_at(p, xi, ps.n, out, NULL))
                st = not_finite(p, out);
            free(xi);
        }
        if (st == PF_OK && ps.n > 0) st = constraint(p, &o, k, ps.n, ps.x, ps.normal, floor, out);
        pf_point_set_release(&ps);
    }
    pf_point_set_release(&in);
    pf_geom_free(geo);
    PF_TRY(st);
    for (int e = 0; e < p->neq; e++) out->worst_ratio = fmax(out->worst_ratio, out->eq[e].ratio);
    for (int k = 0; k < p->ncon; k++) out->worst_ratio = fmax(out->worst_ratio, out->con[k].ratio);
    for (int e = 0; e < p->neq; e++)
        if (!(out->eq[e].ratio <= PF_EXACT_CHECK_TOL)) {
            out->failed_eq = e;
            char what[32];
            snprintf(what, sizeof what, "equation %d", e + 1);
            return failed(p, &out->eq[e], what, "interior points");
        }
    for (int k = 0; k < p->ncon; k++)
        if (out->con[k].checked && !(out->con[k].ratio <= PF_EXACT_CHECK_TOL)) {
            out->failed_con = k;
            char what[128];
            snprintf(what, sizeof what, "constraint %s", p->con[k].name);
            return failed(p, &out->con[k], what, "of its points");
        }
    return PF_OK;
}
