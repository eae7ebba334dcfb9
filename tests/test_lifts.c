/*
 * test_lifts.c — lifts built from boundary data only (src/geom/lift.h).
 *
 * The transfinite lift of a box's face data is checked on two made-up
 * problems: a 3-D box [-1,2] x [0.5,1.5] x [0,3] with data on all six faces,
 * and x in [-1,1] times t in [0,2] with data on both walls and the initial
 * slice. The data are jet expressions of the coordinates the operator hands
 * the callback; reference values and derivatives are closed forms in double.
 * What is checked: the lift reproduces the data (and their derivatives along
 * the face) on every face with data; it is exact for multilinear functions
 * and sums of one-variable functions (poisson_5d's structure), and for
 * a(x) + b(t) + c(t) x across a one-sided time axis; it cannot see a field
 * that vanishes on the faces; and the callback is asked only at points with
 * a coordinate on a face, in a context that has no points.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>

#include "core/rng.h"
#include "geom/lift.h"

static const double PI = 3.14159265358979323846;

/* ----------------------------------------------------------- the problems */

static const pf_pde box3 = {
    .name = "box3", .d_in = 3, .d_out = 1,
    .inputs = {"x", "y", "z"}, .outputs = {"u"}, .time_input = -1,
    .lo = {-1, 0.5, 0}, .hi = {2, 1.5, 3},
};

static const pf_pde wall_time = {
    .name = "wall_time", .d_in = 2, .d_out = 1,
    .inputs = {"x", "t"}, .outputs = {"u"}, .time_input = 1,
    .lo = {-1, 0}, .hi = {1, 2},
};

static const pf_lift_faces all_faces[3] = {PF_LIFT_BOTH, PF_LIFT_BOTH, PF_LIFT_BOTH};
static const pf_lift_faces walls_and_initial[2] = {PF_LIFT_BOTH, PF_LIFT_LO};

/* A test function: its jet expression (from the coordinates the lift hands
 * over) and, in double, its value and first and second derivatives. */
typedef struct fn {
    const char *name;
    pf_node *(*jet)(pf_graph *g, pf_node *const *x);
    void (*at)(const double *x, double *v, double *d1, double *d2);
} fn;

static pf_node *S(pf_graph *g, pf_node *a) { return pf_unary(g, PF_UNARY_SIN, a, 0); }
static pf_node *K(pf_graph *g, pf_node *a, double s) { return pf_scale(g, a, (pf_real)s); }

/* sin(x + 2y) e^{0.3 z} + x^2 y: neither multilinear nor a sum */
static pf_node *smooth_jet(pf_graph *g, pf_node *const *x)
{
    pf_node *a = S(g, pf_add(g, x[0], K(g, x[1], 2)));
    pf_node *b = pf_unary(g, PF_UNARY_EXP, K(g, x[2], 0.3), 0);
    return pf_add(g, pf_mul(g, a, b), pf_mul(g, pf_unary(g, PF_UNARY_SQUARE, x[0], 0), x[1]));
}
static void smooth_at(const double *x, double *v, double *d1, double *d2)
{
    double s = sin(x[0] + 2 * x[1]), c = cos(x[0] + 2 * x[1]), e = exp(0.3 * x[2]);
    *v = s * e + x[0] * x[0] * x[1];
    d1[0] = c * e + 2 * x[0] * x[1], d1[1] = 2 * c * e + x[0] * x[0], d1[2] = 0.3 * s * e;
    d2[0] = -s * e + 2 * x[1], d2[1] = -4 * s * e, d2[2] = 0.09 * s * e;
}

/* 1 + 2x - y + 0.5z + 3xy - yz + 0.7xz - 1.3xyz: multilinear */
static pf_node *multilinear_jet(pf_graph *g, pf_node *const *x)
{
    pf_node *xy = pf_mul(g, x[0], x[1]), *yz = pf_mul(g, x[1], x[2]), *xz = pf_mul(g, x[0], x[2]);
    pf_node *r = pf_add(g, K(g, x[0], 2), K(g, x[1], -1));
    r = pf_add(g, r, K(g, x[2], 0.5));
    r = pf_add(g, r, pf_add(g, K(g, xy, 3), K(g, yz, -1)));
    r = pf_add(g, r, pf_add(g, K(g, xz, 0.7), K(g, pf_mul(g, xy, x[2]), -1.3)));
    return pf_add_const(g, r, 1);
}
static void multilinear_at(const double *x, double *v, double *d1, double *d2)
{
    double X = x[0], Y = x[1], Z = x[2];
    *v = 1 + 2 * X - Y + 0.5 * Z + 3 * X * Y - Y * Z + 0.7 * X * Z - 1.3 * X * Y * Z;
    d1[0] = 2 + 3 * Y + 0.7 * Z - 1.3 * Y * Z;
    d1[1] = -1 + 3 * X - Z - 1.3 * X * Z;
    d1[2] = 0.5 - Y + 0.7 * X - 1.3 * X * Y;
    d2[0] = d2[1] = d2[2] = 0;
}

