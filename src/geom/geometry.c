/*
 * geometry.c — construction and queries of pf_geom trees (see geometry.h).
 * The node layout and the piece model are described in geom_internal.h.
 */
#include "geom/geometry.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_qrng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/names.h"
#include "geom/geom_internal.h"

static const double PI = 3.14159265358979323846;

/* Points of a clipped piece's carrier sampled to measure it, and Sobol
 * points over the bounding box to estimate a CSG volume. Fixed, so a
 * geometry's measures never depend on anything but its definition. */
#define MEASURE_SAMPLES 16384
#define VOLUME_SAMPLES 65536
#define MEASURE_SEED 0x9e3779b97f4a7c15ull

/* ------------------------------------------------------------ small helpers */

static bool all_finite(const double *v, int n)
{
    for (int i = 0; i < n; i++)
        if (!isfinite(v[i])) return false;
    return true;
}

static pf_status check_dim(const char *what, int dim)
{
    if (dim < 1 || dim > PF_GEOM_MAX_DIM)
        return pf_fail(PF_ERR_INVALID, "%s dimension %d is out of range 1..%d", what, dim,
                       PF_GEOM_MAX_DIM);
    return PF_OK;
}

/* Part names are used in comma-separated selections and in messages. */
static pf_status check_name(const char *what, const char *name)
{
    size_t len = strlen(name);
    if (len == 0) return pf_fail(PF_ERR_INVALID, "%s name is empty", what);
    if (len >= PF_GEOM_NAME_MAX)
        return pf_fail(PF_ERR_INVALID, "%s name '%s' is longer than %d characters", what, name,
                       PF_GEOM_NAME_MAX - 1);
    if (strcmp(name, "*") == 0)
        return pf_fail(PF_ERR_INVALID, "%s name '*' is reserved (it selects every part)", what);
    for (const char *c = name; *c; c++)
        if (*c <= ' ' || *c == ',' || *c == 127)
            return pf_fail(PF_ERR_INVALID,
                           "%s name '%s' has a space, comma or control character", what, name);
    return PF_OK;
}

static double sq(double v) { return v * v; }

/* Distance from v to the interval [a, b]. */
static double dist_interval(double v, double a, double b)
{
    return v < a ? a - v : v > b ? v - b : 0.0;
}

static double seg_dist(const double *p, const double *a, const double *b)
{
    double dx = b[0] - a[0], dy = b[1] - a[1];
    double s = ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / (dx * dx + dy * dy);
    s = s < 0 ? 0 : s > 1 ? 1 : s;
    return hypot(p[0] - a[0] - s * dx, p[1] - a[1] - s * dy);
}

/* Surface area of the unit sphere in R^d (2 for d = 1: two points). */
static double unit_sphere_area(int d) { return 2.0 * pow(PI, 0.5 * d) / tgamma(0.5 * d); }

static double bbox_volume(const pf_geom *g)
{
    double v = 1;
    for (int k = 0; k < g->dim; k++) v *= g->hi[k] - g->lo[k];
    return v;
}

/* Points on a shared face (a hole's side lying on the outer box) come out of
 * the samplers within ~1e-16 x scale of both surfaces; 1e-9 x diagonal
 * classifies them as "on" while staying far below any real feature size. */
static void set_tol(pf_geom *g)
{
    double d2 = 0;
    for (int k = 0; k < g->dim; k++) d2 += sq(g->hi[k] - g->lo[k]);
    g->tol = 1e-9 * sqrt(d2);
}

static pf_geom *geom_new(geom_kind kind, int dim)
{
    pf_geom *g = calloc(1, sizeof *g);
    if (!g) return NULL;
    g->kind = kind;
    g->dim = dim;
    return g;
}

/* Index of part `name`, added (as a time face or not) if new; -1: no memory. */
static int part_add(pf_geom *g, const char *name, bool time_face)
{
    for (int i = 0; i < g->npart; i++)
        if (strcmp(g->part_name[i], name) == 0) return i;
    int n = g->npart + 1;
    char(*names)[PF_GEOM_NAME_MAX] = realloc(g->part_name, (size_t)n * sizeof *names);
    if (!names) return -1;
    g->part_name = names;
    double *m = realloc(g->part_measure, (size_t)n * sizeof *m);
    if (!m) return -1;
    g->part_measure = m;
    bool *t = realloc(g->part_time, (size_t)n * sizeof *t);
    if (!t) return -1;
    g->part_time = t;
    snprintf(g->part_name[g->npart], PF_GEOM_NAME_MAX, "%s", name);
    g->part_measure[g->npart] = 0;
    g->part_time[g->npart] = time_face;
    return g->npart++;
}

/* Append a copy of *src (with `extra` spare clip slots) to g's pieces. */
static geom_piece *piece_push(pf_geom *g, const geom_piece *src, int extra)
{
    geom_piece *ps = realloc(g->piece, (size_t)(g->npiece + 1) * sizeof *ps);
    if (!ps) return NULL;
    g->piece = ps;
    geom_piece *p = &ps[g->npiece];
    *p = *src;
    p->clip = NULL;
    if (src->nclip + extra > 0) {
        p->clip = malloc((size_t)(src->nclip + extra) * sizeof *p->clip);
        if (!p->clip) return NULL;
        if (src->nclip) memcpy(p->clip, src->clip, (size_t)src->nclip * sizeof *p->clip);
    }
    g->npiece++;
    return p;
}

