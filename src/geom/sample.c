/*
 * sample.c — interior, boundary, initial and grid samplers (see sample.h).
 * Everything is computed in double and rounded to pf_real on output.
 */
#include "geom/sample.h"

#include <gsl/gsl_qrng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"
#include "core/names.h"
#include "core/rng.h"
#include "geom/geom_internal.h"

/* ------------------------------------------------------------ point sets */

void pf_point_set_init(pf_point_set *ps) { memset(ps, 0, sizeof *ps); }

void pf_point_set_release(pf_point_set *ps)
{
    free(ps->x);
    free(ps->normal);
    free(ps->part);
    pf_point_set_init(ps);
}

static pf_status set_alloc(pf_point_set *ps, int n, int dim, bool normals, bool parts)
{
    pf_point_set_release(ps);
    size_t nd = (size_t)n * (size_t)dim;
    ps->x = pf_aligned_alloc(nd * sizeof *ps->x);
    if (normals) ps->normal = pf_aligned_alloc(nd * sizeof *ps->normal);
    if (parts) ps->part = pf_aligned_alloc((size_t)n * sizeof *ps->part);
    if (!ps->x || (normals && !ps->normal) || (parts && !ps->part)) {
        pf_point_set_release(ps);
        return pf_fail(PF_ERR_NOMEM, "out of memory for %d points of dimension %d", n, dim);
    }
    ps->n = n;
    ps->dim = dim;
    return PF_OK;
}

static pf_status check_count(int n)
{
    if (n < 0 || n > PF_SAMPLE_MAX_POINTS)
        return pf_fail(PF_ERR_INVALID, "point count %d is out of range 0..%d", n,
                       PF_SAMPLE_MAX_POINTS);
    return PF_OK;
}

static void store(pf_real *dst, const double *x, int d)
{
    for (int k = 0; k < d; k++) dst[k] = (pf_real)x[k];
}

/* v rounded to pf_real but kept in [a, b) (a stratum of a Latin hypercube),
 * so rounding never moves a point into its neighbour's stratum. */
static pf_real real_in(double v, double a, double b)
{
    pf_real r = (pf_real)v;
#ifdef PF_DOUBLE
    if ((double)r < a) r = nextafter(r, INFINITY);
    if ((double)r >= b) r = nextafter(r, -INFINITY);
#else
    if ((double)r < a) r = nextafterf(r, INFINITY);
    if ((double)r >= b) r = nextafterf(r, -INFINITY);
#endif
    return r;
}

/* ------------------------------------------------------------ names */

static const char *const method_names[PF_SAMPLE_METHOD_COUNT] = {"uniform", "sobol", "lhs",
                                                                 "grid", "hammersley"};
static const char *const grid_names[PF_GRID_KIND_COUNT] = {"interior", "closed", "cell"};

const char *pf_sample_method_name(pf_sample_method m)
{
    return m >= 0 && m < PF_SAMPLE_METHOD_COUNT ? method_names[m] : "?";
}

pf_status pf_sample_method_from_name(const char *name, pf_sample_method *out)
{
    int i;
    PF_TRY(pf_name_lookup("sampler", name, method_names, PF_SAMPLE_METHOD_COUNT, &i));
    *out = (pf_sample_method)i;
    return PF_OK;
}

const char *pf_grid_kind_name(pf_grid_kind k)
{
    return k >= 0 && k < PF_GRID_KIND_COUNT ? grid_names[k] : "?";
}

pf_status pf_grid_kind_from_name(const char *name, pf_grid_kind *out)
{
    int i;
    PF_TRY(pf_name_lookup("grid", name, grid_names, PF_GRID_KIND_COUNT, &i));
    *out = (pf_grid_kind)i;
    return PF_OK;
}

/* ------------------------------------------------------------ interior */

/* Every point of the bounding box is in the domain. */
static bool fills_bbox(const pf_geom *g)
{
    return g->kind == GEOM_BOX || (g->kind == GEOM_SPACE_TIME && g->a->kind == GEOM_BOX);
}

/* Rejection gives up after this many candidates for n points: 50 times the
 * expected number, so only a domain far thinner than its volume says (or a
 * broken one) gets there. */
static long max_tries(int n, double fill) { return (long)(50.0 * n / fill) + 100000; }

static pf_status too_few(const pf_geom *g, int got, int n)
{
    return pf_fail(PF_ERR_NUMERIC,
                   "placed only %d of %d points: the domain fills %.3g of its bounding box",
                   got, n, pf_geom_fill_fraction(g));
}

