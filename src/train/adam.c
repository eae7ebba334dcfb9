#include "train/adam.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>


struct pf_adam {
    const pf_backend *be;
    size_t n;
    pf_adam_config cfg;
    long t;
    double sign;     /* 1 descends, -1 climbs */
    pf_real *mv;     /* [2n]: m then v (backend memory) */
    pf_real *coef;   /* [PF_ADAM_NCOEF] (backend memory) */
};

pf_adam_config pf_adam_config_default(void)
{
    return (pf_adam_config){.beta1 = 0.9, .beta2 = 0.999, .eps = 1e-8, .weight_decay = 0.0,
                            .decoupled = false};
}

pf_adam_config pf_adamw_config_default(void)
{
    pf_adam_config c = pf_adam_config_default();
    c.weight_decay = 0.01;
    c.decoupled = true;
    return c;
}

pf_status pf_adam_config_check(const pf_adam_config *cfg)
{
    if (!(cfg->beta1 >= 0 && cfg->beta1 < 1) || !(cfg->beta2 >= 0 && cfg->beta2 < 1))
        return pf_fail(PF_ERR_INVALID, "adam: betas must be in [0, 1), not (%g, %g)", cfg->beta1,
                       cfg->beta2);
    if (!(cfg->eps > 0))
        return pf_fail(PF_ERR_INVALID, "adam: eps must be positive, not %g", cfg->eps);
    if (!(cfg->weight_decay >= 0 && isfinite(cfg->weight_decay)))
        return pf_fail(PF_ERR_INVALID, "adam: weight_decay must be >= 0, not %g",
                       cfg->weight_decay);
    return PF_OK;
}

pf_adam *pf_adam_alloc_on(const pf_backend *be, size_t n, const pf_adam_config *cfg)
{
    PF_ASSERT(n > 0 && cfg != NULL);
    if (pf_adam_config_check(cfg) != PF_OK) return NULL;
    pf_adam *a = calloc(1, sizeof *a);
    if (!a) {
        pf_fail(PF_ERR_NOMEM, "adam: out of memory");
        return NULL;
    }
    *a = (pf_adam){.be = be, .n = n, .cfg = *cfg, .t = 0, .sign = 1};
    void *mv = NULL, *coef = NULL;
    if (n > SIZE_MAX / (2 * sizeof(pf_real)) || be->alloc(2 * n * sizeof(pf_real), &mv) != PF_OK ||
        be->alloc(PF_ADAM_NCOEF * sizeof(pf_real), &coef) != PF_OK) {
        if (mv) be->free(mv);
        free(a);
        pf_fail(PF_ERR_NOMEM, "adam: cannot allocate moments for %zu parameters on %s", n, be->name);
        return NULL;
    }
    a->mv = mv;
    a->coef = coef;
    pf_adam_reset(a);
    return a;
}

pf_adam *pf_adam_alloc(size_t n, const pf_adam_config *cfg)
{
    return pf_adam_alloc_on(pf_backend_cpu(), n, cfg);
}

void pf_adam_free(pf_adam *a)
{
    if (!a) return;
    a->be->free(a->mv);
    a->be->free(a->coef);
    free(a);
}

void pf_adam_reset(pf_adam *a)
{
    a->be->zero(a->mv, 2 * a->n * sizeof(pf_real));
    a->t = 0;
}

void pf_adam_set_ascent(pf_adam *a, bool ascent) { a->sign = ascent ? -1 : 1; }

void pf_adam_prepare(pf_adam *a, double lr)
{
    const pf_adam_config *c = &a->cfg;
    a->t++;
    /* Scalars in double, arranged as torch's single-tensor Adam:
     * step_size = lr / bc1, denom = sqrt(v) / sqrt(bc2) + eps. */
    const double bc1 = 1.0 - pow(c->beta1, (double)a->t);
    const double bc2 = 1.0 - pow(c->beta2, (double)a->t);
    pf_real k[PF_ADAM_NCOEF];
    k[PF_ADAM_B1] = (pf_real)c->beta1;
    k[PF_ADAM_B2] = (pf_real)c->beta2;
    k[PF_ADAM_ONE_B1] = (pf_real)(1.0 - c->beta1);
    k[PF_ADAM_ONE_B2] = (pf_real)(1.0 - c->beta2);
    k[PF_ADAM_STEP] = (pf_real)(lr / bc1);
    k[PF_ADAM_BC2_SQRT] = (pf_real)sqrt(bc2);
    k[PF_ADAM_EPS] = (pf_real)c->eps;
    k[PF_ADAM_SHRINK] = (pf_real)(c->decoupled ? 1.0 - lr * c->weight_decay : 1.0);
    k[PF_ADAM_L2] = (pf_real)(c->decoupled ? 0.0 : c->weight_decay);
    k[PF_ADAM_SIGN] = (pf_real)a->sign;
    a->be->upload(a->coef, k, sizeof k);
}

void pf_adam_apply(pf_adam *a, pf_real *params, const pf_real *grads)
{
    a->be->adam(params, grads, a->mv, a->n, a->coef);
}

void pf_adam_step(pf_adam *a, pf_real *params, const pf_real *grads, double lr)
{
    pf_adam_prepare(a, lr);
    pf_adam_apply(a, params, grads);
}

void pf_adam_set_step_count(pf_adam *a, long t)
{
    PF_ASSERT(t >= 0);
    a->t = t;
}

pf_real *pf_adam_moments(pf_adam *a) { return a->mv; }
size_t pf_adam_size(const pf_adam *a) { return a->n; }
long pf_adam_step_count(const pf_adam *a) { return a->t; }

double pf_clip_grad_norm(pf_real *grads, size_t n, double max_norm)
{
    PF_ASSERT(max_norm >= 0);
    double norm;
    pf_backend_cpu()->clip_norm(grads, n, max_norm, &norm);
    return norm;
}

void pf_clip_grad_value(pf_real *grads, size_t n, double clip_value)
{
    PF_ASSERT(clip_value >= 0);
    const pf_real hi = (pf_real)clip_value, lo = -hi;
#pragma omp parallel for schedule(static) if (n > PF_TRAIN_PARALLEL_MIN)
    for (size_t i = 0; i < n; i++) grads[i] = grads[i] > hi ? hi : grads[i] < lo ? lo : grads[i];
}