static void piece_pop(pf_geom *g)
{
    g->npiece--;
    free(g->piece[g->npiece].clip);
}

/* Measure of the whole carrier of p (before clipping). */
static double carrier_measure(const geom_piece *p)
{
    const pf_geom *q = p->prim;
    double m = 1;
    switch (p->kind) {
    case PIECE_FACE:
        for (int j = 0; j < q->dim; j++)
            if (j != p->index / 2) m *= q->hi[j] - q->lo[j];
        break;
    case PIECE_SPHERE: m = unit_sphere_area(q->dim) * pow(q->radius, q->dim - 1); break;
    case PIECE_EDGE: m = q->elen[p->index]; break;
    case PIECE_TIME_FACE: m = q->volume; break;
    }
    return p->timed ? m * (p->t1 - p->t0) : m;
}

/* Spatial bounding box of p's carrier. */
static void carrier_bbox(geom_piece *p)
{
    const pf_geom *q = p->prim;
    for (int j = 0; j < q->dim; j++) {
        switch (p->kind) {
        case PIECE_FACE:
            p->plo[j] = q->lo[j];
            p->phi[j] = q->hi[j];
            if (j == p->index / 2) p->plo[j] = p->phi[j] = p->index % 2 ? q->hi[j] : q->lo[j];
            break;
        case PIECE_SPHERE:
            p->plo[j] = q->center[j] - q->radius;
            p->phi[j] = q->center[j] + q->radius;
            break;
        case PIECE_EDGE: {
            double a = q->vxy[2 * p->index + j], b = q->vxy[2 * ((p->index + 1) % q->nv) + j];
            p->plo[j] = fmin(a, b);
            p->phi[j] = fmax(a, b);
            break;
        }
        case PIECE_TIME_FACE:
            p->plo[j] = q->lo[j];
            p->phi[j] = q->hi[j];
            break;
        }
    }
}

/* The boxes [plo, phi] and g's bbox are apart by more than g->tol on some axis. */
static bool bbox_apart(const geom_piece *p, const pf_geom *g)
{
    for (int j = 0; j < g->dim; j++)
        if (p->phi[j] < g->lo[j] - g->tol || p->plo[j] > g->hi[j] + g->tol) return true;
    return false;
}

static void free_pieces(pf_geom *g)
{
    for (int i = 0; i < g->npiece; i++) free(g->piece[i].clip);
    free(g->piece);
    g->piece = NULL;
    g->npiece = 0;
}

void pf_geom_free(pf_geom *g)
{
    if (!g) return;
    pf_geom_free(g->a);
    pf_geom_free(g->b);
    free_pieces(g);
    free(g->part_name);
    free(g->part_measure);
    free(g->part_time);
    free(g->vxy);
    free(g->enrm);
    free(g->elen);
    free(g);
}

/* Sum piece measures into part measures. */
static void finish_parts(pf_geom *g)
{
    for (int i = 0; i < g->npart; i++) g->part_measure[i] = 0;
    for (int i = 0; i < g->npiece; i++) g->part_measure[g->piece[i].part] += g->piece[i].measure;
}

static pf_status nomem(pf_geom *g, const char *what)
{
    pf_geom_free(g);
    return pf_fail(PF_ERR_NOMEM, "out of memory building %s", what);
}

/* ------------------------------------------------------------ signed distance */

static double sdf_box(const pf_geom *g, const double *x)
{
    double out2 = 0, in = -INFINITY;
    for (int k = 0; k < g->dim; k++) {
        double q = fmax(g->lo[k] - x[k], x[k] - g->hi[k]);
        if (q > 0) out2 += q * q;
        in = fmax(in, q);
    }
    return out2 > 0 ? sqrt(out2) : in;
}

static double sdf_ball(const pf_geom *g, const double *x)
{
    double r2 = 0;
    for (int k = 0; k < g->dim; k++) r2 += sq(x[k] - g->center[k]);
    return sqrt(r2) - g->radius;
}

static double sdf_polygon(const pf_geom *g, const double *x)
{
    double d = INFINITY;
    bool in = false;
    for (int i = 0, j = g->nv - 1; i < g->nv; j = i++) {
        const double *a = &g->vxy[2 * j], *b = &g->vxy[2 * i];
        d = fmin(d, seg_dist(x, a, b));
        /* crossing number along +x */
        if ((a[1] > x[1]) != (b[1] > x[1]) &&
            x[0] < a[0] + (x[1] - a[1]) * (b[0] - a[0]) / (b[1] - a[1]))
            in = !in;
    }
    return in ? -d : d;
}

double pf_geom_sdf(const pf_geom *g, const double *x)
{
    switch (g->kind) {
    case GEOM_BOX: return sdf_box(g, x);
    case GEOM_BALL: return sdf_ball(g, x);
    case GEOM_POLYGON: return sdf_polygon(g, x);
    /* the classic CSG bounds: sign and zero set exact, magnitude a bound */
    case GEOM_DIFFERENCE: return fmax(pf_geom_sdf(g->a, x), -pf_geom_sdf(g->b, x));
    case GEOM_UNION: return fmin(pf_geom_sdf(g->a, x), pf_geom_sdf(g->b, x));
    case GEOM_SPACE_TIME: {
        /* an extrusion: exact where the spatial distance is */
        double s = pf_geom_sdf(g->a, x);
        double t = x[g->dim - 1], q = fmax(g->t0 - t, t - g->t1);
        return s > 0 && q > 0 ? hypot(s, q) : fmax(s, q);
    }
    }
    return NAN;
}