/* sin(x) + y^3 + e^z: a sum of one-variable functions, like poisson_5d's u* */
static pf_node *separable_jet(pf_graph *g, pf_node *const *x)
{
    pf_node *r = pf_add(g, S(g, x[0]), pf_unary(g, PF_UNARY_POW, x[1], 3));
    return pf_add(g, r, pf_unary(g, PF_UNARY_EXP, x[2], 0));
}
static void separable_at(const double *x, double *v, double *d1, double *d2)
{
    *v = sin(x[0]) + x[1] * x[1] * x[1] + exp(x[2]);
    d1[0] = cos(x[0]), d1[1] = 3 * x[1] * x[1], d1[2] = exp(x[2]);
    d2[0] = -sin(x[0]), d2[1] = 6 * x[1], d2[2] = exp(x[2]);
}

/* on [-1,1] x [0,2]: cos(2x) e^{-t} + x^3 (a wave-like field, not exact) */
static pf_node *xt_smooth_jet(pf_graph *g, pf_node *const *x)
{
    pf_node *a = pf_mul(g, pf_unary(g, PF_UNARY_COS, K(g, x[0], 2), 0), pf_unary(g, PF_UNARY_EXP, K(g, x[1], -1), 0));
    return pf_add(g, a, pf_unary(g, PF_UNARY_POW, x[0], 3));
}
static void xt_smooth_at(const double *x, double *v, double *d1, double *d2)
{
    double c = cos(2 * x[0]), s = sin(2 * x[0]), e = exp(-x[1]);
    *v = c * e + x[0] * x[0] * x[0];
    d1[0] = -2 * s * e + 3 * x[0] * x[0], d1[1] = -c * e;
    d2[0] = -4 * c * e + 6 * x[0], d2[1] = c * e;
}

/* sin(3x) + t^2 + x cos(t): a(x) + b(t) + c(t) x, exact across a one-sided t */
static pf_node *xt_exact_jet(pf_graph *g, pf_node *const *x)
{
    pf_node *r = pf_add(g, S(g, K(g, x[0], 3)), pf_unary(g, PF_UNARY_SQUARE, x[1], 0));
    return pf_add(g, r, pf_mul(g, x[0], pf_unary(g, PF_UNARY_COS, x[1], 0)));
}
static void xt_exact_at(const double *x, double *v, double *d1, double *d2)
{
    *v = sin(3 * x[0]) + x[1] * x[1] + x[0] * cos(x[1]);
    d1[0] = 3 * cos(3 * x[0]) + cos(x[1]), d1[1] = 2 * x[1] - x[0] * sin(x[1]);
    d2[0] = -9 * sin(3 * x[0]), d2[1] = 2 - x[0] * cos(x[1]);
}

/* prod_i sin(pi (x_i - lo_i)/(hi_i - lo_i)) on box3: zero on every face */
static pf_node *bump_jet(pf_graph *g, pf_node *const *x)
{
    pf_node *r = NULL;
    for (int i = 0; i < 3; i++) {
        double h = box3.hi[i] - box3.lo[i];
        pf_real sc = (pf_real)(PI / h), sh = (pf_real)(-PI * box3.lo[i] / h);
        pf_node *s = S(g, pf_affine(g, x[i], &sc, &sh));
        r = r ? pf_mul(g, r, s) : s;
    }
    return r;
}
static void bump_at(const double *x, double *v, double *d1, double *d2)
{
    *v = 1;
    for (int i = 0; i < 3; i++) *v *= sin(PI * (x[i] - box3.lo[i]) / (box3.hi[i] - box3.lo[i]));
    d1[0] = d1[1] = d1[2] = d2[0] = d2[1] = d2[2] = 0; /* not compared */
}

/* --------------------------------------------------------------- the lift */

