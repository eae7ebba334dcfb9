#include "stats/holm.h"

#include <math.h>
#include <stdlib.h>

typedef struct idx_p {
    double p;
    int i;
} idx_p;

static int cmp(const void *a, const void *b)
{
    const idx_p *x = a, *y = b;
    if (x->p != y->p) return (x->p > y->p) - (x->p < y->p);
    return x->i - y->i;
}

pf_status pf_holm(const double *p, int m, double *adj)
{
    idx_p *s = malloc((size_t)(m > 0 ? m : 1) * sizeof *s);
    if (!s) return pf_fail(PF_ERR_NOMEM, "holm: out of memory");
    int n = 0;
    for (int j = 0; j < m; j++) {
        adj[j] = NAN;
        if (!isnan(p[j])) s[n++] = (idx_p){p[j], j};
    }
    qsort(s, (size_t)n, sizeof *s, cmp);
    double run = 0;
    for (int i = 0; i < n; i++) {
        double a = fmin(1.0, (double)(n - i) * s[i].p);
        run = fmax(run, a);
        adj[s[i].i] = run;
    }
    free(s);
    return PF_OK;
}