bool pf_geom_inside(const pf_geom *g, const double *x, double tol)
{
    return pf_geom_sdf(g, x) <= tol;
}

bool pf_geom_on_boundary(const pf_geom *g, const double *x, double tol)
{
    return fabs(pf_geom_sdf(g, x)) <= tol;
}

/* ------------------------------------------------------------ pieces */

static bool clips_keep(const geom_piece *p, const double *x)
{
    for (int c = 0; c < p->nclip; c++) {
        double s = pf_geom_sdf(p->clip[c].g, x);
        if (p->clip[c].keep_inside ? !(s < -p->clip[c].tol) : !(s > p->clip[c].tol)) return false;
    }
    return true;
}

/* The point at arc parameter s in [0, 1] of polygon q's edge e, and the
 * edge's outward normal. */
static void edge_at(const pf_geom *q, int e, double s, double *x, double *n)
{
    const double *a = &q->vxy[2 * e], *b = &q->vxy[2 * ((e + 1) % q->nv)];
    x[0] = a[0] + s * (b[0] - a[0]);
    x[1] = a[1] + s * (b[1] - a[1]);
    n[0] = q->enrm[2 * e];
    n[1] = q->enrm[2 * e + 1];
}

/* The end of a piece's point: its clips, then on a timed piece the time
 * (uniform from r, or t0 + ut (t1 - t0) without r) and its normal
 * component 0, then the domain's normal into nrm (when not NULL). */
static bool piece_finish(const pf_geom *g, const geom_piece *p, pf_rng *r, double ut, double *x, double *n,
                         double *nrm)
{
    int ds = p->prim->dim;
    if (!clips_keep(p, x)) return false;
    if (p->timed) {
        x[ds] = r ? pf_rng_uniform_in(r, p->t0, p->t1) : p->t0 + ut * (p->t1 - p->t0);
        n[ds] = 0;
    }
    if (nrm)
        for (int j = 0; j < g->dim; j++) nrm[j] = p->sign * n[j];
    return true;
}

/* A point of the spatial domain q at time face `index` (0: t0, 1: t1) from
 * its bbox coordinates x[0..ds): false when outside q. */
static bool time_face_at(const geom_piece *p, double *x, double *n)
{
    const pf_geom *q = p->prim;
    if (pf_geom_sdf(q, x) > 0) return false;
    x[q->dim] = p->index ? p->t1 : p->t0;
    n[q->dim] = p->index ? 1 : -1;
    return true;
}

bool pf_geom_piece_try(const pf_geom *g, const geom_piece *p, pf_rng *r, double *x, double *nrm)
{
    const pf_geom *q = p->prim;
    int ds = q->dim;
    double n[PF_GEOM_MAX_DIM] = {0};
    switch (p->kind) {
    case PIECE_FACE: {
        int k = p->index / 2;
        for (int j = 0; j < ds; j++) x[j] = pf_rng_uniform_in(r, q->lo[j], q->hi[j]);
        x[k] = p->index % 2 ? q->hi[k] : q->lo[k];
        n[k] = p->index % 2 ? 1 : -1;
        break;
    }
    case PIECE_SPHERE: {
        /* a normalised Gaussian vector is uniform on the sphere */
        double r2 = 0;
        for (int j = 0; j < ds; j++) {
            n[j] = pf_rng_normal(r, 1.0);
            r2 += n[j] * n[j];
        }
        if (r2 < 1e-200) return false;
        double inv = 1 / sqrt(r2);
        for (int j = 0; j < ds; j++) {
            n[j] *= inv;
            x[j] = q->center[j] + q->radius * n[j];
        }
        break;
    }
    case PIECE_EDGE: edge_at(q, p->index, pf_rng_uniform(r), x, n); break;
    case PIECE_TIME_FACE:
        /* the spatial domain at t0 or t1, by rejection from its bbox */
        for (int j = 0; j < ds; j++) x[j] = pf_rng_uniform_in(r, q->lo[j], q->hi[j]);
        if (!time_face_at(p, x, n)) return false;
        break;
    }
    return piece_finish(g, p, r, 0, x, n, nrm);
}

int pf_geom_piece_udim(const geom_piece *p)
{
    int ds = p->prim->dim, k = 0;
    switch (p->kind) {
    case PIECE_FACE: k = ds - 1; break;
    case PIECE_SPHERE: k = ds <= 2 ? 1 : ds; break;
    case PIECE_EDGE: k = 1; break;
    case PIECE_TIME_FACE: return ds;
    }
    return k + p->timed;
}