/* A uniform point of g: directly for balls (and ball x time), else a bbox
 * point that may be outside (returns whether it is inside). */
static bool uniform_point(const pf_geom *g, pf_rng *r, double *x)
{
    const pf_geom *s = g->kind == GEOM_SPACE_TIME ? g->a : g;
    int ds = s->dim;
    if (s->kind == GEOM_BALL) {
        double z2 = 0;
        for (int k = 0; k < ds; k++) {
            x[k] = pf_rng_normal(r, 1.0);
            z2 += x[k] * x[k];
        }
        if (z2 < 1e-200) return false;
        /* radius r U^(1/d): uniform in volume */
        double scale = s->radius * pow(pf_rng_uniform(r), 1.0 / ds) / sqrt(z2);
        for (int k = 0; k < ds; k++) x[k] = s->center[k] + scale * x[k];
        if (g != s) x[ds] = pf_rng_uniform_in(r, g->t0, g->t1);
        return true;
    }
    for (int k = 0; k < g->dim; k++) x[k] = pf_rng_uniform_in(r, g->lo[k], g->hi[k]);
    return fills_bbox(g) || pf_geom_sdf(g, x) <= 0;
}

static pf_status interior_uniform(const pf_geom *g, int n, uint64_t seed, pf_real *dst,
                                  int stride)
{
    pf_rng *r = pf_rng_alloc(pf_rng_derive(seed, "geom.uniform"));
    if (!r) return pf_fail(PF_ERR_NOMEM, "out of memory for a random generator");
    long tries = 0, cap = max_tries(n, pf_geom_fill_fraction(g));
    double x[PF_GEOM_MAX_DIM];
    int i = 0;
    while (i < n && tries++ < cap)
        if (uniform_point(g, r, x)) store(dst + (size_t)stride * i++, x, g->dim);
    pf_rng_free(r);
    return i == n ? PF_OK : too_few(g, i, n);
}

/* GSL's Sobol points are 30-bit fractions. The output keeps the top
 * SOBOL_OUT_BITS of them, shifted, plus half a cell: a value pf_real holds
 * exactly in [0, 1), so rounding never moves a point out of its cell. */
#define SOBOL_BITS 30
#ifdef PF_DOUBLE
#define SOBOL_OUT_BITS 30
#else
#define SOBOL_OUT_BITS 23
#endif

static pf_status interior_sobol(const pf_geom *g, int n, uint64_t seed, pf_real *dst,
                                int stride)
{
    int d = g->dim;
    if ((unsigned)d > gsl_qrng_sobol->max_dimension)
        return pf_fail(PF_ERR_UNSUPPORTED, "sobol sampling supports at most %u coordinates, not %d",
                       gsl_qrng_sobol->max_dimension, d);
    pf_rng *r = pf_rng_alloc(pf_rng_derive(seed, "geom.sobol"));
    gsl_qrng *q = gsl_qrng_alloc(gsl_qrng_sobol, (unsigned)d);
    if (!r || !q) {
        pf_rng_free(r);
        if (q) gsl_qrng_free(q);
        return pf_fail(PF_ERR_NOMEM, "out of memory for a Sobol generator");
    }
    uint32_t mask[PF_GEOM_MAX_DIM];
    for (int k = 0; k < d; k++) mask[k] = (uint32_t)pf_rng_int(r, 1u << SOBOL_OUT_BITS);
    pf_rng_free(r);

    const double in_scale = (double)(1u << SOBOL_BITS), out_scale = (double)(1u << SOBOL_OUT_BITS);
    bool whole = fills_bbox(g);
    long tries = 0, cap = max_tries(n, pf_geom_fill_fraction(g));
    if (cap > (1l << SOBOL_OUT_BITS) - 1) cap = (1l << SOBOL_OUT_BITS) - 1;
    double v[PF_GEOM_MAX_DIM] = {0}, x[PF_GEOM_MAX_DIM];
    int i = 0;
    while (i < n && tries < cap) {
        if (tries++ > 0) gsl_qrng_get(q, v); /* point 0 of the sequence is the origin */
        for (int k = 0; k < d; k++) {
            uint32_t bits = (uint32_t)llround(v[k] * in_scale) >> (SOBOL_BITS - SOBOL_OUT_BITS);
            double u = ((bits ^ mask[k]) + 0.5) / out_scale;
            x[k] = g->lo[k] + u * (g->hi[k] - g->lo[k]);
        }
        if (whole || pf_geom_sdf(g, x) <= 0) store(dst + (size_t)stride * i++, x, d);
    }
    gsl_qrng_free(q);
    return i == n ? PF_OK : too_few(g, i, n);
}

