/* multiadam.c — MultiAdam as G Adam updates of step lr / G (multiadam.h). */
#include "train/multiadam.h"

#include <stdlib.h>

struct pf_multiadam {
    int groups;
    pf_adam *adam[PF_MULTIADAM_MAX_GROUPS]; /* group k's moments and coefficients */
};

pf_adam_config pf_multiadam_config_default(void)
{
    pf_adam_config c = pf_adam_config_default();
    c.beta1 = 0.99;
    c.beta2 = 0.99;
    return c;
}

pf_multiadam *pf_multiadam_alloc_on(const pf_backend *be, size_t n, int groups, const pf_adam_config *cfg)
{
    PF_ASSERT(n > 0 && cfg != NULL);
    PF_ASSERT(groups >= 1 && groups <= PF_MULTIADAM_MAX_GROUPS);
    if (cfg->weight_decay != 0) {
        pf_fail(PF_ERR_INVALID, "multiadam: weight decay is not supported (got %g)", cfg->weight_decay);
        return NULL;
    }
    pf_multiadam *m = calloc(1, sizeof *m);
    if (!m) {
        pf_fail(PF_ERR_NOMEM, "multiadam: out of memory");
        return NULL;
    }
    m->groups = groups;
    for (int k = 0; k < groups; k++)
        if (!(m->adam[k] = pf_adam_alloc_on(be, n, cfg))) {
            pf_multiadam_free(m);
            return NULL;
        }
    return m;
}

void pf_multiadam_free(pf_multiadam *m)
{
    if (!m) return;
    for (int k = 0; k < m->groups; k++) pf_adam_free(m->adam[k]);
    free(m);
}

int pf_multiadam_groups(const pf_multiadam *m) { return m->groups; }
long pf_multiadam_step_count(const pf_multiadam *m) { return pf_adam_step_count(m->adam[0]); }

pf_real *pf_multiadam_moments(pf_multiadam *m, int k)
{
    PF_ASSERT(k >= 0 && k < m->groups);
    return pf_adam_moments(m->adam[k]);
}

void pf_multiadam_prepare(pf_multiadam *m, double lr)
{
    for (int k = 0; k < m->groups; k++) pf_adam_prepare(m->adam[k], lr / m->groups);
}

void pf_multiadam_apply(pf_multiadam *m, pf_real *params, const pf_real *const *grads)
{
    for (int k = 0; k < m->groups; k++) pf_adam_apply(m->adam[k], params, grads[k]);
}

void pf_multiadam_step(pf_multiadam *m, pf_real *params, const pf_real *const *grads, double lr)
{
    pf_multiadam_prepare(m, lr);
    pf_multiadam_apply(m, params, grads);
}