bool pf_geom_piece_map(const pf_geom *g, const geom_piece *p, const double *u, double *x, double *nrm)
{
    const pf_geom *q = p->prim;
    int ds = q->dim, used = 0;
    double n[PF_GEOM_MAX_DIM] = {0};
    switch (p->kind) {
    case PIECE_FACE: {
        int k = p->index / 2;
        for (int j = 0; j < ds; j++)
            if (j != k) x[j] = q->lo[j] + u[used++] * (q->hi[j] - q->lo[j]);
        x[k] = p->index % 2 ? q->hi[k] : q->lo[k];
        n[k] = p->index % 2 ? 1 : -1;
        break;
    }
    case PIECE_SPHERE:
        if (ds == 1) { /* two points: the lower half of the sequence goes left */
            n[0] = u[used++] < 0.5 ? -1 : 1;
        } else if (ds == 2) { /* DeepXDE's Disk: the angle 2 pi u */
            double a = 2 * PI * u[used++];
            n[0] = cos(a);
            n[1] = sin(a);
        } else { /* DeepXDE's Hypersphere: normalised inverse-normal coordinates */
            double r2 = 0;
            for (int j = 0; j < ds; j++) {
                n[j] = gsl_cdf_ugaussian_Pinv(u[used++]);
                r2 += n[j] * n[j];
            }
            if (r2 < 1e-200) return false;
            for (int j = 0; j < ds; j++) n[j] /= sqrt(r2);
        }
        for (int j = 0; j < ds; j++) x[j] = q->center[j] + q->radius * n[j];
        break;
    case PIECE_EDGE: edge_at(q, p->index, u[used++], x, n); break;
    case PIECE_TIME_FACE:
        for (int j = 0; j < ds; j++) x[j] = q->lo[j] + u[j] * (q->hi[j] - q->lo[j]);
        if (!time_face_at(p, x, n)) return false;
        break;
    }
    return piece_finish(g, p, NULL, p->timed ? u[used] : 0, x, n, nrm);
}

/* Distance from x (g->dim coordinates) to p's whole carrier. */
static double piece_distance(const geom_piece *p, const double *x)
{
    const pf_geom *q = p->prim;
    int ds = q->dim;
    double d = 0;
    switch (p->kind) {
    case PIECE_FACE: {
        int k = p->index / 2;
        double d2 = sq(x[k] - (p->index % 2 ? q->hi[k] : q->lo[k]));
        for (int j = 0; j < ds; j++)
            if (j != k) d2 += sq(dist_interval(x[j], q->lo[j], q->hi[j]));
        d = sqrt(d2);
        break;
    }
    case PIECE_SPHERE: d = fabs(sdf_ball(q, x)); break;
    case PIECE_EDGE:
        d = seg_dist(x, &q->vxy[2 * p->index], &q->vxy[2 * ((p->index + 1) % q->nv)]);
        break;
    case PIECE_TIME_FACE:
        return hypot(x[ds] - (p->index ? p->t1 : p->t0), fmax(pf_geom_sdf(q, x), 0));
    }
    return p->timed ? hypot(d, dist_interval(x[ds], p->t0, p->t1)) : d;
}

/* Kept fraction of p's carrier, from MEASURE_SAMPLES fixed-seed points:
 * exactly 1 or 0 when every point is kept or none is. -1: no memory. */
static double piece_fraction(const pf_geom *g, const geom_piece *p)
{
    pf_rng *r = pf_rng_alloc(MEASURE_SEED);
    if (!r) return -1;
    double x[PF_GEOM_MAX_DIM];
    int kept = 0;
    for (int i = 0; i < MEASURE_SAMPLES; i++) kept += pf_geom_piece_try(g, p, r, x, NULL);
    pf_rng_free(r);
    return (double)kept / MEASURE_SAMPLES;
}

/* Volume of g from Sobol points over its bbox (g->dim <= 40 always holds). */
static double volume_qmc(const pf_geom *g)
{
    gsl_qrng *q = gsl_qrng_alloc(gsl_qrng_sobol, (unsigned)g->dim);
    if (!q) return -1;
    double u[PF_GEOM_MAX_DIM], x[PF_GEOM_MAX_DIM];
    long in = 0;
    for (int i = 0; i < VOLUME_SAMPLES; i++) {
        gsl_qrng_get(q, u);
        for (int k = 0; k < g->dim; k++) x[k] = g->lo[k] + u[k] * (g->hi[k] - g->lo[k]);
        in += pf_geom_sdf(g, x) <= 0;
    }
    gsl_qrng_free(q);
    return bbox_volume(g) * (double)in / VOLUME_SAMPLES;
}

/* ------------------------------------------------------------ primitives */

static const char *default_face_name(int k, int side, char *buf, size_t cap)
{
    static const char *const named[4] = {"left", "right", "bottom", "top"};
    if (k < 2) return named[2 * k + side];
    snprintf(buf, cap, "x%d_%s", k, side ? "hi" : "lo");
    return buf;
}

pf_status pf_geom_box_alloc(int dim, const double *lo, const double *hi,
                            const char *const *face_names, pf_geom **out)
{
    *out = NULL;
    PF_TRY(check_dim("box", dim));
    if (!all_finite(lo, dim) || !all_finite(hi, dim))
        return pf_fail(PF_ERR_INVALID, "box bounds must be finite numbers");
    for (int k = 0; k < dim; k++)
        if (!(lo[k] < hi[k]))
            return pf_fail(PF_ERR_INVALID,
                           "box is degenerate on axis %d: lo %g must be below hi %g", k, lo[k],
                           hi[k]);
    for (int f = 0; face_names && f < 2 * dim; f++)
        if (face_names[f]) PF_TRY(check_name("box face", face_names[f]));

    pf_geom *g = geom_new(GEOM_BOX, dim);
    if (!g) return nomem(NULL, "a box");
    g->volume = 1;
    for (int k = 0; k < dim; k++) {
        g->lo[k] = lo[k];
        g->hi[k] = hi[k];
        g->volume *= hi[k] - lo[k];
    }
    set_tol(g);
    for (int f = 0; f < 2 * dim; f++) {
        char buf[PF_GEOM_NAME_MAX];
        const char *name = face_names && face_names[f]
                               ? face_names[f]
                               : default_face_name(f / 2, f % 2, buf, sizeof buf);
        geom_piece src = {.kind = PIECE_FACE, .prim = g, .index = f, .sign = 1};
        src.part = part_add(g, name, false);
        if (src.part < 0) return nomem(g, "a box");
        geom_piece *p = piece_push(g, &src, 0);
        if (!p) return nomem(g, "a box");
        p->measure = carrier_measure(p);
        carrier_bbox(p);
    }
    finish_parts(g);
    *out = g;
    return PF_OK;
}