/* McKay, Beckman & Conover 1979: per axis a random permutation of the
 * strata and a uniform offset inside each. */
static pf_status interior_lhs(const pf_geom *g, int n, uint64_t seed, pf_real *dst, int stride)
{
    int d = g->dim;
    bool whole = fills_bbox(g);
    double fill = pf_geom_fill_fraction(g);
    /* one batch of about n / fill points; thin shapes use several batches of
     * at most 2^20 rather than one huge one */
    double want = whole ? n : fmin(ceil(1.1 * n / fill) + 16, fmax(n, 1 << 20));
    int batch = (int)want;
    int *perm = malloc((size_t)batch * sizeof *perm);
    int *pts = malloc((size_t)batch * (size_t)d * sizeof *pts);
    pf_rng *r = pf_rng_alloc(pf_rng_derive(seed, "geom.lhs"));
    if (!perm || !pts || !r) {
        free(perm);
        free(pts);
        pf_rng_free(r);
        return pf_fail(PF_ERR_NOMEM, "out of memory for %d Latin hypercube points", batch);
    }
    long tries = 0, cap = max_tries(n, fill);
    int i = 0;
    while (i < n && tries < cap) {
        for (int k = 0; k < d; k++) {
            for (int j = 0; j < batch; j++) perm[j] = j;
            for (int j = batch - 1; j > 0; j--) { /* Fisher-Yates */
                int s = (int)pf_rng_int(r, (uint64_t)j + 1), t = perm[j];
                perm[j] = perm[s];
                perm[s] = t;
            }
            for (int j = 0; j < batch; j++) pts[(size_t)j * d + k] = perm[j];
        }
        for (int j = 0; j < batch && i < n; j++) {
            double x[PF_GEOM_MAX_DIM];
            const int *p = &pts[(size_t)j * d];
            for (int k = 0; k < d; k++) {
                double w = (g->hi[k] - g->lo[k]) / batch;
                x[k] = g->lo[k] + (p[k] + pf_rng_uniform(r)) * w;
            }
            tries++;
            if (!whole && pf_geom_sdf(g, x) > 0) continue;
            pf_real *o = dst + (size_t)stride * i++;
            for (int k = 0; k < d; k++) {
                double w = (g->hi[k] - g->lo[k]) / batch;
                o[k] = real_in(x[k], g->lo[k] + p[k] * w, g->lo[k] + (p[k] + 1) * w);
            }
        }
    }
    free(perm);
    free(pts);
    pf_rng_free(r);
    return i == n ? PF_OK : too_few(g, i, n);
}

/* The first primes: the bases of the radical-inverse coordinates. */
static const unsigned primes[PF_GEOM_MAX_DIM] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53};

/* The radical inverse of i in base b: the base-b digits of i mirrored about
 * the radix point. Integer digits over an exact power of b, one division:
 * b^digits <= b i < 2^53 for every i a sampler can ask for. */
static double radical_inverse(uint64_t i, unsigned b)
{
    uint64_t rev = 0, den = 1;
    for (; i; i /= b) {
        rev = rev * b + i % b;
        den *= b;
    }
    return (double)rev / (double)den;
}

/* Point i of the n-point Hammersley set in the unit cube [0, 1)^d, as
 * DeepXDE draws it (skopt's Hammersly, the first point skipped): index
 * j = i + 1; coordinates 0..d-2 are the radical inverses of j in the first
 * d - 1 primes and the last is j / (n + 1); in 1-D, the radical inverse of
 * j in base 2. */
static void hammersley_unit(uint64_t i, uint64_t n, int d, double *u)
{
    uint64_t j = i + 1;
    if (d == 1) {
        u[0] = radical_inverse(j, 2);
        return;
    }
    for (int k = 0; k < d - 1; k++) u[k] = radical_inverse(j, primes[k]);
    u[d - 1] = (double)j / (double)(n + 1);
}

/* A map from the unit cube onto a shape: false when the image is rejected. */
typedef bool (*unit_map)(const void *ctx, const double *u, double *x, double *nrm);

