/* sgd.c — plain gradient descent (sgd.h). */
#include "train/sgd.h"

#include <stdlib.h>

#include "core/status.h"

struct pf_sgd {
    const pf_backend *be;
    size_t n;
    pf_real *lr; /* [1] backend memory */
};

pf_sgd *pf_sgd_alloc_on(const pf_backend *be, size_t n)
{
    PF_ASSERT(n > 0);
    pf_sgd *s = calloc(1, sizeof *s);
    void *lr = NULL;
    if (!s || be->alloc(sizeof(pf_real), &lr) != PF_OK) {
        free(s);
        pf_fail(PF_ERR_NOMEM, "sgd: out of memory on %s", be->name);
        return NULL;
    }
    *s = (pf_sgd){.be = be, .n = n, .lr = lr};
    return s;
}

void pf_sgd_free(pf_sgd *s)
{
    if (!s) return;
    s->be->free(s->lr);
    free(s);
}

void pf_sgd_prepare(pf_sgd *s, double lr)
{
    pf_real v = (pf_real)lr;
    s->be->upload(s->lr, &v, sizeof v);
}

void pf_sgd_apply(pf_sgd *s, pf_real *params, const pf_real *grads) { s->be->sgd(params, grads, s->n, s->lr); }

void pf_sgd_step(pf_sgd *s, pf_real *params, const pf_real *grads, double lr)
{
    pf_sgd_prepare(s, lr);
    pf_sgd_apply(s, params, grads);
}