pf_status pf_geom_interval_alloc(double lo, double hi, pf_geom **out)
{
    return pf_geom_box_alloc(1, &lo, &hi, NULL, out);
}

pf_status pf_geom_ball_alloc(int dim, const double *center, double radius, const char *name,
                             pf_geom **out)
{
    *out = NULL;
    PF_TRY(check_dim("ball", dim));
    if (!all_finite(center, dim))
        return pf_fail(PF_ERR_INVALID, "ball centre must be finite numbers");
    if (!(radius > 0) || !isfinite(radius))
        return pf_fail(PF_ERR_INVALID, "ball radius %g must be a positive number", radius);
    if (!name) name = dim == 2 ? "circle" : "sphere";
    PF_TRY(check_name("ball part", name));

    pf_geom *g = geom_new(GEOM_BALL, dim);
    if (!g) return nomem(NULL, "a ball");
    for (int k = 0; k < dim; k++) {
        g->center[k] = center[k];
        g->lo[k] = center[k] - radius;
        g->hi[k] = center[k] + radius;
    }
    g->radius = radius;
    g->volume = unit_sphere_area(dim) / dim * pow(radius, dim);
    set_tol(g);
    geom_piece src = {.kind = PIECE_SPHERE, .prim = g, .sign = 1};
    src.part = part_add(g, name, false);
    geom_piece *p = src.part < 0 ? NULL : piece_push(g, &src, 0);
    if (!p) return nomem(g, "a ball");
    p->measure = carrier_measure(p);
    carrier_bbox(p);
    finish_parts(g);
    *out = g;
    return PF_OK;
}

pf_status pf_geom_disk_alloc(double cx, double cy, double radius, const char *name,
                             pf_geom **out)
{
    double c[2] = {cx, cy};
    return pf_geom_ball_alloc(2, c, radius, name, out);
}

static double orient(const double *a, const double *b, const double *c)
{
    return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
}

/* c, known collinear with [a, b], lies within its bounding box. */
static bool on_segment(const double *a, const double *b, const double *c)
{
    return fmin(a[0], b[0]) <= c[0] && c[0] <= fmax(a[0], b[0]) && fmin(a[1], b[1]) <= c[1] &&
           c[1] <= fmax(a[1], b[1]);
}

/* Closed segments [a, b] and [c, d] share a point. */
static bool segments_meet(const double *a, const double *b, const double *c, const double *d)
{
    double o1 = orient(a, b, c), o2 = orient(a, b, d), o3 = orient(c, d, a), o4 = orient(c, d, b);
    if (((o1 > 0 && o2 < 0) || (o1 < 0 && o2 > 0)) && ((o3 > 0 && o4 < 0) || (o3 < 0 && o4 > 0)))
        return true;
    return (o1 == 0 && on_segment(a, b, c)) || (o2 == 0 && on_segment(a, b, d)) ||
           (o3 == 0 && on_segment(c, d, a)) || (o4 == 0 && on_segment(c, d, b));
}