/* n points of a Hammersley set in du dimensions mapped by f: the smallest
 * N-point set (N = n0 first, then grown from the kept fraction, at most cap)
 * with m >= n kept images, thinned evenly by index to n of them (ranks
 * floor(j m / n)), so the last coordinate stays evenly spread. Points go to
 * dst (d coordinates, row stride `stride`), normals to nst when not NULL.
 * False when cap is reached; *kept is then the last m. */
static bool hammersley_mapped(int du, int n, uint64_t n0, uint64_t cap, unit_map f, const void *ctx,
                              int d, pf_real *dst, pf_real *nst, int stride, uint64_t *kept)
{
    double u[PF_GEOM_MAX_DIM + 1], x[PF_GEOM_MAX_DIM], nrm[PF_GEOM_MAX_DIM];
    uint64_t N = n0 > (uint64_t)n ? n0 : (uint64_t)n, m = 0;
    for (;;) {
        m = 0;
        for (uint64_t i = 0; i < N; i++) {
            if (du) hammersley_unit(i, N, du, u);
            m += f(ctx, u, x, NULL);
        }
        *kept = m;
        if (m >= (uint64_t)n) break;
        uint64_t next = m ? (uint64_t)ceil(1.02 * (double)N * n / (double)m) + 16 : 4 * N;
        if (next > cap) return false;
        N = next;
    }
    uint64_t rank = 0, j = 0;
    for (uint64_t i = 0; i < N && j < (uint64_t)n; i++) {
        if (du) hammersley_unit(i, N, du, u);
        if (!f(ctx, u, x, nst ? nrm : NULL)) continue;
        if (rank++ != j * m / (uint64_t)n) continue;
        store(dst + (size_t)stride * j, x, d);
        if (nst) store(nst + (size_t)stride * j, nrm, d);
        j++;
    }
    PF_ASSERT(j == (uint64_t)n);
    return true;
}

/* the bounding box of g, keeping the points in g */
static bool bbox_map(const void *ctx, const double *u, double *x, double *nrm)
{
    const pf_geom *g = ctx;
    (void)nrm;
    for (int k = 0; k < g->dim; k++) x[k] = g->lo[k] + u[k] * (g->hi[k] - g->lo[k]);
    return fills_bbox(g) || pf_geom_sdf(g, x) <= 0;
}

/* A box (or box x time): the n-point set scaled to it. Any other shape: the
 * smallest N-point set over the bounding box (N grown from n / fill) with at
 * least n points inside, thinned evenly by index to n of its m inside
 * points (ranks floor(j m / n)), so the last coordinate stays evenly spread. */
static pf_status interior_hammersley(const pf_geom *g, int n, pf_real *dst, int stride)
{
    double fill = pf_geom_fill_fraction(g);
    uint64_t n0 = fills_bbox(g) ? (uint64_t)n : (uint64_t)ceil(1.02 * n / fill) + 16, m;
    if (!hammersley_mapped(g->dim, n, n0, (uint64_t)max_tries(n, fill), bbox_map, g, g->dim, dst, NULL,
                           stride, &m))
        return too_few(g, (int)m, n);
    return PF_OK;
}

/* ------------------------------------------------------------ grids */

static double grid_coord(pf_grid_kind kind, double lo, double hi, int m, int k)
{
    switch (kind) {
    case PF_GRID_INTERIOR: return (k + 1) * ((hi - lo) / (m + 1)) + lo; /* numpy's order */
    case PF_GRID_CLOSED: return k == m - 1 ? hi : k * ((hi - lo) / (m - 1)) + lo;
    case PF_GRID_CELL: return lo + (k + 0.5) * ((hi - lo) / m);
    case PF_GRID_KIND_COUNT: break;
    }
    return NAN;
}

/* The grid over [lo, hi] (d axes, counts[k] points each), inside points of
 * g only unless `all`; C order. */
