#include "train/adam.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"

#ifdef PF_DOUBLE
#define real_sqrt sqrt
#else
#define real_sqrt sqrtf
#endif

struct pf_adam {
    size_t n;
    pf_adam_config cfg;
    long t;
    pf_real *mv; /* [2n]: m then v */
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

pf_adam *pf_adam_alloc(size_t n, const pf_adam_config *cfg)
{
    PF_ASSERT(n > 0 && cfg != NULL);
    if (pf_adam_config_check(cfg) != PF_OK) return NULL;
    pf_adam *a = malloc(sizeof *a);
    pf_real *mv = n <= SIZE_MAX / (2 * sizeof(pf_real)) ? pf_aligned_alloc(2 * n * sizeof(pf_real))
                                                        : NULL;
    if (!a || !mv) {
        free(a);
        free(mv);
        pf_fail(PF_ERR_NOMEM, "adam: cannot allocate moments for %zu parameters", n);
        return NULL;
    }
    *a = (pf_adam){.n = n, .cfg = *cfg, .t = 0, .mv = mv};
    pf_adam_reset(a);
    return a;
}

void pf_adam_free(pf_adam *a)
{
    if (!a) return;
    free(a->mv);
    free(a);
}

void pf_adam_reset(pf_adam *a)
{
    memset(a->mv, 0, 2 * a->n * sizeof(pf_real));
    a->t = 0;
}

void pf_adam_step(pf_adam *a, pf_real *params, const pf_real *grads, double lr)
{
    const size_t n = a->n;
    const pf_adam_config *c = &a->cfg;
    a->t++;
    /* Scalars in double, arranged as torch's single-tensor Adam:
     * step_size = lr / bc1, denom = sqrt(v) / sqrt(bc2) + eps. */
    const double bc1 = 1.0 - pow(c->beta1, (double)a->t);
    const double bc2 = 1.0 - pow(c->beta2, (double)a->t);
    const pf_real b1 = (pf_real)c->beta1, b2 = (pf_real)c->beta2;
    const pf_real one_b1 = (pf_real)(1.0 - c->beta1), one_b2 = (pf_real)(1.0 - c->beta2);
    const pf_real step_size = (pf_real)(lr / bc1), bc2_sqrt = (pf_real)sqrt(bc2);
    const pf_real eps = (pf_real)c->eps;
    const pf_real shrink = (pf_real)(c->decoupled ? 1.0 - lr * c->weight_decay : 1.0);
    const pf_real l2 = (pf_real)(c->decoupled ? 0.0 : c->weight_decay);
    pf_real *restrict m = a->mv, *restrict v = a->mv + n;
    pf_real *restrict p = params;
    const pf_real *restrict g = grads;

    /* No `omp simd` in this file: clang reports a forced simd loop it cannot
     * vectorize (sqrt under -fmath-errno, any loop under -fsanitize) as a
     * warning, fatal with -Werror. The compilers vectorize what they can. */
#pragma omp parallel for schedule(static) if (n > PF_TRAIN_PARALLEL_MIN)
    for (size_t i = 0; i < n; i++) {
        pf_real pi = p[i] * shrink;
        pf_real gi = g[i] + l2 * pi;
        m[i] = b1 * m[i] + one_b1 * gi;
        v[i] = b2 * v[i] + one_b2 * gi * gi;
        p[i] = pi - step_size * m[i] / (real_sqrt(v[i]) / bc2_sqrt + eps);
    }
}

void pf_adam_set_step_count(pf_adam *a, long t)
{
    PF_ASSERT(t >= 0);
    a->t = t;
}

pf_real *pf_adam_moments(pf_adam *a) { return a->mv; }
size_t pf_adam_size(const pf_adam *a) { return a->n; }
long pf_adam_step_count(const pf_adam *a) { return a->t; }

/* A fixed number of chunks, each summed serially in double, then the chunk
 * sums added in order: the result depends on n only, never on the thread
 * count (style.md section 13, "reductions are deterministic"). */
enum { NORM_CHUNKS = 256 };

double pf_clip_grad_norm(pf_real *grads, size_t n, double max_norm)
{
    PF_ASSERT(max_norm >= 0);
    double part[NORM_CHUNKS];
    const size_t chunk = (n + NORM_CHUNKS - 1) / NORM_CHUNKS;
    const pf_real *restrict g = grads;

#pragma omp parallel for schedule(static) if (n > PF_TRAIN_PARALLEL_MIN)
    for (int c = 0; c < NORM_CHUNKS; c++) {
        size_t lo = (size_t)c * chunk, hi = lo + chunk < n ? lo + chunk : n;
        double s = 0;
        for (size_t i = lo; i < hi; i++) s += (double)g[i] * (double)g[i];
        part[c] = s;
    }
    double sum = 0;
    for (int c = 0; c < NORM_CHUNKS; c++) sum += part[c];
    double norm = sqrt(sum);

    if (isfinite(norm) && norm > max_norm) {
        const pf_real scale = (pf_real)(max_norm / (norm + 1e-6));
#pragma omp parallel for schedule(static) if (n > PF_TRAIN_PARALLEL_MIN)
        for (size_t i = 0; i < n; i++) grads[i] *= scale;
    }
    return norm;
}

void pf_clip_grad_value(pf_real *grads, size_t n, double clip_value)
{
    PF_ASSERT(clip_value >= 0);
    const pf_real hi = (pf_real)clip_value, lo = -hi;
#pragma omp parallel for schedule(static) if (n > PF_TRAIN_PARALLEL_MIN)
    for (size_t i = 0; i < n; i++) grads[i] = grads[i] > hi ? hi : grads[i] < lo ? lo : grads[i];
}