pf_status pf_geom_polygon_alloc(int nv, const double *xy, const char *const *edge_labels,
                                pf_geom **out)
{
    *out = NULL;
    if (nv < 3)
        return pf_fail(PF_ERR_INVALID, "polygon has %d vertices; it needs at least 3", nv);
    if (nv > 1000000) return pf_fail(PF_ERR_INVALID, "polygon has %d vertices; at most 10^6", nv);
    if (!all_finite(xy, 2 * nv))
        return pf_fail(PF_ERR_INVALID, "polygon vertices must be finite numbers");
    for (int i = 0; edge_labels && i < nv; i++)
        if (edge_labels[i]) PF_TRY(check_name("polygon edge", edge_labels[i]));
    double area2 = 0;
    for (int i = 0; i < nv; i++) {
        const double *a = &xy[2 * i], *b = &xy[2 * ((i + 1) % nv)];
        if (a[0] == b[0] && a[1] == b[1])
            return pf_fail(PF_ERR_INVALID, "polygon edge %d has zero length (vertex %d repeated)",
                           i, (i + 1) % nv);
        area2 += a[0] * b[1] - a[1] * b[0];
    }
    /* simple: neighbours meet only at their shared vertex (no fold-back),
     * other edges not at all */
    for (int i = 0; i < nv; i++) {
        const double *a = &xy[2 * i], *b = &xy[2 * ((i + 1) % nv)], *c = &xy[2 * ((i + 2) % nv)];
        if (orient(a, b, c) == 0 &&
            (b[0] - a[0]) * (c[0] - b[0]) + (b[1] - a[1]) * (c[1] - b[1]) < 0)
            return pf_fail(PF_ERR_INVALID, "polygon folds back on itself at vertex %d",
                           (i + 1) % nv);
        for (int j = i + 2; j < nv; j++) {
            if (i == 0 && j == nv - 1) continue; /* neighbours through vertex 0 */
            if (segments_meet(a, b, &xy[2 * j], &xy[2 * ((j + 1) % nv)]))
                return pf_fail(PF_ERR_INVALID,
                               "polygon is not simple: edges %d and %d cross or touch", i, j);
        }
    }
    if (area2 == 0) return pf_fail(PF_ERR_INVALID, "polygon has zero area");

    pf_geom *g = geom_new(GEOM_POLYGON, 2);
    if (!g) return nomem(NULL, "a polygon");
    g->nv = nv;
    g->vxy = malloc(2 * (size_t)nv * sizeof *g->vxy);
    g->enrm = malloc(2 * (size_t)nv * sizeof *g->enrm);
    g->elen = malloc((size_t)nv * sizeof *g->elen);
    if (!g->vxy || !g->enrm || !g->elen) return nomem(g, "a polygon");
    memcpy(g->vxy, xy, 2 * (size_t)nv * sizeof *xy);
    g->volume = fabs(area2) / 2;
    double s = area2 > 0 ? 1 : -1; /* counter-clockwise: outward = edge turned clockwise */
    for (int k = 0; k < 2; k++) g->lo[k] = g->hi[k] = xy[k];
    for (int i = 0; i < nv; i++) {
        const double *a = &xy[2 * i], *b = &xy[2 * ((i + 1) % nv)];
        double dx = b[0] - a[0], dy = b[1] - a[1], len = hypot(dx, dy);
        g->elen[i] = len;
        g->enrm[2 * i] = s * dy / len;
        g->enrm[2 * i + 1] = -s * dx / len;
        for (int k = 0; k < 2; k++) {
            g->lo[k] = fmin(g->lo[k], a[k]);
            g->hi[k] = fmax(g->hi[k], a[k]);
        }
    }
    set_tol(g);
    for (int i = 0; i < nv; i++) {
        char buf[PF_GEOM_NAME_MAX];
        snprintf(buf, sizeof buf, "edge%d", i);
        const char *name = edge_labels && edge_labels[i] ? edge_labels[i] : buf;
        geom_piece src = {.kind = PIECE_EDGE, .prim = g, .index = i, .sign = 1};
        src.part = part_add(g, name, false);
        geom_piece *p = src.part < 0 ? NULL : piece_push(g, &src, 0);
        if (!p) return nomem(g, "a polygon");
        p->measure = carrier_measure(p);
        carrier_bbox(p);
    }
    finish_parts(g);
    *out = g;
    return PF_OK;
}

/* ------------------------------------------------------------ combinations */

/* Fail for NULL operands (keeping the message of the failure that made
 * them), after freeing the others. */
static pf_status take_operands(const char *op, pf_geom *a, pf_geom *b, int nops)
{
    if (a && (nops < 2 || b)) return PF_OK;
    pf_geom_free(a);
    pf_geom_free(b);
    /* in a chain, the first failure's message is the useful one: wrap it
     * once, and pass an already wrapped one through */
    char prev[512];
    snprintf(prev, sizeof prev, "%s", pf_errmsg());
    if (strstr(prev, " operand is NULL")) return PF_ERR_INVALID;
    if (!prev[0]) return pf_fail(PF_ERR_INVALID, "%s operand is NULL", op);
    return pf_fail(PF_ERR_INVALID, "%s operand is NULL (last error: %s)", op, prev);
}

/* How CSG treated one operand's pieces: all kept whole, all dropped, or some
 * cut. Decides whether the volume is exact. */
enum { KEPT_ALL = 1, DROPPED_ALL = 2 };

/* Copy src's pieces into g, clipped by `other` (keep inside or outside it),
 * flipping normals when `flip`. Returns the KEPT_ALL / DROPPED_ALL bits, or
 * -1 when out of memory. */
static int copy_clipped(pf_geom *g, const pf_geom *src, const pf_geom *other, bool keep_inside,
                        bool flip)
{
    int state = KEPT_ALL | DROPPED_ALL;
    for (int i = 0; i < src->npiece; i++) {
        const geom_piece *sp = &src->piece[i];
        /* a piece the other operand's bbox cannot reach needs no clip: this
         * keeps holes' clip lists short and their measures exact */
        bool apart = bbox_apart(sp, other);
        if (apart && keep_inside) { /* cannot be inside `other` */
            state &= ~KEPT_ALL;
            continue;
        }
        geom_piece *p = piece_push(g, sp, 1);
        if (!p) return -1;
        if (flip) p->sign = -p->sign;
        if (!apart) {
            p->clip[p->nclip++] = (geom_clip){.g = other, .keep_inside = keep_inside,
                                              .tol = fmax(g->tol, other->tol)};
            double f = piece_fraction(g, p);
            if (f < 0) return -1;
            if (f == 0) {
                piece_pop(g);
                state &= ~KEPT_ALL;
                continue;
            }
            if (f < 1) state &= ~(KEPT_ALL | DROPPED_ALL);
            p->measure = carrier_measure(p) * f;
        }
        state &= ~DROPPED_ALL;
        p->part = part_add(g, src->part_name[sp->part], false);
        if (p->part < 0) return -1;
    }
    return state;
}

/* A \ B keeps A's boundary outside B and B's boundary strictly inside A
 * (normals flipped: they must leave the domain, i.e. enter the hole);
 * A u B keeps each boundary outside the other operand. "Strictly" drops the
 * pieces of B that run along A's boundary, which are no boundary at all. */