static pf_status grid_build(const pf_geom *g, int d, const double *lo, const double *hi,
                            const int *counts, pf_grid_kind kind, bool all, pf_point_set *out)
{
    if (kind < 0 || kind >= PF_GRID_KIND_COUNT)
        return pf_fail(PF_ERR_INVALID, "grid kind %d is out of range", (int)kind);
    double total = 1;
    for (int k = 0; k < d; k++) {
        int least = kind == PF_GRID_CLOSED ? 2 : 1;
        if (counts[k] < least)
            return pf_fail(PF_ERR_INVALID, "grid count %d on axis %d must be at least %d",
                           counts[k], k, least);
        total *= counts[k];
    }
    if (total > PF_SAMPLE_MAX_POINTS)
        return pf_fail(PF_ERR_INVALID, "grid of %.0f points is larger than %d", total,
                       PF_SAMPLE_MAX_POINTS);
    PF_TRY(set_alloc(out, (int)total, d, false, false));
    int idx[PF_GEOM_MAX_DIM] = {0};
    double x[PF_GEOM_MAX_DIM];
    int kept = 0;
    for (long j = 0; j < (long)total; j++) {
        for (int k = 0; k < d; k++) x[k] = grid_coord(kind, lo[k], hi[k], counts[k], idx[k]);
        if (all || pf_geom_sdf(g, x) <= g->tol) store(out->x + (size_t)d * kept++, x, d);
        for (int k = d - 1; k >= 0; k--) { /* odometer, last axis fastest */
            if (++idx[k] < counts[k]) break;
            idx[k] = 0;
        }
    }
    out->n = kept;
    return PF_OK;
}

pf_status pf_sample_grid(const pf_geom *g, const int *counts, pf_grid_kind kind,
                         pf_point_set *out)
{
    pf_point_set_release(out);
    return grid_build(g, g->dim, g->lo, g->hi, counts, kind, fills_bbox(g), out);
}

/* DeepXDE's per-axis counts for about n points on the box [lo, hi]. */
static void box_counts(int d, const double *lo, const double *hi, double n, int *counts)
{
    double vol = 1;
    for (int k = 0; k < d; k++) vol *= hi[k] - lo[k];
    double dx = pow(vol / n, 1.0 / d);
    for (int k = 0; k < d; k++) {
        double m = ceil((hi[k] - lo[k]) / dx);
        counts[k] = m < 1 ? 1 : m > PF_SAMPLE_MAX_POINTS ? PF_SAMPLE_MAX_POINTS : (int)m;
    }
}

static pf_status grid_about(const pf_geom *g, int n, pf_point_set *out)
{
    if (n == 0) return set_alloc(out, 0, g->dim, false, false);
    int counts[PF_GEOM_MAX_DIM];
    box_counts(g->dim, g->lo, g->hi, n / pf_geom_fill_fraction(g), counts);
    return grid_build(g, g->dim, g->lo, g->hi, counts, PF_GRID_INTERIOR, fills_bbox(g), out);
}

pf_status pf_sample_grid_pinnacle(const pf_geom *g, int n, pf_point_set *out)
{
    pf_point_set_release(out);
    PF_TRY(check_count(n));
    if (n == 0) return pf_fail(PF_ERR_INVALID, "PINNacle grid needs n > 0");
    if (g->kind == GEOM_BOX) {
        int counts[PF_GEOM_MAX_DIM];
        box_counts(g->dim, g->lo, g->hi, n, counts);
        return grid_build(g, g->dim, g->lo, g->hi, counts, PF_GRID_INTERIOR, true, out);
    }
    if (g->kind != GEOM_SPACE_TIME || g->a->kind != GEOM_BOX)
        return pf_fail(PF_ERR_UNSUPPORTED,
                       "PINNacle's grid exists only for a box or a box x time");
    const pf_geom *s = g->a;
    int ds = s->dim;
    double T = g->t1 - g->t0;
    double nxr = ceil(sqrt(n * s->volume / T)); /* the requested spatial count */
    int nt = (int)ceil(n / nxr);
    int counts[PF_GEOM_MAX_DIM];
    box_counts(ds, s->lo, s->hi, nxr, counts);
    pf_point_set sp = {0};
    PF_TRY(grid_build(s, ds, s->lo, s->hi, counts, PF_GRID_INTERIOR, true, &sp));
    if ((double)sp.n * nt > PF_SAMPLE_MAX_POINTS) {
        pf_point_set_release(&sp);
        return pf_fail(PF_ERR_INVALID, "PINNacle grid for n = %d is too large", n);
    }
    pf_status st = set_alloc(out, sp.n * nt, ds + 1, false, false);
    for (int j = 0; st == PF_OK && j < nt; j++) {
        pf_real t = (pf_real)(j * ((g->t0 - g->t1) / nt) + g->t1); /* numpy linspace(t1, t0) */
        for (int i = 0; i < sp.n; i++) {
            pf_real *o = out->x + ((size_t)j * sp.n + i) * (ds + 1);
            memcpy(o, sp.x + (size_t)i * ds, (size_t)ds * sizeof *o);
            o[ds] = t;
        }
    }
    pf_point_set_release(&sp);
    return st;
}