/* What the callback saw. */
typedef struct seen {
    const fn *f;
    int calls, bad_side, bad_stream, ctx_with_points;
    unsigned patterns[64]; /* which side patterns were asked for, once each */
} seen;

static pf_node *data(pf_pde_ctx *face, int k, pf_node *const *x, const pf_lift_side *side, void *user)
{
    seen *s = user;
    (void)k;
    int moved = 0;
    unsigned code = 0;
    for (int i = 0; i < face->pde->d_in; i++) {
        moved += side[i] != PF_LIFT_FREE;
        code = code * 3 + (unsigned)side[i];
        /* a moved coordinate is a value-only constant, a free one a jet */
        if ((side[i] != PF_LIFT_FREE) != (pf_node_nstreams(x[i]) == 1)) s->bad_stream++;
    }
    s->bad_side += !moved;
    s->ctx_with_points += face->x != NULL || face->u != NULL;
    if (code < 64) s->patterns[code]++;
    s->calls++;
    return s->f->jet(face->g, x);
}

/* Evaluates the lift of f over `faces` of p at the n points xs (n x d_in):
 * v[i] values, d1[i*d+j], d2[i*d+j] first and second derivatives along x_j. */
static void lift_at(const pf_pde *p, const pf_lift_faces *faces, const fn *f, int n, const double *xs,
                    double *v, double *d1, double *d2, seen *s)
{
    pf_graph *g = pf_graph_alloc(pf_backend_cpu());
    int orders[PF_PDE_MAX_IN] = {2, 2, 2};
    pf_pde_ctx c;
    pf_pde_ctx_init(&c, p, g, orders, false, n);
    s->f = f;
    pf_node *L = pf_pde_lift(&c, 0, faces, data, s);
    cr_assert_eq(pf_node_nstreams(L), pf_node_nstreams(c.x), "the lift has the points' layout");
    pf_node *dv[1 + 2 * PF_PDE_MAX_IN];
    dv[0] = pf_deriv(g, L, 0, 0);
    for (int j = 0; j < p->d_in; j++)
        for (int m = 1; m <= 2; m++) dv[1 + 2 * j + m - 1] = pf_deriv(g, L, c.dir[j], m);
    cr_assert_eq(pf_graph_compile(g, 1), PF_OK, "%s", pf_errmsg());
    pf_real *x = malloc(sizeof(pf_real) * (size_t)(n * p->d_in)), *out = malloc(sizeof(pf_real) * (size_t)n);
    for (int i = 0; i < n * p->d_in; i++) x[i] = (pf_real)xs[i];
    pf_graph_set_input(g, c.x, x);
    pf_graph_forward(g);
    for (int q = 0; q < 1 + 2 * p->d_in; q++) {
        pf_graph_read(g, dv[q], out);
        for (int i = 0; i < n; i++) {
            if (q == 0) v[i] = out[i];
            else if ((q - 1) % 2 == 0) d1[i * p->d_in + (q - 1) / 2] = out[i];
            else d2[i * p->d_in + (q - 1) / 2] = out[i];
        }
    }
    free(x), free(out);
    pf_graph_free(g);
}

enum { N = 64 };

/* n random points of p's box; with face >= 0, on that face (axis face / 2,
 * lo side when even). */
static void points(const pf_pde *p, int face, uint64_t seed, double *xs)
{
    pf_rng *r = pf_rng_alloc(seed);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < p->d_in; j++) {
            double lo = p->lo[j], hi = p->hi[j];
            xs[i * p->d_in + j] = face >= 0 && face / 2 == j ? (face % 2 ? hi : lo) : pf_rng_uniform_in(r, lo, hi);
        }
    pf_rng_free(r);
}

/* Largest error of the lift against f's values (and, with derivs, its
 * first and second derivatives, except across `face`), relative to 1 + |f|,
 * at N points of p's box (on `face`, or inside for face -1). */
static double worst_error(const pf_pde *p, const pf_lift_faces *faces, const fn *f, int face, bool derivs,
                          seen *s)
{
    double xs[N * PF_PDE_MAX_IN], v[N], d1[N * PF_PDE_MAX_IN], d2[N * PF_PDE_MAX_IN];
    points(p, face, 11 + (uint64_t)face, xs);
    lift_at(p, faces, f, N, xs, v, d1, d2, s);
    double worst = 0;
    for (int i = 0; i < N; i++) {
        double fv, f1[PF_PDE_MAX_IN], f2[PF_PDE_MAX_IN];
        f->at(xs + i * p->d_in, &fv, f1, f2);
        worst = fmax(worst, fabs(v[i] - fv) / (1 + fabs(fv)));
        for (int j = 0; derivs && j < p->d_in; j++) {
            if (face >= 0 && face / 2 == j) continue; /* across the face the lift need not follow f */
            worst = fmax(worst, fabs(d1[i * p->d_in + j] - f1[j]) / (1 + fabs(f1[j])));
            worst = fmax(worst, fabs(d2[i * p->d_in + j] - f2[j]) / (1 + fabs(f2[j])));
        }
    }
    return worst;
}

