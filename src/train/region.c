/* region.c — RoPINN's region optimization (region.h; Wu et al. 2024,
 * reconstructed from the paper and thuml/RoPINN's released scripts). */
#include "train/region.h"

#include <math.h>
#include <stdlib.h>

#include "core/mem.h"

struct pf_region {
    const pf_backend *be;
    pf_region_config c;
    size_t n;          /* network scalars */
    pf_real *ring;     /* backend: history x n */
    double *state;     /* backend: [pushes, sigma] */
    pf_rng *rng;
    pf_real *buf;      /* host: the step's points */
    size_t cap;        /* pf_reals buf holds */
    double sigma, radius;
};

double pf_region_radius(const pf_region_config *c, double sigma)
{
    double r = c->r0 / sigma;
    if (!(r > 0)) return 0; /* NaN, or a negative sigma (never produced) */
    return r > c->max_radius ? c->max_radius : r;
}

int pf_region_perturb(const pf_geom *g, double r, pf_rng *rng, const pf_real *x, int n, int d, pf_real *out)
{
    PF_ASSERT(d > 0 && d <= PF_GEOM_MAX_DIM && d == pf_geom_dim(g));
    double lo[PF_GEOM_MAX_DIM], hi[PF_GEOM_MAX_DIM], y[PF_GEOM_MAX_DIM];
    pf_geom_bbox(g, lo, hi);
    int kept = 0;
    for (int i = 0; i < n; i++) {
        const pf_real *xi = x + (size_t)i * d;
        pf_real *o = out + (size_t)i * d;
        for (int k = 0; k < d; k++) {
            double v = (double)xi[k] + r * pf_rng_uniform(rng);
            y[k] = v < lo[k] ? lo[k] : v > hi[k] ? hi[k] : v;
        }
        bool in = pf_geom_sdf(g, y) <= 0;
        kept += !in;
        for (int k = 0; k < d; k++) o[k] = in ? (pf_real)y[k] : xi[k];
    }
    return kept;
}

pf_region *pf_region_alloc_on(const pf_backend *be, size_t n, const pf_region_config *c, uint64_t seed)
{
    if (c->history < 1 || !(c->r0 > 0) || !(c->max_radius > 0) || n == 0) {
        pf_fail(PF_ERR_INVALID, "region optimization: history %d must be >= 1, r0 %g and max_radius %g > 0, "
                "and the network must have parameters", c->history, c->r0, c->max_radius);
        return NULL;
    }
    pf_region *rg = calloc(1, sizeof *rg);
    if (!rg) {
        pf_fail(PF_ERR_NOMEM, "out of memory");
        return NULL;
    }
    rg->be = be;
    rg->c = *c;
    rg->n = n;
    rg->sigma = 1;
    rg->radius = NAN;
    void *ring = NULL, *state = NULL;
    pf_status st = be->alloc(sizeof(pf_real) * n * (size_t)c->history, &ring);
    rg->ring = ring;
    if (st == PF_OK) st = be->alloc(2 * sizeof(double), &state);
    rg->state = state;
    rg->rng = st == PF_OK ? pf_rng_alloc(pf_rng_derive(seed, PF_REGION_RNG_TAG)) : NULL;
    if (st == PF_OK && !rg->rng) st = pf_fail(PF_ERR_NOMEM, "out of memory for a random generator");
    if (st != PF_OK) {
        pf_region_free(rg);
        return NULL;
    }
    return rg;
}

void pf_region_free(pf_region *rg)
{
    if (!rg) return;
    if (rg->ring) rg->be->free(rg->ring);
    if (rg->state) rg->be->free(rg->state);
    pf_rng_free(rg->rng);
    free(rg->buf);
    free(rg);
}

pf_status pf_region_draw(pf_region *rg, const pf_geom *g, const pf_real *x, int n, int d, const pf_real **out)
{
    size_t need = (size_t)n * (size_t)d;
    if (need > rg->cap) {
        pf_real *b = pf_aligned_alloc(sizeof(pf_real) * need);
        if (!b) return pf_fail(PF_ERR_NOMEM, "out of memory for %d perturbed points", n);
        free(rg->buf);
        rg->buf = b;
        rg->cap = need;
    }
    rg->radius = pf_region_radius(&rg->c, rg->sigma);
    pf_region_perturb(g, rg->radius, rg->rng, x, n, d, rg->buf);
    *out = rg->buf;
    return PF_OK;
}

void pf_region_push(pf_region *rg, const pf_real *g)
{
    rg->be->grad_noise(rg->ring, rg->n, rg->c.history, g, rg->state);
}

double pf_region_read(pf_region *rg)
{
    rg->be->download(&rg->sigma, rg->state + 1, sizeof rg->sigma);
    return rg->sigma;
}

double pf_region_sigma(const pf_region *rg) { return rg->sigma; }

double pf_region_last_radius(const pf_region *rg) { return rg->radius; }