/* ------------------------------------------------------------ interior API */

/* n points of g into dst (row stride `stride` >= g->dim) by a random or
 * quasi-random method. */
static pf_status fill_interior(const pf_geom *g, pf_sample_method m, int n, uint64_t seed,
                               pf_real *dst, int stride)
{
    if (n == 0) return PF_OK;
    switch (m) {
    case PF_SAMPLE_UNIFORM: return interior_uniform(g, n, seed, dst, stride);
    case PF_SAMPLE_SOBOL: return interior_sobol(g, n, seed, dst, stride);
    case PF_SAMPLE_LHS: return interior_lhs(g, n, seed, dst, stride);
    case PF_SAMPLE_HAMMERSLEY: return interior_hammersley(g, n, dst, stride);
    case PF_SAMPLE_GRID:
    case PF_SAMPLE_METHOD_COUNT: break;
    }
    return pf_fail(PF_ERR_INVALID, "sampling method %d is out of range", (int)m);
}

static pf_status check_method(pf_sample_method m)
{
    if (m < 0 || m >= PF_SAMPLE_METHOD_COUNT)
        return pf_fail(PF_ERR_INVALID, "sampling method %d is out of range", (int)m);
    return PF_OK;
}

pf_status pf_sample_interior(const pf_geom *g, pf_sample_method method, int n, uint64_t seed,
                             pf_point_set *out)
{
    pf_point_set_release(out);
    PF_TRY(check_count(n));
    PF_TRY(check_method(method));
    if (method == PF_SAMPLE_GRID) return grid_about(g, n, out);
    PF_TRY(set_alloc(out, n, g->dim, false, false));
    pf_status st = fill_interior(g, method, n, seed, out->x, g->dim);
    if (st != PF_OK) pf_point_set_release(out);
    return st;
}

pf_status pf_sample_initial(const pf_geom *g, pf_sample_method method, int n, uint64_t seed,
                            unsigned flags, pf_point_set *out)
{
    pf_point_set_release(out);
    PF_TRY(check_count(n));
    PF_TRY(check_method(method));
    if (g->kind != GEOM_SPACE_TIME)
        return pf_fail(PF_ERR_INVALID, "initial points need a space x time geometry");
    const pf_geom *s = g->a;
    int ds = s->dim, d = g->dim;
    pf_status st;
    if (method == PF_SAMPLE_GRID) {
        pf_point_set sp = {0};
        PF_TRY(grid_about(s, n, &sp));
        st = set_alloc(out, sp.n, d, flags & PF_SAMPLE_NORMALS, true);
        for (int i = 0; st == PF_OK && i < sp.n; i++)
            memcpy(out->x + (size_t)i * d, sp.x + (size_t)i * ds, (size_t)ds * sizeof *sp.x);
        pf_point_set_release(&sp);
    } else {
        st = set_alloc(out, n, d, flags & PF_SAMPLE_NORMALS, true);
        if (st == PF_OK) st = fill_interior(s, method, n, seed, out->x, d);
    }
    if (st != PF_OK) {
        pf_point_set_release(out);
        return st;
    }
    int initial = -1;
    for (int p = 0; p < g->npart; p++)
        if (g->part_time[p] && !strcmp(g->part_name[p], "initial")) initial = p;
    for (int i = 0; i < out->n; i++) {
        out->x[(size_t)i * d + ds] = (pf_real)g->t0;
        out->part[i] = initial;
        if (out->normal)
            for (int k = 0; k < d; k++) out->normal[(size_t)i * d + k] = k == ds ? -1 : 0;
    }
    return PF_OK;
}

/* ------------------------------------------------------------ boundary */

typedef struct share {
    int piece;
    double frac; /* fractional part of its exact share */
} share;

/* larger remainder first, then lower piece index: a total order */
static int share_cmp(const void *pa, const void *pb)
{
    const share *a = pa, *b = pb;
    if (a->frac != b->frac) return a->frac > b->frac ? -1 : 1;
    return a->piece - b->piece;
}

typedef struct piece_ctx {
    const pf_geom *g;
    const geom_piece *p;
} piece_ctx;

static bool piece_map(const void *ctx, const double *u, double *x, double *nrm)
{
    const piece_ctx *c = ctx;
    return pf_geom_piece_map(c->g, c->p, u, x, nrm);
}