static const fn smooth = {"sin(x+2y) e^0.3z + x^2 y", smooth_jet, smooth_at};
static const fn multilinear = {"a multilinear polynomial", multilinear_jet, multilinear_at};
static const fn separable = {"sin x + y^3 + e^z", separable_jet, separable_at};
static const fn xt_smooth = {"cos(2x) e^-t + x^3", xt_smooth_jet, xt_smooth_at};
static const fn xt_exact = {"sin 3x + t^2 + x cos t", xt_exact_jet, xt_exact_at};
static const fn bump = {"a bump that vanishes on the faces", bump_jet, bump_at};

/* float: a few ulps of sums of O(1) terms */
#define TOL 2e-5

Test(lifts, reproduce_the_data_on_every_face)
{
    for (int face = 0; face < 6; face++) {
        seen s = {0};
        double e = worst_error(&box3, all_faces, &smooth, face, true, &s);
        cr_expect_lt(e, TOL, "box3 face %d (%s_%s): the lift of %s is off by %.2e (value and derivatives "
                     "along the face)", face, box3.inputs[face / 2], face % 2 ? "hi" : "lo", smooth.name, e);
    }
    for (int face = 0; face < 3; face++) { /* x_lo, x_hi, the initial slice (t_lo) */
        seen s = {0};
        double e = worst_error(&wall_time, walls_and_initial, &xt_smooth, face, true, &s);
        cr_expect_lt(e, TOL, "wall_time face %d: the lift of %s is off by %.2e", face, xt_smooth.name, e);
    }
}

Test(lifts, are_exact_for_multilinear_functions_and_sums_of_one_variable_functions)
{
    const fn *exact[2] = {&multilinear, &separable};
    for (int k = 0; k < 2; k++) {
        seen s = {0};
        double e = worst_error(&box3, all_faces, exact[k], -1, true, &s);
        cr_expect_lt(e, TOL, "inside box3 the lift of %s is off by %.2e (values, first and second "
                     "derivatives)", exact[k]->name, e);
    }
    seen s = {0};
    double e = worst_error(&wall_time, walls_and_initial, &xt_exact, -1, true, &s);
    cr_expect_lt(e, TOL, "inside wall_time the lift of %s is off by %.2e", xt_exact.name, e);
    /* and a general field is not reproduced inside: the exactness above is
     * the functions' structure */
    e = worst_error(&box3, all_faces, &smooth, -1, false, &s);
    cr_expect_gt(e, 1e-2, "the lift of %s matches it inside to %.2e", smooth.name, e);
    e = worst_error(&wall_time, walls_and_initial, &xt_smooth, -1, false, &s);
    cr_expect_gt(e, 1e-2, "the lift of %s matches it inside to %.2e", xt_smooth.name, e);
}

Test(lifts, cannot_see_a_field_that_vanishes_on_the_faces)
{
    double xs[N * 3], v[N], d1[N * 3], d2[N * 3];
    seen s = {0};
    points(&box3, -1, 5, xs);
    lift_at(&box3, all_faces, &bump, N, xs, v, d1, d2, &s);
    double big = 0, worst = 0;
    for (int i = 0; i < N; i++) {
        double f, f1[3], f2[3];
        bump_at(xs + 3 * i, &f, f1, f2);
        big = fmax(big, fabs(f));
        worst = fmax(worst, fabs(v[i]));
    }
    cr_expect_gt(big, 0.5, "the bump is large inside (%.3f)", big);
    cr_expect_lt(worst, 1e-5, "its lift is %.2e, not 0: the lift saw the interior", worst);
}