static pf_status csg_alloc(geom_kind kind, pf_geom *a, pf_geom *b, pf_geom **out)
{
    const char *op = kind == GEOM_DIFFERENCE ? "difference" : "union";
    *out = NULL;
    PF_TRY(take_operands(op, a, b, 2));
    pf_status st = PF_OK;
    if (a == b) {
        pf_geom_free(a);
        return pf_fail(PF_ERR_INVALID, "%s of a geometry with itself (an operand is owned once)",
                       op);
    }
    if (a->kind == GEOM_SPACE_TIME || b->kind == GEOM_SPACE_TIME)
        st = pf_fail(PF_ERR_INVALID, "%s operands must be spatial, not space x time", op);
    else if (a->dim != b->dim)
        st = pf_fail(PF_ERR_INVALID, "%s operands differ in dimension (%d and %d)", op, a->dim,
                     b->dim);
    if (st != PF_OK) {
        pf_geom_free(a);
        pf_geom_free(b);
        return st;
    }
    pf_geom *g = geom_new(kind, a->dim);
    if (!g) {
        pf_geom_free(a);
        pf_geom_free(b);
        return pf_fail(PF_ERR_NOMEM, "out of memory building a %s", op);
    }
    g->a = a;
    g->b = b;
    for (int k = 0; k < g->dim; k++) {
        g->lo[k] = kind == GEOM_UNION ? fmin(a->lo[k], b->lo[k]) : a->lo[k];
        g->hi[k] = kind == GEOM_UNION ? fmax(a->hi[k], b->hi[k]) : a->hi[k];
    }
    set_tol(g);
    bool diff = kind == GEOM_DIFFERENCE;
    int sa = copy_clipped(g, a, b, false, false);
    int sb = sa < 0 ? -1 : copy_clipped(g, b, a, diff, diff);
    if (sb < 0) return nomem(g, op);
    /* Exact volumes where the boundaries do not meet (see geometry.h). */
    /* When no boundary piece was cut, the operands are nested or disjoint and
     * which one follows from what was kept; only boundaries that cross need
     * the quadrature. */
    if (diff && (sa & KEPT_ALL) && (sb & KEPT_ALL))
        g->volume = a->volume - b->volume; /* b strictly inside a */
    else if (diff && (sa & KEPT_ALL) && (sb & DROPPED_ALL))
        g->volume = a->volume; /* b outside a */
    else if (!diff && (sa & KEPT_ALL) && (sb & KEPT_ALL))
        g->volume = a->volume + b->volume; /* disjoint */
    else if (!diff && (sa & KEPT_ALL) && (sb & DROPPED_ALL))
        g->volume = a->volume; /* b inside a */
    else if (!diff && (sa & DROPPED_ALL) && (sb & KEPT_ALL))
        g->volume = b->volume; /* a inside b */
    else
        g->volume = volume_qmc(g);
    if (g->volume < 0) return nomem(g, op);
    if (g->npiece == 0 || !(g->volume > 0)) {
        pf_geom_free(g);
        return pf_fail(PF_ERR_INVALID, "%s leaves an empty domain", op);
    }
    finish_parts(g);
    *out = g;
    return PF_OK;
}

pf_status pf_geom_difference_alloc(pf_geom *a, pf_geom *b, pf_geom **out)
{
    return csg_alloc(GEOM_DIFFERENCE, a, b, out);
}

pf_status pf_geom_union_alloc(pf_geom *a, pf_geom *b, pf_geom **out)
{
    return csg_alloc(GEOM_UNION, a, b, out);
}

pf_status pf_geom_space_time_alloc(pf_geom *space, double t0, double t1, pf_geom **out)
{
    *out = NULL;
    PF_TRY(take_operands("space x time", space, NULL, 1));
    pf_status st = PF_OK;
    if (space->kind == GEOM_SPACE_TIME)
        st = pf_fail(PF_ERR_INVALID, "space x time: the space is already space x time");
    else if (space->dim + 1 > PF_GEOM_MAX_DIM)
        st = pf_fail(PF_ERR_INVALID, "space x time would have %d coordinates; at most %d",
                     space->dim + 1, PF_GEOM_MAX_DIM);
    else if (!isfinite(t0) || !isfinite(t1) || !(t0 < t1))
        st = pf_fail(PF_ERR_INVALID, "time interval [%g, %g] must be finite with t0 < t1", t0,
                     t1);
    for (int i = 0; st == PF_OK && i < space->npart; i++)
        if (!strcmp(space->part_name[i], "initial") || !strcmp(space->part_name[i], "final"))
            st = pf_fail(PF_ERR_INVALID,
                         "space x time: spatial part name '%s' is reserved for a time face",
                         space->part_name[i]);
    if (st != PF_OK) {
        pf_geom_free(space);
        return st;
    }
    int ds = space->dim;
    pf_geom *g = geom_new(GEOM_SPACE_TIME, ds + 1);
    if (!g) {
        pf_geom_free(space);
        return pf_fail(PF_ERR_NOMEM, "out of memory building space x time");
    }
    g->a = space;
    g->t0 = t0;
    g->t1 = t1;
    memcpy(g->lo, space->lo, (size_t)ds * sizeof *g->lo);
    memcpy(g->hi, space->hi, (size_t)ds * sizeof *g->hi);
    g->lo[ds] = t0;
    g->hi[ds] = t1;
    g->volume = space->volume * (t1 - t0);
    set_tol(g);
    for (int i = 0; i < space->npiece; i++) {
        geom_piece *p = piece_push(g, &space->piece[i], 0);
        if (!p) return nomem(g, "space x time");
        p->timed = true;
        p->t0 = t0;
        p->t1 = t1;
        p->measure *= t1 - t0;
        p->part = part_add(g, space->part_name[space->piece[i].part], false);
        if (p->part < 0) return nomem(g, "space x time");
    }
    for (int f = 0; f < 2; f++) {
        geom_piece src = {.kind = PIECE_TIME_FACE, .prim = space, .index = f, .sign = 1,
                          .t0 = t0, .t1 = t1, .measure = space->volume};
        carrier_bbox(&src);
        src.part = part_add(g, f ? "final" : "initial", true);
        if (src.part < 0 || !piece_push(g, &src, 0)) return nomem(g, "space x time");
    }
    finish_parts(g);
    *out = g;
    return PF_OK;
}