/* count points of piece p by `method` (Hammersley, or uniform draws from r)
 * into out from row i on. */
static pf_status piece_points(const pf_geom *g, const geom_piece *p, pf_sample_method method, int count,
                              pf_rng *r, pf_point_set *out, int i)
{
    int d = g->dim;
    long cap = 20000l * count + 100000;
    pf_real *nst = out->normal ? out->normal + (size_t)i * d : NULL;
    for (int c = 0; c < count; c++) out->part[i + c] = p->part;
    if (method == PF_SAMPLE_HAMMERSLEY) {
        piece_ctx ctx = {g, p};
        uint64_t m;
        if (count == 0 || hammersley_mapped(pf_geom_piece_udim(p), count, (uint64_t)count, (uint64_t)cap,
                                            piece_map, &ctx, d, out->x + (size_t)i * d, nst, d, &m))
            return PF_OK;
        return pf_fail(PF_ERR_NUMERIC, "cannot place points on part '%s'", g->part_name[p->part]);
    }
    long tries = 0;
    double x[PF_GEOM_MAX_DIM], nrm[PF_GEOM_MAX_DIM];
    for (int c = 0; c < count;) {
        if (tries++ >= cap)
            return pf_fail(PF_ERR_NUMERIC, "cannot place points on part '%s'", g->part_name[p->part]);
        if (!pf_geom_piece_try(g, p, r, x, nst ? nrm : NULL)) continue;
        store(out->x + (size_t)(i + c) * d, x, d);
        if (nst) store(nst + (size_t)c * d, nrm, d);
        c++;
    }
    return PF_OK;
}

pf_status pf_sample_boundary(const pf_geom *g, pf_sample_method method, const char *parts, int n,
                             uint64_t seed, unsigned flags, pf_point_set *out)
{
    pf_point_set_release(out);
    PF_TRY(check_count(n));
    PF_TRY(check_method(method));
    bool *sel = malloc((size_t)g->npart * sizeof *sel);
    int *order = malloc((size_t)g->npiece * sizeof *order);
    int *count = calloc((size_t)g->npiece, sizeof *count);
    share *sh = malloc((size_t)g->npiece * sizeof *sh);
    pf_rng *r = NULL;
    pf_status st = PF_OK;
    if (!sel || !order || !count || !sh) {
        st = pf_fail(PF_ERR_NOMEM, "out of memory sampling a boundary");
        goto done;
    }
    if ((st = pf_geom_parts_select(g, parts, sel)) != PF_OK) goto done;

    /* the selected pieces, grouped by part in part order */
    int np = 0;
    double total = 0;
    for (int p = 0; p < g->npart; p++)
        for (int k = 0; sel[p] && k < g->npiece; k++)
            if (g->piece[k].part == p) {
                order[np++] = k;
                total += g->piece[k].measure;
            }
    if (!(total > 0)) {
        st = pf_fail(PF_ERR_INVALID, "boundary selection '%s' has zero measure",
                     parts ? parts : "");
        goto done;
    }
    /* Shares by largest remainder (Hamilton): deterministic, and each piece
     * gets floor or ceil of its exact share n m_i / M, so the proportions
     * hold to one point rather than to the sqrt(n) noise of a multinomial. */
    int given = 0;
    for (int j = 0; j < np; j++) {
        double q = n * (g->piece[order[j]].measure / total);
        count[j] = (int)floor(q);
        given += count[j];
        sh[j] = (share){.piece = j, .frac = q - count[j]};
    }
    qsort(sh, (size_t)np, sizeof *sh, share_cmp);
    for (int j = 0; given < n; j = (j + 1) % np, given++) count[sh[j].piece]++;

    if ((st = set_alloc(out, n, g->dim, flags & PF_SAMPLE_NORMALS, true)) != PF_OK) goto done;
    r = pf_rng_alloc(pf_rng_derive(seed, "geom.boundary"));
    if (!r) {
        st = pf_fail(PF_ERR_NOMEM, "out of memory for a random generator");
        goto done;
    }
    for (int j = 0, i = 0; j < np; i += count[j++])
        if ((st = piece_points(g, &g->piece[order[j]], method, count[j], r, out, i)) != PF_OK) goto done;
done:
    if (st != PF_OK) pf_point_set_release(out);
    pf_rng_free(r);
    free(sel);
    free(order);
    free(count);
    free(sh);
    return st;
}