Test(lifts, ask_for_data_only_on_faces_and_once_per_projection)
{
    double xs[N * 3], v[N], d1[N * 3], d2[N * 3];
    seen s = {0};
    points(&box3, -1, 7, xs);
    lift_at(&box3, all_faces, &smooth, N, xs, v, d1, d2, &s);
    cr_expect_eq(s.calls, 26, "3^3 - 1 projections, asked %d times", s.calls);
    cr_expect_eq(s.bad_side, 0, "%d calls with no coordinate on a face", s.bad_side);
    cr_expect_eq(s.bad_stream, 0, "%d coordinates with the wrong kind of node", s.bad_stream);
    cr_expect_eq(s.ctx_with_points, 0, "%d calls got a context with points", s.ctx_with_points);
    for (unsigned code = 1; code < 27; code++)
        cr_expect_eq(s.patterns[code], 1, "projection %u asked %u times", code, s.patterns[code]);
    cr_expect_eq(s.patterns[0], 0, "the point itself was asked for");

    seen t = {0}; /* one-sided time: 3 * 2 - 1 projections */
    double xt[N * 2], vt[N], e1[N * 2], e2[N * 2];
    points(&wall_time, -1, 8, xt);
    lift_at(&wall_time, walls_and_initial, &xt_smooth, N, xt, vt, e1, e2, &t);
    cr_expect_eq(t.calls, 5, "walls and the initial slice: 5 projections, asked %d times", t.calls);
    for (unsigned sx = 0; sx < 3; sx++)
        cr_expect_eq(t.patterns[sx * 3 + PF_LIFT_AT_HI], 0, "a projection onto the final slice (t = hi)");
}

/* The moved coordinates are the face constants (read back after forward). */
static pf_node *moved[64];
static int nmoved;
static pf_node *record(pf_pde_ctx *face, int k, pf_node *const *x, const pf_lift_side *side, void *user)
{
    (void)k, (void)user;
    for (int i = 0; i < face->pde->d_in; i++)
        if (side[i] != PF_LIFT_FREE && nmoved < 64) moved[nmoved++] = x[i];
    return NULL; /* zero data */
}

Test(lifts, moved_coordinates_are_the_face_constants_and_zero_data_lift_to_zero)
{
    enum { n = 5 };
    pf_graph *g = pf_graph_alloc(pf_backend_cpu());
    int orders[3] = {2, 2, 2};
    pf_pde_ctx c;
    pf_pde_ctx_init(&c, &box3, g, orders, false, n);
    nmoved = 0;
    pf_node *L = pf_pde_lift(&c, 0, all_faces, record, NULL);
    cr_assert_eq(pf_node_nstreams(L), pf_node_nstreams(c.x), "a zero lift still has the points' layout");
    cr_assert_eq(pf_graph_compile(g, 1), PF_OK, "%s", pf_errmsg());
    pf_real x[n * 3];
    for (int i = 0; i < n * 3; i++) x[i] = (pf_real)(0.1 * i);
    pf_graph_set_input(g, c.x, x);
    pf_graph_forward(g);
    pf_real out[7 * n];
    pf_graph_read(g, L, out);
    for (int i = 0; i < 7 * n; i++) cr_expect_eq(out[i], 0, "zero data, lift stream entry %d is %g", i, out[i]);
    int lo = 0, hi = 0;
    for (int q = 0; q < nmoved; q++) {
        pf_real v[n];
        pf_graph_read(g, moved[q], v);
        for (int i = 0; i < n; i++) {
            int on = 0;
            for (int j = 0; j < 3; j++) {
                lo += v[i] == (pf_real)box3.lo[j];
                hi += v[i] == (pf_real)box3.hi[j];
                on |= v[i] == (pf_real)box3.lo[j] || v[i] == (pf_real)box3.hi[j];
            }
            cr_expect(on, "a moved coordinate is %g, no face constant", v[i]);
        }
    }
    cr_expect_gt(lo, 0, "lo faces seen");
    cr_expect_gt(hi, 0, "hi faces seen");
    pf_graph_free(g);
}

/* A callback that reads the points: the context it gets has none. */
static pf_node *peek(pf_pde_ctx *face, int k, pf_node *const *x, const pf_lift_side *side, void *user)
{
    (void)k, (void)x, (void)side, (void)user;
    return pf_pde_xj(face, 0);
}

Test(lifts, data_callbacks_cannot_read_the_points, .signal = SIGABRT)
{
    pf_graph *g = pf_graph_alloc(pf_backend_cpu());
    pf_pde_ctx c;
    pf_pde_ctx_init(&c, &box3, g, NULL, false, 3);
    pf_pde_lift(&c, 0, all_faces, peek, NULL); /* aborts */
    pf_graph_free(g);
}