/* ------------------------------------------------------------ queries */

int pf_geom_dim(const pf_geom *g) { return g->dim; }

void pf_geom_bbox(const pf_geom *g, double *lo, double *hi)
{
    for (int k = 0; k < g->dim; k++) {
        if (lo) lo[k] = g->lo[k];
        if (hi) hi[k] = g->hi[k];
    }
}

double pf_geom_volume(const pf_geom *g) { return g->volume; }

double pf_geom_fill_fraction(const pf_geom *g) { return g->volume / bbox_volume(g); }

const pf_geom *pf_geom_space(const pf_geom *g)
{
    return g->kind == GEOM_SPACE_TIME ? g->a : NULL;
}

bool pf_geom_time_range(const pf_geom *g, double *t0, double *t1)
{
    if (g->kind != GEOM_SPACE_TIME) return false;
    if (t0) *t0 = g->t0;
    if (t1) *t1 = g->t1;
    return true;
}

int pf_geom_part_count(const pf_geom *g) { return g->npart; }

const char *pf_geom_part_name(const pf_geom *g, int i)
{
    PF_ASSERT(i >= 0 && i < g->npart);
    return g->part_name[i];
}

double pf_geom_part_measure(const pf_geom *g, int i)
{
    PF_ASSERT(i >= 0 && i < g->npart);
    return g->part_measure[i];
}

bool pf_geom_part_is_time_face(const pf_geom *g, int i)
{
    PF_ASSERT(i >= 0 && i < g->npart);
    return g->part_time[i];
}

pf_status pf_geom_part_find(const pf_geom *g, const char *name, int *index)
{
    /* positional names for the first two box axes; looked up only when the
     * name itself is not a part, so user-chosen names always win */
    static const char *const alias[4][2] = {
        {"x0_lo", "left"}, {"x0_hi", "right"}, {"x1_lo", "bottom"}, {"x1_hi", "top"}};
    for (int pass = 0; name && pass < 2; pass++) {
        const char *want = name;
        if (pass == 1) {
            want = NULL;
            for (int a = 0; a < 4; a++)
                if (!strcmp(name, alias[a][0])) want = alias[a][1];
            if (!want) break;
        }
        for (int i = 0; i < g->npart; i++)
            if (!strcmp(g->part_name[i], want)) {
                *index = i;
                return PF_OK;
            }
    }
    /* the message pf_name_lookup gives, listing the allowed names */
    const char **names = malloc((size_t)g->npart * sizeof *names);
    if (!names) return pf_fail(PF_ERR_INVALID, "part '%s' is unknown", name ? name : "");
    for (int i = 0; i < g->npart; i++) names[i] = g->part_name[i];
    int unused;
    pf_status st = pf_name_lookup("part", name, names, g->npart, &unused);
    free(names);
    return st;
}

pf_status pf_geom_parts_select(const pf_geom *g, const char *parts, bool *selected)
{
    for (int i = 0; i < g->npart; i++) selected[i] = false;
    if (!parts || !parts[0]) {
        for (int i = 0; i < g->npart; i++) selected[i] = !g->part_time[i];
        return PF_OK;
    }
    const char *s = parts;
    for (;;) {
        const char *end = strchr(s, ',');
        size_t len = end ? (size_t)(end - s) : strlen(s);
        while (len && *s == ' ') s++, len--;
        while (len && s[len - 1] == ' ') len--;
        if (len == 0)
            return pf_fail(PF_ERR_INVALID, "part selection '%s' has an empty item", parts);
        if (len >= PF_GEOM_NAME_MAX)
            return pf_fail(PF_ERR_INVALID, "part '%.*s' is unknown (name too long)", (int)len, s);
        char name[PF_GEOM_NAME_MAX];
        memcpy(name, s, len);
        name[len] = 0;
        if (!strcmp(name, "*")) {
            for (int i = 0; i < g->npart; i++) selected[i] = true;
        } else {
            int i;
            PF_TRY(pf_geom_part_find(g, name, &i));
            selected[i] = true;
        }
        if (!end) return PF_OK;
        s = end + 1;
    }
}

double pf_geom_part_distance(const pf_geom *g, int i, const double *x)
{
    PF_ASSERT(i >= 0 && i < g->npart);
    double d = INFINITY;
    for (int k = 0; k < g->npiece; k++)
        if (g->piece[k].part == i) d = fmin(d, piece_distance(&g->piece[k], x));
    return d;
}

int pf_geom_part_at(const pf_geom *g, const double *x, double tol)
{
    for (int k = 0; k < g->npiece; k++)
        if (piece_distance(&g->piece[k], x) <= tol && clips_keep(&g->piece[k], x))
            return g->piece[k].part;
    return -1;
}
